"""The shape of a credential pattern: a hyperscan expression that every match of it holds.

Some patterns hold no literal the `[fast]` gate could look for (a Discord token starts with a
class, `[MNO]`; the case-ignoring names run over the whole text), so without a shape they run on
every text.  `shape_of(spec)` writes the longest head of the pattern's syntax tree that means the
same on UTF-8 bytes as on text: ASCII literals and ASCII classes, groups, branches and repeats of
those.  Look-arounds and anchors are dropped and an upper repeat bound is lifted (each only widens
what the shape matches, and the bounded repeats are what makes hyperscan slow to compile); the
head ends before the first item that could match a non-ASCII char (`.`, `\\s`, `[^…]`, a scoped
flag).  So every match of the pattern starts with an ASCII run the shape matches, and in the
UTF-8 bytes (where an ASCII char is its own byte, and no other char holds an ASCII byte) the same
run is there: a text the shape is absent from holds no match.

A case-ignoring spec's shape is compiled caseless.  `(?i)` also matches four non-ASCII chars to
ASCII letters (`FOLDS_TO_ASCII`): the gate trusts a caseless shape only on a text without them.
"""

from __future__ import annotations

import re._constants as _c
import re._parser as _p
from typing import Any

from sanitizer.secrets.anchors import parse

__all__ = ["FOLDS_TO_ASCII", "Shape", "shape_of"]

FOLDS_TO_ASCII = ("\u0130", "\u0131", "\u017f", "\u212a")
"""The non-ASCII chars that `(?i)` matches to an ASCII letter or class (İ, ı, ſ, the Kelvin sign)."""

Shape = tuple[bytes, bool]
"""A hyperscan expression, and whether it is compiled caseless."""

# A shortest match below this many chars finds too much to skip anything: no shape.
MIN_WIDTH = 4
# A repeat of more is written as at least this many (a long repeat is slow to compile).
MAX_REPEAT = 8
_DROPPED = (_c.ASSERT, _c.ASSERT_NOT, _c.AT)
_REPEATS = (_c.MAX_REPEAT, _c.MIN_REPEAT, _c.POSSESSIVE_REPEAT)


def _byte(c: int) -> str:
    return f"\\x{c:02x}"


def _class(av: Any) -> str | None:
    parts = []
    for op, a in av:
        if op is _c.LITERAL and a < 0x80:
            parts.append(_byte(a))
        elif op is _c.RANGE and a[1] < 0x80:
            parts.append(f"{_byte(a[0])}-{_byte(a[1])}")
        else:  # a negation, a category (`\d` is any Unicode digit), a non-ASCII char
            return None
    return "[" + "".join(parts) + "]"


def _item(op: Any, av: Any) -> str | None:
    """One parsed item as an expression on bytes, or None where it could match a non-ASCII char."""
    if op is _c.LITERAL:
        return _byte(av) if av < 0x80 else None
    if op is _c.IN:
        return _class(av)
    if op in _DROPPED:
        return ""
    if op in _REPEATS:
        lo, hi, sub = av
        inner = _whole(sub)
        if inner is None:
            return None
        if hi <= lo + 1 and lo <= MAX_REPEAT:
            return f"(?:{inner}){{{lo},{hi}}}"
        return f"(?:{inner}){{{min(lo, MAX_REPEAT)},}}"
    if op is _c.SUBPATTERN:
        _, add, remove, sub = av
        inner = None if add or remove else _whole(sub)
        return None if inner is None else f"(?:{inner})"
    if op is _c.ATOMIC_GROUP:
        inner = _whole(av)
        return None if inner is None else f"(?:{inner})"
    if op is _c.BRANCH:
        alts = [_whole(b) for b in av[1]]
        if any(a is None for a in alts):
            return None
        return "(?:" + "|".join(alts) + ")" if any(alts) else ""  # type: ignore[arg-type]
    return None


def _whole(seq: Any) -> str | None:
    out = []
    for op, av in seq:
        piece = _item(op, av)
        if piece is None:
            return None
        out.append(piece)
    return "".join(out)


def shape_of(spec: str) -> Shape | None:
    """The shape of `spec`, or None where no head of it is both safe on bytes and narrow enough."""
    parsed = parse(spec)
    if parsed is None:
        return None
    flags = parsed.state.flags
    if flags & ~(_c.SRE_FLAG_UNICODE | _c.SRE_FLAG_IGNORECASE | _c.SRE_FLAG_MULTILINE):  # `(?m)` moves only anchors
        return None
    out: list[str] = []
    head: list[tuple[Any, Any]] = []
    for op, av in parsed:
        piece = _item(op, av)
        if piece is None:
            break
        out.append(piece)
        head.append((op, av))
    if not head or _p.SubPattern(parsed.state, head).getwidth()[0] < MIN_WIDTH:
        return None
    return "".join(out).encode("ascii"), bool(flags & _c.SRE_FLAG_IGNORECASE)
