"""tiktoken encodings, loaded offline, and the facts about them the counter relies on.

Also the two functions a counting worker process runs on a group of texts.
"""

from __future__ import annotations

import functools

import tiktoken

from sanitizer.errors import EncodingError

DEFAULT_ENCODING = "cl100k_base"

# Not o200k_base: its `[\r\n/]*` suffix lets `!\n/` be one pre-token.
WORD_BOUND_ENCODINGS = frozenset({"cl100k_base", "p50k_base", "p50k_edit", "r50k_base", "gpt2"})


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


# Facts of known encodings, so no run pays for a pass over the whole vocabulary (checked by
# tests/test_fast_scans.py against the computed values).
_KNOWN_MAX_TOKEN_BYTES = {"cl100k_base": 128}
_KNOWN_MAX_HIGH_BYTES = {"cl100k_base": 48}


@functools.lru_cache(maxsize=8)
def max_token_bytes(name: str = DEFAULT_ENCODING, *, known: bool = True) -> int:
    """The longest token of an encoding, in bytes (computed once per process)."""
    if known and name in _KNOWN_MAX_TOKEN_BYTES:
        return _KNOWN_MAX_TOKEN_BYTES[name]
    return max(map(len, get_encoding(name).token_byte_values()))


@functools.lru_cache(maxsize=8)
def max_high_bytes(name: str = DEFAULT_ENCODING, *, known: bool = True) -> int:
    """The most bytes >= 0x80 (bytes of non-ASCII chars) that one token of an encoding holds."""
    if known and name in _KNOWN_MAX_HIGH_BYTES:
        return _KNOWN_MAX_HIGH_BYTES[name]
    return max(len(b) - len(b.translate(None, _HIGH_BYTES)) for b in get_encoding(name).token_byte_values())


_HIGH_BYTES = bytes(range(0x80, 0x100))
_SPLIT_ONLY = ("\x1c", "\x1d", "\x1e", "\x1f")


def lower_bound(text: str, encoding: str, enough: int | None = None) -> int:
    """A lower bound on the token count of `text` in `encoding` that needs no encoding.

    Every token covers at most `max_token_bytes` chars, and at most `max_high_bytes` bytes of
    non-ASCII chars (48 in cl100k: a run of em dashes), which bounds CJK text.  For encodings
    whose pre-tokenizer never puts two whitespace-separated words into one pre-token
    (`WORD_BOUND_ENCODINGS`), there is also at least one token per word; `str.split` also
    splits at U+001C..U+001F, which are not whitespace to the pre-tokenizer, so a stretch
    holding one is not counted that way.  Words are counted on growing prefixes, and the
    bound returns as soon as it exceeds `enough`.
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
        if any(c in prefix for c in _SPLIT_ONLY):
            break
        bound = max(bound, len(prefix.split()))
        if prefix is text:
            break
        size *= 4
    return bound


def encode_counts(job: tuple[str, list[str]]) -> list[int]:
    """Token counts of a group of texts (what a counting worker runs)."""
    name, group = job
    encode = get_encoding(name).encode_ordinary
    return [len(encode(p)) for p in group]


def encode_summaries(job: tuple[str, list[str]]) -> list[tuple[int, int, int]]:
    """(count, first token, last token) of each text of a group (what a counting worker runs)."""
    name, group = job
    encode = get_encoding(name).encode_ordinary
    out = []
    for c in group:
        toks = encode(c)
        out.append((len(toks), toks[0], toks[-1]) if toks else (0, -1, -1))
    return out


__all__ = ["DEFAULT_ENCODING", "WORD_BOUND_ENCODINGS", "EncodingError", "encode_counts", "encode_summaries",
           "get_encoding", "lower_bound", "max_high_bytes", "max_token_bytes"]
