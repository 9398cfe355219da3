"""The optional `[fast]` path of the credential scan: one hyperscan pass tells which patterns can match.

Every case-sensitive pattern gets its *anchors*, derived from its syntax tree: (literal, reach)
pairs such that every match holds one of the literals, starting at most `reach` chars after the
match start (`anchors_of`).  One hyperscan database holds every anchor literal; a single scan of a
text tells which literals it holds.  A pattern none of whose literals occurs cannot match and is
skipped; the others run as exact `regex` patterns, tried only next to each literal occurrence
(or over the whole text when the literal is common).  So the result is exactly the plain scan's,
and without hyperscan installed (or with `SANITIZER_PLAIN=1`) the plain scan runs unchanged.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import re
import re._constants as _c
import re._parser as _p
import warnings
from collections.abc import Iterator, Sequence
from typing import Any

__all__ = ["ENABLED", "Gate", "anchors_of", "available", "gate"]

_hs: Any = None  # the hyperscan module, imported when the database is first built
_UNBOUNDED = _c.MAXREPEAT
# Below this many chars, the pass costs more than the pattern scans it can skip.
MIN_CHARS = 2048
# Building the database (every anchor derived, then compiled) costs ~17 ms, which the pass pays
# back only over about half a megabyte of text: it is built once the run has offered this many.
BUILD_CHARS = 1 << 19
_offered = 0
# A literal found more often than this in a text: the pattern scans the whole text instead of
# being tried next to each occurrence (the same matches, fewer Python-level calls).
_MAX_WINDOWS = 64
# `regex`-only syntax that `re` reads differently: a pattern holding it gets no anchors.
_REGEX_ONLY = re.compile(r"\\[pPXNKGLQEV]|\(\?[Vw]|\(\?\||\[\[")

@functools.cache
def available() -> bool:
    """True when the `[fast]` extra (hyperscan) is installed, whether or not it is switched on."""
    return importlib.util.find_spec("hyperscan") is not None


ENABLED: bool = not os.environ.get("SANITIZER_PLAIN") and available()
"""True when hyperscan is installed and `SANITIZER_PLAIN` is not set: `redact` uses the gate."""


def _items(seq: Any) -> list[tuple[Any, Any]]:
    """The items of a parsed sequence, with plain groups (no flag change) opened in place."""
    out: list[tuple[Any, Any]] = []
    for op, av in seq:
        if op is _c.SUBPATTERN and not av[1] and not av[2]:
            out += _items(av[3])
        elif op is _c.ATOMIC_GROUP:
            out += _items(av)
        else:
            out.append((op, av))
    return out


def _width(items: Sequence[tuple[Any, Any]]) -> int:
    """The largest width of `items` (`_UNBOUNDED` when unbounded)."""
    hi = 0
    for op, av in items:
        w = _p.SubPattern(_p.State(), [(op, av)]).getwidth()[1]
        if w >= _UNBOUNDED:
            return _UNBOUNDED
        hi += w
    return hi


# A literal class (`[pousr]`) fans a literal out into at most this many.
_MAX_ALTS = 16

Candidate = tuple[tuple[str, ...], int]
"""Every match holds one of these literals, starting at most `reach` chars after the match start."""


def _rank(c: Candidate) -> tuple[bool, int, int]:
    """Bounded reach first, then the longer literals, then the fewer."""
    return (c[1] < _UNBOUNDED, min(map(len, c[0])), -len(c[0]))


def _fan(op: Any, av: Any) -> list[str] | None:
    """The chars one item matches when it is a literal or a small class of literals, else None."""
    if op is _c.LITERAL:
        return [chr(av)]
    if op is _c.IN and all(o is _c.LITERAL for o, _ in av) and len(av) <= _MAX_ALTS:
        return [chr(a) for _, a in av]
    return None


def _candidates(seq: Any, offset: int) -> list[Candidate]:
    """Every candidate that each match of `seq` satisfies (all of them hold at once)."""
    found: list[Candidate] = []
    run: list[str] = []
    run_at = width = offset
    for op, av in [*_items(seq), (None, None)]:
        chars = _fan(op, av) if op is not None else None
        if chars is not None and len(run or [""]) * len(chars) <= _MAX_ALTS:
            if not run:
                run, run_at = [""], width
            run = [r + c for r in run for c in chars]
            width = min(width + 1, _UNBOUNDED)
            continue
        if run and len(run[0]) >= 2:
            found.append((tuple(run), run_at))
        run = []
        if chars is not None:  # a class too wide to fan out here: it starts a new run
            run, run_at = list(chars), width
            width = min(width + 1, _UNBOUNDED)
            continue
        if op is None:
            break
        if op is _c.BRANCH:
            per = [_candidates(b, width) for b in av[1]]
            if all(per):
                picks = [max(c, key=_rank) for c in per]
                alts = tuple(dict.fromkeys(a for lits, _ in picks for a in lits))
                if len(alts) <= 4 * _MAX_ALTS:
                    found.append((alts, max(r for _, r in picks)))
        width = min(width + _width([(op, av)]), _UNBOUNDED)
    return found


def anchors_of(spec: str) -> tuple[Candidate, ...]:
    """The candidates of a case-sensitive pattern, or () when none can be derived safely.

    Every match of `spec` satisfies each candidate: it holds one of its literals, starting at
    most `reach` chars after the match start.  A pattern that ignores case, or uses syntax `re`
    does not read the same way as `regex`, gets none (it always runs).
    """
    if _REGEX_ONLY.search(spec):
        return ()
    source = re.sub(r"\(\?<(?=[A-Za-z_])", "(?P<", spec)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            parsed = _p.parse(source)
    except (re.error, Warning, RecursionError):
        return ()
    if parsed.state.flags & (_c.SRE_FLAG_IGNORECASE | _c.SRE_FLAG_VERBOSE):
        return ()
    return tuple(_candidates(parsed, 0))


def _escape(literal: str) -> bytes:
    return b"".join(b"\\x%02x" % b for b in literal.encode("utf-8"))


class Gate:
    """Which anchor literals one text holds, and the matches of a pattern found next to them."""

    __slots__ = ("ascii", "present", "text")

    def __init__(self, text: str, present: set[int]) -> None:
        self.text = text
        self.present = present
        self.ascii = text.isascii()

    def absent(self, index: int) -> bool:
        """True when pattern `index` is gated and one of its candidates is absent: no match."""
        return bool(_CANDS[index]) and not all(any(i in self.present for i in ids) for ids in _IDS[index])

    def finditer(self, index: int, pattern: Any) -> Iterator[Any] | None:
        """`pattern.finditer(text)` for pattern `index`: no matches when one of its candidates is
        absent, matches tried next to the best candidate's literals, or None when not gated."""
        cands = _CANDS[index]
        if not cands:
            return None
        if not all(any(i in self.present for i in ids) for ids in _IDS[index]):
            return iter(())
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
_DB: Any = None


