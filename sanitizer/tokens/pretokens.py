"""cl100k's pre-tokens, and where a long text may be cut into pieces whose exact token counts add up.

`cl100k_pieces` splits a text as the encoding's pattern does (ASCII stretches by `re`).

`split_for_bpe` cuts a text at line breaks that end a pre-token; `run_cuts` finds places inside
long single-class runs (CJK, punctuation, whitespace) where both halves pre-tokenize as the whole
did.  `tokens.TokenCounter` counts the pieces and checks the token pairs at run cuts.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Iterable

import regex

from sanitizer.textkit import pattern_cache
from sanitizer.tokens import ranks as _ranks


@functools.cache
def cl100k_pattern() -> regex.Pattern[str]:
    """cl100k's own pre-tokenizer pattern (tiktoken's), compiled by `regex`."""
    return pattern_cache.compile(_ranks.PATTERN)


@functools.cache
def cl100k_ascii_pattern() -> re.Pattern[str]:
    """The same pattern on ASCII text, for the standard library's `re` (3x as fast)."""
    return re.compile(_ranks.ASCII_PATTERN)


# Where a line starts with a printable ASCII char, no pre-token runs into it from the line break
# before it (each alternative of the pattern that takes a line break ends at the last line break
# or whitespace of its run), so the text splits there into stretches pre-tokenized apart.
_LINE_STARTS = re.compile(r"(?<=\n)(?=[!-~])")


def cl100k_pieces(text: str) -> list[str]:
    """The pre-tokens of `text`, as cl100k's pattern splits it.

    A text with a few non-ASCII chars (an ellipsis, an emoji, a box-drawing rule) goes to `regex`
    only for its lines holding them: the ASCII lines around them go to `re`.
    """
    if text.isascii():
        return cl100k_ascii_pattern().findall(text)
    lines = _LINE_STARTS.split(text)
    if len(lines) == 1:
        return cl100k_pattern().findall(text)
    pieces: list[str] = []
    for ascii_run, stretch in itertools.groupby(lines, key=str.isascii):
        pieces += (cl100k_ascii_pattern() if ascii_run else cl100k_pattern()).findall("".join(stretch))
    return pieces


# Above this many chars, a text is split at pre-token boundaries before encoding.
CHUNK_CHARS = 8192
# Single-class runs (letters, punctuation, whitespace) at least this long are cut inside.
RUN_MIN = 4096
RUN_STEP = 2048

_PUNCT_BLOCK = pattern_cache.compile(r"[^\s\p{L}\p{N}]+")
# A maximal run of letters, of "punctuation" (not space/letter/digit), or of whitespace.
_RUN_TEMPLATE = r"(?<!\p{L})\p{L}{MIN,}+|(?<![^\s\p{L}\p{N}])[^\s\p{L}\p{N}]{MIN,}+|(?<!\s)\s{MIN,}+"


