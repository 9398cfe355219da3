"""The optional `[fast]` path of the JSON reader: orjson parses a text where it gives what `json` gives.

orjson differs from `json` in what it accepts and in one silent way: an integer beyond 64 bits
comes back as a float.  Every other difference is an error (non-finite numbers, lone surrogate
escapes, invalid UTF-8, a byte order mark, more than 1,024 levels of nesting), so a text goes to
orjson only when it holds no run of 19 digits (every 18-digit integer fits in 64 bits) and fewer
opening brackets than the stdlib reader's nesting limit; any orjson error hands the text to
`json`, whose value, error and message are the reader's.  Without orjson, or with
`SANITIZER_PLAIN=1`, only `json` runs.

Writing: a value read from text is written back, with its 2-space indent or as a compact JSONL
record, by orjson where that gives `json`'s text (`dumps_indent2`, `dumps_compact`); every other
value is written by `json`.
"""

from __future__ import annotations

import importlib.util
import os
import re
import sys
from typing import Any

# Imported on first use: its import is 20 ms in a bare process (uuid included), more than it saves
# on a small file, and well under 1 ms where its imports are loaded already (`cheap`).
orjson: Any = None

ENABLED: bool = importlib.util.find_spec("orjson") is not None and not os.environ.get("SANITIZER_PLAIN")
"""True when orjson is importable and `SANITIZER_PLAIN` is not set: `loads` tries it first."""


def _orjson() -> Any:
    global orjson, ENABLED
    if orjson is None:
        try:
            import orjson as module
        except ImportError:  # found but broken: the stdlib way, as without the extra
            ENABLED = False
            raise
        orjson = module
    return orjson

MISS = object()
"""What `loads` gives for a text it leaves to `json`."""

# 19 digits may exceed 2**63 - 1; a string holding such a run (a hash, a timestamp) costs only
# the stdlib read.  One translation (digits to `0`, `[` and `{` to `[`, all else a space) serves
# both guards: a regex search for the digits is 10x slower.
_DIGITS = bytes(0x30 if 0x30 <= b <= 0x39 else 0x5B if b in b"[{" else 0x20 for b in range(256))
_LONG_RUN = b"0" * 19
# Python's reader recurses once per level and stops near the interpreter's recursion limit
# (about 1,000 minus the frames below it); orjson's limit is 1,024.  Depth never exceeds the
# count of openers, so below this count both read the same depths.
MAX_OPENERS = 500


def loads(text: str | bytes) -> Any:
    """The value of a JSON text by orjson, or `MISS` where `json` must decide (see the module)."""
    if not ENABLED:
        return MISS
    if isinstance(text, str):
        try:
            text = text.encode("utf-8")
        except UnicodeEncodeError:  # lone surrogates (escaped bytes): orjson rejects them anyway
            return MISS
    shape = text.translate(_DIGITS)
    if _LONG_RUN in shape or shape.count(b"[") >= MAX_OPENERS:
        return MISS
    return loads_unscanned(text)


def loads_unscanned(data: bytes) -> Any:
    """orjson's value of `data`, or `MISS` on any orjson error, without the guards of `loads`:
    the caller has counted fewer than `MAX_OPENERS` brackets and rejects a value holding a float
    of `WIDE` or more in magnitude (what orjson makes of an integer beyond 64 bits)."""
    try:
        module = _orjson()
    except ImportError:
        return MISS
    try:
        return module.loads(data)
    except module.JSONDecodeError:
        return MISS


WIDE = 2.0**63
"""An integer orjson turns into a float (below `-2**63`, above `2**64 - 1`) is at least this wide."""


# orjson writes a float below 1e-4 in magnitude otherwise than `json` (`0.00001` and `1e-7`
# against `1e-05` and `1e-07`), and only such a float: its text then holds `.0000`, or `e-` after
# a digit.  Two searches at `find` speed (a pattern for both shapes tried every position: 60 ms
# over 4 MB), then a look at what each find is part of: a number's text starts where a value
# starts (after `:`, `,`, `[`, a space or a line break) and is at most 24 chars long, so the same
# shapes inside a string (a UUID's `4e-5`, a version's `1.0000`) do not send the value to `json`.
_EXPONENT = re.compile(rb"e-[0-9]")
_NUMBER_CHARS = b"0123456789.eE+-"
_BEFORE_VALUE = b":,[ \n"
_NUMBER_MAX = 32


def _small_float_in(data: bytes) -> bool:
    """True when a number of `data` (orjson's text) may be a float below 1e-4 in magnitude."""
    at = data.find(b".0000")
    while at >= 0:
        if _in_number(data, at):
            return True
        at = data.find(b".0000", at + 1)
    return any(0x30 <= data[m.start() - 1] <= 0x39 and _in_number(data, m.start()) for m in _EXPONENT.finditer(data, 1))


def _in_number(data: bytes, at: int) -> bool:
    """True when the byte at `at` may be part of a number: the run of number chars holding it
    starts the text or a value, and is short enough to be one (else it lies inside a string)."""
    start = at
    while start and data[start - 1] in _NUMBER_CHARS:
        start -= 1
        if at - start > _NUMBER_MAX:
            return False
    return start == 0 or data[start - 1] in _BEFORE_VALUE


def dumps_indent2(value: Any) -> str | None:
    """`json.dumps(value, indent=2, ensure_ascii=False)` by orjson, or None where `json` must write it.

    For a value `json_numbers.decoder` read: a non-finite number is then a `RawNumber`, which
    orjson refuses (a plain `nan` it would write as `null`).  orjson also refuses an integer beyond
    64 bits, a lone surrogate, a key that is not a string and nesting past 255 levels.
    """
    return _dumps(value, indent=True)


def dumps_compact(value: Any) -> str | None:
    """`json.dumps(value, separators=(",", ":"), ensure_ascii=False)` by orjson (a JSONL record
    as the writer makes it), or None where `json` must write it; as `dumps_indent2`, for a value
    read from text."""
    return _dumps(value, indent=False)


def cheap() -> bool:
    """True where orjson costs no import worth counting: it is imported, or `uuid` is, the slowest
    of what it imports (the command line's click imports it; a library process may not have)."""
    return orjson is not None or "uuid" in sys.modules


def _dumps(value: Any, indent: bool) -> str | None:
    if not ENABLED:
        return None
    try:
        module = _orjson()
    except ImportError:
        return None
    try:
        data = module.dumps(value, option=module.OPT_INDENT_2 if indent else 0)
    except TypeError:  # orjson.JSONEncodeError is one
        return None
    if _small_float_in(data):
        return None
    return data.decode()
