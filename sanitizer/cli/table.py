"""The per-rule table of a report, drawn with rich, and the plain lines said under it."""

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


def top_rules_line(report: Report, n: int = 3) -> str | None:
    """`top rules by tokens saved: a 1,234 · b 567 · c 89` (by chars without token counts), or None."""
    tokens = report.tokens_before is not None
    saved = [(st.tokens_saved if tokens else st.chars_saved, name) for name, st in report.rules.items() if st.hits]
    best = sorted((s for s in saved if s[0] > 0), key=lambda s: (-s[0], s[1]))[:n]
    if not best:
        return None
    unit = "tokens" if tokens else "chars"
    return f"top rules by {unit} saved: " + " · ".join(f"{name} {value:,}" for value, name in best)


def budget_line(report: Report) -> str | None:
    """One plain line when a --budget was asked for and not met, with the smallest size reached."""
    budget = report.extra.get("budget")
    if not isinstance(budget, dict) or budget.get("met", True):
        return None
    return (f"budget not met: the smallest copy reached is {budget.get('tokens_after', 0):,} tokens, "
            f"over the {budget.get('max_tokens', 0):,}-token budget")
