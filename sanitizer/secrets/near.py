"""Trying a credential pattern only next to its anchors, where `regex` would try it everywhere.

A pattern that ignores case, or that no literal leads, is slow to scan: `regex` tries it at every
position.  Each of its anchors is a (literal, reach) pair: every match holds the literal, followed
by what `FOLLOWS[literal]` matches, at most `reach` chars after the match start.  `anchored`
finds those literals in the text lowered (`ascii_lower`) and tries the pattern only in the
windows before them: the same matches as `finditer`, for a fraction of the cost.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import regex

from sanitizer.secrets.pattern import SecretPattern
from sanitizer.textkit import pattern_cache

__all__ = ["FINDERS", "FOLD_TRAPS", "FOLLOWS", "anchored", "ascii_lower", "finder", "matches_in_windows"]

# What follows each anchor literal (for the two name alternations, the union over the names of
# both patterns, so one scan per literal serves both).  The Discord bot token's `.` asks for what
# the token needs around it: 6 token chars, a `.` and 27 more after it (tested first: it turns most
# dots down soonest), and 24 before it; likewise the `-` of a newer Mailgun key (32 hex before it) and the `|` of a
# Facebook app token (15 digits before it).
_SEP = r"(?:\\*+[\"'])?+\s*+[=:]"
FOLLOWS = {"token": _SEP, "key": _SEP, "secret": _SEP, "passw": "(?:or)?d" + _SEP, "pass": _SEP, "pwd": _SEP,
           "sig": "(?:nature)?=", "credential": "s?" + _SEP, "access": "_?key", "authorization": _SEP,
           "cookie": r"(?:\\*+[\"'])?+\s*+:", ".": r"(?=[a-z0-9_-]{6}\.[a-z0-9_-]{27})(?<=[a-z0-9_-]{24}\.)",
           "-": r"(?<=[0-9a-f]{32}-)[0-9a-f]{8}-[0-9a-f]{8}", "|": r"(?<=[0-9]{15}[|])[a-z0-9_-]{27}"}
FINDERS: dict[str, regex.Pattern[str]] = {}  # by `finder`; run on `ascii_lower(text)`, as `(?i)` would on text
# The only non-ASCII characters that `(?i)` matches to an ASCII letter (`İ` → i, `ſ` → s, Kelvin
# sign → k), which `ascii_lower` leaves as they are: a text holding one is scanned the plain way.
FOLD_TRAPS = ("\u0130", "\u017f", "\u212a")


def ascii_lower(text: str) -> str:
    """`text` of the same length with A-Z lowered: what the finders scan.

    On non-ASCII text, `bytes.lower` on UTF-16 is 5x as fast as `str.lower`.  It adds 0x20 to
    every byte 0x41-0x5A.  A non-ASCII code unit it changes stays non-ASCII, never becomes
    whitespace (no whitespace unit has a byte 0x61-0x7A) and keeps its surrogate half, and no
    whitespace unit changes.  So an ASCII literal followed by `\\s` matches here exactly where
    `(?i)` matches it in `text`, except at `FOLD_TRAPS`.  Two lone surrogates that form a pair
    would decode as one character: the caller checks the length.
    """
    if text.isascii():
        return text.lower()
    return text.encode("utf-16-le", "surrogatepass").lower().decode("utf-16-le", "surrogatepass")



def anchored(sp: SecretPattern, text: str, low: str, hits: dict[str, Sequence[int]]) -> Iterator[regex.Match[str]]:
    """The matches `sp.pattern.finditer(text)` gives, found by trying the pattern next to anchors.

    `low` is `ascii_lower(text)`, of the same length, so its positions are positions in `text`; a
    finder (literal + what follows it, all lower case) matches in `low` where `(?i)` would in
    `text`.  `hits` caches each literal's finder positions for this text (the `[fast]` pass fills
    in none for a finder it proves has no match).
    """
    for lit, _ in sp.anchors:
        if lit not in hits:
            # Until its finder is compiled, a literal the text lacks costs one `str` scan, no compile.
            hits[lit] = [m.start() for m in finder(lit).finditer(low)] if lit in FINDERS or lit in low else []
    windows = sorted((i - reach, i) for lit, reach in sp.anchors for i in hits[lit])
    if windows:  # else no match, and the pattern need not be compiled
        yield from matches_in_windows(sp.pattern, text, windows)


def matches_in_windows(pattern: regex.Pattern[str], text: str,
                       windows: list[tuple[int, int]]) -> Iterator[regex.Match[str]]:
    """The matches `pattern.finditer(text)` gives, when every match starts in one of the sorted
    `windows` (lo, hi): the pattern is tried only there."""
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


def finder(lit: str) -> regex.Pattern[str]:
    """The compiled finder of an anchor literal (the literal, then what follows it)."""
    found = FINDERS.get(lit)
    if found is None:
        found = FINDERS[lit] = pattern_cache.compile(regex.escape(lit) + FOLLOWS[lit])
    return found
