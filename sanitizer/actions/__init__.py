"""The ordered registry of built-in actions (plus entry-point plugins).

Order is part of the contract: protection first (keep-tag), then redaction and placeholders, then
structural replacements (sub-agent turns, thinking, duplicate and old tool results), then trimming, then cosmetic
cleanup.  Rules of a pack run in this order unless the pack gives an explicit `order`.
"""

from __future__ import annotations

import functools

from sanitizer.actions import boilerplate, calls, code, sidechain, tagged, text, thinking, tools
from sanitizer.actions.base import Action, Change, Context, Doc

ENTRY_POINT_GROUP = "sanitizer.actions"


def _builtins() -> tuple[Action, ...]:
    by_name = {a.name: a for mod in (tagged, text, code, sidechain, thinking, tools, calls, boilerplate)
               for a in mod.ACTIONS}
    order = (
        "keep-tag",
        "redact-secrets",
        "image-placeholder",
        "strip-block",
        "placeholder-tag",
        "fold-sidechain",
        "drop-thinking",
        "dedupe-boilerplate",
        "dedupe-tool-results",
        "digest-tool-result",
        "trim-call-args",
        "compact-tool-args",
        "trim-tag",
        "collapse-code",
        "trim-text",
        "collapse-blank-lines",
    )
    missing = set(by_name) ^ set(order)
    if missing:
        raise RuntimeError(f"action registry out of step with modules: {sorted(missing)}")
    return tuple(by_name[name] for name in order)


@functools.cache
def builtins() -> dict[str, Action]:
    """The built-in actions by name, in contract order: what `registry()` starts with (plugins
    never replace a built-in), without looking for plugins.  Cached: do not mutate."""
    return {a.name: a for a in _builtins()}


@functools.cache
def registry() -> dict[str, Action]:
    """All actions by name, built-ins first in contract order, then plugins (sorted by name).

    Cached: callers must not mutate the returned dict.  Reading the installed distributions'
    entry points costs more than the rest of the start-up of a run, hence `builtins()`.
    """
    from importlib.metadata import entry_points

    actions = dict(builtins())
    for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        action = ep.load()
        if not isinstance(action, Action):
            raise TypeError(f"entry point {ep.name!r} ({ep.value}) is not a sanitizer Action")
        actions.setdefault(action.name, action)
    return actions


__all__ = ["Action", "Change", "Context", "Doc", "builtins", "registry"]
