"""Pydantic AI message histories in their JSON form (`ModelMessagesTypeAdapter.dump_python(mode="json")`).

A history is a list (or JSONL) of messages `{kind: "request" | "response", parts: [...]}`; each
part has a `part_kind`:

* request parts: `system-prompt` (content str), `user-prompt` (content a str or a list of strs and
  multimodal items `{kind: "binary" | "image-url" | …}`), `tool-return` (content any JSON value, or
  a list of strs and multimodal items), `retry-prompt` (content a str or a list of error details);
* response parts: `text`, `thinking` (+`signature`), `tool-call` (`args` an object or a JSON
  string), `file` (`content` a binary item); native tool and newer parts pass through as `other`.

Pairs: `tool-call.tool_call_id` ⇄ `tool-return` / `retry-prompt` `tool_call_id`.  One record is one
message: a request holding only system prompts is a system message, one holding only tool returns
and retries is a tool message, any other request is a user message.  A non-string tool-return
content is read as its JSON text and written back as a value while the edited text still parses.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from sanitizer.formats.base import Adapter, data_uri_meta, is_real_signature, message_list, sample
from sanitizer.model import Document, Message, Part, Path, View

MESSAGE_KINDS = ("request", "response")
MEDIA_KINDS = {"binary", "image-url", "audio-url", "document-url", "video-url"}
TOOL_PARTS = ("tool-return", "retry-prompt")


def looks_like_model_message(m: Any) -> bool:
    """A dumped `ModelRequest` / `ModelResponse`: `kind` plus a list of parts naming their `part_kind`."""
    if not isinstance(m, dict) or m.get("kind") not in MESSAGE_KINDS or not isinstance(m.get("parts"), list):
        return False
    return all(isinstance(p, dict) and isinstance(p.get("part_kind"), str) for p in m["parts"])


def _media_meta(item: dict[str, Any]) -> dict[str, Any]:
    if item.get("kind") == "binary":
        return {"media_type": item.get("media_type"), "data": item.get("data") if isinstance(item.get("data"), str) else None,
                "url": None}
    url = item.get("url") if isinstance(item.get("url"), str) else ""
    meta = data_uri_meta(url)
    meta["media_type"] = meta["media_type"] or item.get("media_type")
    return meta


def _is_image(item: Any) -> bool:
    if not isinstance(item, dict) or item.get("kind") not in MEDIA_KINDS:
        return False
    media = item.get("media_type")
    return item.get("kind") == "image-url" or (isinstance(media, str) and media.startswith("image/"))


def _content_list(view: View, msg: Message, record: int, at: Path, items: list[Any], kind: str, role: str,
                  **ids: Any) -> None:
    """A list of strs and multimodal items (user prompt or tool return content)."""
    for k, item in enumerate(items):
        where = at + (k,)
        if isinstance(item, str):
            view.add(msg, Part(kind, role, 0, record, where, item, block=where, meta={"node": "str"}, **ids))
        elif _is_image(item):
            view.add(msg, Part("image", role, 0, record, where, "", block=where,
                               meta={**_media_meta(item), "node": "str"}, call_id=ids.get("call_id")))
        else:
            view.add(msg, Part("other", role, 0, record, where, "", block=where, meta={"type": "content"}))


def _request_role(parts: list[dict[str, Any]]) -> str:
    kinds = {p.get("part_kind") for p in parts}
    if kinds and kinds <= {"system-prompt"}:
        return "system"
    if kinds and kinds <= set(TOOL_PARTS):
        return "tool"
    return "user"


def _read_request(view: View, record: int, base: Path, m: dict[str, Any]) -> None:
    msg = view.new_message(_request_role(m["parts"]), record)
    for j, p in enumerate(m["parts"]):
        at = base + ("parts", j)
        pk = p["part_kind"]
        content = p.get("content")
        if pk == "system-prompt" and isinstance(content, str):
            view.add(msg, Part("text", "system", 0, record, at + ("content",), content, block=at,
                               meta={"node": "system-part"}))
        elif pk == "user-prompt" and isinstance(content, str):
            view.add(msg, Part("text", "user", 0, record, at + ("content",), content, block=at,
                               meta={"node": "user-part"}))
        elif pk == "user-prompt" and isinstance(content, list):
            _content_list(view, msg, record, at + ("content",), content, "text", "user")
        elif pk in TOOL_PARTS:
            ids = {"tool": p.get("tool_name"), "call_id": p.get("tool_call_id")}
            if isinstance(content, list) and content and any(_is_image(c) for c in content):
                _content_list(view, msg, record, at + ("content",), content, "tool_result", "tool", **ids)
            elif isinstance(content, str):
                view.add(msg, Part("tool_result", "tool", 0, record, at + ("content",), content, **ids,
                                   meta={"empty": not content, "is_error": pk == "retry-prompt"}))
            else:
                text = json.dumps(content, ensure_ascii=False)
                view.add(msg, Part("tool_result", "tool", 0, record, at + ("content",), text, **ids,
                                   meta={"json": True, "is_error": pk == "retry-prompt"}))
        else:
            view.add(msg, Part("other", msg.role, 0, record, at, "", block=at, meta={"type": pk}))


def _read_response(view: View, record: int, base: Path, m: dict[str, Any]) -> None:
    msg = view.new_message("assistant", record)
    for j, p in enumerate(m["parts"]):
        at = base + ("parts", j)
        pk = p["part_kind"]
        content = p.get("content")
        if pk == "text" and isinstance(content, str):
            view.add(msg, Part("text", "assistant", 0, record, at + ("content",), content, block=at,
                               meta={"node": "text-part"}))
        elif pk == "thinking" and isinstance(content, str):
            view.add(msg, Part("thinking", "assistant", 0, record, at + ("content",), content, block=at,
                               meta={"signed": is_real_signature(p.get("signature")), "node": "text-part"}))
        elif pk == "tool-call":
            args = p.get("args")
            is_obj = isinstance(args, dict)
            text = json.dumps(args, ensure_ascii=False) if is_obj else args if isinstance(args, str) else ""
            if args is None or is_obj or isinstance(args, str):
                view.add(msg, Part("tool_call", "assistant", 0, record, at + ("args",), text, tool=p.get("tool_name"),
                                   call_id=p.get("tool_call_id"), meta={"args_object": is_obj}))
            else:
                view.add(msg, Part("other", "assistant", 0, record, at, "", block=at, meta={"type": pk}))
        elif pk == "file" and _is_image(content):
            view.add(msg, Part("image", "assistant", 0, record, at, "", block=at,
                               meta={**_media_meta(content), "node": "text-part"}))
        else:
            view.add(msg, Part("other", "assistant", 0, record, at, "", block=at, meta={"type": pk}))


class PydanticAI(Adapter):
    name = "pydantic_ai"
    label = "Pydantic AI message history (ModelMessagesTypeAdapter JSON)"
    where = "`ModelMessagesTypeAdapter.dump_json(messages)` output, or JSONL of dumped messages"

    def sniff(self, doc: Document) -> int:
        located = message_list(doc)
        if not located or not sample(doc, 1):
            return 0
        msgs = [m for _, _, m in located[:200]]
        return 97 if all(looks_like_model_message(m) for m in msgs) else 0

    def views(self, doc: Document) -> Iterator[View]:
        view = View(doc, self)
        for record, base, m in message_list(doc) or []:
            if not looks_like_model_message(m):
                continue
            if m["kind"] == "request":
                _read_request(view, record, base, m)
            else:
                _read_response(view, record, base, m)
        yield view

    def text_node(self, part: Part, text: str) -> Any:
        node = part.meta.get("node")
        if node == "str":
            return text
        if node == "text-part":
            return {"part_kind": "text", "content": text}
        if node == "system-part":
            return {"part_kind": "system-prompt", "content": text}
        return {"part_kind": "user-prompt", "content": text}

    def stored(self, part: Part) -> Any:
        """A JSON tool return stays a value while its edited text still parses (a redacted field),
        and becomes a string otherwise (a digest, a head+tail cut): both are valid contents."""
        if part.meta.get("json"):
            try:
                return json.loads(part.text)
            except ValueError:
                return part.text
        return part.text
