"""Lines a cut middle keeps besides error lines: lines with URLs and, in user text, constraint sentences.

A summary needs every link the conversation cited and every rule the user set ("make sure …",
"never …").  `middle_lines` finds them in the stretch a cut removes; the cut then keeps them
verbatim between markers.  Bounded per cut (a count and a char budget, both fixed so a second cut
with the same numbers keeps the same lines) and linear: candidates are found with `str.find` on
literals (`KeywordPattern`), each line is looked at once.
"""

from __future__ import annotations

import bisect

import regex

from sanitizer.textkit.keywords import KeywordPattern, Scanner
from sanitizer.textkit.lazy import lazy_pattern

SALIENT_LINES = 24
SALIENT_CHARS = 4000
# A middle shorter than this (in original chars) is cut as before: around a small cut, the kept
# lines and their extra markers could cost more tokens than the cut saves.
SALIENT_MIN_MIDDLE = 1000
LINE_MAX = 1000
SENTENCE_REACH = 300

_URL_LITERALS = ("://",)
_CUE_LITERALS = ("must", "Must", "MUST", "never", "Never", "NEVER", "always", "Always", "ALWAYS", "don't", "Don't",
                 "do not", "Do not", "DO NOT", "make sure", "Make sure", "prefer", "Prefer", "only", "Only", "avoid",
                 "Avoid", "ensure", "Ensure")
_URL = KeywordPattern(lazy_pattern("://"), _URL_LITERALS)
_URL_RE = lazy_pattern(r"[A-Za-z][A-Za-z0-9+.-]{1,15}+://[^\s<>\"'`…]++")
_CUES = KeywordPattern(
    lazy_pattern(r"(?<![A-Za-z])(?:" + "|".join(regex.escape(c) for c in _CUE_LITERALS) + r")(?![A-Za-z])"),
    _CUE_LITERALS,
)
_SENTENCE_END = lazy_pattern(r"[.!?](?=\s)|\n")


def middle_lines(text: str, h: int, p: int, protected: list[tuple[int, int]], *, cues: bool,
                 limit: int = SALIENT_LINES, budget: int = SALIENT_CHARS) -> list[tuple[int, int]]:
    """Spans in [h, p), outside `protected`, to keep: whole lines with a URL or (`cues`) a constraint
    cue; in a line too long to keep, the URL itself or the cue's sentence.  First hits first, at
    most `limit` spans and `budget` chars."""
    if limit <= 0 or p <= h:
        return []
    hits: list[tuple[int, int]] = []
    for kp, is_url in ((_URL, True), (_CUES, False)) if cues else ((_URL, True),):
        scan = Scanner(kp, text, p)
        pos = h
        while (m := scan.search(pos)) is not None:
            span = _span(text, m.start(), m.end(), h, p, is_url)
            pos = max(span[1], m.end()) if span else m.end()
            if span:
                hits.append(span)
    starts = [s for s, _ in protected]
    out: list[tuple[int, int]] = []
    used = taken = 0
    for s, e in sorted(set(hits)):
        i = bisect.bisect_right(starts, e) - 1
        if i >= 0 and protected[i][1] > s:
            continue  # inside a protected block: kept with it
        if taken >= limit or used + (e - s) > budget:
            break
        taken += 1
        if out and s < out[-1][1]:  # adjacent lines share a line break
            out[-1] = (out[-1][0], max(e, out[-1][1]))
        else:
            out.append((s, e))
        used += e - s
    return out


def _span(text: str, k: int, end: int, h: int, p: int, is_url: bool) -> tuple[int, int] | None:
    ls = text.rfind("\n", max(h, k - LINE_MAX), k) + 1
    le = text.find("\n", k, min(p, k + LINE_MAX))
    if ls > h and le >= 0 and le - ls <= LINE_MAX:
        return ls - 1, le + 1  # the line with its line breaks: a second cut finds the same line
    if is_url:
        s = max(h, k - 16)
        m = _URL_RE.search(text, s, min(p, end + LINE_MAX))
        return m.span() if m is not None and m.start() <= k else None
    lo = max(h, k - SENTENCE_REACH)
    starts = [m.end() for m in _SENTENCE_END.finditer(text, lo, k)]
    s = starts[-1] if starts else None
    m = _SENTENCE_END.search(text, end, min(p, end + SENTENCE_REACH))
    if s is None or m is None:
        return None
    return s, m.end()
