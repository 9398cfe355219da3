"""What a run did: totals, a row per rule, a provenance record per cut, input problems."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from sanitizer.model import Problem

REPORT_VERSION = 1


@dataclass(slots=True)
class Cut:
    """Provenance of one change: where, by which rule, and a fingerprint of what was removed."""

    rule: str
    record: int
    line: int | None
    path: list[Any]
    original_chars: int
    new_chars: int
    removed_chars: int
    sha256: str
    cut_id: str | None = None  # with `--cuts`: the id its text is restored by (`sanitize expand`)

    def to_dict(self) -> dict[str, Any]:
        """The cut as its JSON report entry (`cut_id` only when the run gave ids)."""
        out = dataclasses.asdict(self)
        if self.cut_id is None:
            del out["cut_id"]
        return out


@dataclass(slots=True)
class RuleStats:
    """One rule's figures in a report: hits, chars and tokens saved."""

    hits: int = 0
    chars_saved: int = 0
    tokens_saved: int = 0
    pairs: list[tuple[str, str]] = field(default_factory=list)  # (old, new) texts, for token savings


@dataclass(slots=True)
class Report:
    """What one run (or many, merged) did: totals, per-rule figures, cuts, problems, notes."""

    source: str
    format: str
    preset: str
    conversations: int = 0
    messages: int = 0
    chars_before: int = 0
    chars_after: int = 0
    tokens_before: int | None = None
    tokens_after: int | None = None
    encoding: str | None = None
    seconds: float = 0.0
    rules: dict[str, RuleStats] = field(default_factory=dict)
    cuts: list[Cut] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)

    def merge(self, other: Report) -> None:
        """Add another report's figures (used for multi-file runs)."""
        self.conversations += other.conversations
        self.messages += other.messages
        self.chars_before += other.chars_before
        self.chars_after += other.chars_after
        if self.tokens_before is not None and other.tokens_before is not None:
            self.tokens_before += other.tokens_before
            self.tokens_after = (self.tokens_after or 0) + (other.tokens_after or 0)
        for name, st in other.rules.items():
            mine = self.rules.setdefault(name, RuleStats())
            mine.hits += st.hits
            mine.chars_saved += st.chars_saved
            mine.tokens_saved += st.tokens_saved
        self.cuts.extend(other.cuts)
        self.problems.extend(other.problems)
        self.notes.extend(other.notes)

    def to_dict(self) -> dict[str, Any]:
        """The versioned JSON report (stable keys)."""
        return {
            "version": REPORT_VERSION,
            "source": self.source,
            "format": self.format,
            "preset": self.preset,
            "totals": {
                "conversations": self.conversations,
                "messages": self.messages,
                "chars_before": self.chars_before,
                "chars_after": self.chars_after,
                "tokens_before": self.tokens_before,
                "tokens_after": self.tokens_after,
                "encoding": self.encoding,
                "seconds": round(self.seconds, 4),
            },
            "rules": [
                {"rule": name, "hits": st.hits, "chars_saved": st.chars_saved,
                 "tokens_saved": st.tokens_saved if self.tokens_before is not None else None}
                for name, st in self.rules.items()
            ],
            "cuts": [c.to_dict() for c in self.cuts],
            "problems": [{"source": p.source, "line": p.line, "message": p.message, "severity": p.severity}
                         for p in self.problems],
            "notes": list(self.notes),
            **self.extra,
        }
