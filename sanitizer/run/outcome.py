"""What processing one input produced, and the one line that says why an input could not be handled.

Every failure that concerns a file becomes `FILE[:LINE]: what is wrong` (the command prefixes
`sanitize: `); the run goes on with the other files and exits 1 (README, "Exit codes").  The line
is made where the failure happens (a worker process included) and travels in the Outcome.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sanitizer.document.loader import InputError
from sanitizer.formats import FormatError
from sanitizer.formats.hermes import StateDbError
from sanitizer.report import Report
from sanitizer.run.output import reason

# Python's JSON reader recurses once per level of nesting; beyond about this many levels (the
# interpreter's recursion limit) a document is rejected with `nested too deep`.
MAX_DEPTH = sys.getrecursionlimit()


@dataclass
class Outcome:
    """What processing one input produced (picklable, returned from worker processes)."""

    source: str
    output: bytes | None
    report: Report
    findings: list[str] = field(default_factory=list)  # --check / pair findings, as `file:line: what`
    error: str | None = None  # `file[:line]: what is wrong` when this input could not be handled
    code: int = 1  # the exit code `error` asks for (2: its format or session is a usage error)
    write_error: str | None = None  # `target: cannot write: why` when the output went to a sink and failed


def read_failure(exc: BaseException, source: str) -> str | None:
    """The one-line message for an exception that stopped reading or processing `source`."""
    if isinstance(exc, InputError):
        return str(exc)
    if isinstance(exc, RecursionError):
        return f"{source}: JSON nested too deep (the limit is about {MAX_DEPTH:,} levels)"
    if isinstance(exc, OSError):
        return f"{source}: cannot read: {reason(exc)}"
    if isinstance(exc, UnicodeError):
        return f"{source}: cannot encode the output: {exc.reason}"
    return None


def guarded(source: str, fn: Callable[..., Any], *args: Any) -> Any:
    """`fn(*args)`, or a failed Outcome for `source` when it raises an input or output error."""
    try:
        return fn(*args)
    except (InputError, RecursionError, OSError, UnicodeError) as exc:
        message = read_failure(exc, source)
        return Outcome(source, None, Report(source=source, format="", preset=""), error=message)
    except (FormatError, StateDbError) as exc:  # this file's format or session: a usage error (2)
        return Outcome(source, None, Report(source=source, format="", preset=""), error=str(exc), code=2)
