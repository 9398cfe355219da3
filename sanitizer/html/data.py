"""What the HTML report shows, read from a `Result`: one row per message, its parts and their cuts.

Only the result's own texts are used.  The text a cut removed (`Part.original`) is taken from
before the rules ran, so it still holds any credential the redaction rule replaced: it is passed
through the same secret scanner before it reaches the page (the page never shows a credential
the sanitized copy hides).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from sanitizer.cuts import records
from sanitizer.scope import is_user_ask
from sanitizer.secrets.scan import redact_many
from sanitizer.textkit.tags import find_blocks, outermost
from sanitizer.tokens.counter import TokenCounter
from sanitizer.transcript import part_text

KEPT_TAGS = frozenset({"key_info"})

# Why each built-in action cuts (shown on hover); a rule of another action gets a generic reason.
REASONS = {
    "redact-secrets": "credentials are replaced by a fingerprinted marker",
    "image-placeholder": "image data replaced by a short label",
    "strip-block": "a block the summarizer does not need was removed",
    "placeholder-tag": "a tagged block was replaced by a placeholder",
    "fold-sidechain": "a sub-agent's turn is folded under the call that started it (its report is that call's result)",
    "drop-thinking": "reasoning of older turns is dropped (the summarizer reads the answers)",
    "dedupe-tool-results": "a tool result repeated an earlier one",
    "digest-tool-result": "an old tool result was replaced by its digest",
    "compact-tool-args": "long tool arguments were shortened",
    "trim-tag": "a long tagged block was trimmed",
    "collapse-code": "a long code block was collapsed",
    "trim-text": "a long text was trimmed to its head and tail",
    "collapse-blank-lines": "runs of blank lines were collapsed",
}


def reason_of(rule: str) -> str:
    """The hover text for a cut made by `rule`."""
    return REASONS.get(rule, f"changed by rule {rule}")


@dataclass(slots=True)
class CutRow:
    rule: str
    removed_chars: int
    line: int | None
    copy: bool  # the cut was made in a linked copy of the part (e.g. Claude Code's toolUseResult)


@dataclass(slots=True)
class PartRow:
    kind: str
    role: str
    tool: str | None
    text: str  # what the summarizer reads ("" when dropped)
    removed: str | None  # the text before the rules (redacted), None when the part is untouched
    dropped: bool
    image: bool
    cuts: list[CutRow] = field(default_factory=list)
    kept: list[tuple[int, int]] = field(default_factory=list)  # spans of <key_info> blocks in `text`
    cut_ids: list[str] = field(default_factory=list)  # the ids of its recoverable cuts (`--cuts`)
    copies: list[tuple[str, str]] = field(default_factory=list)  # (id, text) of linked copies cut on their own


@dataclass(slots=True)
class MessageRow:
    conversation: int
    index: int
    role: str
    injected: bool
    latest: bool
    parts: list[PartRow] = field(default_factory=list)
    before: int = 0
    after: int = 0

    @property
    def rules(self) -> list[str]:
        return sorted({c.rule for p in self.parts for c in p.cuts})

    @property
    def has_kept(self) -> bool:
        return any(p.kept for p in self.parts)


@dataclass(slots=True)
class Page:
    title: str
    unit: str  # "tokens" or "chars"
    messages: list[MessageRow]
    rules: list[tuple[str, int, int, int | None]]  # name, hits, chars saved, tokens saved
    totals: dict[str, Any]
    # cuts outside every message part (a damaged line, a record no reader maps): rule, line, path, chars
    elsewhere: list[tuple[str, int | None, str, int]] = field(default_factory=list)


def _kept_spans(text: str) -> list[tuple[int, int]]:
    if "<" not in text:
        return []
    return [(b.start, b.end) for b in outermost(b for b in find_blocks(text, KEPT_TAGS) if b.closed)]


def _cut_index(result: Any) -> dict[tuple[int, tuple[Any, ...]], list[Any]]:
    cuts: dict[tuple[int, tuple[Any, ...]], list[Any]] = {}
    for cut in result.report.cuts:
        cuts.setdefault((cut.record, tuple(cut.path)), []).append(cut)
    return cuts


def _measure(result: Any, rows: list[MessageRow], befores: list[list[str]], afters: list[list[str]]) -> str:
    """Fill each row's before/after size: tokens when the run counted them, else chars."""
    encoding = result.report.encoding if result.report.tokens_before is not None else None
    if encoding is None:
        for row, b, a in zip(rows, befores, afters, strict=True):
            row.before, row.after = sum(map(len, b)), sum(map(len, a))
        return "chars"
    counter = TokenCounter(encoding, threads=1)
    try:
        flat = [t for texts in (*befores, *afters) for t in texts]
        counts = iter(counter.count_many(flat))
        for row, b in zip(rows, befores, strict=True):
            row.before = sum(next(counts) for _ in b)
        for row, a in zip(rows, afters, strict=True):
            row.after = sum(next(counts) for _ in a)
    finally:
        counter.close()
    return "tokens"


