"""Record surgery for budget mode and pair repair: removing and inserting whole records.

A message lives either in whole records (JSONL or JSON-list layouts: one record per message, or
several for Claude Code's split API messages) or as an element of a list inside one record (a
`{"messages": [...]}` object, a request body, a dataset episode, a SWE-agent `history`).  Edits
that add or remove records go through `splice`, which keeps `records`, `lines`, `raw_lines` and
`dirty` in step.  Views are never edited here: callers re-read the document afterwards.

Where a message lives and the shape of markers and stubs are the adapters' hooks
(`sanitizer.formats.base.Adapter`): nothing here knows a format.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sanitizer.model import Damaged, Document, Path, get_at

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
