"""The optional `[fast]` path of the credential scan: one hyperscan pass tells which patterns can match.

Every case-sensitive pattern gets its *anchors*, derived from its syntax tree (`anchors`):
(literal, reach) pairs such that every match holds one of the literals, starting at most `reach`
chars after the match start.  One hyperscan database holds every anchor literal; a single scan of a
text tells which literals it holds.  A pattern none of whose literals occurs cannot match and is
skipped; the others run as exact `regex` patterns, tried only next to each literal occurrence
(or over the whole text when the literal is common).  So the result is exactly the plain scan's,
and without hyperscan installed (or with `SANITIZER_PLAIN=1`) the plain scan runs unchanged.
"""

from __future__ import annotations

import functools
import importlib.util
import os
from collections.abc import Iterator, Sequence
from typing import Any

from sanitizer.secrets.anchors import UNBOUNDED as _UNBOUNDED
from sanitizer.secrets.anchors import Candidate, anchors_of, kept_anchors, rank
from sanitizer.secrets.shapes import FOLDS_TO_ASCII, shape_of

__all__ = ["ENABLED", "Gate", "anchors_of", "available", "gate"]

_hs: Any = None  # the hyperscan module, imported when the database is first built
# Below this many chars, the pass costs more than the pattern scans it can skip.
MIN_CHARS = 2048
# Building the database (the anchors kept in the cache folder or derived, 20 ms, then compiled,
# about 8 ms with the import) pays back only over a few hundred K chars of text: it is built once
# the run has offered this many.
BUILD_CHARS = 1 << 19
_offered = 0


@functools.cache
def available() -> bool:
    """True when the `[fast]` extra (hyperscan) is installed, whether or not it is switched on."""
    return importlib.util.find_spec("hyperscan") is not None


ENABLED: bool = not os.environ.get("SANITIZER_PLAIN") and available()
"""True when hyperscan is installed and `SANITIZER_PLAIN` is not set: `redact` uses the gate."""


def _escape(literal: str) -> bytes:
    return b"".join(b"\\x%02x" % b for b in literal.encode("utf-8"))


