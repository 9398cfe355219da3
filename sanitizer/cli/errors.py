"""What the command line says when one input or output cannot be handled: one line, never a traceback.

Every failure that concerns a file becomes `FILE[:LINE]: what is wrong` (the command prefixes
`sanitize: `); the run goes on with the other files and exits 1 (README, "Exit codes").
"""

from __future__ import annotations

import codecs
import errno
import sys
from collections.abc import Callable
from typing import Any

from sanitizer.document.loader import InputError
from sanitizer.errors import WriteError

# Python's JSON reader recurses once per level of nesting; beyond about this many levels (the
# interpreter's recursion limit) a document is rejected with `nested too deep`.
MAX_DEPTH = sys.getrecursionlimit()

_REASONS = {
    errno.ENOENT: "no such file",
    errno.EISDIR: "is a folder, not a file",
    errno.ELOOP: "symlink loop (too many levels of symbolic links)",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.EROFS: "read-only file system",
    errno.ENOSPC: "no space left on device",
    errno.EBADF: "not open (closed file descriptor)",
    errno.EPIPE: "the reader went away (broken pipe)",
}


def reason(exc: OSError) -> str:
    """A short lower-case reason for an OSError, without the file name."""
    return _REASONS.get(exc.errno or 0) or (exc.strerror or str(exc)).lower()


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
    from sanitizer.formats import FormatError
    from sanitizer.formats.hermes import StateDbError
    from sanitizer.report import Report
    from sanitizer.run.job import Outcome

    try:
        return fn(*args)
    except (InputError, RecursionError, OSError, UnicodeError) as exc:
        message = read_failure(exc, source)
        return Outcome(source, None, Report(source=source, format="", preset=""), error=message)
    except (FormatError, StateDbError) as exc:  # this file's format or session: a usage error (2)
        return Outcome(source, None, Report(source=source, format="", preset=""), error=str(exc), code=2)


def write_failure(exc: OSError, target: str) -> WriteError:
    return WriteError(f"{target}: cannot write: {reason(exc)}")


def _escape(exc: UnicodeError) -> tuple[bytes, int]:
    """Encoding error handler: a byte smuggled by `surrogateescape` goes back as that byte; any
    other lone surrogate (`"\\ud800"` in the JSON) is written as its `\\uXXXX` escape."""
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    out = bytearray()
    for ch in exc.object[exc.start:exc.end]:
        code = ord(ch)
        out += bytes([code - 0xDC00]) if 0xDC80 <= code <= 0xDCFF else f"\\u{code:04x}".encode()
    return bytes(out), exc.end


codecs.register_error("sanitizer-escape", _escape)


def encode(text: str) -> bytes:
    """UTF-8 bytes of an output text; never raises on lone surrogates (see `_escape`)."""
    return text.encode("utf-8", errors="sanitizer-escape")


def check_readable(doc: Any, source: str, san: Any) -> None:
    """Raise InputError for an input with nothing to sanitize (empty, a scalar) or one that a
    forced `--format` reads no or far fewer messages from than the detected format does."""
    from sanitizer.formats import FormatError, by_name, detect, message_count
    from sanitizer.model import Damaged

    records = [r for r in doc.records if not isinstance(r, Damaged)]
    if not doc.records:
        raise InputError(f"{source}: empty input: no conversation to read")
    if records and not any(isinstance(r, dict | list) for r in records):
        kind = type(records[0]).__name__
        raise InputError(f"{source}: expected a conversation (a JSON object or a list of messages), got {kind}")
    if not san.format or not records:
        return
    forced = by_name(san.format)
    got = message_count(forced, doc)
    try:
        other = detect(doc)
    except FormatError:
        other = None
    more = message_count(other, doc) if other is not None and other is not forced else 0
    if got == 0 and more == 0:
        raise InputError(f"{source}: --format {forced.name} reads no messages from this input; check --format")
    if got * 2 < more:
        raise InputError(f"{source}: --format {forced.name} reads {got:,} messages where {other.name} reads "
                         f"{more:,}; drop --format or use --format {other.name}")
