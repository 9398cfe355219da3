"""Rules resolved from packs and user configuration: TOML tables in, validated `Config` out.

A pack is a TOML file with optional `extends`, a `[settings]` table and `[[rule]]` entries.  A
child pack (or a user's `sanitizer.toml`, `[tool.sanitizer]` in pyproject.toml, `--config FILE`)
re-parameterizes rules of the same name, adds rules, disables them (`enabled = false` or
`disable = [...]`) and may reorder them (`order = [...]`).  Any unknown key stops the load with
the file, the rule and the closest valid names.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from sanitizer.actions import Action, builtins, registry
from sanitizer.config.files import did_you_mean, pack_table
from sanitizer.errors import ConfigError
from sanitizer.model import KINDS, ROLES
from sanitizer.textkit.tags import ALWAYS_PROTECTED

SCOPES = ("all", "older", "head", "tail")
RULE_KEYS = ("name", "use", "enabled", "scope", "kinds", "roles", "tools", "tags")
PACK_KEYS = ("name", "description", "extends", "settings", "rule", "order", "enable", "disable", "preset")
SETTING_DEFAULTS: dict[str, Any] = {"keep_recent": 10, "tail_tokens": 0}


@dataclass(frozen=True, slots=True)
class Rule:
    """One configured rule: an action, its options and its selectors."""

    name: str
    action: Action
    options: Any
    kinds: tuple[str, ...]
    scope: str = "older"
    roles: tuple[str, ...] = ()
    tools: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    enabled: bool = True

    def describe(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "use": self.action.name, "enabled": self.enabled,
                               "scope": self.scope, "kinds": list(self.kinds)}
        for key in ("roles", "tools", "tags"):
            if getattr(self, key):
                out[key] = list(getattr(self, key))
        out.update({f.name: getattr(self.options, f.name) for f in dataclasses.fields(self.options)})
        return out


@dataclass(frozen=True, slots=True)
class Config:
    """A validated configuration: its rules in order and the protected tail's size."""
    name: str
    rules: tuple[Rule, ...]
    keep_recent: int = 10
    tail_tokens: int = 0
    sources: tuple[str, ...] = field(default_factory=tuple)

    @property
    def active(self) -> tuple[Rule, ...]:
        """The enabled rules, in order."""
        return tuple(r for r in self.rules if r.enabled)

    @property
    def redaction_rule(self) -> str | None:
        """The name of the first active rule whose action redacts, or None when redaction is off."""
        return next((r.name for r in self.active if r.action.redacts), None)

    @property
    def protected_tags(self) -> frozenset[str]:
        """Tag names (lower case) whose blocks no rule may cut: `key_info` always, plus what the
        active rules protect (`Action.protects`, e.g. keep-tag's `tags`), known before any rule runs."""
        return ALWAYS_PROTECTED | {t.lower() for r in self.active if r.action.protects is not None
                                   for t in r.action.protects(r.options)}


def load(preset: str = "default", user: dict[str, Any] | None = None, user_source: str = "<config>",
         enable: tuple[str, ...] = (), disable: tuple[str, ...] = (), keep_recent: int | None = None) -> Config:
    """Resolve a preset, an optional user table on top of it, and command-line toggles."""
    layers: list[tuple[dict[str, Any], str]] = [] if user is None else [(user, user_source)]
    base = preset if user is None else user.get("extends") or user.get("preset") or preset
    seen: list[str] = []
    while base is not None:
        if base in seen:
            raise ConfigError(f"{layers[-1][1]}: `extends` cycle: {' -> '.join(seen + [base])}")
        seen.append(base)
        data, source = pack_table(base)
        layers.append((data, source))
        base = data.get("extends")
    args = (layers, (user or {}).get("name") or preset, enable, disable, keep_recent)
    if not any(data.get("rule") for data, _ in layers) and not enable:
        return _resolve({}, *args)  # nothing to build: the identity copy needs no actions
    try:  # a config that names only built-ins resolves the same without plugins, which are slow to list
        return _resolve(builtins(), *args)
    except ConfigError:  # a plugin action, or an error whose message lists the plugins too
        return _resolve(registry(), *args)


