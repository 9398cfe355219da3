"""Bounds on a text's token count that need no encoding: what lets an edit be decided, and a
`--no-tokens` run finish, without reading the vocabulary.

`lower_bound` holds for any encoding from its longest token; for encodings whose pre-tokenizer
never joins two words it also counts words, and in cl100k the ASCII pre-tokens
(`ascii_pretoken_floor`).  `tests/test_changed_window.py` holds each to tiktoken's counts.
"""

from __future__ import annotations

import string

from sanitizer.tokens.encodings import WORD_BOUND_ENCODINGS, max_high_bytes, max_token_bytes

__all__ = ["ascii_pretoken_floor", "lower_bound"]

_SPLIT_ONLY = ("\x1c", "\x1d", "\x1e", "\x1f")


def lower_bound(text: str, encoding: str, enough: int | None = None, fine: bool = False) -> int:
    """A lower bound on the token count of `text` in `encoding` that needs no encoding.

    Every token covers at most `max_token_bytes` chars, and at most `max_high_bytes` bytes of
    non-ASCII chars (48 in cl100k: a run of em dashes), which bounds CJK text.  For encodings
    whose pre-tokenizer never puts two whitespace-separated words into one pre-token
    (`WORD_BOUND_ENCODINGS`), there is also at least one token per word; `str.split` also
    splits at U+001C..U+001F, which are not whitespace to the pre-tokenizer, so a stretch
    holding one is not counted that way.  With `fine`, on ASCII text in cl100k, the bound is
    finer where the words leave it below `enough`: one pre-token per piece `ascii_pretoken_floor`
    counts (a few passes of `bytes.count`).  Words (pieces) are counted on growing
    prefixes, and the bound returns as soon as it exceeds `enough`.
    """
    bound = -(-len(text) // max_token_bytes(encoding))
    if not text.isascii():  # no token holds more than `high` bytes of non-ASCII chars
        utf8 = len(text.encode("utf-8", "surrogatepass"))
        high = utf8 - len(text.encode("ascii", "ignore"))
        bound = max(bound, -(-high // max_high_bytes(encoding)))
    if encoding not in WORD_BOUND_ENCODINGS:
        return bound
    size = 4096 if enough is None else max(4096, 8 * (enough + 1))
    while bound <= (len(text) if enough is None else enough):
        prefix = text[:size] if size < len(text) else text
        if not any(c in prefix for c in _SPLIT_ONLY):
            bound = max(bound, len(prefix.split()))
        elif not prefix.isascii():
            break
        if fine and encoding == "cl100k_base" and bound <= (enough or 0) and prefix.isascii():
            bound = max(bound, ascii_pretoken_floor(prefix))
        if prefix is text:
            break
        size *= 4
    return bound


def _ascii_classes(marks: dict[int, str]) -> bytes:
    """A `bytes.translate` table: each char of `marks[m]` becomes byte `m`, any other byte `x`."""
    table = bytearray(b"x" * 256)
    for mark, chars in marks.items():
        for c in chars:
            table[ord(c)] = mark
    return bytes(table)


# ASCII classes exactly as cl100k's pattern sees them (`\s` is White_Space: no U+001C..U+001F):
# letters `a`, chars that are neither letters, digits nor whitespace `.`; and digits `0`.
_ASCII_OTHERS = "".join(c for c in map(chr, range(128)) if not c.isalnum() and c not in "\t\n\x0b\x0c\r ")
_LETTERS_OTHERS = _ascii_classes({ord("a"): string.ascii_letters, ord("."): _ASCII_OTHERS})
_DIGITS = _ascii_classes({ord("0"): string.digits})


def ascii_pretoken_floor(text: str) -> int:
    """At most the number of cl100k pre-tokens of the ASCII `text` (or of any text it begins).

    Each pre-token holds letters of at most one letter run, at most 3 digits of one digit run
    (grouped from the run's start), or one run of other chars; such a run reaches a letter
    pre-token only as its one leading char (`[^\\r\\n\\p{L}\\p{N}]?+\\p{L}++`, and the
    contractions `'s`): so letter runs + digit groups + runs of other chars, a lone char just
    before a letter not counted, are distinct pre-tokens.  Whitespace is not counted.

    The pieces are those of `[A-Za-z]+|[0-9]{1,3}|[^\\s A-Za-z0-9]{2,}|[^\\s A-Za-z0-9](?![A-Za-z])`
    (tests hold the count to that pattern), counted without making them: run starts are
    counted as the pairs of a char and the one before it, on the text with each char replaced
    by its class (3x as fast as listing the pieces).
    """
    raw = text.encode("ascii")
    marked = raw.translate(_LETTERS_OTHERS)
    pairs, first = marked.count, marked[:1]
    lone_before_letter = pairs(b".a") - pairs(b"..a")
    letter_runs = pairs(b"xa") + pairs(b".a") + (first == b"a")
    other_runs = pairs(b"x.") + pairs(b"a.") + (first == b".")
    digits = raw.translate(_DIGITS)
    remainders = digits.replace(b"000", b"")  # each digit run keeps its length mod 3, none merge
    digit_groups = digits.count(b"000") + remainders.count(b"x0") + (remainders[:1] == b"0")
    return letter_runs + other_runs - lone_before_letter + digit_groups
