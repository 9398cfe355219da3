"""The redaction contract beyond the parts: every other string a record carries, damaged lines, duplicate keys.

`redact-secrets` scans the parts the rule selects.  The same-format copy also carries what a view
does not read as parts: Claude Code `toolUseResult`, Codex `event_msg` payloads, SWE-agent
`trajectory[]` entries, metadata fields, damaged lines, and a raw line that still holds the first
value of a duplicate key (`redaction_raw`).  `guard_document` runs before the rules, on every string of every record
that is neither a part nor a linked copy; `settle_copies` runs after the write, on the linked
copies no rule change reached (the engine redacts the others before it changes them, so a cut
never splits a secret in a copy).

A string at a part's path is left to the rule, so the copy, `--to text` and `--to messages` agree.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sanitizer.model import Damaged, Document, Path, Problem, View, get_at
from sanitizer.report import Cut, RuleStats
from sanitizer.secrets import scan as _secrets
from sanitizer.secrets.raw import duplicates, redact_damaged, redact_damaged_many, strings
from sanitizer.secrets.walk import (
    Walk,
    apply,
    redact_json_text,
    redact_json_texts,
    scannable_strings,
    scanned_decoded,
)

_TEXT_KINDS = ("text", "thinking", "tool_result", "tool_call")

__all__ = ["Found", "clean_strings", "guard_document", "record", "redact_damaged", "redact_json_text", "redact_json_texts",
           "redact_text", "redact_tree", "settle_copies"]


@dataclass(slots=True)
class Found:
    """One redaction outside the parts: where, and what was removed (for the report)."""

    record: int
    path: list[Any]
    old_chars: int
    new_chars: int
    removed: str


def record(found: Sequence[Found], rule: str, doc: Document, stats: dict[str, RuleStats], cuts: list[Cut]) -> None:
    """Count redactions outside the parts as hits of `rule`, each with its provenance cut.

    They change no part, so the report's chars and tokens (what a summarizer reads) stay as
    they are.
    """
    if not found:
        return

    st = stats.setdefault(rule, RuleStats())
    for f in found:
        st.hits += 1
        cuts.append(Cut(rule=rule, record=f.record, line=doc.line_of(f.record), path=f.path,
                        original_chars=f.old_chars, new_chars=f.new_chars, removed_chars=len(f.removed),
                        sha256=hashlib.sha256(f.removed.encode("utf-8", "surrogatepass")).hexdigest()))


def redact_text(text: str) -> str:
    """`text` with every credential replaced by its marker."""
    return _secrets.redact(text)[0]


def redact_tree(node: Any) -> Any:
    """A copy of a JSON-like tree (dicts, lists, strings) with every string redacted (keys too)."""
    leaves: list[str] = []
    strings(node, leaves)
    done = dict(zip(leaves, (t for t, _ in _secrets.redact_many(leaves)), strict=True))

    def build(n: Any) -> Any:
        if isinstance(n, str):
            return done.get(n, n)
        if isinstance(n, dict):
            return {done.get(k, k) if isinstance(k, str) else k: build(v) for k, v in n.items()}
        if isinstance(n, list | tuple):
            return [build(v) for v in n]
        return n

    return build(node)


def _settled(doc: Document, views: Iterable[View]) -> tuple[dict[int, set[Any]], dict[int, set[Any]]]:
    """(leaves, subtrees) the parts settle, as `id(container) -> keys` (identity: no path per leaf)."""
    leaves: dict[int, set[Any]] = {}
    subtrees: dict[int, set[Any]] = {}

    def mark(into: dict[int, set[Any]], record: int, path: Path) -> None:
        try:
            parent = doc.records if not path else get_at(doc.records[record], path[:-1])
        except (KeyError, IndexError, TypeError):
            return
        into.setdefault(id(parent), set()).add(path[-1] if path else record)

    for view in views:
        for p in view.parts:
            if p.kind == "image" or (p.kind == "tool_call" and p.meta.get("args_object")
                                     and not p.meta.get("merge_args")):
                mark(subtrees, p.record, p.path)  # (arguments may also be a JSON string: a leaf)
                mark(leaves, p.record, p.path)
            elif p.kind in _TEXT_KINDS:
                mark(leaves, p.record, p.path)
            for record, path in p.copies:  # see `settle_copies`
                mark(leaves, record, path)
    return leaves, subtrees


def follows(copy: Any, text: str) -> bool:
    """True when a linked copy holds a credential only where its part does: it equals the part's
    text up to surrounding whitespace, or is a stretch of it between whitespace."""
    if not isinstance(copy, str):
        return False
    if copy == text or copy.strip() == text.strip():
        return True
    at = text.find(copy) if len(copy) < len(text) else -1
    if at < 0:
        return False
    end = at + len(copy)
    return (at == 0 or text[at - 1].isspace()) and (end == len(text) or text[end].isspace())


def _value(doc: Document, record: int, path: Path) -> Any:
    try:
        return doc.get(record, path)
    except (KeyError, IndexError, TypeError):
        return None


def clean_texts(views: Sequence[View]) -> set[str]:
    """The part texts of `views` that hold no credential, scanned together.

    A document of many conversations (a dataset file) runs the rules once per conversation, and
    each run's redaction would scan its few texts on its own, paying the scan's fixed cost every
    time; given this set (`redact_many(..., clean)`), it scans only the texts not cleared here.
    """
    return _secrets.clean_of(p.text for view in views for p in view.parts
                             if not scanned_decoded(p.kind, p.text))


def clean_strings(docs: Iterable[Document]) -> set[str]:
    """The strings of the records of `docs` that hold no credential, scanned together.

    The lines of a dataset JSONL are documents of their own, each run apart: given this set, their
    guards and redactions scan only what it does not clear (a part text made of several strings,
    a `"name": "value"` pair), not each line's strings in a scan of their own.
    """
    leaves: list[str] = []
    for doc in docs:
        for rec in doc.records:
            if not isinstance(rec, Damaged):
                scannable_strings(rec, leaves)
    return _secrets.clean_of(leaves)


def guard_document(doc: Document, views: Sequence[View], clean: Collection[str] = ()) -> list[Found]:
    """Redact, in place, every string of `doc` that no part of `views` settles; report damage.
    A string in `clean` (`clean_strings`) is known to hold no credential.

    Also redacts damaged lines (adding a problem for each), and warns about duplicate keys
    (whose first value `json` drops: the record is then written from its parsed value, so the
    raw line holding the dropped value is not copied).
    """
    leaves, subtrees = _settled(doc, views)
    walk = Walk(leaves, subtrees)
    found: list[Found] = []
    counts: list[int] = [0] * len(doc.records)
    damaged = [(i, rec) for i, rec in enumerate(doc.records) if isinstance(rec, Damaged) and rec.raw.strip()]
    for (i, rec), (new, removed) in zip(damaged, redact_damaged_many([rec.raw for _, rec in damaged]), strict=True):
        found.extend(_damaged(doc, i, rec, new, removed))
    for i, rec in enumerate(doc.records):
        if not isinstance(rec, Damaged):
            counts[i] = walk.record(i, doc.records)
    for index, container, key, old, new, removed in apply(walk, clean):
        doc.dirty.add(index)
        found.append(Found(index, _path_to(doc.records[index], container, key), len(old), len(new),
                           "\n".join(removed)))
    duplicates(doc, counts)
    return found


def settle_copies(doc: Document, views: Sequence[View]) -> list[Found]:
    """Redact, after the write, the linked copies no rule change reached.

    A copy of a changed part is settled by the engine (it carries the part's change, or redacts
    the copy's own text before any other change: `Engine._redact_copies`).  What is left: the
    copies of an unchanged part (the adapter writes none: those the engine redacted are written
    here, the others scanned), and every copy of a dropped part.
    """
    found: list[Found] = []
    for view in views:
        for p in view.parts:
            if not p.copies or (p.changed and not p.dropped):
                continue
            texts = p.meta.get("copy_texts") or ()
            done = p.meta.get("copies_redacted") or ()
            for i, (record, path) in enumerate(p.copies):
                old = _value(doc, record, path)
                if not isinstance(old, str):
                    continue
                if i in done and not p.dropped:  # redacted by the engine, not written: write it
                    if texts[i] is not None and texts[i] != old:
                        doc.set(record, path, texts[i])
                    continue
                if not p.dropped and follows(old, p.text):
                    continue
                new, removed = _secrets.redact(old)
                if removed and new != old:
                    doc.set(record, path, new)
                    found.append(Found(record, list(path), len(old), len(new), "\n".join(removed)))
    return found


def _path_to(root: Any, container: Any, key: Any) -> list[Any]:
    """The path of `container[key]` inside `root` (searched by identity; only called on a hit)."""
    stack: list[tuple[Any, list[Any]]] = [(root, [])]
    while stack:
        node, path = stack.pop()
        if node is container:
            return [*path, key]
        if isinstance(node, dict):
            stack.extend((v, [*path, k]) for k, v in node.items() if isinstance(v, dict | list))
        elif isinstance(node, list):
            stack.extend((v, [*path, j]) for j, v in enumerate(node) if isinstance(v, dict | list))
    return []  # `container` is the record list: the record itself is the string


def _damaged(doc: Document, index: int, rec: Damaged, new: str, removed: list[str]) -> list[Found]:
    if not removed or new == rec.raw:
        return []
    old, rec.raw = rec.raw, new
    doc.problems.append(Problem(doc.source, rec.line, f"{len(removed)} credential(s) redacted in this damaged "
                                                      "line; the rest of it is copied through unchanged"))
    return [Found(index, [], len(old), len(new), "\n".join(removed))]
