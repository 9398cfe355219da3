"""Anthropic Messages: `{role, content: str | [blocks]}` lists, JSONL of them, or a request body.

Blocks: text, thinking (+signature), redacted_thinking, tool_use, tool_result (string or a list of
text/image), image (`source.type=base64`); anything else passes through as an `other` part.

Versions covered: the Messages API shapes of `anthropic-version: 2023-06-01` (request bodies with
`system` as a string or blocks).  A thinking `signature` counts as a signature unless it is a
publisher's placeholder (`[REDACTED_SIGNATURE]`); `redacted_thinking`, `server_tool_use`,
`web_search_tool_result`, `document` and other newer blocks pass through as `other` parts.
Cline-style histories (tool results sent back as user text blocks) are marked by `formats.cline`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from sanitizer.formats.base import BLOCKS, STUB_TEXT, Adapter, Edit, is_real_signature, message_list, sample
from sanitizer.formats.cline import mark_outputs
from sanitizer.model import Document, Message, Part, Path, View, get_at

BLOCK_TYPES = {"text", "thinking", "redacted_thinking", "tool_use", "tool_result", "image", "document",
               "server_tool_use", "web_search_tool_result", "tool_reference"}


def looks_like_anthropic_message(m: Any) -> bool:
    return isinstance(m, dict) and m.get("role") in ("user", "assistant") and (
        isinstance(m.get("content"), str | list))


def anthropic_score(messages: list[Any]) -> int:
    if not messages or not all(looks_like_anthropic_message(m) for m in messages[:50]):
        return 0
    for m in messages[:200]:
        content = m.get("content")
        if isinstance(content, list) and any(
            isinstance(b, dict) and b.get("type") in ("tool_use", "tool_result", "thinking", "redacted_thinking")
            or isinstance(b, dict) and b.get("type") == "image" and "source" in b
            for b in content
        ):
            return 92
    # Plain string contents only: chat and Anthropic look the same; chat wins ties.
    return 40


def image_meta(block: dict[str, Any]) -> dict[str, Any]:
    src = block.get("source") if isinstance(block.get("source"), dict) else {}
    if src.get("type") == "base64":
        return {"media_type": src.get("media_type"), "data": src.get("data") if isinstance(src.get("data"), str) else None, "url": None}
    return {"media_type": src.get("media_type"), "data": None, "url": src.get("url")}


def read_blocks(view: View, msg: Message, record: int, base: Path, content: Any) -> None:
    """Add the parts of an Anthropic `content` (string or block list) found at `base`."""
    role = msg.role
    if isinstance(content, str):
        view.add(msg, Part("text", role, 0, record, base, content))
        return
    if not isinstance(content, list):
        return
    for i, b in enumerate(content):
        at = base + (i,)
        t = b.get("type") if isinstance(b, dict) else None
        if t == "text" and isinstance(b.get("text"), str):
            view.add(msg, Part("text", role, 0, record, at + ("text",), b["text"], block=at))
        elif t == "thinking" and isinstance(b.get("thinking"), str):
            view.add(msg, Part("thinking", role, 0, record, at + ("thinking",), b["thinking"], block=at,
                               meta={"signed": is_real_signature(b.get("signature"))}))
        elif t == "tool_use":
            args = b.get("input")
            text = json.dumps(args, ensure_ascii=False) if not isinstance(args, str) else args
            view.add(msg, Part("tool_call", role, 0, record, at + ("input",), text, block=at, tool=b.get("name"),
                               call_id=b.get("id"), meta={"args_object": not isinstance(args, str)}))
        elif t == "tool_result":
            read_result(view, msg, record, at, b)
        elif t == "image":
            view.add(msg, Part("image", role, 0, record, at, "", block=at, meta=image_meta(b)))
        else:
            view.add(msg, Part("other", role, 0, record, at, "", block=at, meta={"type": t}))


def read_result(view: View, msg: Message, record: int, at: Path, b: dict[str, Any]) -> None:
    call_id = b.get("tool_use_id")
    meta = {"is_error": b.get("is_error")}
    inner = b.get("content")
    if isinstance(inner, list) and inner:
        for j, c in enumerate(inner):
            cat = at + ("content", j)
            ct = c.get("type") if isinstance(c, dict) else None
            if ct == "text" and isinstance(c.get("text"), str):
                view.add(msg, Part("tool_result", "tool", 0, record, cat + ("text",), c["text"], block=cat,
                                   call_id=call_id, meta=dict(meta)))
            elif ct == "image":
                view.add(msg, Part("image", "tool", 0, record, cat, "", block=cat, call_id=call_id, meta=image_meta(c)))
            else:
                view.add(msg, Part("other", "tool", 0, record, cat, "", block=cat, call_id=call_id, meta={"type": ct}))
    else:
        text = inner if isinstance(inner, str) else ""
        view.add(msg, Part("tool_result", "tool", 0, record, at + ("content",), text, call_id=call_id,
                           meta={**meta, "empty": not text}))


def stub_result_block(call_id: str) -> dict[str, Any]:
    """A `tool_result` block saying no result was recorded for `call_id`."""
    return {"type": "tool_result", "tool_use_id": call_id, "content": STUB_TEXT, "is_error": True}


REMOVED_TEXT = "[tool result without a call removed]"


def remove_blocks(view: View, parts: list[Part], drop_records: set[int], edits: list[Edit],
                  stubbed: set[tuple[int, Path]], drop_emptied_records: bool = False) -> None:
    """Plan removing the `tool_use` / `tool_result` blocks of `parts`.  A content list left
    empty keeps one text block saying what was removed (user/assistant alternation holds), or
    with `drop_emptied_records` its record goes."""
    blocks: dict[tuple[int, Path], set[int]] = {}
    for p in parts:
        if p.role != "tool":
            at = p.block if p.block is not None else p.path[:-1]  # the tool_use block
        elif p.block is not None:
            at = p.block[:-2]  # a text/image inside a tool_result's content list: the whole result
        else:
            at = p.path[:-1]  # tool_result with string (or no) content
        blocks.setdefault((p.record, at[:-1]), set()).add(at[-1])
    for (record, content_path), idxs in blocks.items():
        content = get_at(view.doc.records[record], content_path)
        if isinstance(content, list) and len(idxs) >= len(content) and (record, content_path) not in stubbed:
            if drop_emptied_records:
                drop_records.add(record)
            else:
                edits.append((record, content_path, "set", [{"type": "text", "text": REMOVED_TEXT}]))
            continue
        for i in sorted(idxs):
            edits.append((record, content_path + (i,), "del", None))


def stub_in_next_user(view: View, call: Part) -> Edit | None:
    """A stub `tool_result` block put first among the results of the user message after `call`."""
    nxt = view.messages[call.message + 1] if call.message + 1 < len(view.messages) else None
    node = view.adapter.message_node(view, nxt) if nxt is not None and nxt.role == "user" else None
    if node is None:
        return None
    content = get_at(view.doc.records[node[0]], node[1]).get("content")
    path = node[1] + ("content",)
    block = stub_result_block(call.call_id or "")
    if isinstance(content, list):
        lead = next((i for i, b in enumerate(content)
                     if not (isinstance(b, dict) and b.get("type") == "tool_result")), len(content))
        return node[0], path + (lead,), "ins", block
    return node[0], path, "set", [block, {"type": "text", "text": content or ""}] if content else [block]


def append_text_block(view: View, msg: Message, text: str) -> None:
    """Append a text block to message `msg` (a string content becomes its first text block)."""
    record, path = view.adapter.message_node(view, msg)
    node = get_at(view.doc.records[record], path)
    content = node.get("content")
    block = {"type": "text", "text": text}
    node["content"] = [{"type": "text", "text": content}, block] if isinstance(content, str) else [*content, block]
    view.doc.dirty.add(record)


def user_text_message(text: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}]}


class Anthropic(Adapter):
    name = "anthropic"
    label = "Anthropic Messages"
    can_drop_turns = True

    def dialect(self, view: View) -> str:
        return BLOCKS

    def marker_node(self, view: View, text: str, near: int | None = None) -> Any:
        return user_text_message(text)

    def stub_result(self, view: View, call: Part) -> Any:
        return {"role": "user", "content": [stub_result_block(call.call_id or "")]}

    def append_text(self, view: View, msg: Message, text: str) -> None:
        append_text_block(view, msg, text)

    def stub_in_next(self, view: View, call: Part) -> Edit | None:
        return stub_in_next_user(view, call)

    def remove_parts(self, view: View, msg: Message, parts: list[Part], drop_records: set[int],
                     edits: list[Edit], stubbed: set[tuple[int, Path]]) -> None:
        remove_blocks(view, parts, drop_records, edits, stubbed)

    def sniff(self, doc: Document) -> int:
        if doc.container == "json-object" and isinstance(doc.records[0], dict) and "system" in doc.records[0]:
            located = message_list(doc)
            return 95 if located and anthropic_score([m for _, _, m in located]) else 0
        located = message_list(doc)
        if not located or not sample(doc, 1):
            return 0
        return anthropic_score([m for _, _, m in located[:200]])

    def views(self, doc: Document) -> Iterator[View]:
        view = View(doc, self)
        root = doc.records[0] if doc.container == "json-object" else None
        if isinstance(root, dict) and root.get("system"):
            msg = view.new_message("system", 0)
            read_blocks(view, msg, 0, ("system",), root["system"])
        for record, base, m in message_list(doc) or []:
            if looks_like_anthropic_message(m):
                msg = view.new_message(m["role"], record)
                read_blocks(view, msg, record, base + ("content",), m["content"])
        mark_outputs(view)  # Cline-style tool results sent back as user text
        yield view
    where = '`[{role, content: [blocks]}]`, JSONL of messages, or a request body with `system`'
