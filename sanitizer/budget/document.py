"""Document surgery for budget mode and pair repair: where a message lives, removing and inserting.

A message lives either in whole records (JSONL or JSON-list layouts: one record per message, or
several for Claude Code's split API messages) or as an element of a list inside one record (a
`{"messages": [...]}` object, a request body, a dataset episode, a SWE-agent `history`).  Edits
that add or remove records go through `splice`, which keeps `records`, `lines`, `raw_lines` and
`dirty` in step.  Views are never edited here: callers re-read the document afterwards.

Markers and stubs are built per format (keyed by adapter name) in the shape that format's
provider accepts; adapters are not touched.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Collection, Iterable
from typing import Any

from sanitizer.model import Damaged, Document, Message, Part, Path, View, get_at
from sanitizer.textkit.tags import find_blocks, outermost

STUB_TEXT = "[no result recorded]"
CHAT_LIKE = ("openai_chat", "hermes", "mini_swe_agent", "swe_agent")
# Formats whose turns `fit` can drop and replace by a marker (OpenHands events are not among them).
MARKER_FORMATS = CHAT_LIKE + ("anthropic", "claude_code", "codex", "responses", "dataset")
_NS = uuid.UUID("6f1c2a57-2d1e-4d8e-9a51-5a11f17b0d6e")


# -- where messages live --------------------------------------------------------------------------

def is_nested(view: View) -> bool:
    """True when messages are elements of a list inside a record rather than whole records."""
    if view.doc.container == "json-object" or view.adapter.name == "dataset" or "record" in view.meta:
        return True
    seen: set[int] = set()
    for m in view.messages:
        for r in set(m.records):
            if r in seen:
                return True
            seen.add(r)
    return False


def dialect(view: View) -> str:
    """The message shape of a view: chat, anthropic, claude_code, responses, codex or other."""
    name = view.adapter.name
    if name == "dataset":
        return "anthropic" if any(p.meta.get("dialect") == "anthropic" for p in view.parts) else "chat"
    if name in CHAT_LIKE:
        return "chat"
    if name in ("anthropic", "claude_code", "responses", "codex"):
        return name
    return "other"


def item_of(view: View, msg: Message) -> tuple[int, Path, int] | None:
    """(record, path of the list, index) of a nested message, found through its parts' paths."""
    for i in msg.parts:
        p = view.parts[i]
        path = p.block if p.block is not None else p.path
        node = view.doc.records[p.record]
        for k, key in enumerate(path):
            if isinstance(node, list) and isinstance(key, int):
                return p.record, tuple(path[:k]), key
            try:
                node = node[key]
            except (KeyError, IndexError, TypeError):
                break
    return None


def message_node(view: View, msg: Message) -> tuple[int, Path] | None:
    """(record, path) of the message object itself (the dict holding role/content)."""
    if is_nested(view):
        found = item_of(view, msg)
        return (found[0], found[1] + (found[2],)) if found else None
    record = msg.records[0]
    kind = dialect(view)
    if kind == "claude_code":
        return record, ("message",)
    rec = view.doc.records[record]
    if kind == "codex" and isinstance(rec, dict) and rec.get("type") == "response_item":
        return record, ("payload",)
    return record, ()


def is_reasoning(view: View, msg: Message) -> bool:
    """A Responses `reasoning` item (it must stay next to the item it produced)."""
    node = message_node(view, msg)
    if node is None:
        return False
    try:
        item = get_at(view.doc.records[node[0]], node[1])
    except (KeyError, IndexError, TypeError):
        return False
    return isinstance(item, dict) and item.get("type") == "reasoning"


# -- record surgery --------------------------------------------------------------------------------

def splice(doc: Document, drop: Iterable[int] = (), insert: dict[int, list[Any]] | None = None) -> None:
    """Remove records `drop` (damaged lines are always kept) and insert new records before the
    given old indices (`len(records)` appends).  Lines, raw lines and dirty marks follow."""
    drop = set(drop)
    insert = insert or {}
    n = len(doc.records)
    has_lines = len(doc.lines) == n
    has_raw = doc.raw_lines is not None and len(doc.raw_lines) == n
    records: list[Any] = []
    lines: list[int] = []
    raws: list[str] = []
    dirty: set[int] = set()
    for i in range(n + 1):
        for new in insert.get(i, ()):
            dirty.add(len(records))
            records.append(new)
            if has_lines:
                lines.append(doc.lines[min(i, n - 1)] if n else 1)
            raws.append("")
        if i == n:
            break
        if i in drop and not isinstance(doc.records[i], Damaged):
            continue
        if i in doc.dirty:
            dirty.add(len(records))
        records.append(doc.records[i])
        if has_lines:
            lines.append(doc.lines[i])
        if has_raw:
            raws.append(doc.raw_lines[i])  # type: ignore[index]
    doc.records = records
    if has_lines:
        doc.lines = lines
    if has_raw:
        doc.raw_lines = raws
    doc.dirty = dirty


