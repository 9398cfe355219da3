"""One credential pattern: its spec, compiled on first use, and the literals every match holds."""

from __future__ import annotations

from collections.abc import Sequence

import regex

from sanitizer.secrets.leads import kept_leads
from sanitizer.secrets.leads import leads as _leads
from sanitizer.textkit import pattern_cache

__all__ = ["SecretPattern", "read_leads"]


class SecretPattern:
    """`pattern` matches a secret; group `value` (when present) is the part replaced.

    `pattern` is compiled from `spec` on first use: a run compiles only the patterns it needs.
    `anchors`: for a pattern that ignores case or that no literal leads (slow to scan: `regex`
    tries it at every position), (literal, reach) pairs; every match holds a `near.FINDERS[literal]` match that starts at most
    `reach` chars after its own start, so the pattern is tried only there (`near.anchored`).
    `needs`: the pattern runs only on a text holding one of these literals.  `generic`: a
    free-form value, which is no secret when it is a file path.  `leads`: literals every match
    holds (`leads.leads`, None when unknown): while the pattern is not compiled, a text holding
    none of them skips it, uncompiled.
    """

    __slots__ = ("_compiled", "_leads", "anchors", "folded", "generic", "kind", "needs", "spec")

    def __init__(self, kind: str, spec: str | regex.Pattern[str], folded: bool = False,
                 anchors: tuple[tuple[str, int], ...] = (), needs: tuple[str, ...] = (), generic: bool = False) -> None:
        # A compiled pattern (what this took before it compiled lazily) is kept as it is.
        self._compiled: regex.Pattern[str] | None = None if isinstance(spec, str) else spec
        self.kind, self.spec, self.folded, self.anchors, self.needs, self.generic = (
            kind, spec if isinstance(spec, str) else spec.pattern, folded, anchors, needs, generic)
        self._leads: tuple[str, ...] | None | bool = False  # False: not read yet

    @property
    def leads(self) -> tuple[str, ...] | None:
        """Literals one of which every match holds (read from `spec` on first use), or None."""
        found = self._leads
        if found is False:
            found = self._leads = None if self.folded else _leads(self.spec)
        return found  # type: ignore[return-value]

    @property
    def pattern(self) -> regex.Pattern[str]:
        """The compiled pattern (compiled now if no run has needed it yet)."""
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = pattern_cache.compile(self.spec)
        return compiled

    @property
    def compiled(self) -> bool:
        """True once `pattern` has been compiled."""
        return self._compiled is not None

    def __repr__(self) -> str:
        return f"SecretPattern({self.kind!r}, {self.spec!r})"


def read_leads(patterns: Sequence[SecretPattern]) -> None:
    """Give every case-sensitive pattern not yet read its leads, kept between processes (`kept_leads`)."""
    todo = [sp for sp in patterns if sp._leads is False and not sp.folded]
    for sp, found in zip(todo, kept_leads([sp.spec for sp in todo]), strict=True):
        sp._leads = found
