"""Render a view for a summarizer: a plain transcript, or normalized OpenAI chat messages."""

from __future__ import annotations

import json
import shlex
from typing import Any

from sanitizer.digest.calls import shell_text
from sanitizer.digest.line import is_digest
from sanitizer.model import Message, Part, View
from sanitizer.pairs import Pairs
from sanitizer.textkit import pattern_cache
from sanitizer.textkit.images import label_of
from sanitizer.textkit.spans import split_kept_blocks

# Terminal escapes (CSI colours, OSC titles/links, two-byte escapes): noise in a transcript.  Only
# renderings drop them; the same-format copy keeps the bytes.
ANSI = pattern_cache.compile(r"\x1b(?:\[[0-?]*+[ -/]*+[@-~]|\][^\x07\x1b]*+(?:\x07|\x1b\\)?|[@-Z\\-_])")


def strip_ansi(text: str) -> str:
    """`text` without terminal escape sequences."""
    return ANSI.sub("", text) if "\x1b" in text else text


def part_text(part: Part) -> str:
    """What a reader sees of one part (images as a label, never their data; no terminal escapes)."""
    if part.kind == "image" and not part.replaced:
        return label_of(part.meta)
    return strip_ansi(part.text)


def result_text(view: View, part: Part) -> str:
    """A tool result as stored by its format (a Codex output keeps its `{"output", "metadata"}`
    wrapper, so a reader still sees the exit code the rules did not need)."""
    if part.kind == "image" and not part.replaced:
        return label_of(part.meta)
    value = view.adapter.stored(part)
    return strip_ansi(value) if isinstance(value, str) else part_text(part)


def _tool_names(view: View) -> dict[str, str]:
    """The tool name of every call id (the last call wins when ids repeat)."""
    return {call_id: calls[-1].tool or "tool" for call_id, calls in Pairs(view).calls.items() if call_id}


def _call_numbers(view: View) -> dict[str, int]:
    """The 1-based place in its message's call list of each call a reader needs help to pair with
    its result: calls of one message that share a tool name (parallel calls).  Any other result
    follows its own call, so its header needs no number."""
    seen: dict[tuple[int, str], list[str]] = {}
    place: dict[str, int] = {}
    count: dict[int, int] = {}
    for p in view.parts:
        if p.kind == "tool_call" and not p.dropped:
            count[p.message] = count.get(p.message, 0) + 1
            if p.call_id:
                seen.setdefault((p.message, p.tool or "tool"), []).append(p.call_id)
                place[p.call_id] = count[p.message]
    return {cid: place[cid] for ids in seen.values() if len(ids) > 1 for cid in ids}


def _argv_text(argv: list[str]) -> str:
    """An argv list as the command line a reader expects: `["bash", "-lc", CMD]` is CMD; an
    argument over several lines (a patch) is shown as it is, not shell-quoted."""
    text = shell_text(argv)
    if text != shlex.join(argv):
        return text
    return " ".join(argv) if any("\n" in a for a in argv) else text


def call_form(part: Part) -> str:
    """The short form of a call's arguments in the transcript: an argv command as one command line,
    and arguments that are one text field (a command, a path) as that text, unquoted."""
    text = part_text(part)
    if not text.lstrip().startswith("{"):
        return text
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return text
    if not isinstance(value, dict):
        return text
    changed = False
    for key in ("command", "cmd"):
        argv = value.get(key)
        if isinstance(argv, list) and argv and all(isinstance(a, str) for a in argv):
            value = {**value, key: _argv_text(argv)}
            changed = True
    if len(value) == 1:
        only = next(iter(value.values()))
        if isinstance(only, str) and only.strip():
            return only
    if not changed:
        return text
    compact = '": ' not in text[:2000] and '", "' not in text[:2000]
    return json.dumps(value, ensure_ascii=False, separators=(",", ":") if compact else None)


# The outcome half of a digest line (`exit 1, 47 lines; …`): what follows `[Tool] VERB target -> `.
_OUTCOME = pattern_cache.compile(r" -> (?=(?:exit -?\d++, |error, )?(?:[\d,]++ lines?|no output)\b)")


def _outcome_only(text: str) -> str:
    """A digest line without the `[Tool] VERB target` half the call line above already shows."""
    body, suffix = split_kept_blocks(text)
    if not body.startswith("[") or not is_digest(body):
        return text
    m = _OUTCOME.search(body)
    return body[m.end():] + suffix if m is not None else text