def list_at(doc: Document, record: int, path: Path) -> list[Any]:
    node = get_at(doc.records[record], path)
    if not isinstance(node, list):
        raise TypeError(f"record {record} path {path!r} is not a list")
    return node


# -- nodes in each format's shape ------------------------------------------------------------------

def _context_keys(rec: Any) -> dict[str, Any]:
    keys = ("isSidechain", "userType", "cwd", "sessionId", "version", "gitBranch", "agentId", "slug")
    return {k: rec[k] for k in keys if isinstance(rec, dict) and k in rec}


def cc_uuid(*seeds: Any) -> str:
    return str(uuid.uuid5(_NS, "|".join(map(str, seeds))))


def user_text_node(view: View, text: str, near: int | None = None) -> Any:
    """A standalone user message (or record) carrying `text`, in the view's format."""
    kind = dialect(view)
    if kind == "chat":
        return {"role": "user", "content": text}
    if kind == "anthropic":
        return {"role": "user", "content": [{"type": "text", "text": text}]}
    item = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}
    if kind == "responses":
        return item
    rec = view.doc.records[near] if near is not None and near < len(view.doc.records) else None
    if kind == "codex":
        if isinstance(rec, dict) and rec.get("type") == "response_item":
            return {"timestamp": rec.get("timestamp"), "type": "response_item", "payload": item}
        return item
    if kind == "claude_code":
        out: dict[str, Any] = {"parentUuid": rec.get("parentUuid") if isinstance(rec, dict) else None}
        out.update(_context_keys(rec))
        out.update({"type": "user", "message": {"role": "user", "content": text}, "isCompactSummary": True,
                    "uuid": cc_uuid("marker", text), "timestamp": rec.get("timestamp") if isinstance(rec, dict) else None})
        return out
    raise NotImplementedError(f"no marker message for format {view.adapter.name!r}")


def stub_result_node(view: View, call_rec: Any, call_id: str, tool: str | None, call_type: str | None) -> Any:
    """A tool result saying no result was recorded, as a standalone message/record/item."""
    kind = dialect(view)
    if kind == "chat":
        out = {"role": "tool", "tool_call_id": call_id, "content": STUB_TEXT}
        if tool:
            out["name"] = tool
        return out
    block = {"type": "tool_result", "tool_use_id": call_id, "content": STUB_TEXT, "is_error": True}
    if kind == "anthropic":
        return {"role": "user", "content": [block]}
    if kind == "claude_code":
        out = {"parentUuid": call_rec.get("uuid") if isinstance(call_rec, dict) else None}
        out.update(_context_keys(call_rec))
        out.update({"type": "user", "message": {"role": "user", "content": [block]},
                    "uuid": cc_uuid("stub", call_id), "timestamp": call_rec.get("timestamp") if isinstance(call_rec, dict) else None,
                    "toolUseResult": STUB_TEXT})
        return out
    out_type = {"custom_tool_call": "custom_tool_call_output", "local_shell_call": "local_shell_call_output"}.get(
        call_type or "", "function_call_output")
    item = {"type": out_type, "call_id": call_id, "output": STUB_TEXT}
    if kind == "codex" and isinstance(call_rec, dict) and call_rec.get("type") == "response_item":
        return {"timestamp": call_rec.get("timestamp"), "type": "response_item", "payload": item}
    if kind in ("responses", "codex"):
        return item
    raise NotImplementedError(f"no stub result for format {view.adapter.name!r}")


def stub_block(call_id: str) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": call_id, "content": STUB_TEXT, "is_error": True}


# -- what a marker carries ----------------------------------------------------------------------

def _leaves(node: Any) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, dict):
        return [s for v in node.values() for s in _leaves(v)]
    if isinstance(node, list):
        return [s for v in node for s in _leaves(v)]
    return []


def _readable(part: Part) -> list[str]:
    """A part's texts as a reader sees them: a tool call's JSON string values, decoded."""
    if part.kind == "tool_call":
        try:
            return _leaves(json.loads(part.text))
        except (ValueError, RecursionError):
            pass
    return [part.text]


def kept_blocks(parts: list[Part], names: Collection[str]) -> list[str]:
    """The closed protected blocks of `parts`, outermost only, in order and without repeats."""
    out: list[str] = []
    seen: set[str] = set()
    for p in parts:
        if p.dropped or p.kind in ("image", "other") or "<" not in p.text:
            continue
        for text in _readable(p):
            for b in outermost(b for b in find_blocks(text, names) if b.closed):
                block = text[b.start:b.end]
                if block not in seen:
                    seen.add(block)
                    out.append(block)
    return out
