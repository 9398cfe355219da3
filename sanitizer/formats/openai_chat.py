"""OpenAI Chat Completions messages: a bare list, JSONL of messages, or `{"messages": [...]}`.

Pairs: `tool_calls[].id` ⇄ `tool_call_id`. `reasoning_content` (and Hermes' `reasoning`) on an
assistant message is a thinking part.

Roles `system`, `developer` (read as system), `user`, `assistant`, `tool` and the legacy
`function` (read as tool; `function_call` on the assistant); content a string or `text` /
`input_text` / `output_text` / `image_url` parts; other parts (`input_audio`, `file`, `refusal` …)
pass through as `other`.  Covers Chat Completions logs, LiteLLM logs and OpenHands' LLM messages,
and Cline-style histories whose tool results are user text (marked by `formats.cline`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from sanitizer.formats.base import (
    CHAT,
    STUB_TEXT,
    Adapter,
    Edit,
    data_uri_meta,
    message_list,
    remove_message,
    sample,
)
from sanitizer.formats.cline import mark_outputs
from sanitizer.model import Document, Message, Part, Path, View, get_at

CHAT_ROLES = {"system", "developer", "user", "assistant", "tool", "function"}


def looks_like_chat_message(m: Any) -> bool:
    return isinstance(m, dict) and m.get("role") in CHAT_ROLES and (
        "content" in m or "tool_calls" in m or "function_call" in m
    )


def chat_score(messages: list[Any]) -> int:
    """How sure we are that these are OpenAI chat messages (0–100)."""
    if not messages or not all(looks_like_chat_message(m) for m in messages[:50]):
        return 0
    score = 60
    for m in messages[:200]:
        if "tool_calls" in m or m.get("role") == "tool" or "tool_call_id" in m:
            return 90
        content = m.get("content")
        if isinstance(content, list) and any(isinstance(p, dict) and p.get("type") in ("tool_use", "tool_result", "thinking") for p in content):
            return 0  # Anthropic blocks
        if isinstance(content, list) and any(isinstance(p, dict) and p.get("type") == "image_url" for p in content):
            score = 85
    return score


def read_chat_message(view: View, record: int, base: Path, m: dict[str, Any]) -> Message:
    """Add one chat message and its parts to `view`."""
    role = m.get("role", "user")
    role = {"function": "tool", "developer": "system"}.get(role, role)
    msg = view.new_message(role, record)
    is_tool = role == "tool"
    tool = m.get("name") if is_tool else None
    call_id = m.get("tool_call_id") if is_tool else None
    kind = "tool_result" if is_tool else "text"
    content = m.get("content")
    if isinstance(content, str):
        view.add(msg, Part(kind, role, 0, record, base + ("content",), content, tool=tool, call_id=call_id))
    elif isinstance(content, list):
        for i, p in enumerate(content):
            at = base + ("content", i)
            if isinstance(p, dict) and isinstance(p.get("text"), str) and p.get("type", "text") in ("text", "input_text", "output_text"):
                view.add(msg, Part(kind, role, 0, record, at + ("text",), p["text"], block=at, tool=tool, call_id=call_id))
            elif isinstance(p, dict) and p.get("type") == "image_url":
                url = p.get("image_url")
                url = url.get("url", "") if isinstance(url, dict) else str(url or "")
                view.add(msg, Part("image", role, 0, record, at, "", block=at, call_id=call_id, meta=data_uri_meta(url)))
            else:
                view.add(msg, Part("other", role, 0, record, at, "", block=at))
    elif is_tool:
        # content null / missing: still a result, so the pair is intact.
        view.add(msg, Part(kind, role, 0, record, base + ("content",), "", tool=tool, call_id=call_id, meta={"empty": True}))
    for key in ("reasoning_content", "reasoning"):
        if isinstance(m.get(key), str) and m[key]:
            view.add(msg, Part("thinking", role, 0, record, base + (key,), m[key], block=base + (key,),
                               meta={"field": True}))
    for j, call in enumerate(m.get("tool_calls") or []):
        fn = call.get("function") if isinstance(call, dict) else None
        if isinstance(fn, dict):
            args = fn.get("arguments")
            at = base + ("tool_calls", j, "function", "arguments")
            if isinstance(args, dict):
                view.add(msg, Part("tool_call", role, 0, record, at, json.dumps(args, ensure_ascii=False),
                                   tool=fn.get("name"), call_id=call.get("id"), meta={"args_object": True}))
            else:
                view.add(msg, Part("tool_call", role, 0, record, at, args if isinstance(args, str) else "",
                                   tool=fn.get("name"), call_id=call.get("id")))
    fc = m.get("function_call")
    if isinstance(fc, dict) and isinstance(fc.get("arguments"), str):
        view.add(msg, Part("tool_call", role, 0, record, base + ("function_call", "arguments"), fc["arguments"],
                           tool=fc.get("name"), call_id=None))
    return msg


class ChatText(Adapter):
    """Replacement nodes for chat content parts."""

    def text_node(self, part: Part, text: str) -> Any:
        if part.meta.get("field"):
            return text
        return {"type": "text", "text": text}


def chat_stub(call_id: str, tool: str | None) -> dict[str, Any]:
    """A `tool` message saying no result was recorded for `call_id`."""
    out = {"role": "tool", "tool_call_id": call_id, "content": STUB_TEXT}
    if tool:
        out["name"] = tool
    return out


def remove_chat_parts(view: View, msg: Message, parts: list[Part], drop_records: set[int],
                      edits: list[Edit]) -> None:
    """Plan removing tool calls or results of a chat message: a `tool` message is one result; an
    assistant message loses the calls (its `tool_calls`, or itself when nothing else is left)."""
    if any(p.role == "tool" for p in parts):
        remove_message(view, msg, drop_records, edits)
        return
    node = view.adapter.message_node(view, msg)
    raw = get_at(view.doc.records[node[0]], node[1]) if node else None
    calls = raw.get("tool_calls") if isinstance(raw, dict) else None
    has_text = any(p.kind == "text" and p.text for p in view.parts_of(msg))
    if node is None or not isinstance(calls, list):
        return
    if len(parts) >= len(calls) and not has_text:
        remove_message(view, msg, drop_records, edits)
    elif len(parts) >= len(calls):
        edits.append((node[0], node[1] + ("tool_calls",), "del", None))
    else:
        for p in parts:  # path: base + ("tool_calls", j, "function", "arguments")
            at = p.path.index("tool_calls")
            edits.append((p.record, p.path[: at + 2], "del", None))


class ChatMessages(ChatText):
    """Hooks of the formats whose messages are chat messages (budget mode, repair, check)."""

    can_drop_turns = True

    def dialect(self, view: View) -> str:
        return CHAT

    def marker_node(self, view: View, text: str, near: int | None = None) -> Any:
        return {"role": "user", "content": text}

    def stub_result(self, view: View, call: Part) -> Any:
        return chat_stub(call.call_id or "", call.tool)

    def remove_parts(self, view: View, msg: Message, parts: list[Part], drop_records: set[int],
                     edits: list[Edit], stubbed: set[tuple[int, Path]]) -> None:
        remove_chat_parts(view, msg, parts, drop_records, edits)


class OpenAIChat(ChatMessages):
    name = "openai_chat"
    label = "OpenAI Chat Completions messages"

    def sniff(self, doc: Document) -> int:
        located = message_list(doc)
        if not located:
            return 0
        return chat_score([m for _, _, m in located[:200]]) if len(sample(doc, 1)) else 0

    def most_messages(self, doc: Document) -> int | None:
        return len(message_list(doc) or ())  # one message a chat message at most

    def views(self, doc: Document) -> Iterator[View]:
        view = View(doc, self)
        for record, base, m in message_list(doc) or []:
            if looks_like_chat_message(m):
                read_chat_message(view, record, base, m)
        mark_outputs(view)  # Cline-style tool results sent back as user text (text-only histories)
        yield view
    where = 'a list, JSONL, `{"messages": [...]}` or a LiteLLM log'
