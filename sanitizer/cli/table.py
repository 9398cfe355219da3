"""The per-rule table of a report, drawn for a terminal with rich."""

from __future__ import annotations

from rich.table import Table

from sanitizer.report import Report


def render_table(report: Report) -> Table:
    """A rich table of the per-rule figures and totals (for a terminal)."""
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