def _build(patterns: Sequence[Any]) -> None:
    """Derive every pattern's candidates and compile the database (built in locals, published
    at the end, so a thread that races here only builds the same thing twice)."""
    global _CANDS, _IDS, _BEST, _DB, _hs, ENABLED
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
    for sp in patterns:
        # From the spec, without compiling: `anchors_of` gives none to a spec with a flag past its start.
        cands = () if sp.folded else anchors_of(sp.spec)
        cands_of.append(cands)
        best_of.append(max(cands, key=_rank) if cands else ((), _UNBOUNDED))
        ids_of.append(tuple(tuple(literals.setdefault(lit, len(literals)) for lit in lits) for lits, _ in cands))
    db = None
    if literals:
        db = _hs.Database(mode=_hs.HS_MODE_BLOCK)
        db.compile(expressions=[_escape(lit) for lit in literals], ids=list(literals.values()),
                   elements=len(literals), flags=[_hs.HS_FLAG_SINGLEMATCH] * len(literals))
    _IDS, _BEST, _DB = ids_of, best_of, db
    _CANDS = cands_of  # last: `gate` builds until this is set


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
    present: set[int] = set()

    def hit(i: int, _s: int, _e: int, _f: int, _ctx: Any) -> int:
        present.add(i)
        return 0

    try:
        data = text.encode() if text.isascii() else text.encode("utf-8", "surrogatepass")
        _DB.scan(data, match_event_handler=hit)
    except Exception:  # e.g. the scratch space in use by another thread: the plain way
        return None
    return Gate(text, present)
