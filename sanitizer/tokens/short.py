"""Exact cl100k_base counts of short texts, without building tiktoken's encoder.

Building tiktoken's encoder costs about 55 ms of native work on top of reading the vocabulary;
a `--no-tokens` run needs exact counts only for the few edits its bounds leave open (a thinking
block of a hundred chars against its placeholder, a tool result against its digest), and the
token report of a small input only a few hundred K chars (`TokenCounter` sends this module the
first `SHORT_MAX_CHARS` a process counts).  They are counted here the way tiktoken counts: the
text is split by the encoding's own pre-tokenizer pattern (run by `regex`, which reads it as
tiktoken's engine does); a pre-token that is a token counts one, any other is merged by
byte-pair ranks (the lowest rank first, the leftmost on a tie) and counts its parts.

Only what is sure to pre-tokenize alike, and cheap to merge, is taken: at most `TEXT_MAX` chars,
each pre-token at most `PIECE_MAX` bytes (and few long ones), and no char outside what this
Python's Unicode database has assigned (a char newer than it could fall in another letter class
in tiktoken's engine) or a lone surrogate.  For anything else `count` returns None and the
caller uses tiktoken.
`tests/test_short_counts.py` compares every count with tiktoken's, by hypothesis and on the corpus.
"""

from __future__ import annotations

import functools
import unicodedata

import regex

from sanitizer.textkit import pattern_cache
from sanitizer.tokens import buckets as _buckets
from sanitizer.tokens import ranks as _ranks

ENCODING = _ranks.NAME  # the one encoding counted here
TEXT_MAX = 64 * 1024  # a longer piece is rare (the counter cuts texts at line breaks) and goes to tiktoken
PIECE_MAX = 256
# Merging costs about the square of a pre-token's length: a text may hold this many bytes of new
# pre-tokens over `LONG_PIECE` bytes (box-drawing rules, runs of spaces, letters of base64).
LONG_PIECE = 128
LONG_BYTES_MAX = 2048
_NONE = 1 << 62  # no token: a pair that never merges
_MEMO_MAX = 1 << 16
_memo: dict[bytes, int] = {}  # pre-token -> count, for pre-tokens that are no token
# A process that counts at most this many chars reads the vocabulary a bucket at a time
# (`buckets`: about 2 ms for a few hundred chars, 15 ms for 16 K), one that counts more reads it
# whole (about 40 ms) as soon as it is known to.
LAZY_MAX_CHARS = 16 * 1024
_lazy_left = LAZY_MAX_CHARS
_lazy: _buckets.Lazy | None | bool = False  # False: not opened yet


@functools.cache
def _pattern() -> regex.Pattern[str]:
    return pattern_cache.compile(_ranks.PATTERN)


def _plain(text: str) -> bool:
    if text.isascii():
        return True
    category = unicodedata.category
    return all(c.isascii() or category(c) not in ("Cn", "Cs") for c in set(text))


def _merged_parts(piece: bytes, ranks: dict[bytes, int]) -> int:
    """How many tokens byte-pair merging makes of `piece`: tiktoken's `_byte_pair_merge`, where
    `rank[j]` is the rank of parts j and j + 1 as one token, and the lowest merges first."""
    get = ranks.get
    bounds = list(range(len(piece) + 1))
    rank = [get(piece[i:i + 2], _NONE) for i in range(len(piece) - 1)]
    while rank:
        best = min(rank)
        if best == _NONE:
            break
        i = rank.index(best)  # the leftmost of equal ranks, as tiktoken
        del bounds[i + 1], rank[i]
        if i:
            rank[i - 1] = get(piece[bounds[i - 1]:bounds[i + 1]], _NONE)
        if i < len(rank):
            rank[i] = get(piece[bounds[i]:bounds[i + 2]], _NONE)
    return len(bounds) - 1


def expect(chars: int) -> None:
    """About `chars` chars are to be counted now: where the vocabulary's buckets would not serve
    them cheaply, the whole vocabulary is read from the first of them on."""
    global _lazy_left, _lazy
    if chars > _lazy_left:
        _lazy_left, _lazy = 0, None


def _vocabulary(chars: int) -> tuple[dict[bytes, int], _buckets.Lazy | None] | None:
    """The ranks to merge `chars` chars with, and the `Lazy` that fills them (None: they are whole)."""
    global _lazy_left, _lazy
    if chars <= _lazy_left:
        if _lazy is False:
            _lazy = _buckets.open_lazy()
        if isinstance(_lazy, _buckets.Lazy):
            _lazy_left -= chars
            return _lazy.known, _lazy
    _lazy_left, _lazy = 0, None
    ranks = _ranks.cl100k_ranks()
    if ranks is None:
        return None
    _buckets.keep(ranks)
    return ranks, None


def count(text: str, encoding: str) -> int | None:
    """The exact token count of `text` in `encoding`, or None where this module does not count it."""
    if len(text) > TEXT_MAX or encoding != ENCODING or not _plain(text):
        return None
    vocabulary = _vocabulary(len(text))
    if vocabulary is None:
        return None
    ranks, lazy = vocabulary
    n = 0
    long_left = LONG_BYTES_MAX
    for piece in _pattern().findall(text):
        raw = piece.encode("utf-8")
        if lazy is not None and len(raw) <= PIECE_MAX and raw not in _memo and not lazy.ensure(raw):
            expect(TEXT_MAX + 1)  # a bucket is damaged: the whole vocabulary from now on
            return count(text, encoding)
        if raw in ranks:
            n += 1
        elif len(raw) > PIECE_MAX:
            return None
        else:
            k = _memo.get(raw)
            if k is None:
                if len(raw) > LONG_PIECE:
                    long_left -= len(raw)
                    if long_left < 0:
                        return None
                if len(_memo) >= _MEMO_MAX:
                    _memo.clear()
                k = _memo[raw] = _merged_parts(raw, ranks)
            n += k
    return n
