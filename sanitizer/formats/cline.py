"""Tool output that Cline-style agents (Cline, Roo Code, Kilo Code) send back as user text.

Their `api_conversation_history.json` is a list of Anthropic-shaped messages (read by the
Anthropic or the chat adapter, whichever is surer).  The agent calls a tool with XML inside its
own text (`<execute_command><command>npm test</command></execute_command>`), and the next user
message carries the result as text blocks: a header block `[execute_command for 'npm test']
Result:` (or `[attempt_completion] Result:`), then the output (`Command executed.\\nOutput:\\n…`,
a file's contents, `The tool execution failed with the following error:\\n<error>…</error>`),
then usually an `<environment_details>` block.

`mark_outputs` gives each output block after a header `Part.meta["tool_output"]`
(`{"tool": name, "args": JSON text of the target, "is_error": bool | None}`, see
`formats/base.py`), so the output rules digest and trim it as tool output, and marks the message
`meta["observation"]` when it holds nothing a person wrote, so it is never taken for the
latest ask.  Results that carry a person's words are left alone: the answer to a follow-up
question, `<feedback>` on a denied call or a completion, `<user_message>`.  The header block
itself stays (it is what marks the blocks after it on every later run).
"""

from __future__ import annotations

import json

from sanitizer.model import Message, Part, View
from sanitizer.textkit.lazy import lazy_pattern

HEADER = lazy_pattern(r"\[([a-z][a-z0-9_]*+)((?: (?:for|to|in) '[^\n]*')?)\] Result:")
_TARGET = lazy_pattern(r" (?:for|to) '(.*)' in '(.*)'|(?: (?:for|to|in) '(.*)')?")
_PERSON = lazy_pattern(r"<(?:feedback|answer|user_message)>|The user (?:provided|has provided|denied|approved)")
_FAILED = "The tool execution failed with the following error:"
_ENV = "<environment_details>"
# Tools whose result is a person's reply, not an output.
PERSON_TOOLS = {"ask_followup_question", "plan_mode_respond", "attempt_completion", "new_task", "condense",
                "ask_question", "followup"}
_KEYS = {"execute_command": "command", "search_files": "regex", "browser_action": "action",
         "use_mcp_tool": "server_name", "access_mcp_resource": "server_name", "web_fetch": "url",
         "codebase_search": "query", "switch_mode": "mode_slug", "fetch_instructions": "task"}


def header_of(text: str) -> tuple[str, str] | None:
    """(tool, JSON arguments) of a Cline result header block, or None."""
    m = HEADER.fullmatch(text.strip())
    if m is None:
        return None
    tool, rest = m.group(1), m.group(2)
    t = _TARGET.fullmatch(rest)
    args: dict[str, str] = {}
    if t is not None and t.group(1) is not None:
        args = {_KEYS.get(tool, "path"): t.group(1), "path": t.group(2)}
    elif t is not None and t.group(3) is not None:
        args = {_KEYS.get(tool, "path"): t.group(3)}
    return tool, json.dumps(args, ensure_ascii=False)


def mark_outputs(view: View) -> None:
    """Mark the tool outputs of Cline-style result messages (user text after a header block)."""
    for msg in view.messages:
        if msg.role == "user":
            _mark(view, msg)


def _mark(view: View, msg: Message) -> None:
    texts = [p for p in view.parts_of(msg) if p.kind == "text"]
    if not texts or not any(HEADER.match(p.text.lstrip()) for p in texts):
        return
    current: tuple[str, str] | None = None
    outputs: list[tuple[Part, str, str]] = []
    person = False
    for p in texts:
        head = header_of(p.text)
        if head is not None:
            current = head
            continue
        if p.text.lstrip().startswith(_ENV):
            current = None
            continue
        if current is None or current[0] in PERSON_TOOLS or _PERSON.search(p.text):
            person = person or bool(p.text.strip())
            continue
        outputs.append((p, *current))
    for p, tool, args in outputs:
        failed = True if p.text.lstrip().startswith(_FAILED) else None
        p.meta["tool_output"] = {"tool": tool, "args": args, "is_error": failed}
    if outputs and not person:
        msg.meta["observation"] = True
