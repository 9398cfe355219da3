"""What `sanitize` says on stderr besides the data: warnings, the budget line, the report."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import click

from sanitizer.report import Report
from sanitizer.run.output import write_atomic

# Exit code under --strict when --budget could not be met (README, "Exit codes").
BUDGET_NOT_MET = 3
# The console width of a table that is not drawn on a terminal: wide enough that no row wraps.
NO_WRAP_WIDTH = 100_000


class Messages:
    """Prints each warning line on stderr, or keeps them for the JSON report (`into_report`)."""

    def __init__(self, *, into_report: bool) -> None:
        self.into_report = into_report
        self.lines: list[str] = []
        self.stopped = False  # the run stopped before its end (--strict, a closed stdout)

    def __call__(self, line: str) -> None:
        if self.into_report:
            self.lines.append(line)
        else:
            click.echo(line, err=True)

    def into(self, report: Report) -> None:
        """Put the kept lines into the report (`warnings`)."""
        if self.lines:
            report.extra["warnings"] = list(self.lines)


def budget_warning(report: Report, strict: bool) -> str | None:
    """`sanitize: FILE: warning: ...` when --budget was not met (with the smallest size reached)."""
    budget = report.extra.get("budget")
    if not isinstance(budget, dict) or budget.get("met", True):
        return None
    kind = "error" if strict else "warning"
    return (f"sanitize: {report.source}: {kind}: budget not met: the smallest size reached is "
            f"{budget.get('tokens_after', 0):,} tokens for a {budget.get('max_tokens', 0):,}-token budget")


def report(report: Report, kind: str | None, report_file: Path | None, *, quiet: bool, terminal: bool,
           mode: str) -> None:
    """The run's report on stderr (table, JSON or one line) and in `report_file`."""
    if report_file is not None or (kind == "json" and not quiet):
        data = report.to_dict()  # built only when asked for: a cut list can be long
        if report_file is not None:
            write_atomic(report_file, (json.dumps(data, ensure_ascii=False, indent=2) + "\n").encode())
    if quiet or kind == "none":
        return
    if kind == "json":
        click.echo(json.dumps(data, ensure_ascii=False, indent=2), err=True)
    elif mode == "check":
        n = len(report.extra.get("check", []))
        click.echo(f"check: {report.source}: {report.messages:,} messages, {n} finding(s)", err=True)
    elif (kind == "table" or (terminal and mode == "copy")) and not _rich_missing(kind):
        from rich.console import Console  # rich only when a table is drawn (its import is start-up time)

        from sanitizer.cli.table import budget_line, render_table, top_rules_line

        # Not a terminal (a file, a pipe, a CI log): no width to fit, so the table never wraps.
        console = Console(stderr=True) if terminal else Console(stderr=True, width=NO_WRAP_WIDTH, soft_wrap=True)
        console.print(render_table(report))
        for line in (top_rules_line(report), budget_line(report)):
            if line:
                console.print(line, soft_wrap=True, markup=False, highlight=False)
    elif mode == "copy":
        if report.tokens_before is not None:
            before, after = report.tokens_before, report.tokens_after or 0
            pct = 100 * (before - after) / before if before else 0.0
            figures = f"tokens {before:,} -> {after:,} ({pct:.1f}% saved)"
        else:
            figures = f"chars {report.chars_before:,} -> {report.chars_after:,}"
        hits = sum(s.hits for s in report.rules.values())
        click.echo(f"sanitize: {report.source}: {report.messages:,} messages, {hits:,} cuts, {figures}", err=True)


def _rich_missing(kind: str) -> bool:
    """True where rich is not installed (a checkout run without installing it): the plain line is
    said instead of the table, with a note when the table was asked for."""
    if importlib.util.find_spec("rich") is not None:
        return False
    if kind == "table":
        click.echo("sanitize: warning: the table needs the rich package (pip install .); the plain line instead",
                   err=True)
    return True
