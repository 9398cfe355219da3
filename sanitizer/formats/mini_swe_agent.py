"""mini-swe-agent trajectories: `{info, messages, trajectory_format}` or a bare list of messages.

Messages are plain `{role, content}` chat messages.  The agent acts through text: each assistant
turn holds a THOUGHT and one fenced ```mswea_bash_command``` (older releases: ```bash```) block,
and the next user turn carries `<returncode>…</returncode>` and `<output>…</output>`.

Decision: those observation turns stay `text` parts.  The command lives inside the assistant's
content, not in a field of its own, so there is no tool-call part a result could pair with, and
a `tool_result` without its call would be an orphan on every turn.  Instead the observation
message gets `meta["observation"] = True` and `meta["command"]` (the command it answers), and
its text parts `meta["tool_output"]`, so scopes and digest rules treat it as tool output.  Messages that DO carry native `tool_calls` /
`role: tool` (tool-calling configurations) are paired by the chat reader as usual.

`extra` (the raw model response stored next to a message) repeats the content: its string leaves
equal to the message's text are linked as copies.  `info` and everything else pass through.

Versions and record kinds covered (upstream `DefaultAgent.add_messages` / `save_traj`):

* 1.0 text layout (`trajectory_format: "mini-swe-agent-1"`, or a bare list): system / user /
  assistant messages, observations as user turns as above;
* 1.1 tool-calling layout (`"mini-swe-agent-1.1"`, mini 2.x): assistant `tool_calls` (one `bash`
  call each, `content` may be empty, `reasoning_content` on reasoning models) answered by
  `role: "tool"` messages; the final `role: "exit"` message (content = the submitted diff or the
  exception text) is an assistant text marked `meta["exit"]`, never a person's ask; the last
  submit call is never answered by design (an unanswered call, not damage);
* `extra` per message: in `extra.response` (the raw chat.completion) the content, the
  `reasoning_content` and each call's `arguments` are linked as copies of their parts; a tool
  message's `extra.raw_output` (the output before the `<returncode>` wrapper) is linked as a copy
  of its result, so a rule processes it too; `extra.submission` equal to the exit text is linked.
  Every other `extra` key (`actions`, `cost`, `traceback` …) passes through.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import regex

from sanitizer.formats.base import mark_output, message_list, string_leaves
from sanitizer.formats.openai_chat import ChatMessages, chat_score, looks_like_chat_message, read_chat_message
from sanitizer.model import Document, Part, Path, View
from sanitizer.textkit.lazy import lazy_pattern

COMMAND_BLOCK = lazy_pattern(r"```(?:mswea_bash_command|bash)[ \t]*\r?\n(.*?)\r?\n?```", regex.DOTALL)
RETURNCODE = "<returncode>"
REJECTED = "Command not executed."  # interactive mode: the person rejected the command, with a message


def command_in(text: str) -> str | None:
    """The (last) command block of an assistant turn."""
    found = COMMAND_BLOCK.findall(text)
    return found[-1].strip() if found else None


def _is_exit(m: Any) -> bool:
    return isinstance(m, dict) and m.get("role") == "exit"


def _text(m: Any) -> str:
    content = m.get("content") if isinstance(m, dict) else None
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(p.get("text", "") for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))
    return ""


def _link_extra(parts: list[Part], record: int, base: Path, extra: dict[str, Any]) -> None:
    """Link the strings of `extra` that repeat a part of the same message as its copies."""
    owners = {p.text: p for p in parts if p.kind in ("text", "thinking", "tool_call") and p.text}
    linked: set[Path] = set()
    for path, leaf in string_leaves(extra, base + ("extra",), min_chars=1):
        owner = owners.get(leaf)
        if owner is not None and owner.path != path:
            owner.copies.append((record, path))
            linked.add(path)
    results = [p for p in parts if p.kind == "tool_result"]
    raw = extra.get("raw_output")
    at = base + ("extra", "raw_output")
    if len(results) == 1 and isinstance(raw, str) and raw and at not in linked:
        results[0].copies.append((record, at))


class MiniSweAgent(ChatMessages):
    name = "mini_swe_agent"
    label = "mini-swe-agent trajectory"

    def sniff(self, doc: Document) -> int:
        located = message_list(doc)
        if not located:
            return 0
        messages = [m for _, _, m in located[:200] if not _is_exit(m)]
        if not chat_score(messages):
            return 0
        if doc.container == "json-object":
            fmt = doc.records[0].get("trajectory_format")
            if isinstance(fmt, str) and fmt.startswith("mini-swe-agent"):
                return 97
        mswea = any(m.get("role") == "assistant" and "```mswea_bash_command" in _text(m) for m in messages)
        bash = any(m.get("role") == "assistant" and command_in(_text(m)) for m in messages)
        # The last turns too: a digest run leaves `<returncode>` only in the protected tail.
        returncode = any(m.get("role") == "user" and RETURNCODE in _text(m)
                         for m in messages + [m for _, _, m in located[-50:] if isinstance(m, dict)])
        if (mswea and (returncode or len(messages) <= 3)) or (bash and returncode):
            return 95
        return 0

    def views(self, doc: Document) -> Iterator[View]:
        view = View(doc, self)
        command: str | None = None
        for record, base, m in message_list(doc) or []:
            first = len(view.parts)
            if _is_exit(m):
                msg = view.new_message("assistant", record, exit=True)
                if isinstance(m.get("content"), str):
                    view.add(msg, Part("text", "assistant", 0, record, base + ("content",), m["content"]))
            elif looks_like_chat_message(m):
                msg = read_chat_message(view, record, base, m)
            else:
                continue
            text = _text(m)
            if msg.role == "assistant":
                command = command_in(text)
            elif msg.role == "user" and command is not None and not text.lstrip().startswith(REJECTED):
                # The turn after a command is its output (`<returncode>…`, a timeout, a format
                # error), whatever a digest made of its text on an earlier run; a rejection
                # carries the person's own message.
                msg.meta["observation"] = True
                msg.meta["command"] = command
                mark_output(view, msg, command)
                command = None
            extra = m.get("extra")
            if isinstance(extra, dict):
                _link_extra(view.parts[first:], record, base, extra)
        yield view
    where = '`*.traj.json`: `messages` (or a bare list) with `mswea_bash_command` blocks or 1.1 tool calls'
