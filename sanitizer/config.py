"""Rule packs and user configuration: TOML data in, validated `Config` out.

A pack is a TOML file with optional `extends`, a `[settings]` table and `[[rule]]` entries.  A
child pack (or a user's `sanitizer.toml`, `[tool.sanitizer]` in pyproject.toml, `--config FILE`)
re-parameterizes rules of the same name, adds rules, disables them (`enabled = false` or
`disable = [...]`) and may reorder them (`order = [...]`).  Any unknown key stops the load with
the file, the rule and the closest valid names.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sanitizer.actions import Action, builtins, registry
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


def _packs() -> Any:
    """`sanitizer.packs` once installed (pyproject maps `rules/` there), else `rules/` of the checkout.
    A folder on disk is what `importlib.resources.files` gives, taken without its ~4 ms import."""
    spec = importlib.util.find_spec("sanitizer.packs") or importlib.util.find_spec("sanitizer")
    if spec.has_location and spec.origin and Path(spec.origin).is_file():
        folder = Path(spec.origin).parent
    else:  # a zip or another loader
        folder = importlib.import_module("importlib.resources").files(spec.name)
    return folder if spec.name == "sanitizer.packs" else folder.joinpath("..", "rules")


def pack_names() -> list[str]:
    return sorted(p.name[:-5] for p in _packs().iterdir() if p.name.endswith(".toml"))


def check_preset(name: str) -> None:
    """Raise a ConfigError with the closest names when `name` is not a shipped pack."""
    if name != "none" and name not in pack_names():
        raise ConfigError(f"unknown preset {name!r}{_did_you_mean(name, pack_names() + ['none'])}")


def _pack_text(name: str) -> tuple[str, str]:
    if name == "none":
        return "", "<preset none>"
    check_preset(name)
    return (_packs() / f"{name}.toml").read_text(encoding="utf-8"), f"rules/{name}.toml"


def _did_you_mean(word: str, choices: list[str] | tuple[str, ...]) -> str:
    import difflib  # only an error needs it
    if close := difflib.get_close_matches(word, list(choices), n=3, cutoff=0.5):
        return "; did you mean " + " or ".join(repr(c) for c in close) + "?"
    return "; valid: " + ", ".join(choices)


def _parse(text: str, source: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{source}: invalid TOML: {exc}", source=source) from exc


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
        text, source = _pack_text(base)
        layers.append((data := _parse(text, source), source))
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
                raise ConfigError(f"{source}: [settings]: unknown key {key!r}{_did_you_mean(key, tuple(SETTING_DEFAULTS))}", source=source)
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
            raise ConfigError(f"order: unknown rule {unknown[0]!r}{_did_you_mean(unknown[0], tuple(rules))}")
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
    raise ConfigError(f"{source}: unknown rule {name!r}{_did_you_mean(name, tuple(rules) + tuple(actions))}", source=source)


def _check_keys(data: dict[str, Any], allowed: tuple[str, ...], source: str, where: str) -> None:
    for key in data:
        if key not in allowed:
            raise ConfigError(f"{source}: {where}: unknown key {key!r}{_did_you_mean(key, allowed)}", source=source)


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
            raise ConfigError(f"{source}: {key}: unknown value {v!r}{_did_you_mean(v, allowed)}", source=source)
    return tuple(items)


def _build(spec: dict[str, Any], actions: dict[str, Action]) -> Rule:
    source = spec.pop("_source")
    name = spec["name"]
    where = f"{source}: rule {name!r}"
    use = spec.get("use", name)
    if use not in actions:
        raise ConfigError(f"{where}: unknown action {use!r}{_did_you_mean(use, tuple(actions))}")
    action = actions[use]
    fields = {f.name: f for f in dataclasses.fields(action.options)}
    opts: dict[str, Any] = {}
    for key, value in spec.items():
        if key in RULE_KEYS and key not in fields:
            continue
        attr = key.replace("-", "_")
        if attr not in fields:
            valid = tuple(RULE_KEYS) + tuple(f.replace("_", "-") if "-" in key else f for f in fields)
            raise ConfigError(f"{where}: unknown option {key!r}{_did_you_mean(key, valid)}")
        opts[attr] = _coerce(value, fields[attr], where, key)
    try:
        options = action.options(**opts)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{where}: {exc}") from exc
    scope = spec.get("scope", "older")
    if scope not in SCOPES:
        raise ConfigError(f"{where}: scope: unknown value {scope!r}{_did_you_mean(scope, SCOPES)}")
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


def read_user_config(path: Path) -> tuple[dict[str, Any], str]:
    """A user config table from a TOML file (`[tool.sanitizer]` when it is a pyproject.toml)."""
    try:
        data = _parse(path.read_text(encoding="utf-8"), str(path))
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}", source=str(path)) from exc
    if path.name == "pyproject.toml":
        data = data.get("tool", {}).get("sanitizer", {})
    return data, str(path)


def find_user_config(start: Path) -> tuple[dict[str, Any], str] | None:
    """`sanitizer.toml`, or `[tool.sanitizer]` in pyproject.toml, in the current folder.

    A folder whose entries cannot be looked at (no search permission) holds no configuration
    for us: the run goes on with the pack, as it would in an empty folder.
    """
    own = start / "sanitizer.toml"
    if _is_file(own):
        return read_user_config(own)
    pyproject = start / "pyproject.toml"
    if _is_file(pyproject):
        data, source = read_user_config(pyproject)
        if data:
            return data, f"{source} [tool.sanitizer]"
    return None


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except OSError:  # Path.is_file raises PermissionError where the folder cannot be searched
        return False