class Gate:
    """Which anchor literals and shapes one text holds, and the matches of a pattern found next to them."""

    __slots__ = ("ascii", "data", "folds", "present", "shaped", "text")

    def __init__(self, text: str, data: bytes, present: set[int]) -> None:
        self.text = text
        self.data = data  # the text in UTF-8, as scanned
        self.present = present
        self.ascii = text.isascii()
        # Whether a caseless shape can be trusted: `(?i)` matches none of the text's chars to ASCII.
        self.folds = self.ascii or not any(c in text for c in FOLDS_TO_ASCII)
        self.shaped: dict[int, bool] = {}  # pattern index: whether the text holds its shape

    def absent(self, index: int) -> bool:
        """True when pattern `index` is gated and its shape or one of its candidates is absent: no match."""
        shape = _SHAPES[index]
        if shape is not None and (self.folds or not shape[1]) and not self._holds(index, shape[0]):
            return True
        return bool(_CANDS[index]) and not all(any(i in self.present for i in ids) for ids in _IDS[index])

    def _holds(self, index: int, db: Any) -> bool:
        held = self.shaped.get(index)
        if held is None:
            found = _scan(db, self.data)
            held = self.shaped[index] = found is None or bool(found)  # a failed scan tells nothing
        return held

    def finditer(self, index: int, pattern: Any) -> Iterator[Any] | None:
        """`pattern.finditer(text)` for pattern `index`: no matches when it is absent, matches tried
        next to the best candidate's literals, or None when it has no candidates."""
        if self.absent(index):
            return iter(())
        if not _CANDS[index]:
            return None
        text = self.text
        lits, reach = _BEST[index]
        # Windows only where `str.find` is fast (one byte a char), and while fewer match attempts
        # than this: past it a whole scan is cheaper than one `match` per window.
        if (reach >= _UNBOUNDED or not self.ascii
                or sum(map(text.count, lits)) * (reach + 1) > len(text) // 64 + 256):
            return pattern.finditer(text)
        starts: list[tuple[int, int]] = []
        for lit in lits:
            at = text.find(lit)
            while at >= 0:
                starts.append((at - reach, at))
                at = text.find(lit, at + 1)
        return matches_in_windows(pattern, text, sorted(starts))


def matches_in_windows(pattern: Any, text: str, windows: list[tuple[int, int]]) -> Iterator[Any]:
    """The matches `pattern.finditer(text)` gives, when every match starts in one of the sorted
    `windows` (lo, hi): the pattern is tried only there (shared with the plain anchored scan)."""
    pos = 0  # the end of the last match, or the next untried start
    for lo, hi in windows:
        for s in range(max(lo, pos, 0), hi + 1):
            m = pattern.match(text, s)
            if m is not None:
                yield m
                pos = m.end()
                break
        else:
            pos = max(pos, hi + 1)


_CANDS: list[tuple[Candidate, ...]] = []
_IDS: list[tuple[tuple[int, ...], ...]] = []
_BEST: list[Candidate] = []  # the candidate whose literals place the windows
# The database of each pattern's shape (one each: hyperscan compiles them together slowly), and
# whether it is caseless; None for a pattern with candidates or no shape.
_SHAPES: list[tuple[Any, bool] | None] = []
_DB: Any = None


def _build(patterns: Sequence[Any]) -> None:
    """Derive every pattern's candidates and compile the database (built in locals, published
    at the end, so a thread that races here only builds the same thing twice)."""
    global _CANDS, _IDS, _BEST, _SHAPES, _DB, _hs, ENABLED
    try:
        import hyperscan
    except ImportError:  # installed but broken: the plain way, as without the extra
        ENABLED = False
        return
    _hs = hyperscan
    literals: dict[str, int] = {}
    cands_of: list[tuple[Candidate, ...]] = []
    ids_of: list[tuple[tuple[int, ...], ...]] = []
    best_of: list[Candidate] = []
    # From the specs, without compiling (`anchors` gives none to a spec with a flag past its start).
    derived = iter(kept_anchors([sp.spec for sp in patterns if not sp.folded]))
    for sp in patterns:
        cands = () if sp.folded else next(derived)
        cands_of.append(cands)
        best_of.append(max(cands, key=rank) if cands else ((), _UNBOUNDED))
        ids_of.append(tuple(tuple(literals.setdefault(lit, len(literals)) for lit in lits) for lits, _ in cands))
    db = _compile([(_escape(lit), _hs.HS_FLAG_SINGLEMATCH) for lit in literals])
    shapes_of: list[tuple[Any, bool] | None] = []
    for sp, cands in zip(patterns, cands_of, strict=True):  # a shape for each pattern that runs on every text
        shape = None if cands else shape_of(sp.spec)
        if shape is not None:
            expr, caseless = shape
            shape_db = _compile([(expr, _hs.HS_FLAG_SINGLEMATCH | (_hs.HS_FLAG_CASELESS if caseless else 0))])
            shape = None if shape_db is None else (shape_db, caseless)  # refused: the pattern runs
        shapes_of.append(shape)
    _IDS, _BEST, _SHAPES, _DB = ids_of, best_of, shapes_of, db
    _CANDS = cands_of  # last: `gate` builds until this is set


def _compile(exprs: list[tuple[bytes, int]]) -> Any:
    """A database of `exprs` (expression, flags), each id its place; None where there is none or
    hyperscan refuses one."""
    if not exprs:
        return None
    db = _hs.Database(mode=_hs.HS_MODE_BLOCK)
    try:
        db.compile(expressions=[e for e, _ in exprs], ids=list(range(len(exprs))), elements=len(exprs),
                   flags=[f for _, f in exprs])
    except _hs.error:
        return None
    return db


def gate(text: str, patterns: Sequence[Any]) -> Gate | None:
    """The gate for `text`, or None (scan the plain way) when the fast path is off or busy, or
    the run has not yet offered `BUILD_CHARS` (the same result either way)."""
    global _offered
    if not ENABLED or len(text) < MIN_CHARS:
        return None
    if not _CANDS:
        _offered += len(text)
        if _offered < BUILD_CHARS:
            return None
        _build(patterns)
    if _DB is None or not _CANDS:
        return None
    data = text.encode() if text.isascii() else text.encode("utf-8", "surrogatepass")
    present = _scan(_DB, data)
    return None if present is None else Gate(text, data, present)


def _scan(db: Any, data: bytes) -> set[int] | None:
    """The ids of the expressions of `db` that `data` holds, or None where the scan fails (e.g.
    its scratch space in use by another thread: the plain way)."""
    present: set[int] = set()

    def hit(i: int, _s: int, _e: int, _f: int, _ctx: Any) -> int:
        present.add(i)
        return 0

    try:
        db.scan(data, match_event_handler=hit)
    except Exception:
        return None
    return present