def to_text(view: View, *, skip_injected: bool = False) -> str:
    """The summarizer transcript (Hermes layout): `[USER]: …`, `[ASSISTANT]: …`,
    `[Tool calls: name(args)]`, `[TOOL RESULT name]: …`.  Calls show their short form
    (`call_form`); where parallel calls of one tool need telling apart, the calls are numbered
    (`#2 Bash(…)`) and each result names its number (`[TOOL RESULT Bash #2]`).  Blocks of one
    result share one header, and a digest shows only its outcome, since the call line shows the call."""
    names = _tool_names(view)
    numbers = _call_numbers(view)
    blocks: list[str] = []
    for msg in view.messages:
        if skip_injected and msg.injected:
            continue
        texts: list[str] = []
        calls: list[str] = []
        results: list[tuple[str | None, str]] = []
        numbered = any(p.call_id in numbers for p in view.parts_of(msg) if p.kind == "tool_call")
        for part in view.parts_of(msg):
            if part.dropped:
                continue
            if part.kind == "tool_call":
                mark = f"#{len(calls) + 1} " if numbered else ""
                calls.append(f"{mark}{part.tool or 'tool'}({call_form(part)})")
            elif part.role == "tool" or part.kind == "tool_result":
                body = result_text(view, part)
                known = part.call_id in names
                if known and results and results[-1][0] == part.call_id:
                    results[-1] = (part.call_id, results[-1][1] + "\n" + _outcome_only(body))
                    continue
                name = names.get(part.call_id or "", part.tool or "tool")
                tag = f"#{numbers[part.call_id]}" if part.call_id in numbers else None if known else part.call_id
                results.append((part.call_id if known else None,
                                f"[TOOL RESULT {name} {tag or ''}]".replace(" ]", "]")
                                + f": {_outcome_only(body) if known else body}"))
            elif part.kind == "thinking" and not part.replaced:
                if part_text(part).strip():  # reasoning with no text (encrypted, redacted): nothing to read
                    texts.append(f"[THINKING]: {part_text(part)}")
            elif part.kind != "other":
                texts.append(part_text(part))
        body = "\n".join(t for t in texts if t)
        if body or calls:
            line = f"[{msg.role.upper()}]: {body}" if body else f"[{msg.role.upper()}]:"
            if calls:
                line += "\n[Tool calls: " + ", ".join(calls) + "]"
            blocks.append(line)
        blocks.extend(r for _, r in results)
    return "\n\n".join(blocks) + ("\n" if blocks else "")


def _chat_order(view: View) -> list[Message]:
    """The messages in an order a chat API accepts: a sub-agent's turns written between the call
    that started it and that call's result (`meta["parent_call"]`, Claude Code's inline sidechain
    records) come right after the message holding the result, so the result follows its call."""
    if not any(m.meta.get("parent_call") for m in view.messages):
        return view.messages
    answered_in = {p.call_id: p.message for p in view.parts if p.kind == "tool_result" and p.call_id}
    out: list[Message] = []
    waiting: dict[int, list[Message]] = {}  # message holding a result -> the turns that go after it
    for msg in view.messages:
        at = answered_in.get(msg.meta.get("parent_call"))
        if at is not None and at > msg.index:
            waiting.setdefault(at, []).append(msg)
            continue
        out.append(msg)
        out.extend(waiting.pop(msg.index, ()))
    return out


def to_messages(view: View, *, skip_injected: bool = False) -> list[dict[str, Any]]:
    """Normalized OpenAI Chat messages: every tool call keeps its result, in a valid order.

    Consecutive assistant messages (one API message split over records, or Responses items) are
    merged so parallel calls share one assistant message followed by their tool messages.  A
    result whose call is not in the conversation becomes a user text, since a chat API rejects
    a tool message without its call.  A sub-agent's inline turns follow its call's result.
    """
    names = _tool_names(view)
    out: list[dict[str, Any]] = []
    for msg in _chat_order(view):
        if skip_injected and msg.injected:
            continue
        texts: list[str] = []
        calls: list[dict[str, Any]] = []
        results: list[tuple[str, str]] = []
        orphan_texts: list[str] = []
        for j, part in enumerate(view.parts_of(msg)):
            if part.dropped or part.kind == "other" or (part.kind == "thinking" and not part.replaced):
                continue
            if part.kind == "tool_call":
                cid = part.call_id or f"call_{msg.index}_{j}"
                calls.append({"id": cid, "type": "function",
                              "function": {"name": part.tool or "tool", "arguments": part.text}})
            elif part.role == "tool" or part.kind == "tool_result":
                if part.call_id and part.call_id in names:
                    if results and results[-1][0] == part.call_id:
                        results[-1] = (part.call_id, results[-1][1] + "\n" + result_text(view, part))
                    else:
                        results.append((part.call_id, result_text(view, part)))
                else:
                    orphan_texts.append(f"[TOOL RESULT {part.tool or 'tool'}]: {result_text(view, part)}")
            else:
                texts.append(part_text(part))
        for call_id, text in results:
            out.append({"role": "tool", "tool_call_id": call_id, "name": names[call_id], "content": text})
        text = "\n".join(t for t in texts + orphan_texts if t)
        role = "user" if msg.role == "tool" else msg.role
        if role == "assistant" and (text or calls):
            prev = out[-1] if out else None
            if prev is not None and prev["role"] == "assistant" and not results:
                if text:
                    prev["content"] = f"{prev['content']}\n{text}" if prev["content"] else text
                if calls:
                    prev.setdefault("tool_calls", []).extend(calls)
                continue
            entry: dict[str, Any] = {"role": "assistant", "content": text or None}
            if calls:
                entry["tool_calls"] = calls
            out.append(entry)
        elif text:
            out.append({"role": role, "content": text})
    return out
