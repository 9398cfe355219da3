"""The anchors of a credential pattern: literals every match holds, derived from its syntax tree.

`anchors_of(spec)` parses a case-sensitive spec (with `re`'s parser, which reads these specs as
`regex` does; a spec with syntax it reads otherwise gets none) and gives (literals, reach)
candidates: every match holds one of the literals, starting at most `reach` chars after the match
start.  Literal runs, small classes (`[pousr]` fans out) and branches whose every alternative has
a candidate are taken.  The `[fast]` gate (`prefilter`) skips a pattern none of whose literals a
text holds.

Deriving the anchors of the ~90 patterns costs about 20 ms: the first process that builds the
database keeps them in the cache folder (`sanitizer.cachedir`), in a file named after this
module's own source and the Python version, so a change to the derivation or to `re`'s parser
never reads anchors derived by another.  An entry of the wrong shape is derived anew, and the file
is written again holding only the specs asked for.  Whoever can write that folder can make the gate skip a pattern, as whoever
can write the compiled patterns kept beside it can make one match nothing (`pattern_cache`).
"""

from __future__ import annotations

import functools
import os
import re
import re._constants as _c
import re._parser as _p
import warnings
from collections.abc import Sequence
from typing import Any

from sanitizer import cachedir

__all__ = ["UNBOUNDED", "Candidate", "anchors_of", "kept_anchors", "rank"]

UNBOUNDED = int(_c.MAXREPEAT)  # a reach without bound (a plain int, as marshal keeps it)
# `regex`-only syntax that `re` reads differently: a pattern holding it gets no anchors.
_REGEX_ONLY = re.compile(r"\\[pPXNKGLQEV]|\(\?[Vw]|\(\?\||\[\[")


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
    """The largest width of `items` (`UNBOUNDED` when unbounded)."""
    hi = 0
    for op, av in items:
        w = _p.SubPattern(_p.State(), [(op, av)]).getwidth()[1]
        if w >= UNBOUNDED:
            return UNBOUNDED
        hi += w
    return hi


# A literal class (`[pousr]`) fans a literal out into at most this many.
_MAX_ALTS = 16

Candidate = tuple[tuple[str, ...], int]
"""Every match holds one of these literals, starting at most `reach` chars after the match start."""


def rank(c: Candidate) -> tuple[bool, int, int]:
    """Bounded reach first, then the longer literals, then the fewer."""
    return (c[1] < UNBOUNDED, min(map(len, c[0])), -len(c[0]))


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
            width = min(width + 1, UNBOUNDED)
            continue
        if run and len(run[0]) >= 2:
            found.append((tuple(run), run_at))
        run = []
        if chars is not None:  # a class too wide to fan out here: it starts a new run
            run, run_at = list(chars), width
            width = min(width + 1, UNBOUNDED)
            continue
        if op is None:
            break
        if op is _c.BRANCH:
            per = [_candidates(b, width) for b in av[1]]
            if all(per):
                picks = [max(c, key=rank) for c in per]
                alts = tuple(dict.fromkeys(a for lits, _ in picks for a in lits))
                if len(alts) <= 4 * _MAX_ALTS:
                    found.append((alts, max(r for _, r in picks)))
        width = min(width + _width([(op, av)]), UNBOUNDED)
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
    return tuple((lits, int(reach)) for lits, reach in _candidates(parsed, 0))


_owner = os.getpid()  # only this process replaces the kept anchors (not forked workers)


@functools.cache
def _kept_name() -> str | None:
    """The cache file of the anchors this module's code derives, or None where its source cannot be read."""
    return cachedir.named_after("anchors", __file__)


def _is_candidates(value: Any) -> bool:
    return isinstance(value, tuple) and all(
        isinstance(c, tuple) and len(c) == 2 and isinstance(c[0], tuple) and c[0]
        and all(isinstance(lit, str) and lit for lit in c[0]) and type(c[1]) is int and c[1] >= 0
        for c in value)


def kept_anchors(specs: Sequence[str]) -> list[tuple[Candidate, ...]]:
    """`anchors_of` of each spec, read from the cache folder where an earlier process kept them."""
    return cachedir.kept(_kept_name(), specs, anchors_of, _is_candidates, os.getpid() == _owner)
