"""mini-swe-agent trajectories: `{info, messages, trajectory_format}` or a bare list of messages.

Messages are plain `{role, content}` chat messages.  The agent acts through text: each assistant
turn holds a THOUGHT and one fenced ```mswea_bash_command``` (older releases: ```bash```) block,
and the next user turn carries `<returncode>…</returncode>` and `<output>…</output>`.

Decision: those observation turns stay `text` parts.  The command lives inside the assistant's
content, not in a field of its own, so there is no tool-call part a result could pair with, and
a `tool_result` without its call would be an orphan on every turn.  Instead the observation
message gets `meta["observation"] = True` and `meta["command"]` (the command it answers), so
scopes and digest rules can treat it as tool output.  Messages that DO carry native `tool_calls` /
`role: tool` (tool-calling configurations) are paired by the chat reader as usual.

`extra` (the raw model response stored next to a message) repeats the content: its string leaves
equal to the message's text are linked as copies.  `info` and everything else pass through.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import regex

from ..model import Document, View
from .base import message_list, string_leaves
from .openai_chat import ChatText, chat_score, looks_like_chat_message, read_chat_message

COMMAND_BLOCK = regex.compile(r"```(?:mswea_bash_command|bash)[ \t]*\r?\n(.*?)\r?\n?```", regex.DOTALL)
RETURNCODE = "<returncode>"


def command_in(text: str) -> str | None:
    """The (last) command block of an assistant turn."""
    found = COMMAND_BLOCK.findall(text)
    return found[-1].strip() if found else None


def _text(m: Any) -> str:
    content = m.get("content") if isinstance(m, dict) else None
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(p.get("text", "") for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))
    return ""


class MiniSweAgent(ChatText):
    name = "mini_swe_agent"
    label = "mini-swe-agent trajectory"

    def sniff(self, doc: Document) -> int:
        located = message_list(doc)
        if not located:
            return 0
        messages = [m for _, _, m in located[:200]]
        if not chat_score(messages):
            return 0
        if doc.container == "json-object":
            fmt = doc.records[0].get("trajectory_format")
            if isinstance(fmt, str) and fmt.startswith("mini-swe-agent"):
                return 97
        mswea = any(m.get("role") == "assistant" and "```mswea_bash_command" in _text(m) for m in messages)
        bash = any(m.get("role") == "assistant" and command_in(_text(m)) for m in messages)
        returncode = any(m.get("role") == "user" and RETURNCODE in _text(m) for m in messages)
        if (mswea and (returncode or len(messages) <= 3)) or (bash and returncode):
            return 95
        return 0

    def views(self, doc: Document) -> Iterator[View]:
        view = View(doc, self)
        command: str | None = None
        for record, base, m in message_list(doc) or []:
            if not looks_like_chat_message(m):
                continue
            first = len(view.parts)
            msg = read_chat_message(view, record, base, m)
            text = _text(m)
            if msg.role == "assistant":
                command = command_in(text)
            elif msg.role == "user" and RETURNCODE in text and command is not None:
                msg.meta["observation"] = True
                msg.meta["command"] = command
                command = None
            extra = m.get("extra")
            if isinstance(extra, dict):
                owners = {p.text: p for p in view.parts[first:] if p.kind in ("text", "thinking") and p.text}
                for path, leaf in string_leaves(extra, base + ("extra",), min_chars=1):
                    if leaf in owners:
                        owners[leaf].copies.append((record, path))
        yield view
    where = '`*.traj.json`: `messages` (or a bare list) with `mswea_bash_command` blocks'
