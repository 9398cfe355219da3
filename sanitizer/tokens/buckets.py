"""The cl100k_base vocabulary in buckets by a token's first three bytes, read a bucket at a time.

Reading the whole vocabulary (100,256 tokens into a dict) costs about 40 ms here: more than the
rest of a `--no-tokens` run on a small session, which counts exactly only the few hundred chars
of the edits its bounds leave open.  Byte-pair merging a pre-token looks up only the pre-token's
own substrings, and every one of three bytes or more starts with one of its three-byte runs.  So
the tokens of one or two bytes (4,086) are read at once, and `Lazy.ensure(piece)` reads the
buckets of the piece's three-byte runs before `short` merges it: `Lazy.known` then holds every
token the merge can ask for, and the counts are the same, from a few hundred small buckets.

The buckets are kept in the user's cache folder (`sanitizer.cachedir`) by the first process that
reads the whole vocabulary, and read only after the bundled file's hash is checked again: where
they are missing or damaged, `open_lazy` gives None and the whole vocabulary is read instead.
"""

from __future__ import annotations

import itertools
import marshal
from array import array
from bisect import bisect_left

from sanitizer import cachedir
from sanitizer.tokens import ranks as _ranks

__all__ = ["Lazy", "keep", "open_lazy"]

_NAME = f"{_ranks.NAME}-{_ranks.SHA256[:16]}-buckets{marshal.version}.ranks"  # in the cache folder
_RUN = 3  # a bucket holds the tokens whose first bytes are one run of this many bytes
_INDEX = "I"  # array type of the bucket keys and offsets (4 bytes wherever it is kept)
_unreadable = False  # True once the kept buckets were found damaged: `keep` writes them again


class Lazy:
    """The vocabulary read a bucket at a time: `known` holds the short tokens and every bucket
    `ensure` has read."""

    __slots__ = ("_blob", "_keys", "_offsets", "_read", "known")

    def __init__(self, short: dict[bytes, int], keys: array, offsets: array, blob: memoryview) -> None:
        self.known = short
        self._keys, self._offsets, self._blob = keys, offsets, blob
        self._read: set[bytes] = set()

    @property
    def reads(self) -> int:
        """How many buckets were looked for so far."""
        return len(self._read)

    def ensure(self, piece: bytes) -> bool:
        """Read every bucket a merge of `piece` can look in; False where one cannot be read."""
        return all(self._look(piece[i:i + _RUN]) for i in range(len(piece) - _RUN + 1))

    def holds(self, piece: bytes) -> bool | None:
        """Whether `piece` is a token (reading only the bucket it would be in); None where that
        bucket cannot be read."""
        if len(piece) >= _RUN and not self._look(piece[:_RUN]):
            return None
        return piece in self.known

    def _look(self, run: bytes) -> bool:
        """Read the bucket of the tokens starting with `run` (once); False where it cannot be read."""
        if run in self._read:
            return True
        self._read.add(run)
        return self._read_bucket(int.from_bytes(run, "big"))

    def _read_bucket(self, key: int) -> bool:
        keys = self._keys
        i = bisect_left(keys, key)
        if i == len(keys) or keys[i] != key:
            return True  # no token starts with these bytes
        try:
            bucket = marshal.loads(self._blob[self._offsets[i]:self._offsets[i + 1]])
        except (EOFError, ValueError, TypeError):
            bucket = None
        if not isinstance(bucket, dict):
            _mark_damaged()
            return False
        self.known.update(bucket)
        return True


def _mark_damaged() -> None:
    global _unreadable
    _unreadable = True


def keep(full: dict[bytes, int]) -> None:
    """Write the buckets of `full` (the verified vocabulary) to the cache folder, where they are
    not yet or were found damaged."""
    global _unreadable
    where = cachedir.path(_NAME)
    if where is None or (where.is_file() and not _unreadable):
        return
    _unreadable = False
    short = {t: r for t, r in full.items() if len(t) < _RUN}
    groups: dict[int, dict[bytes, int]] = {}
    for token, rank in full.items():
        if len(token) >= _RUN:
            groups.setdefault(int.from_bytes(token[:_RUN], "big"), {})[token] = rank
    keys = sorted(groups)
    parts = [marshal.dumps(groups[k]) for k in keys]
    offsets = array(_INDEX, itertools.accumulate(map(len, parts), initial=0))
    if array(_INDEX).itemsize != 4 or offsets[-1] >= 1 << 32:
        return
    body = (len(full), marshal.dumps(short), array(_INDEX, keys).tobytes(), offsets.tobytes(), b"".join(parts))
    cachedir.write(_NAME, marshal.dumps(body))


def open_lazy() -> Lazy | None:
    """The vocabulary's buckets as an earlier process kept them, or None where they are not kept,
    are damaged, or the bundled file is missing or altered."""
    if array(_INDEX).itemsize != 4 or not _ranks.verified():
        return None
    lazy = _read_kept()
    if lazy is None and (where := cachedir.path(_NAME)) is not None and where.exists():
        _mark_damaged()
    return lazy


def _read_kept() -> Lazy | None:
    try:
        size, short_dump, key_bytes, offset_bytes, blob = cachedir.load(_NAME)
        short = marshal.loads(short_dump)
        keys, offsets = array(_INDEX), array(_INDEX)
        keys.frombytes(key_bytes)
        offsets.frombytes(offset_bytes)
    except (EOFError, ValueError, TypeError):
        return None
    if (size != _ranks.SIZE or not isinstance(short, dict) or short.get(b"!") != 0 or not isinstance(blob, bytes)
            or len(offsets) != len(keys) + 1 or offsets[0] != 0 or offsets[-1] != len(blob)):
        return None
    return Lazy(short, keys, offsets, memoryview(blob))