def _resolve(actions: dict[str, Action], layers: list[tuple[dict[str, Any], str]], config_name: str,
             enable: tuple[str, ...], disable: tuple[str, ...], keep_recent: int | None) -> Config:
    rules: dict[str, dict[str, Any]] = {}
    order: list[str] | None = None
    settings = dict(SETTING_DEFAULTS)
    for data, source in reversed(layers):  # base pack first, user last
        _check_keys(data, PACK_KEYS, source, "top level")
        for key, value in (data.get("settings") or {}).items():
            if key not in SETTING_DEFAULTS:
                raise ConfigError(f"{source}: [settings]: unknown key {key!r}{did_you_mean(key, tuple(SETTING_DEFAULTS))}", source=source)
            settings[key] = _check_type(value, int, source, f"settings.{key}")
        for raw in data.get("rule") or []:
            name = raw.get("name") or raw.get("use")
            if not name:
                raise ConfigError(f"{source}: a [[rule]] needs `use` (one of: {', '.join(actions)})", source=source)
            merged = {**rules.get(name, {}), **raw, "_source": source}
            merged.setdefault("name", name)
            rules[name] = merged
        if data.get("order"):
            order = list(data["order"])
        for key, flag in (("enable", True), ("disable", False)):
            for name in data.get(key) or []:
                _require_rule(name, rules, source, actions)
                rules[name]["enabled"] = flag
    for name in enable:
        _require_rule(name, rules, "--enable", actions)
        rules[name]["enabled"] = True
    for name in disable:
        _require_rule(name, rules, "--disable", actions)
        rules[name]["enabled"] = False
    built = [_build(spec, actions) for spec in rules.values()]
    rank = {a: i for i, a in enumerate(actions)}
    if order is not None:
        unknown = [n for n in order if n not in rules]
        if unknown:
            raise ConfigError(f"order: unknown rule {unknown[0]!r}{did_you_mean(unknown[0], tuple(rules))}")
        pos = {n: i for i, n in enumerate(order)}
        built.sort(key=lambda r: (pos.get(r.name, len(pos)), rank[r.action.name]))
    else:
        built.sort(key=lambda r: rank[r.action.name])
    if keep_recent is not None:
        settings["keep_recent"] = keep_recent
    return Config(name=config_name, rules=tuple(built), keep_recent=settings["keep_recent"],
                  tail_tokens=settings["tail_tokens"], sources=tuple(s for _, s in reversed(layers)))


def _require_rule(name: str, rules: dict[str, dict[str, Any]], source: str, actions: dict[str, Action]) -> None:
    if name in rules:
        return
    if name in actions:  # enabling an action the pack does not list adds it with its defaults
        rules[name] = {"name": name, "use": name, "_source": source}
        return
    raise ConfigError(f"{source}: unknown rule {name!r}{did_you_mean(name, tuple(rules) + tuple(actions))}", source=source)


def _check_keys(data: dict[str, Any], allowed: tuple[str, ...], source: str, where: str) -> None:
    for key in data:
        if key not in allowed:
            raise ConfigError(f"{source}: {where}: unknown key {key!r}{did_you_mean(key, allowed)}", source=source)


def _check_type(value: Any, kind: type, source: str, key: str) -> Any:
    if kind is int and isinstance(value, bool) or not isinstance(value, kind):
        raise ConfigError(f"{source}: {key}: expected {kind.__name__}, got {type(value).__name__} {value!r}", source=source)
    return value


def _strings(value: Any, source: str, key: str, allowed: tuple[str, ...] | None = None) -> tuple[str, ...]:
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not all(isinstance(v, str) for v in items):
        raise ConfigError(f"{source}: {key}: expected a string or a list of strings, got {value!r}", source=source)
    for v in items:
        if allowed is not None and v not in allowed:
            raise ConfigError(f"{source}: {key}: unknown value {v!r}{did_you_mean(v, allowed)}", source=source)
    return tuple(items)


def _build(spec: dict[str, Any], actions: dict[str, Action]) -> Rule:
    source = spec.pop("_source")
    name = spec["name"]
    where = f"{source}: rule {name!r}"
    use = spec.get("use", name)
    if use not in actions:
        raise ConfigError(f"{where}: unknown action {use!r}{did_you_mean(use, tuple(actions))}")
    action = actions[use]
    fields = {f.name: f for f in dataclasses.fields(action.options)}
    opts: dict[str, Any] = {}
    for key, value in spec.items():
        if key in RULE_KEYS and key not in fields:
            continue
        attr = key.replace("-", "_")
        if attr not in fields:
            valid = tuple(RULE_KEYS) + tuple(f.replace("_", "-") if "-" in key else f for f in fields)
            raise ConfigError(f"{where}: unknown option {key!r}{did_you_mean(key, valid)}")
        opts[attr] = _coerce(value, fields[attr], where, key)
    try:
        options = action.options(**opts)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{where}: {exc}") from exc
    scope = spec.get("scope", "older")
    if scope not in SCOPES:
        raise ConfigError(f"{where}: scope: unknown value {scope!r}{did_you_mean(scope, SCOPES)}")
    enabled = spec.get("enabled", True)
    _check_type(enabled, bool, where, "enabled")
    return Rule(name=name, action=action, options=options, scope=scope, enabled=enabled,
                kinds=_strings(spec.get("kinds", list(action.kinds)), where, "kinds", KINDS),
                roles=_strings(spec.get("roles", []), where, "roles", ROLES),
                tools=_strings(spec.get("tools", []), where, "tools"),
                tags=_strings(spec.get("tags", []), where, "tags") if "tags" not in fields else ())


def _coerce(value: Any, f: dataclasses.Field, where: str, key: str) -> Any:
    default = f.default if f.default is not dataclasses.MISSING else (
        f.default_factory() if f.default_factory is not dataclasses.MISSING else None)  # type: ignore[misc]
    if isinstance(default, tuple) and isinstance(value, list):
        return tuple(value)
    if default is not None and not isinstance(value, type(default)) and not (
        isinstance(default, float) and isinstance(value, int)
    ):
        raise ConfigError(f"{where}: {key}: expected {type(default).__name__}, got {type(value).__name__} {value!r}")
    return value
