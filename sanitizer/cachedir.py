"""The user's cache folder: data derived from this package's own code and files, kept between
processes to save start-up time (never input text, never a rule or setting of the user's).

`$SANITIZER_CACHE_DIR` when set (empty: nothing is kept at all), else `$XDG_CACHE_HOME/sanitizer`,
else `$HOME/.cache/sanitizer`; a process with none of them set keeps nothing.  Every file carries
a CRC-32 of its bytes and is replaced atomically; one that is missing or damaged reads as None,
and an error reading or writing is ignored: the cache only ever saves time.
"""

from __future__ import annotations

import contextlib
import hashlib
import marshal
import os
import sys
import zlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

__all__ = ["ENV", "folder", "kept", "load", "named_after", "read", "write"]

_T = TypeVar("_T")

ENV = "SANITIZER_CACHE_DIR"
_HEAD = 4  # the CRC-32 of the body, big-endian


def folder() -> Path | None:
    """The cache folder (not created here), or None where caching is off."""
    chosen = os.environ.get(ENV)
    if chosen is not None:
        return Path(chosen) if chosen.strip() else None
    xdg, home = os.environ.get("XDG_CACHE_HOME", ""), os.environ.get("HOME", "")
    if os.path.isabs(xdg):  # a relative one is to be ignored (the XDG base directory spec)
        return Path(xdg) / "sanitizer"
    return Path(home) / ".cache" / "sanitizer" if os.path.isabs(home) else None


def path(name: str) -> Path | None:
    """Where the cached file `name` is (or would be), or None where caching is off."""
    where = folder()
    return where / name if where is not None else None


def read(name: str) -> memoryview | None:
    """The body of the cached file `name`, or None where it is missing, damaged or off."""
    where = path(name)
    if where is None:
        return None
    try:
        data = where.read_bytes()
    except OSError:
        return None
    body = memoryview(data)[_HEAD:]
    if len(data) <= _HEAD or zlib.crc32(body) != int.from_bytes(data[:_HEAD], "big"):
        return None
    return body


def load(name: str) -> Any:
    """The value `marshal` kept as the cached file `name`, or None where it is missing, damaged or off
    (the caller checks its shape)."""
    body = read(name)
    if body is None:
        return None
    try:
        return marshal.loads(body)
    except (EOFError, ValueError, TypeError):
        return None


def write(name: str, body: bytes) -> None:
    """Keep `body` as the cached file `name` (atomically; nothing happens where it cannot be written)."""
    where = path(name)
    if where is None:
        return
    part = where.with_name(f".{name}.{os.getpid()}.part")
    try:
        where.parent.mkdir(parents=True, exist_ok=True)
        with open(part, "xb") as out:  # never through a file or link that is already there
            out.write(zlib.crc32(body).to_bytes(_HEAD, "big"))
            out.write(body)
        os.replace(part, where)
    except OSError:
        with contextlib.suppress(OSError):
            part.unlink()


def named_after(prefix: str, source_file: str) -> str | None:
    """The name of a cached file whose values the module `source_file` derives: `prefix`, the sha256 of
    that module's source and the Python version, so a change to the code never reads values derived
    by another (None where the source cannot be read)."""
    try:
        source = Path(source_file).read_bytes()
    except OSError:
        return None
    version = "".join(map(str, sys.version_info[:3]))
    return f"{prefix}-{hashlib.sha256(source).hexdigest()[:16]}-py{version}.bin"


_MISSING: Any = object()  # no entry (None is a value a derivation may give)


def kept(name: str | None, keys: Sequence[str], derive: Callable[[str], _T], valid: Callable[[Any], bool],
         writer: bool) -> list[_T]:
    """`[derive(key) for key in keys]`, read from the cached file `name` where an earlier process kept them.

    An entry that is missing or not `valid` is derived anew; then, or when the file holds other
    keys, a `writer` (the process that imported the deriving module, not a forked worker) writes
    the file again holding just `keys`.
    """
    table = load(name) if name is not None else None
    if not isinstance(table, dict):
        table = {}
    out: list[_T] = []
    fresh = False
    for key in keys:
        found = table.get(key, _MISSING)
        if found is _MISSING or not valid(found):
            found, fresh = derive(key), True
        out.append(found)
    if name is not None and writer and (fresh or len(table) != len(set(keys))):
        write(name, marshal.dumps(dict(zip(keys, out, strict=True))))
    return out

