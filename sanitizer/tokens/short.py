"""Exact cl100k_base counts of short texts, without building tiktoken's encoder.

Building tiktoken's encoder costs about 55 ms of native work on top of reading the vocabulary;
a `--no-tokens` run needs exact counts only for the few edits its bounds leave open (a thinking
block of a hundred chars against its placeholder, a tool result against its digest), and the
token report of a small input only a few hundred K chars (`TokenCounter` sends this module the
first `SHORT_MAX_CHARS` a process counts).  They are counted here the way tiktoken counts: the
text is split by the encoding's own pre-tokenizer pattern (`pretokens.cl100k_pieces`: by `regex`,
which reads it as tiktoken's engine does, and ASCII stretches by `re` and the pattern's ASCII
copy, 3x as fast); a pre-token that is a token counts one, any other is merged by byte-pair
ranks (the lowest rank first, the leftmost on a tie) and counts its parts, remembered by its text.

Only what is sure to pre-tokenize alike, and cheap to merge, is taken: at most `TEXT_MAX` chars,
each pre-token at most `PIECE_MAX` bytes (and few long ones), and no char outside what this
Python's Unicode database has assigned (a char newer than it could fall in another letter class
in tiktoken's engine) or a lone surrogate.  For anything else `count` returns None and the
caller uses tiktoken.
`fewer` answers whether one text has fewer tokens than another without counting what they share.
`tests/test_short_counts.py` compares every count with tiktoken's, by hypothesis and on the corpus.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Callable

from sanitizer.tokens import buckets as _buckets
from sanitizer.tokens import ranks as _ranks
from sanitizer.tokens.pretokens import cl100k_pieces

ENCODING = _ranks.NAME  # the one encoding counted here
TEXT_MAX = 64 * 1024  # a longer piece is rare (the counter cuts texts at line breaks) and goes to tiktoken
PIECE_MAX = 256
# Merging costs about the square of a pre-token's length: a text may hold this many bytes of new
# pre-tokens over `LONG_PIECE` bytes (box-drawing rules, runs of spaces, letters of base64).
LONG_PIECE = 128
LONG_BYTES_MAX = 2048
_NONE = 1 << 62  # no token: a pair that never merges
_MEMO_MAX = 1 << 16
# pre-token -> its count, once known (1 for a token): a pre-token met again (a word, `":`, a
# line break) costs one lookup, not an encoding and a look in the vocabulary
_memo: dict[str, int] = {}
# A process reads the vocabulary a bucket at a time (`buckets`: about 4 ms to open them, then
# 9 us a bucket) until it has read `LAZY_MAX_BUCKETS` of them (reading it whole costs 24 ms), or
# is to count more than `LAZY_MAX_CHARS` chars at once (`expect`): then it reads it whole.  A
# pre-token that is a token needs only its own bucket, so counting texts of 16 K .. 64 K chars
# this way took 10-50% less than reading the whole vocabulary first (2026-12-05).
LAZY_MAX_CHARS = 48 * 1024
LAZY_MAX_BUCKETS = 4096
_lazy: _buckets.Lazy | None | bool = False  # False: not opened yet; None: the whole vocabulary
_buckets_kept = False


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


def _remember(piece: str, k: int) -> int:
    """Keep `k` as the count of `piece` (in a bounded memo); returns it."""
    if len(_memo) >= _MEMO_MAX:
        _memo.clear()
    _memo[piece] = k
    return k


def expect(chars: int) -> None:
    """About `chars` chars are to be counted now: where the vocabulary's buckets would not serve
    them cheaply, the whole vocabulary is read from the first of them on."""
    global _lazy
    if chars > LAZY_MAX_CHARS:
        _lazy = None


def _vocabulary(chars: int) -> tuple[dict[bytes, int], _buckets.Lazy | None] | None:
    """The ranks to merge `chars` chars with, and the `Lazy` that fills them (None: they are whole)."""
    global _lazy
    if _lazy is False:
        _lazy = _buckets.open_lazy() if chars <= LAZY_MAX_CHARS else None
    if isinstance(_lazy, _buckets.Lazy):
        if chars <= LAZY_MAX_CHARS and _lazy.reads <= LAZY_MAX_BUCKETS:
            return _lazy.known, _lazy
        _lazy = None
    return _whole()


def _whole() -> tuple[dict[bytes, int], None] | None:
    global _buckets_kept
    ranks = _ranks.cl100k_ranks()
    if ranks is None:
        return None
    if not _buckets_kept:  # once: it looks at the cache folder
        _buckets.keep(ranks)
        _buckets_kept = True
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
    memo = _memo
    for piece in cl100k_pieces(text):
        k = memo.get(piece)
        if k is not None:
            n += k
            continue
        raw = piece.encode("utf-8")
        if len(raw) > PIECE_MAX:
            return None
        # A pre-token that is a token counts one: with the buckets, only its own bucket is read
        # (most pre-tokens are, and the rest of their three-byte runs would cost a read each).
        token = raw in ranks if lazy is None else lazy.holds(raw)
        if token is None or not token and lazy is not None and not lazy.ensure(raw):
            expect(TEXT_MAX + 1)  # a bucket is damaged: the whole vocabulary from now on
            return count(text, encoding)
        if token:
            k = 1
        else:
            if len(raw) > LONG_PIECE:
                long_left -= len(raw)
                if long_left < 0:
                    return None
            k = _merged_parts(raw, ranks)
        n += _remember(piece, k)
    return n


class _NotHere(Exception):
    """A text this module does not count (a pre-token too long, or too many long ones)."""


class _Damaged(Exception):
    """A bucket of the vocabulary could not be read."""


class _Balance:
    """Bounds `lo` .. `hi` on a sum of pre-token counts, each taken `times` times (negative: taken
    away).  A pre-token that is a token counts one, and any other at least two and at most its
    bytes until `settle` merges it."""

    __slots__ = ("_lazy", "_long_left", "_open", "_ranks", "hi", "lo")

    def __init__(self, ranks: dict[bytes, int], lazy: _buckets.Lazy | None) -> None:
        self._ranks, self._lazy = ranks, lazy
        self.lo = self.hi = 0
        self._open: list[tuple[int, str, bytes]] = []
        self._long_left = LONG_BYTES_MAX

    def add_all(self, pieces: dict[str, int]) -> None:
        """`add` each pre-token of `pieces` (pre-token -> times)."""
        known = 0
        memo = _memo
        for piece, times in pieces.items():
            k = memo.get(piece)
            if k is None:
                self.add(piece, times)
            else:
                known += times * k
        self.lo += known
        self.hi += known

    def add(self, piece: str, times: int) -> None:
        k = _memo.get(piece)
        if k is None:
            raw = piece.encode("utf-8")
            if len(raw) > PIECE_MAX:
                raise _NotHere
            token = raw in self._ranks if self._lazy is None else self._lazy.holds(raw)
            if token is None:
                raise _Damaged
            if not token:
                least, most = (2, len(raw)) if times > 0 else (len(raw), 2)
                self.lo += times * least
                self.hi += times * most
                self._open.append((times, piece, raw))
                return
            k = _remember(piece, 1)
        self.lo += times * k
        self.hi += times * k

    def settle(self, done: Callable[[], bool]) -> None:
        """Merge the open pre-tokens, the widest gap first, until `done()` (or none is left)."""
        self._open.sort(key=lambda o: abs(o[0]) * len(o[2]))  # the widest last, taken first
        while self._open and not done():
            times, piece, raw = self._open.pop()
            if len(raw) > LONG_PIECE:
                self._long_left -= len(raw)
                if self._long_left < 0:
                    raise _NotHere
            if self._lazy is not None and not self._lazy.ensure(raw):
                raise _Damaged
            k = _remember(piece, _merged_parts(raw, self._ranks))
            if times > 0:  # it was counted 2 .. bytes
                self.lo += times * (k - 2)
                self.hi -= times * (len(raw) - k)
            else:  # it was taken away as bytes .. 2
                self.lo -= times * (len(raw) - k)
                self.hi += times * (k - 2)


def fewer(new: str, old: str, encoding: str, old_at_least: int = 0) -> bool | None:
    """Whether `new` has fewer tokens than `old` (exactly as their counts say), or None where this
    module does not count one of them.  `old_at_least` is a lower bound on the count of `old`.

    `new` (the shorter text, often a marker) is bounded first where it has fewer pre-tokens than
    `old_at_least`, and merged only while its bounds leave open whether it is below that.  Else,
    a count being the sum of its pre-tokens' counts, the pre-tokens both texts hold cancel out (an
    edit's window keeps most of its words) and only the rest is bounded and merged.
    """
    if (len(new) > TEXT_MAX or len(old) > TEXT_MAX or encoding != ENCODING
            or not _plain(new) or not _plain(old)):
        return None
    try:
        return _fewer(new, old, old_at_least)
    except _NotHere:
        return None
    except _Damaged:
        expect(TEXT_MAX + 1)  # the whole vocabulary from now on
        return fewer(new, old, encoding, old_at_least)


def _fewer(new: str, old: str, old_at_least: int) -> bool:
    pieces = cl100k_pieces
    of_new = Counter(pieces(new))
    if of_new.total() < old_at_least:  # else `new` has too many pre-tokens to be below the bound
        vocabulary = _vocabulary(len(new))
        if vocabulary is None:
            raise _NotHere
        count_new = _Balance(*vocabulary)
        count_new.add_all(of_new)
        count_new.settle(lambda: count_new.hi < old_at_least or count_new.lo >= old_at_least)
        if count_new.hi < old_at_least:
            return True
    extra = Counter(pieces(old))
    extra.subtract(of_new)  # > 0: more in `old`; < 0: more in `new`
    extra = {p: t for p, t in extra.items() if t}
    vocabulary = _vocabulary(sum(map(len, extra)))
    if vocabulary is None:
        raise _NotHere
    difference = _Balance(*vocabulary)  # count(old) - count(new)
    difference.add_all(extra)
    difference.settle(lambda: difference.lo > 0 or difference.hi <= 0)
    return difference.lo > 0
