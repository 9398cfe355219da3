"""Turn normalized chat messages into the facts the fallback summary is built from.

Input is a list of normalized OpenAI Chat messages (see `sanitizer.transcript.to_messages`).  The
caller's messages are only read, never changed.  Output is a `Session`: the user-authored asks,
the assistant replies and the tool calls paired with their results, all in message order and each
tagged with the *turn* it belongs to (turn N = everything from the N-th user ask up to the next
one; turn 0 is anything before the first ask).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sanitizer import digest

# User text that the user did not type: harness wrappers and notices.  `to_messages(skip_injected=True)`
# already drops most of them; this is the second line of defence for other callers.
INJECTED_PREFIXES = (
    "<command-name>", "<command-message>", "<command-args>", "<command-",
    "<local-command-stdout>", "<local-command-stderr>", "<system-reminder>",
    "<user-prompt-submit-hook>", "<bash-input>", "<bash-stdout>", "<bash-stderr>",
    "Caveat:", "[Request interrupted", "[TOOL RESULT",
    "This session is being continued from a previous conversation",
)
REMINDER_RE = re.compile(r"<system-reminder>.*?(?:</system-reminder>|\Z)", re.S)


@dataclass(frozen=True, slots=True)
class Ask:
    """A message the user wrote, with `<system-reminder>` blocks removed (else verbatim)."""

    turn: int
    index: int
    text: str


@dataclass(frozen=True, slots=True)
class Reply:
    """The text of an assistant message."""

    turn: int
    index: int
    text: str


@dataclass(slots=True)
class Call:
    """One tool call and (when present) its result, described by `sanitizer.digest`."""

    number: int  # 1-based position among all tool calls
    turn: int
    index: int
    call_id: str
    name: str
    arguments: str
    args: Any
    verb: str = ""
    target: str = ""
    where: str = ""
    paths: tuple[str, ...] = ()
    phrase: str = ""
    output: str | None = None
    result_index: int | None = None
    is_error: bool | None = None
    exit_code: int | None = None
    lines: int | None = None
    first_error: str | None = None
    failed: bool = False
    result: str = "no result recorded"

    @property
    def answered(self) -> bool:
        return self.output is not None

    @property
    def last_index(self) -> int:
        return self.result_index if self.result_index is not None else self.index


@dataclass(slots=True)
class Session:
    asks: list[Ask] = field(default_factory=list)
    replies: list[Reply] = field(default_factory=list)
    calls: list[Call] = field(default_factory=list)
    # (message index, text) of every text that is not an ask or a reply: system prompts, injected
    # user wrappers, orphan tool output.  Used only for state lines (cwd, branch).
    other_texts: list[tuple[int, str]] = field(default_factory=list)
    message_count: int = 0

    @property
    def empty(self) -> bool:
        return not (self.asks or self.replies or self.calls)


def content_text(content: Any) -> str:
    """The text of a message `content`: a string, None, or a list of text parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts: list[str] = []
        for part in content:
            if isinstance(part, str):
                texts.append(part)
            elif isinstance(part, dict) and isinstance(part.get("text"), str):
                texts.append(part["text"])
        return "\n".join(t for t in texts if t)
    return ""


def user_ask_text(content: Any) -> str | None:
    """The user-authored text of a user message, or None when the message is an injected wrapper.

    `<system-reminder>` blocks are removed and the rest is stripped; otherwise the text is verbatim.
    """
    text = content_text(content)
    if "<system-reminder>" in text:
        text = REMINDER_RE.sub("", text)
    text = text.strip()
    if not text or text.startswith(INJECTED_PREFIXES):
        return None
    return text


def _tool_calls(msg: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(id, name, arguments-text) of each tool call of an assistant message."""
    out: list[tuple[str, str, str]] = []
    calls = msg.get("tool_calls")
    if not isinstance(calls, list):
        return out
    for call in calls:
        if not isinstance(call, dict):
            continue
        fn = call.get("function") if isinstance(call.get("function"), dict) else {}
        name = fn.get("name") or call.get("name") or "tool"
        arguments = fn.get("arguments", call.get("arguments", ""))
        if not isinstance(arguments, str):
            arguments = json.dumps(arguments, ensure_ascii=False) if arguments is not None else ""
        out.append((str(call.get("id") or ""), str(name), arguments))
    return out


def _describe(call: Call) -> None:
    info = digest.describe_call(call.name, call.args if call.args is not None else call.arguments)
    call.verb = info.verb or "called"
    call.target = info.target or ""
    call.where = info.where or ""
    call.paths = tuple(info.paths)
    call.phrase = info.phrase()


def _settle(call: Call) -> None:
    if call.output is None:
        return
    res = digest.outcome(call.name, call.args if call.args is not None else call.arguments, call.output,
                         call.is_error)
    call.exit_code = res.exit_code
    call.lines = res.lines
    call.first_error = res.first_error
    call.failed = bool(res.failed)
    call.result = res.summary()


def extract(messages: Sequence[dict[str, Any]]) -> Session:
    """Read `messages` (never modified) into a `Session`."""
    session = Session(message_count=len(messages))
    pending: dict[str, list[Call]] = {}
    turn = 0
    for index, msg in enumerate(messages):
        if not isinstance(msg, dict):
            continue
        role = msg.get("role")
        if role == "user":
            text = user_ask_text(msg.get("content"))
            if text is None:
                raw = content_text(msg.get("content"))
                if raw:
                    session.other_texts.append((index, raw))
                continue
            turn += 1
            session.asks.append(Ask(turn, index, text))
        elif role == "assistant":
            text = content_text(msg.get("content")).strip()
            if text:
                session.replies.append(Reply(turn, index, text))
            for call_id, name, arguments in _tool_calls(msg):
                call = Call(len(session.calls) + 1, turn, index, call_id, name, arguments,
                            digest.parse_args(arguments))
                _describe(call)
                session.calls.append(call)
                pending.setdefault(call_id, []).append(call)
        elif role == "tool":
            text = content_text(msg.get("content"))
            waiting = pending.get(str(msg.get("tool_call_id") or ""))
            if not waiting:
                if text:
                    session.other_texts.append((index, text))
                continue
            call = waiting.pop(0)
            call.output = text
            call.result_index = index
            err = msg.get("is_error")
            call.is_error = err if isinstance(err, bool) else None
            _settle(call)
        else:
            text = content_text(msg.get("content"))
            if text:
                session.other_texts.append((index, text))
    return session


def turn_spans(session: Session) -> dict[int, tuple[int, int]]:
    """Turn number -> (first message index, first index of the next turn)."""
    spans: dict[int, tuple[int, int]] = {}
    asks = session.asks
    for i, ask in enumerate(asks):
        end = asks[i + 1].index if i + 1 < len(asks) else session.message_count
        spans[ask.turn] = (ask.index, end)
    return spans
