"""`python -m sanitizer.testing [--update] [FILE…]`: check the rule fixtures, or rewrite their
expected values from what the rules produce now (default files: `fixtures/*.toml`)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from sanitizer.testing import check_files, fixture_files, update_file


def main(argv: list[str] | None = None) -> int:
    """Run the fixture files given in `argv` (default: the process's arguments); the exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    update = "--update" in args
    files = [Path(a) for a in args if a != "--update"] or fixture_files("fixtures")
    if update:
        for f in files:
            n = update_file(f)
            click.echo(f"{f}: {n} case(s) updated" if n else f"{f}: up to date")
        return 0
    failures = check_files(files)
    for failure in failures:
        click.echo(f"FAIL {failure}")
    click.echo(f"{len(failures)} failed" if failures else "all fixture cases pass")
    return 1 if failures else 0
