"""What a run did: totals, a row per rule, a provenance record per cut, input problems."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sanitizer.engine import Cut, RuleStats
from sanitizer.model import Problem

REPORT_VERSION = 1


@dataclass(slots=True)
class Report:
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


def render_table(report: Report) -> Any:
    """A rich table of the per-rule figures and totals (for a terminal)."""
    from rich.table import Table

    tokens = report.tokens_before is not None
    title = f"{report.source} · {report.format} · preset {report.preset}"
    table = Table(title=title, title_justify="left")
    table.add_column("rule")
    table.add_column("hits", justify="right")
    table.add_column("chars saved", justify="right")
    if tokens:
        table.add_column("tokens saved", justify="right")
    for name, st in report.rules.items():
        if st.hits:
            row = [name, f"{st.hits:,}", f"{st.chars_saved:,}"]
            table.add_row(*(row + [f"{st.tokens_saved:,}"] if tokens else row))
    total = ["total", f"{sum(s.hits for s in report.rules.values()):,}",
             f"{report.chars_before - report.chars_after:,}"]
    if tokens:
        total.append(f"{(report.tokens_before or 0) - (report.tokens_after or 0):,}")
    table.add_section()
    table.add_row(*total, style="bold")
    if tokens:
        before, after = report.tokens_before or 0, report.tokens_after or 0
        pct = 100 * (before - after) / before if before else 0.0
        table.caption = (f"{report.messages:,} messages · tokens {before:,} → {after:,} ({pct:.1f}% saved, "
                         f"{report.encoding}) · {report.seconds:.2f}s")
    else:
        table.caption = f"{report.messages:,} messages · chars {report.chars_before:,} → {report.chars_after:,}"
    return table
