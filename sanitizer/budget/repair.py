"""Repair of orphans already present in the input (`--repair-pairs strip|stub`, Hermes' two ways).

* `strip`: an unanswered tool call and a result without a call are removed.
* `stub`: an unanswered call gets a result right after it saying `[no result recorded]` (with
  `is_error` where the format has it); a result without a call is removed (there is no call to
  attach a stub to, so `stub` strips those too).

Removing the last block of a message removes the message (a chat `tool` message, a Responses
item, a Claude Code record), except in Anthropic Messages, where the emptied message keeps one
text block saying what was removed so user/assistant alternation holds.  OpenHands and other
formats without a stub shape are left as they are and reported.  How a message loses parts and
what a stub looks like are the adapter's hooks (`remove_parts`, `stub_result`, `stub_in_next`).
"""

from __future__ import annotations

from typing import Any

from sanitizer.budget.document import splice
from sanitizer.formats.base import OTHER, RECORD_BLOCKS, item_of, path_sort_key
from sanitizer.model import Document, Part, View, get_at
from sanitizer.pairs import Pairs

MODES = ("report", "strip", "stub")


def orphans(view: View) -> tuple[list[Part], list[Part]]:
    """(unanswered calls, results without a call: one per message and id) of a view."""
    pairs = Pairs(view)
    return pairs.unanswered(), pairs.orphans(per_message=True)


def repair_doc(doc: Document, views: list[View], mode: str) -> list[str]:
    """Apply `mode` to every view of `doc` (views go stale); returns report notes."""
    if mode not in MODES:
        raise ValueError(f"unknown repair mode {mode!r}; choose one of: {', '.join(MODES)}")
    if mode == "report":
        return []
    notes: list[str] = []
    drop_records: set[int] = set()
    inserts: dict[int, list[Any]] = {}
    edits: list[tuple[int, tuple, str, Any]] = []  # (record, path, op, value): op del | ins
    for view in views:
        if view.adapter.dialect(view) == OTHER:
            unanswered, orphan_results = orphans(view)
            if unanswered or orphan_results:
                notes.append(f"repair {mode}: not available for format {view.adapter.name}; "
                             f"{len(unanswered)} unanswered call(s) and {len(orphan_results)} orphan result(s) left")
            continue
        _plan(view, mode, notes, drop_records, inserts, edits)
    # In-record edits from the last path to the first, so list indices stay valid.
    for record, path, op, value in sorted(edits, key=lambda e: (e[0], path_sort_key(e[1]), e[2] == "ins"), reverse=True):
        parent = get_at(doc.records[record], path[:-1])
        if op == "del":
            del parent[path[-1]]
        elif op == "ins":
            parent.insert(path[-1], value)
        else:  # set
            parent[path[-1]] = value
        doc.dirty.add(record)
    if drop_records or inserts:
        splice(doc, drop_records, inserts)
    return notes


def _plan(view: View, mode: str, notes: list[str], drop_records: set[int], inserts: dict[int, list[Any]],
          edits: list[tuple[int, tuple, str, Any]]) -> None:
    unanswered, orphan_results = orphans(view)
    remove = list(orphan_results) + (list(unanswered) if mode == "strip" else [])
    by_msg: dict[int, list[Part]] = {}
    for p in remove:
        by_msg.setdefault(p.message, []).append(p)
    if mode == "stub":
        for p in unanswered:
            _stub(view, p, inserts, edits)
    stubbed = {(e[0], e[1][:-1]) for e in edits if e[2] == "ins"}  # content lists that get a stub block
    for index, parts in by_msg.items():
        view.adapter.remove_parts(view, view.messages[index], parts, drop_records, edits, stubbed)
    if orphan_results:
        ids = sorted({p.call_id or "" for p in orphan_results})
        notes.append(f"repair {mode}: removed {len(orphan_results)} tool result(s) without a call ({', '.join(ids[:8])}"
                     f"{', …' if len(ids) > 8 else ''})")
    if mode == "strip" and unanswered:
        notes.append(f"repair strip: removed {len(unanswered)} unanswered tool call(s) "
                     f"({', '.join(sorted(p.call_id or '' for p in unanswered)[:8])})")
    if mode == "stub" and unanswered:
        notes.append(f"repair stub: added {len(unanswered)} '[no result recorded]' result(s) "
                     f"({', '.join(sorted(p.call_id or '' for p in unanswered)[:8])})")


def _stub(view: View, call: Part, inserts: dict[int, list[Any]], edits: list) -> None:
    adapter = view.adapter
    kind = adapter.dialect(view)
    msg = view.messages[call.message]
    into_next = adapter.stub_in_next(view, call)
    if into_next is not None:
        edits.append(into_next)
        return
    new = adapter.stub_result(view, call)
    # After the call's message and any results that directly follow it.
    j = call.message
    while j + 1 < len(view.messages) and (view.messages[j + 1].role == "tool" or (
            kind == RECORD_BLOCKS and all(p.role == "tool" for p in view.parts_of(view.messages[j + 1]))
            and view.messages[j + 1].parts)):
        j += 1
    after = view.messages[j]
    if adapter.nested(view):
        found = item_of(view, after)
        if found is not None:
            edits.append((found[0], found[1] + (found[2] + 1,), "ins", new))
        return
    if j == call.message:
        adapter.link_stub(view, new, msg)
    inserts.setdefault(max(after.records) + 1, []).append(new)
