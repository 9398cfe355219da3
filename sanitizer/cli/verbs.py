"""Verbs beside the file command: `sanitize hook claude-code`, `sanitize hermes-plugin DIR`,
`sanitize expand SIDECAR ID` and `sanitize rule-fixtures [--update] [FILE…]`.

The click command takes FILEs; when the first argument names a verb and no file of that name
exists, the verb's `main(argv, stdin, stdout, stderr) -> int` runs instead.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

VERBS = {
    "hook": "sanitizer.integrations.claude_code",
    "hermes-plugin": "sanitizer.integrations.hermes_plugin",
    "expand": "sanitizer.cli.expand",
    "rule-fixtures": "sanitizer.cli.fixtures",
}


def dispatch(argv: Sequence[str]) -> int | None:
    """Run the verb `argv[0]` names and return its exit code; None when `argv` is a file command."""
    if not argv or argv[0] not in VERBS or Path(argv[0]).exists():
        return None
    module = importlib.import_module(VERBS[argv[0]])
    return module.main(list(argv[1:]), sys.stdin, sys.stdout, sys.stderr)


class VerbCommand(click.Command):
    """The file command, with the verbs dispatched before click parses the arguments."""

    def main(self, args: Sequence[str] | None = None, *rest: Any, **options: Any) -> Any:
        code = dispatch(sys.argv[1:] if args is None else list(args))
        if code is not None:
            sys.stdout.flush()
            sys.exit(code)
        return super().main(args, *rest, **options)
