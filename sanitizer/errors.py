"""Every error a user can see, in one place, each with the file and line it is about when known.

The message (`str(exc)`) is what the command line prints; `source` and `line` let a caller
point at the place without parsing it.  The modules that raise them import them from here (and
keep their old names: `from sanitizer.formats import FormatError` still works).
"""

from __future__ import annotations

from typing import Any


class SanitizerError(Exception):
    """Base of the errors a user sees: a one-line message, plus where when it is known."""

    def __init__(self, message: str = "", *args: Any, source: str | None = None, line: int | None = None) -> None:
        super().__init__(message, *args)
        self.source = source
        self.line = line


class InputError(SanitizerError, ValueError):
    """The input cannot be read at all (not JSON, not JSONL, unreadable)."""


class WriteError(InputError):
    """An output (file, folder or stdout) cannot be written."""


class UsageError(SanitizerError, ValueError):
    """The inputs and outputs asked for cannot go together (the command exits 2)."""


class ConfigError(SanitizerError, ValueError):
    """Invalid rule configuration (exit code 2 on the command line)."""


class FormatError(SanitizerError, ValueError):
    """The format cannot be detected, or the named format does not exist."""


class StateDbError(SanitizerError, ValueError):
    """A Hermes state.db cannot be read, or does not hold the requested session."""


class EncodingError(SanitizerError, ValueError):
    """The requested tiktoken encoding cannot be loaded here."""


class HookError(SanitizerError):
    """A hook's input cannot be used (exit 1, message on stderr)."""


class SummaryFailed(SanitizerError, RuntimeError):
    """Every summarizer failed and the caller asked not to fall back (keep the full history).

    `failures` holds (index, kind, message) per summarizer tried.
    """

    def __init__(self, failures: list[tuple[int, str, str]]) -> None:
        self.failures = list(failures)
        detail = "; ".join(f"#{i} {kind}: {msg}" for i, kind, msg in self.failures) or "no summarizer given"
        super().__init__(f"all {len(self.failures)} summarizers failed, history left unsummarized ({detail})")


__all__ = ["ConfigError", "EncodingError", "FormatError", "HookError", "InputError", "SanitizerError",
           "StateDbError", "SummaryFailed", "WriteError"]
