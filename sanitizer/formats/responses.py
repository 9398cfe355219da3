"""OpenAI Responses API items: message, function_call(_output), custom_tool_call(_output), reasoning.

Pairs by `call_id`.  Each item is one message of the view.

Item kinds read: `message` (`input_text` / `output_text` / `input_image` parts; role `developer`
read as system), `function_call` (`arguments` string), `custom_tool_call` (`input`),
`local_shell_call` (`action`), their `*_output` items (a Codex JSON-encoded
`{"output", "metadata"}` output is decoded, see `encoded_output`), `reasoning` (summary and
content texts; signed by `encrypted_content`).  `web_search_call`, `ghost_snapshot` and unknown
items pass through.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from sanitizer.formats.base import ITEMS, STUB_TEXT, Adapter, data_uri_meta, message_list
from sanitizer.model import Document, Message, Part, Path, View, get_at

ITEM_TYPES = {"message", "function_call", "function_call_output", "reasoning", "custom_tool_call",
              "custom_tool_call_output", "local_shell_call", "local_shell_call_output", "web_search_call"}
TEXT_TYPES = ("input_text", "output_text", "text", "refusal", "summary_text", "reasoning_text")


def responses_score(items: list[Any]) -> int:
    typed = [it for it in items[:300] if isinstance(it, dict) and it.get("type") in ITEM_TYPES]
    if not typed:
        return 0
    calls = any(it["type"] in ("function_call", "function_call_output", "reasoning") for it in typed)
    return 88 if calls else 70


def encoded_output(out: str) -> tuple[str, dict[str, Any]] | None:
    """A Codex output stored as a JSON string `{"output": …, "metadata": {"exit_code", …}}`: the
    inner text and the part meta that re-encodes it byte-for-byte (None when it is anything else,
    or when re-encoding would not give the same bytes)."""
    if not out.startswith('{"output":'):
        return None
    try:
        obj = json.loads(out)
    except (ValueError, RecursionError):
        return None
    if not isinstance(obj, dict) or not isinstance(obj.get("output"), str) or set(obj) - {"output", "metadata"}:
        return None
    for ascii_only in (False, True):
        if json.dumps(obj, ensure_ascii=ascii_only, separators=(",", ":")) == out:
            # The wrapper without the output text (a meta never holds what a rule may cut).
            wrapper = {k: (None if k == "output" else v) for k, v in obj.items()}
            meta: dict[str, Any] = {"encoded_output": {"ascii": ascii_only, "wrapper": wrapper}}
            code = obj.get("metadata", {}).get("exit_code") if isinstance(obj.get("metadata"), dict) else None
            if isinstance(code, int) and not isinstance(code, bool):
                meta["exit_code"] = code
                meta["is_error"] = code != 0
            return obj["output"], meta
    return None


def read_item(view: View, record: int, base: Path, it: dict[str, Any]) -> None:
    t = it.get("type")
    if t == "message":
        role = {"developer": "system"}.get(it.get("role", "user"), it.get("role", "user"))
        msg = view.new_message(role, record)
        content = it.get("content")
        if isinstance(content, str):
            view.add(msg, Part("text", role, 0, record, base + ("content",), content))
            return
        for i, c in enumerate(content or []):
            at = base + ("content", i)
            ct = c.get("type") if isinstance(c, dict) else None
            if ct in TEXT_TYPES and isinstance(c.get("text"), str):
                view.add(msg, Part("text", role, 0, record, at + ("text",), c["text"], block=at,
                                   meta={"text_type": ct}))
            elif ct == "input_image":
                url = c.get("image_url") or ""
                view.add(msg, Part("image", role, 0, record, at, "", block=at, meta=data_uri_meta(str(url))))
            else:
                view.add(msg, Part("other", role, 0, record, at, "", block=at))
    elif t in ("function_call", "custom_tool_call", "local_shell_call"):
        msg = view.new_message("assistant", record)
        key = {"function_call": "arguments", "custom_tool_call": "input", "local_shell_call": "action"}[t]
        args = it.get(key)
        obj = not isinstance(args, str)
        text = json.dumps(args, ensure_ascii=False) if obj else args
        view.add(msg, Part("tool_call", "assistant", 0, record, base + (key,), text, tool=it.get("name") or t,
                           call_id=it.get("call_id"), meta={"args_object": obj and isinstance(args, dict)}))
    elif t in ("function_call_output", "custom_tool_call_output", "local_shell_call_output"):
        msg = view.new_message("tool", record)
        out = it.get("output")
        if isinstance(out, list):
            for i, c in enumerate(out):
                at = base + ("output", i)
                if isinstance(c, dict) and isinstance(c.get("text"), str):
                    view.add(msg, Part("tool_result", "tool", 0, record, at + ("text",), c["text"], block=at,
                                       call_id=it.get("call_id"), meta={"text_type": c.get("type")}))
                else:
                    view.add(msg, Part("other", "tool", 0, record, at, "", block=at, call_id=it.get("call_id")))
        elif isinstance(out, str) and (encoded := encoded_output(out)) is not None:
            inner, meta = encoded
            view.add(msg, Part("tool_result", "tool", 0, record, base + ("output",), inner,
                               call_id=it.get("call_id"), meta=meta))
        else:
            view.add(msg, Part("tool_result", "tool", 0, record, base + ("output",), out if isinstance(out, str) else "",
                               call_id=it.get("call_id"), meta={"empty": not out}))
    elif t == "reasoning":
        msg = view.new_message("assistant", record)
        signed = bool(it.get("encrypted_content"))
        for key in ("summary", "content"):
            for i, c in enumerate(it.get(key) or []):
                if isinstance(c, dict) and isinstance(c.get("text"), str):
                    view.add(msg, Part("thinking", "assistant", 0, record, base + (key, i, "text"), c["text"],
                                       block=base + (key, i), meta={"signed": signed, "text_type": c.get("type"),
                                                                    "replaced_as": "thinking"}))


OUTPUT_TYPES = {"custom_tool_call": "custom_tool_call_output", "local_shell_call": "local_shell_call_output"}


class Responses(Adapter):
    name = "responses"
    label = "OpenAI Responses items"
    can_drop_turns = True

    def dialect(self, view: View) -> str:
        return ITEMS

    def item(self, view: View, msg: Message) -> Any:
        """The item a message is read from (None when it cannot be found)."""
        node = self.message_node(view, msg)
        if node is None:
            return None
        try:
            return get_at(view.doc.records[node[0]], node[1])
        except (KeyError, IndexError, TypeError):
            return None

    def marker_node(self, view: View, text: str, near: int | None = None) -> Any:
        return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}

    def stub_result(self, view: View, call: Part) -> Any:
        item = self.item(view, view.messages[call.message])
        call_type = item.get("type") if isinstance(item, dict) else None
        return {"type": OUTPUT_TYPES.get(call_type or "", "function_call_output"), "call_id": call.call_id or "",
                "output": STUB_TEXT}

    def binds_next(self, view: View, msg: Message) -> bool:
        """A `reasoning` item stays next to the item it produced."""
        item = self.item(view, msg)
        return isinstance(item, dict) and item.get("type") == "reasoning"

    def _drop(self, doc: Document, part: Part) -> None:
        where = part.block if part.block is not None else part.path
        if len(where) >= 2 and where[-2] == "summary":
            # A reasoning item's summary may be empty (the API itself sends `"summary": []`):
            # no `[removed]` note, which would be longer than the blank summary it replaced.
            del get_at(doc.records[part.record], where[:-1])[where[-1]]
            doc.dirty.add(part.record)
            return
        super()._drop(doc, part)

    def text_node(self, part: Part, text: str) -> Any:
        kind = part.meta.get("text_type") or ("output_text" if part.role == "assistant" else "input_text")
        if part.kind == "image":
            kind = "input_text"
        return {"type": kind, "text": text}

    def stored(self, part: Part) -> Any:
        enc = part.meta.get("encoded_output")
        if not enc:
            return part.text
        # Written back encoded the way it was read: the same keys, order and escaping.
        return json.dumps({**enc["wrapper"], "output": part.text}, ensure_ascii=enc["ascii"], separators=(",", ":"))

    def write(self, view: View) -> None:
        super().write(view)
        # A reasoning item whose text was replaced no longer matches its encrypted_content; a
        # provider would reject the pair, so the opaque blob goes with the edit.
        for part in view.parts:
            if part.replaced and part.meta.get("replaced_kind") == "thinking" and part.block is not None:
                item = view.doc.get(part.record, part.block[:-2])
                if isinstance(item, dict) and "encrypted_content" in item:
                    del item["encrypted_content"]
                    view.doc.dirty.add(part.record)

    def sniff(self, doc: Document) -> int:
        located = message_list(doc, ("input", "items", "messages"))
        return responses_score([m for _, _, m in located]) if located else 0

    def most_messages(self, doc: Document) -> int | None:
        return len(message_list(doc, ("input", "items", "messages")) or ())  # one message an item at most

    def views(self, doc: Document) -> Iterator[View]:
        view = View(doc, self)
        for record, base, it in message_list(doc, ("input", "items", "messages")) or []:
            if isinstance(it, dict) and it.get("type") in ITEM_TYPES:
                read_item(view, record, base, it)
            elif isinstance(it, dict) and "role" in it and "content" in it:
                read_item(view, record, base, {**it, "type": "message"})
        yield view
    where = '`message`, `function_call(_output)`, `reasoning`, `custom_tool_call(_output)` items'