def run_cuts(text: str, step: int = RUN_STEP, min_run: int = RUN_MIN,
             runs: regex.Pattern[str] | None = None) -> list[tuple[int, int]]:
    """Candidate cuts inside long single-class runs, as (position, last position of the run) pairs.

    Every allowed position `p` keeps cl100k's pre-tokenization: the pre-tokens of `text[:p]`
    and `text[p:]` are those of `text`, with the one pre-token around `p` split in two.

    - letters `[s, e)`: `s+3 <= p <= e-1` (the pre-token is `X?\\p{L}++`; a contraction such as
      `'ll` can end at `s+2` at most; the right half starts with a letter and matches `\\p{L}++`).
    - punctuation `[s, e)`: `s+1 <= p <= e-2` (` ?[^\\s\\p{L}\\p{N}]++[\\r\\n]*+`; the right half
      starts with two punctuation chars, so neither a contraction nor `X\\p{L}` can match there).
    - a maximal whitespace run without CR/LF: `s+1 <= p <= e-2` (`\\s+(?!\\S)` ends one before
      `e`, or `\\s++$` at the end; the left half ends the text, where `\\s++$` takes it whole).
    - a maximal run of only CR/LF: `s+1 <= p <= e-1` (`\\s*[\\r\\n]` or `\\s++$` or the CR/LF tail
      of a punctuation pre-token takes the whole run; each half is taken the same way).
    Mixed whitespace runs (spaces and newlines) are not cut.
    """
    if len(text) < min_run or not _may_hold_run(text, min_run):
        return []
    # Compiled on first need (19 ms of start-up: the repeat counts), then cached.
    pattern = runs if runs is not None else _runs_pattern(min_run)
    cuts: list[tuple[int, int]] = []
    for m in pattern.finditer(text):
        s, e = m.span()
        first = text[s]
        if first.isspace():
            run = m.group()
            has_newline = "\n" in run or "\r" in run
            if not has_newline:
                lo, hi = s + 1, e - 2
            elif not run.strip("\r\n"):
                lo, hi = s + 1, e - 1
            else:
                continue
        elif first.isalpha():
            lo, hi = s + 3, e - 1
        else:
            lo, hi = s + 1, e - 2
        p = s + step * (1 + (lo - s) // step)  # multiples of `step` from the run start
        while p + step // 2 <= hi:
            cuts.append((p, hi))
            p += step
    return cuts


def _may_hold_run(text: str, min_run: int) -> bool:
    """False when `text` surely holds no single-class run of `min_run` chars (a quick C-speed test).

    Such a run covers a whole aligned block of `min_run // 2` chars, so it is enough to look for a
    block that is all letters, all whitespace or all punctuation; each test stops at the first
    char that does not fit, which in ordinary text comes within a few chars.
    """
    block = max(1, min_run // 2)
    fullmatch = _PUNCT_BLOCK.fullmatch
    for i in range(0, len(text) - block + 1, block):
        b = text[i:i + block]
        if b.isalpha() or b.isspace() or fullmatch(b):
            return True
    return False


@functools.lru_cache(maxsize=16)
def _runs_pattern(min_run: int) -> regex.Pattern[str]:
    return pattern_cache.compile(_RUN_TEMPLATE.replace("MIN", str(min_run)))


_NEWLINE_AFTER_ALNUM = pattern_cache.compile(r"(?<=[\p{L}\p{N}])\n")


def split_for_bpe(text: str, size: int = CHUNK_CHARS) -> Iterable[str]:
    """Split a long text into pieces whose token counts add up to the whole text's count.

    A cut is made just before a newline that follows a letter or digit: cl100k's pre-tokenizer
    always ends a pre-token there (a letter/digit run never takes a newline, and the newline
    starts the next pre-token in the whole text as in the piece), so the pieces tokenize exactly
    as the whole.  Cuts are at least `size` chars apart; a text with no such newline is left whole
    (long single-class runs inside it are handled by `run_cuts`).
    """
    n = len(text)
    if n <= size:
        yield text
        return
    start = 0
    search = _NEWLINE_AFTER_ALNUM.search
    while n - start > size:
        m = search(text, start + size)
        if m is None:
            break
        cut = m.start()
        yield text[start:cut]
        start = cut
    yield text[start:]


# A place where the pre-tokenizer always ends a pre-token, read from the two chars around it
# alone (the match is the char after it): before a newline that follows a letter or digit (as
# in `split_for_bpe`), or, in the encodings whose words never share a pre-token, after any letter
# not followed by a letter and any digit not followed by a digit.  In those patterns (cl100k's and
# GPT-2's) a letter is taken only by a letter run or a contraction (`'s`, `'ll`), and a digit only
# by a digit run, each of which ends at its last letter or digit: so `"whoami", "desc` and
# `"whoami"}` both end a pre-token after `whoami`, which a JSON edit of the arguments keeps.
_BOUNDARY = r"(?<=[\p{L}\p{N}])\n"
_WORD_BOUNDARY = r"(?<=\p{L})\P{L}|(?<=\p{N})\P{N}"
# Each as (first, last): the same places, searched forwards and backwards (`(?r)`).
_FINDERS = {words: (pattern_cache.compile(p), pattern_cache.compile("(?r)" + p))
            for words, p in ((False, _BOUNDARY), (True, _WORD_BOUNDARY))}
# How far a window edge looks for a boundary at first (then 4x as far, up to the whole text).
_EDGE_LOOK = 256


def _common_prefix(a: str, b: str, limit: int) -> int:
    """The length of the longest common prefix of `a` and `b`, at most `limit` (C-speed compares)."""
    lo, hi = 0, limit
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a.startswith(b[lo:mid], lo):
            lo = mid
        else:
            hi = mid - 1
    return lo


def _common_suffix(a: str, b: str, limit: int) -> int:
    la, lb = len(a), len(b)
    lo, hi = 0, limit
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a.startswith(b[lb - mid:lb - lo], la - mid):
            lo = mid
        else:
            hi = mid - 1
    return lo


def changed_window(old: str, new: str, words: bool = True) -> tuple[int, int, int]:
    """`(start, old_end, new_end)`: `old[:start] == new[:start]`, `old[old_end:] == new[new_end:]`,
    and both cuts fall where the pre-tokenizer ends a pre-token in both texts, so

        count(old) - count(new) == count(old[start:old_end]) - count(new[start:new_end]).

    The common head and tail are as long as they can be up to the nearest such place (`words`:
    the encoding is one of `WORD_BOUND_ENCODINGS`, where the end of any letter or digit run is one
    too; else only a line break after a letter or digit is).
    """
    first_of, last_of = _FINDERS[words]
    shorter = min(len(old), len(new))
    head = _common_prefix(old, new, shorter)
    tail = _common_suffix(old, new, shorter - head)
    start = 0
    look = _EDGE_LOOK
    while head > 0:  # the last boundary whose chars all lie in the common head
        lo = max(0, head - look)
        last = last_of.search(old, lo, head)
        if last is not None:
            start = last.start()
            break
        if lo == 0:
            break
        look *= 4
    old_end = len(old)
    first = len(old) - tail + 1  # a boundary's left char must lie in the common tail too
    look = _EDGE_LOOK
    while first < len(old):
        hi = min(len(old), first + look)
        m = first_of.search(old, first, hi)
        if m is not None:
            old_end = m.start()
            break
        if hi == len(old):
            break
        look *= 4
    return start, old_end, old_end - len(old) + len(new)
