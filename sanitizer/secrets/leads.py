"""The literals a credential pattern cannot match without, read from its spec string alone.

`leads(spec)` reads the runs of literal items in the pattern's top-level sequence (a provider
prefix such as `ghp_`, or the `://` of a URL; small classes and literal alternations fan out:
`gh[pousr]_` gives `ghp_`, `gho_`…).  Every match holds one string of each run, so a text holding
none of them has no match, and the pattern need not be compiled to know it.  It is a few string
steps per spec (unlike `anchors.anchors_of`, a full parse), but about 7 ms for the ~125 specs:
the first process keeps them in the cache folder (`kept_leads`, named after this module's
source, as the anchors are).  Anything it is not sure of (a top-level `|`, an inline flag, an
escape with an argument, a nested class) gives None: the pattern always runs.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Sequence
from typing import Any

from sanitizer import cachedir

__all__ = ["kept_leads", "leads"]

# Outside a class, these stand for themselves (no `(?x)`, which `_FLAGS` rules out).
_PLAIN = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-/:~#&%@!,;=<>'\" ")
# `\` + one of these is the char itself.
_ESCAPED = frozenset(".-/\\[](){}*+?|^$~:#&%@!,;=<>'\" _")
# `\` + one of these is one char of a class, or zero-width (no argument follows).
_CLASS_ESCAPES = frozenset("sSdDwWbBAZnrtfvhHmMGX")
# An inline flag group anywhere (`(?i)`, `(?x)`, `(?V1)`…) may change what a literal means.
_FLAGS = re.compile(r"\(\?\^?[a-zA-Z]+(?:-[a-zA-Z]+)?\)")
_MAX = 16


def _class_end(spec: str, i: int) -> int:
    """The index after the class that opens at `spec[i]`, or -1 (nested or unclosed)."""
    j = i + 1
    if spec.startswith("^", j):
        j += 1
    if spec.startswith("]", j):
        j += 1
    while j < len(spec):
        c = spec[j]
        if c == "\\":
            j += 2
        elif c == "[":
            return -1
        elif c == "]":
            return j + 1
        else:
            j += 1
    return -1


def _group_end(spec: str, i: int) -> int:
    """The index after the group that opens at `spec[i]`, or -1."""
    depth, j = 0, i
    while j < len(spec):
        c = spec[j]
        if c == "\\":
            j += 2
            continue
        if c == "[":
            j = _class_end(spec, j)
            if j < 0:
                return -1
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return j + 1
        j += 1
    return -1


def _alternatives(body: str) -> list[str] | None:
    """`body` split at its top-level `|`, or None when it cannot be read."""
    out, start, j = [], 0, 0
    while j < len(body):
        c = body[j]
        if c == "\\":
            j += 2
        elif c == "[":
            j = _class_end(body, j)
            if j < 0:
                return None
        elif c == "(":
            j = _group_end(body, j)
            if j < 0:
                return None
        elif c == "|":
            out.append(body[start:j])
            j = start = j + 1
        else:
            j += 1
    return [*out, body[start:]]


def _literal(text: str) -> str | None:
    """What `text` matches when it is plain chars and escaped ones only."""
    out, j = [], 0
    while j < len(text):
        c = text[j]
        if c == "\\" and j + 1 < len(text) and text[j + 1] in _ESCAPED:
            out.append(text[j + 1])
            j += 2
        elif c in _PLAIN:
            out.append(c)
            j += 1
        else:
            return None
    return "".join(out)


def _item(spec: str, i: int) -> tuple[list[str] | None, int]:
    """The strings the item at `spec[i]` matches (None: not a small set of literals) and its end
    (-1: unsure what it is)."""
    c = spec[i]
    if c == "\\":
        e = spec[i + 1:i + 2]
        if e and e in _ESCAPED:
            return [e], i + 2
        return None, (i + 2 if e and e in _CLASS_ESCAPES else -1)  # `\x41`, `\p{L}`, `\1`...: unsure
    if c == "[":
        j = _class_end(spec, i)
        body = spec[i + 1:j - 1]
        if j < 0 or not body or body[0] == "^" or not all(ch in _PLAIN and ch != "-" for ch in body):
            return None, j
        return list(dict.fromkeys(body)), j
    if c == "(":
        j = _group_end(spec, i)
        if j < 0 or not spec.startswith("(?:", i):
            return None, j
        alts = _alternatives(spec[i + 3:j - 1])
        lits = [_literal(a) for a in alts] if alts is not None else [None]
        return (None if None in lits else list(dict.fromkeys(lits))), j  # type: ignore[arg-type]
    return ([c] if c in _PLAIN else None), i + 1


def _quantifier_end(spec: str, j: int) -> int:
    """The index after the quantifier at `spec[j]` (with its lazy `?` or possessive `+`), or -1."""
    if spec[j] == "{":
        close = spec.find("}", j)
        if close < 0:
            return -1
        j = close + 1
    else:
        j += 1
    return j + 1 if spec[j:j + 1] in ("?", "+") else j


def _runs(spec: str, i: int) -> list[list[str]] | None:
    """Every run of literal items in the top-level sequence from `spec[i]`: each match holds one
    string of each run (zero-width items and quantified ones end a run), or None when unsure."""
    runs: list[list[str]] = []
    run = [""]
    while i < len(spec):
        chars, j = _item(spec, i)
        if j < 0 or j > len(spec):
            return None
        after = spec[j:j + 1]
        if chars is None or after in ("?", "*", "{") or len(run) * len(chars) > _MAX:
            runs.append(run)  # the item may be absent, or is not a literal: the run ends before it
            run = [""]
        else:
            run = [r + ch for r in run for ch in chars]
            if after == "+":  # more of it may follow: the run ends after one
                runs.append(run)
                run = [""]
        if after in ("?", "*", "+", "{"):
            j = _quantifier_end(spec, j)
            if j < 0:
                return None
        i = j
    return [*runs, run]


def leads(spec: str) -> tuple[str, ...] | None:
    """Literals (2+ chars each) of which every match of `spec` holds one, or None when unsure.

    Of the literal runs of the top-level sequence, the longest (then the one of fewest strings).
    """
    if _FLAGS.search(spec) or spec.startswith("(?i") or "(?#" in spec or "\\Q" in spec:
        return None
    alts = _alternatives(spec)
    if alts is None or len(alts) != 1:
        return None
    runs = _runs(spec, 0)
    best = max((r for r in runs or () if min(map(len, r)) >= 2), key=lambda r: (min(map(len, r)), -len(r)),
               default=None)
    return tuple(best) if best is not None else None


_owner = os.getpid()  # only this process replaces the kept leads (not forked workers)


@functools.cache
def _kept_name() -> str | None:
    """The cache file of the leads this module's code derives, or None where its source cannot be read."""
    return cachedir.named_after("leads", __file__)


def _is_leads(value: Any) -> bool:
    return value is None or (isinstance(value, tuple) and len(value) > 0
                             and all(isinstance(lit, str) and len(lit) >= 2 for lit in value))


def kept_leads(specs: Sequence[str]) -> list[tuple[str, ...] | None]:
    """`leads` of each spec, read from the cache folder where an earlier process kept them."""
    return cachedir.kept(_kept_name(), specs, leads, _is_leads, os.getpid() == _owner)
