"""The optional `[fast]` path of the credential scan: one hyperscan pass tells which patterns can match.

Every case-sensitive pattern gets its *anchors*, derived from its syntax tree (`anchors`):
(literal, reach) pairs such that every match holds one of the literals, starting at most `reach`
chars after the match start.  One hyperscan database holds every anchor literal; a single scan of a
text tells which literals it holds.  A pattern none of whose literals occurs cannot match and is
skipped; the others run as exact `regex` patterns over the whole text.  So the result is exactly
the plain scan's, and without hyperscan installed (or with `SANITIZER_PLAIN=1`) the plain scan
runs unchanged.

A second database tells which finders of the case-ignoring patterns (`near`) find nothing in the
text; those are not run (`Gate.quiet`).

Both compiled databases are kept in the cache folder (`sanitizer.cachedir`), each in a file named
after what it finds and the binding's version; one that this hyperscan does not load (another
build, another machine) is compiled anew and kept again.  Whoever can write that folder can make
the gate skip a pattern, as with the anchors kept beside them.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import os
from collections.abc import Iterator, Sequence
from typing import Any

from sanitizer import cachedir
from sanitizer.secrets.anchors import Candidate, anchors_of, kept_anchors
from sanitizer.textkit.occurrences import escape

__all__ = ["ENABLED", "Gate", "anchors_of", "available", "gate"]

_hs: Any = None  # the hyperscan module, imported when the database is first built
# Below this many chars, the pass costs more than the pattern scans it can skip: a scan of
# 64-128 chars of corpus text took 35 us gated, 68 us checking every lead (1-2 K chars: 57 us
# against 500 us of checking each pattern's leads).
MIN_CHARS = 64
# The gated scan saves about 50 ns a char of ASCII session text (75 plain against 25-29 gated).
# Building the literals' database costs about 3 ms where the cache folder keeps its parts (the
# hyperscan import, the kept anchors, the kept database): it is built once the run has offered
# `BUILD_CHARS` (16 K: 3-4 ms faster than 32 K on the corpus files of 65-235 KB, 2-3 ms slower on
# those of 26-34 KB).  With nothing kept it costs about 25 ms (anchors derived 20 ms, compiled
# 5 ms), paid once where a cache folder keeps it; with no cache folder, at every run past
# `BUILD_CHARS_UNKEPT`.
BUILD_CHARS = 1 << 14
BUILD_CHARS_UNKEPT = 1 << 18
# The finders' database saves the runs of finders that find nothing, about 5 ms a MB of session;
# compiling it costs about 30 ms.  Loaded where it is kept, it is compiled (and kept) once the run
# has offered `FINDERS_CHARS` (a run of that size once paid for a compile), or with no cache
# folder `FINDERS_CHARS_UNKEPT`.
FINDERS_CHARS = 1 << 18
FINDERS_CHARS_UNKEPT = 1 << 23
_offered = 0
_owner = os.getpid()  # only this process writes the kept database, not a forked worker


@functools.cache
def available() -> bool:
    """True when the `[fast]` extra (hyperscan) is installed, whether or not it is switched on."""
    return importlib.util.find_spec("hyperscan") is not None


ENABLED: bool = not os.environ.get("SANITIZER_PLAIN") and available()
"""True when hyperscan is installed and `SANITIZER_PLAIN` is not set: `redact` uses the gate."""


# What each finder of `near` matches (an anchor literal and what follows it, in the lowered text),
# as a hyperscan expression over the text's UTF-8 bytes ignoring ASCII case: it matches wherever
# the finder does (`\s` is widened to any byte of a multi-byte char, where Unicode spaces are).  A
# text where one does not match gives that finder no hit, so it is not run (`Gate.quiet`).
_WS = rb"[\s\x80-\xff]"
_SEP = rb"(?:\\*[\"'])?" + _WS + rb"*[=:]"
FINDER_SHAPES: dict[str, bytes] = {
    "token": b"token" + _SEP, "key": b"key" + _SEP, "secret": b"secret" + _SEP,
    "passw": rb"passw(?:or)?d" + _SEP, "pass": b"pass" + _SEP, "pwd": b"pwd" + _SEP, "sig": rb"sig(?:nature)?=",
    "credential": rb"credentials?" + _SEP, "access": rb"access_?key", "authorization": b"authorization" + _SEP,
    "cookie": rb"cookie(?:\\*[\"'])?" + _WS + rb"*:", ".": rb"[a-z0-9_-]{24}\.[a-z0-9_-]{6}\.[a-z0-9_-]{27}",
    "-": rb"[0-9a-f]{32}-[0-9a-f]{8}-[0-9a-f]{8}", "|": rb"[0-9]{15}\|[a-z0-9_-]{27}",
}


class Gate:
    """Which anchor literals one text holds, and so which patterns cannot match it; and which
    finders find nothing in it."""

    __slots__ = ("open", "quiet", "text")

    def __init__(self, text: str, present: set[int], finders: set[int] | None = None) -> None:
        self.text = text
        # The gated patterns all of whose candidates have a literal present, found from the few
        # literals present rather than by checking every pattern's candidates.
        met: dict[int, set[int]] = {}
        for lit in present:
            for index, cand in _USERS[lit]:
                met.setdefault(index, set()).add(cand)
        self.open = {index for index, cands in met.items() if len(cands) == len(_CANDS[index])}
        # The anchor literals whose finder has no match in the text (none known without `finders`).
        self.quiet = () if finders is None else tuple(lit for j, lit in enumerate(FINDER_SHAPES) if j not in finders)

    def candidates(self) -> list[int]:
        """The patterns not known to lack a match, in order: the ungated ones and the open ones
        (a scan need not visit the others; on a text holding no anchor literal, 14 of 239)."""
        return sorted(_UNGATED.union(self.open))

    def absent(self, index: int) -> bool:
        """True when pattern `index` is gated and one of its candidates is absent: no match."""
        return index not in self.open and bool(_CANDS[index])

    def finditer(self, index: int, pattern: Any) -> Iterator[Any] | None:
        """`pattern.finditer(text)` for pattern `index`: no matches when one of its candidates is
        absent, all of them otherwise, or None when not gated.

        A gated pattern that can match scans the whole text.  Trying it only next to its literals
        (one `match` a window) was slower on every corpus file: `str.count` to choose, and a Python
        call a window, cost more than `regex` finding a literal-led pattern on its own.
        """
        if not _CANDS[index]:
            return None
        if self.absent(index):
            return iter(())
        return pattern.finditer(self.text)


_CANDS: list[tuple[Candidate, ...]] = []
_UNGATED: frozenset[int] = frozenset()  # the patterns without candidates: the gate never skips them
_USERS: list[tuple[tuple[int, int], ...]] = []  # per literal id: (pattern, candidate) pairs it meets
_DB: Any = None  # finds the anchor literals
_FINDER_DB: Any = None  # finds the `FINDER_SHAPES`, once kept or compiled
_finders_compiled = False


def _build(patterns: Sequence[Any]) -> None:
    """Derive every pattern's candidates and build the literals' database; take the finders'
    database where it is kept (built in locals, published at the end, so a thread that races here
    only builds the same thing twice)."""
    global _CANDS, _UNGATED, _USERS, _DB, _FINDER_DB, _hs, ENABLED
    try:
        import hyperscan
    except ImportError:  # installed but broken: the plain way, as without the extra
        ENABLED = False
        return
    _hs = hyperscan
    literals: dict[str, int] = {}
    cands_of: list[tuple[Candidate, ...]] = []
    ids_of: list[tuple[tuple[int, ...], ...]] = []
    # From the specs, without compiling (`anchors` gives none to a spec with a flag past its start).
    derived = iter(kept_anchors([sp.spec for sp in patterns if not sp.folded]))
    for sp in patterns:
        cands = () if sp.folded else next(derived)
        cands_of.append(cands)
        ids_of.append(tuple(tuple(literals.setdefault(lit, len(literals)) for lit in lits) for lits, _ in cands))
    users: list[list[tuple[int, int]]] = [[] for _ in literals]
    for index, ids in enumerate(ids_of):
        for cand, lit_ids in enumerate(ids):
            for lit in set(lit_ids):
                users[lit].append((index, cand))
    expressions = [escape(lit) for lit in literals]
    flags = [_hs.HS_FLAG_SINGLEMATCH] * len(literals)
    db = (_kept(expressions, flags) or _compiled(expressions, flags)) if literals else None
    _USERS, _DB, _FINDER_DB = [tuple(u) for u in users], db, _kept(*_finder_spec())
    _UNGATED = frozenset(i for i, cands in enumerate(cands_of) if not cands)
    _CANDS = cands_of  # last: `gate` builds until this is set


def _finder_spec() -> tuple[list[bytes], list[int]]:
    shapes = list(FINDER_SHAPES.values())
    return shapes, [_hs.HS_FLAG_SINGLEMATCH | _hs.HS_FLAG_CASELESS] * len(shapes)


def _kept(expressions: list[bytes], flags: list[int]) -> Any:
    """The database an earlier process kept in the cache folder for these expressions (expression
    `i` reports id `i`), or None where there is none this hyperscan loads."""
    body = cachedir.read(_kept_name(expressions, flags))
    if body is None:
        return None
    try:
        db = _hs.loadb(bytes(body), _hs.HS_MODE_BLOCK)
        db.scratch = _hs.Scratch(db)
    except Exception:  # noqa: BLE001 - another hyperscan build or platform: compiled anew by the caller
        return None
    return db


def _compiled(expressions: list[bytes], flags: list[int]) -> Any:
    """The database of these expressions, compiled, and kept in the cache folder."""
    db = _hs.Database(mode=_hs.HS_MODE_BLOCK)
    db.compile(expressions=expressions, ids=list(range(len(expressions))), elements=len(expressions), flags=flags)
    if os.getpid() == _owner:
        cachedir.write(_kept_name(expressions, flags), _hs.dumpb(db))
    return db


def _kept_name(expressions: list[bytes], flags: list[int]) -> str:
    """A kept database's file name: what it finds (a sha256) and the binding's version."""
    digest = hashlib.sha256(repr((expressions, flags)).encode()).hexdigest()[:16]
    return f"hyperscan{getattr(_hs, '__version__', '')}-{digest}.db"


def _compile_finders() -> None:
    global _FINDER_DB, _finders_compiled
    _finders_compiled = True  # tried once, whatever happens
    try:
        _FINDER_DB = _compiled(*_finder_spec())
    except Exception:  # noqa: BLE001 - without it every finder runs, as before it was built
        _FINDER_DB = None


def gate(text: str, patterns: Sequence[Any]) -> Gate | None:
    """The gate for `text`, or None (scan the plain way) when the fast path is off or busy, or
    the run has not yet offered `BUILD_CHARS` (the same result either way)."""
    global _offered
    if not ENABLED or len(text) < MIN_CHARS:
        return None
    _offered += len(text)
    if not _CANDS:
        if _offered < (BUILD_CHARS if cachedir.folder() is not None else BUILD_CHARS_UNKEPT):
            return None
        _build(patterns)
    if _DB is None or not _CANDS:
        return None
    if _FINDER_DB is None and not _finders_compiled and _offered >= (
            FINDERS_CHARS if cachedir.folder() is not None else FINDERS_CHARS_UNKEPT):
        _compile_finders()
    present: set[int] = set()
    finders: set[int] = set()

    def hit(i: int, _s: int, _e: int, _f: int, _ctx: Any) -> int:
        present.add(i)
        return 0

    def finder_hit(i: int, _s: int, _e: int, _f: int, _ctx: Any) -> int:
        finders.add(i)
        return 0

    finder_db = _FINDER_DB
    try:
        data = text.encode() if text.isascii() else text.encode("utf-8", "surrogatepass")
        _DB.scan(data, match_event_handler=hit)
        if finder_db is not None:
            finder_db.scan(data, match_event_handler=finder_hit)
    except Exception:  # e.g. the scratch space in use by another thread: the plain way
        return None
    return Gate(text, present, finders if finder_db is not None else None)
