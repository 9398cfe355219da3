"""Give each cut of a run its short id (`c1`, `c2`, … in document order) and write it into the text.

A cut is the unit that can be restored byte-exact: one changed part (its text before the rules),
plus one per linked copy whose text differed from the part's.  The id goes on every marker the
cut left (`…[trimmed 12,345 chars · c17]…`) or, for a whole-part placeholder, into it (`[image:
… · c3]`, `[thinking omitted: 1,234 chars · c5]`, a digest line ending in ` · c4`).  A change with
neither (collapsed blank lines, a collapsed code block, a stripped block, a dropped part) keeps its
id in the sidecar only, with its record, line and path.  A part only the redaction rule changed is
no cut: its redacted text is what the output already holds.

Runs between the engine and the adapter's write, so the ids reach the copy, the transcript and
the report alike; every cut was already made knowing what its id costs (the run sets the id width
with `textkit.markers.ids_of_width`), so every change still shrinks with its ids.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from sanitizer.digest.line import is_digest
from sanitizer.model import Part, View
from sanitizer.report import Cut
from sanitizer.secrets.scan import redact
from sanitizer.textkit.markers import markers_in, tag_markers, with_cut_id
from sanitizer.textkit.spans import split_kept_blocks


@dataclass(slots=True)
class RecoverableCut:
    """One restorable cut: its id, the rules that made it, where its text lived, and that text.

    `original` is the text before the rules, credentials included: serialize it with
    `sanitizer.cuts.sidecar`, which redacts it unless asked not to.
    """

    id: str
    rules: list[str]
    record: int
    line: int | None
    path: list[Any]
    kind: str
    original: str
    copy: bool = False  # a linked copy of a part (Claude Code's toolUseResult, Codex event_msg, …)


def id_width(views: Sequence[View]) -> int:
    """Digits of the largest id a run over `views` can hand out (one per part and per copy)."""
    most = sum(len(v.parts) + sum(len(p.copies) for p in v.parts) for v in views)
    return len(str(max(most, 1)))


def _original(part: Part, view: View) -> str:
    """The text a part held before the rules; an image part is its block as JSON (its data inside)."""
    if part.kind == "image" or (part.meta.get("replaced_kind") == "image"):
        block = view.doc.get(part.record, part.path)
        return json.dumps(block, ensure_ascii=False) if not isinstance(block, str) else block
    return part.original if part.original is not None else part.text


def _tag(text: str, cut_id: str, original: str, replaced: bool, protected: Collection[str]) -> str:
    """`text` with `cut_id` on its new markers, or in its whole-part placeholder."""
    tagged, n = tag_markers(text, cut_id, markers_in(original))
    if n:
        return tagged
    body, suffix = split_kept_blocks(text, frozenset(protected))
    if "\n" in body or not body.startswith("["):
        return text
    if is_digest(body):  # `[Bash] ran `make` -> exit 0, 3 lines · c4`
        return f"{body} · {cut_id}{suffix}"
    if replaced or body.endswith("]"):  # `[image: … · c3]`, `[same output as … · c6]`
        return with_cut_id(body, cut_id) + suffix
    return text


def _index(cuts: Sequence[Cut]) -> dict[tuple[int, tuple[Any, ...]], list[Cut]]:
    at: dict[tuple[int, tuple[Any, ...]], list[Cut]] = {}
    for c in cuts:
        at.setdefault((c.record, tuple(c.path)), []).append(c)
    return at


def assign(view: View, cuts: Sequence[Cut], start: int, redacting: str | None,
           protected: Collection[str]) -> list[RecoverableCut]:
    """Number the cuts of `view` from `start + 1`, tag their texts, and return them in order.

    `cuts` are the engine's provenance records for this view (the rules of each part);
    `redacting` is the redaction rule's name (its changes alone make no cut).
    """
    cuts_at = _index(cuts)
    out: list[RecoverableCut] = []
    for part in view.parts:
        if not part.changed:
            continue
        keys = [(part.record, tuple(part.path))] + ([(part.record, tuple(part.block))] if part.block else [])
        made = [c for k in keys for c in cuts_at.get(k, ())]
        rules = list(dict.fromkeys(c.rule for c in made))
        if not rules or set(rules) <= {redacting}:
            continue
        original = _original(part, view)
        cut_id = f"c{start + len(out) + 1}"
        _name(made, cut_id, redacting)  # the report's provenance records name the id too
        before = part.text
        out.append(RecoverableCut(cut_id, rules, part.record, view.doc.line_of(part.record), list(part.path),
                                  part.meta.get("replaced_kind") or part.kind, original))
        if not part.dropped:
            tagged = _tag(before, cut_id, original, part.replaced, protected)
            if len(tagged) < len(original) or part.meta.get("image"):
                part.text = tagged
        out.extend(_copies(part, view, before, cut_id, rules, start + len(out), protected, cuts_at, redacting))
    return out


def _name(cuts: Sequence[Cut], cut_id: str, redacting: str | None) -> None:
    """Write `cut_id` into the report's provenance records of one cut (not redaction's own)."""
    for c in cuts:
        if c.rule != redacting:
            c.cut_id = cut_id


def _copies(part: Part, view: View, before: str, cut_id: str, rules: list[str], start: int,
            protected: Collection[str], cuts_at: dict[tuple[int, tuple[Any, ...]], list[Cut]],
            redacting: str | None) -> list[RecoverableCut]:
    """The linked copies of a cut part: one that held the part's text shares its id; one that
    held another text (and was changed) is a cut of its own."""
    texts = part.meta.get("copy_texts")
    if not part.copies or not texts:
        return []
    out: list[RecoverableCut] = []
    for i, (record, path) in enumerate(part.copies):
        final = texts[i]
        original = view.doc.get(record, path)
        if not isinstance(final, str) or not isinstance(original, str) or final == original:
            continue
        if original == part.original:
            texts[i] = part.text if final == before else _tag(final, cut_id, original, False, protected)
            _name(cuts_at.get((record, tuple(path)), ()), cut_id, redacting)
            continue
        if redact(original)[0] == final:  # only its own credentials went: no cut
            continue
        own = f"c{start + len(out) + 1}"
        _name(cuts_at.get((record, tuple(path)), ()), own, redacting)
        out.append(RecoverableCut(own, rules, record, view.doc.line_of(record), list(path), part.kind, original,
                                  copy=True))
        tagged = _tag(final, own, original, False, protected)
        if len(tagged) < len(original):
            texts[i] = tagged
    return out
