"""The compiled code of the built-in patterns, kept between processes.

`regex` compiles a pattern in Python (its parser and optimiser: about 0.4 ms for a credential
pattern, 36 ms for the ~90 of them) into code that its C engine runs; given that code, it builds
the same pattern object in a twentieth of the time (this is how `regex` unpickles a pattern).
`compile(spec, flags)` gives what `regex.compile` gives, built from the code an earlier process
kept in the cache folder (`sanitizer.cachedir`) where there is one; a process that compiled new
patterns keeps their code when it exits.

Only the patterns written in this package's code go through here (`LazyPattern`, the credential
kinds, their finders, the token pre-tokenizers), never a pattern from a rule file or a user's
configuration, and no input text.  The file is named after the `regex` and Python versions and
replaced only by the process that imported this module (not by forked workers); a file that is
missing, damaged or stale, or an entry `regex` does not take, is compiled anew.  Whoever can
write the user's cache folder can change what these patterns match, as whoever can write the
user's site-packages can change the code itself.
"""

from __future__ import annotations

import atexit
import marshal
import os
import sys
from typing import Any

import regex
from regex import _regex  # type: ignore[attr-defined]  # the engine `regex` unpickles with

from sanitizer import cachedir

__all__ = ["compile"]

MAX_ENTRIES = 4096  # beyond this (specs changed over many versions), the file starts over

_Key = tuple[str, int]
_known: dict[_Key, tuple[Any, ...]] | None = None
_new: dict[_Key, tuple[Any, ...]] = {}
_owner = os.getpid()


def _name() -> str:
    return f"patterns-regex{regex.__version__}-py{sys.version_info[0]}{sys.version_info[1]}.bin"


def _read() -> dict[_Key, tuple[Any, ...]]:
    table = cachedir.load(_name())
    return table if isinstance(table, dict) else {}


def compile(spec: str, flags: int = 0) -> regex.Pattern[str]:  # noqa: A001 - regex.compile's name, on purpose
    """`regex.compile(spec, flags)`, built from the code kept by an earlier process where there is one."""
    global _known
    if _known is None:
        _known = _read()
    key = (spec, int(flags))  # a plain int: marshal keeps no `regex.RegexFlag`
    data = _known.get(key)
    if isinstance(data, tuple) and data and data[0] == spec:
        try:
            return _regex.compile(*data)
        except Exception:  # noqa: BLE001 - an entry this `regex` does not take: compiled anew below
            pass
    pattern = regex.compile(spec, flags)
    kept = getattr(pattern, "_pickled_data", None)
    if isinstance(kept, tuple) and cachedir.folder() is not None:
        if not _new:
            atexit.register(_save)
        _new[key] = _known[key] = kept
    return pattern


def _save() -> None:
    """Keep the code of the patterns this process compiled (merged with what the file holds)."""
    if not _new or os.getpid() != _owner:
        return
    table = _read()
    if len(table) + len(_new) > MAX_ENTRIES:
        table = {}
    table.update(_new)
    try:
        body = marshal.dumps(table)
    except ValueError:
        return
    cachedir.write(_name(), body)