def _recoverable(result: Any) -> dict[tuple[int, tuple[Any, ...]], tuple[str, str]]:
    """(id, redacted text) of each recoverable cut by where its text lives (`Sanitizer(cut_ids=True)`)."""
    cuts = getattr(result, "recoverable", None) or []
    if not cuts:
        return {}
    return {(c.record, tuple(c.path)): (c.id, entry["text"]) for c, entry in zip(cuts, records(cuts), strict=True)}


def build(result: Any, title: str | None = None) -> Page:
    """The page model of a run: messages in order, each part with its cuts and kept blocks."""
    index = _cut_index(result)
    recoverable = _recoverable(result)
    rows: list[MessageRow] = []
    befores: list[list[str]] = []
    afters: list[list[str]] = []
    to_redact: list[PartRow] = []
    originals: list[str] = []
    mapped: set[tuple[int, tuple[Any, ...]]] = set()
    for c, view in enumerate(result.views):
        latest = next((m.index for m in reversed(view.messages) if is_user_ask(view, m)), None)
        for msg in view.messages:
            row = MessageRow(c, msg.index, msg.role, msg.injected, msg.index == latest)
            before: list[str] = []
            after: list[str] = []
            for p in view.parts_of(msg):
                if p.kind == "other":
                    continue
                image = p.kind == "image" or bool(p.meta.get("image"))
                text = "" if p.dropped else part_text(p)
                changed = p.changed
                row_part = PartRow(p.meta.get("replaced_kind") or p.kind, p.role, p.tool, text, None, p.dropped, image)
                keys = [(p.record, tuple(p.path))]
                if p.block is not None:
                    keys.append((p.record, tuple(p.block)))
                keys.extend((record, tuple(path)) for record, path in p.copies)
                mapped.update(keys)
                for key in keys[:2 if p.block is not None else 1]:
                    row_part.cuts.extend(CutRow(k.rule, k.removed_chars, k.line, False) for k in index.get(key, ()))
                for record, path in p.copies:
                    row_part.cuts.extend(CutRow(k.rule, k.removed_chars, k.line, True)
                                         for k in index.get((record, tuple(path)), ()))
                copy_keys = [(record, tuple(path)) for record, path in p.copies]
                row_part.cut_ids = [recoverable[k][0] for k in (keys[0], *copy_keys) if k in recoverable]
                row_part.copies = [recoverable[k] for k in copy_keys if k in recoverable]
                own = recoverable.get(keys[0])
                if changed and not image and own is not None:
                    row_part.removed = own[1]  # the sidecar's text: what `sanitize expand` prints
                elif changed and not image:
                    to_redact.append(row_part)
                    originals.append(p.original or "")
                row_part.kept = _kept_spans(text)
                # an image reads as its label before and after (its data is never counted or shown)
                before.append(text if image or not changed else p.original or "")
                after.append(text)
                row.parts.append(row_part)
            rows.append(row)
            befores.append(before)
            afters.append(after)
    for row_part, (clean, _found) in zip(to_redact, redact_many(originals), strict=True):
        row_part.removed = clean
    # The "before" size of a changed part counts its redacted original (same figure as shown).
    unit = _measure(result, rows, _redacted_befores(rows, befores), afters)
    elsewhere = [(k.rule, k.line, "/".join(map(str, k.path)) or "(whole record)", k.removed_chars)
                 for k in result.report.cuts if (k.record, tuple(k.path)) not in mapped]
    return Page(title=title or f"sanitizer report · {result.report.source}", unit=unit, messages=rows,
                rules=_rule_rows(result), totals=_totals(result), elsewhere=elsewhere)


def _redacted_befores(rows: list[MessageRow], befores: list[list[str]]) -> list[list[str]]:
    out: list[list[str]] = []
    for row, before in zip(rows, befores, strict=True):
        out.append([p.removed if p.removed is not None else b for p, b in zip(row.parts, before, strict=True)])
    return out


def _rule_rows(result: Any) -> list[tuple[str, int, int, int | None]]:
    tokens = result.report.tokens_before is not None
    return [(name, st.hits, st.chars_saved, st.tokens_saved if tokens else None)
            for name, st in result.report.rules.items() if st.hits]


def _totals(result: Any) -> dict[str, Any]:
    rep = result.report
    return {"source": rep.source, "format": rep.format, "preset": rep.preset, "messages": rep.messages,
            "chars_before": rep.chars_before, "chars_after": rep.chars_after,
            "tokens_before": rep.tokens_before, "tokens_after": rep.tokens_after, "encoding": rep.encoding,
            "cuts": len(rep.cuts)}


def roles(rows: Iterable[MessageRow]) -> list[str]:
    """The roles present, in first-seen order."""
    return list(dict.fromkeys(r.role for r in rows))
