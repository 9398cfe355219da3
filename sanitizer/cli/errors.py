"""How the command line ends on an error: one line `sanitize: what is wrong` on stderr, never a
traceback, and the exit code (README, "Exit codes"); the per-file lines are made in `run/outcome`."""

from __future__ import annotations

import sys
from typing import NoReturn

import click

from sanitizer.config import ConfigError
from sanitizer.formats import FormatError
from sanitizer.formats.hermes import StateDbError
from sanitizer.run.options import UsageError
from sanitizer.tokens.counter import EncodingError

# Errors that are the caller's to fix (exit 2); an InputError is the input's (exit 1).
USAGE_ERRORS = (ConfigError, FormatError, EncodingError, StateDbError, UsageError, click.UsageError)


def fail(message: str, code: int = 2) -> NoReturn:
    """Say `sanitize: message` on stderr and exit with `code`."""
    click.echo(f"sanitize: {message}", err=True)
    sys.exit(code)
