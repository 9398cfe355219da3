"""`sanitize rule-fixtures [--update] [FILE…]`: check the rule fixtures, or rewrite their expected
values from what the rules produce now (default files: `fixtures/*.toml`)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import IO, Any

from sanitizer.testing import check_files, fixture_files, update_file


def main(argv: list[str], stdin: IO[Any] | None = None, stdout: IO[str] | None = None,
         stderr: IO[str] | None = None) -> int:
    """Run the fixture files given in `argv` (default: `fixtures/*.toml`); the exit code."""
    out = stdout if stdout is not None else sys.stdout  # a verb's signature: no input, the report on stdout
    update = "--update" in argv
    files = [Path(a) for a in argv if a != "--update"] or fixture_files("fixtures")
    if update:
        for f in files:
            n = update_file(f)
            out.write(f"{f}: {n} case(s) updated\n" if n else f"{f}: up to date\n")
        return 0
    failures = check_files(files)
    for failure in failures:
        out.write(f"FAIL {failure}\n")
    out.write(f"{len(failures)} failed\n" if failures else "all fixture cases pass\n")
    return 1 if failures else 0
