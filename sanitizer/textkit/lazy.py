"""A pattern compiled on first use, so that importing a module compiles nothing it may not need.

`lazy_pattern(spec)` stands where a module-level `regex.compile(spec)` stood: the same methods,
the same results, but `regex` compiles it the first time one is called (a `regex` compile costs
far more than an import of the module's code, and most inputs need only a few of the patterns).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import regex

from sanitizer.textkit import pattern_cache

__all__ = ["LazyPattern", "lazy_pattern"]


_METHODS = ("search", "match", "fullmatch", "finditer", "findall", "sub", "subn", "split")


class LazyPattern:
    """A `regex.Pattern` that compiles on its first use; `.compiled` is the real one.

    Once compiled, the real pattern's bound methods are set on the instance, where they win over
    the methods below: a call then costs what a call on the real pattern costs.
    """

    def __init__(self, spec: str, flags: int = 0) -> None:
        self._spec, self._flags = spec, flags
        self._compiled: regex.Pattern[str] | None = None

    @property
    def compiled(self) -> regex.Pattern[str]:
        """The compiled pattern (compiled now on the first call)."""
        compiled = self._compiled
        if compiled is None:
            compiled = pattern_cache.compile(self._spec, self._flags)
            self.__dict__.update((name, getattr(compiled, name)) for name in _METHODS)
            self._compiled = compiled
        return compiled

    @property
    def is_compiled(self) -> bool:
        """True once the pattern has been compiled."""
        return self._compiled is not None

    @property
    def pattern(self) -> str:
        """The spec string (without compiling)."""
        return self._spec

    def search(self, *args: Any, **kw: Any) -> regex.Match[str] | None:
        return self.compiled.search(*args, **kw)

    def match(self, *args: Any, **kw: Any) -> regex.Match[str] | None:
        return self.compiled.match(*args, **kw)

    def fullmatch(self, *args: Any, **kw: Any) -> regex.Match[str] | None:
        return self.compiled.fullmatch(*args, **kw)

    def finditer(self, *args: Any, **kw: Any) -> Iterator[regex.Match[str]]:
        return self.compiled.finditer(*args, **kw)

    def findall(self, *args: Any, **kw: Any) -> list[Any]:
        return self.compiled.findall(*args, **kw)

    def sub(self, repl: str | Callable[[regex.Match[str]], str], *args: Any, **kw: Any) -> str:
        return self.compiled.sub(repl, *args, **kw)

    def subn(self, repl: str | Callable[[regex.Match[str]], str], *args: Any, **kw: Any) -> tuple[str, int]:
        return self.compiled.subn(repl, *args, **kw)

    def split(self, *args: Any, **kw: Any) -> list[Any]:
        return self.compiled.split(*args, **kw)

    def __getattr__(self, name: str) -> Any:  # groupindex, flags, groups, scanner...
        if name.startswith("_"):  # an attribute not set yet (copy, pickle): never recurse
            raise AttributeError(name)
        return getattr(self.compiled, name)

    def __repr__(self) -> str:
        return f"lazy_pattern({self._spec!r})"


def lazy_pattern(spec: str, flags: int = 0) -> LazyPattern:
    """`regex.compile(spec, flags)`, done on first use."""
    return LazyPattern(spec, flags)
