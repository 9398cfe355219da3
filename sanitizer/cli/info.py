"""`--list-rules`, `--explain RULE`, `--show-config`: what a configuration does, without running it."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import click

from sanitizer.actions import registry
from sanitizer.config import ConfigError, load

if TYPE_CHECKING:
    from sanitizer.run.options import RunOptions


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    raise TypeError(f"cannot write {type(value).__name__} as TOML")


def config_toml(opts: RunOptions) -> str:
    cfg = load(opts.preset, opts.user_config, opts.user_source, opts.enable, opts.disable, opts.keep_recent)
    lines = [f"# resolved from: {' -> '.join(cfg.sources) or 'preset none'}", f"name = {toml_value(cfg.name)}", "",
             "[settings]", f"keep_recent = {cfg.keep_recent}", f"tail_tokens = {cfg.tail_tokens}"]
    for rule in cfg.rules:
        lines += ["", "[[rule]]"]
        lines += [f"{k} = {toml_value(v)}" for k, v in rule.describe().items() if v is not None]
    return "\n".join(lines) + "\n"


def show(opts: RunOptions, *, list_rules: bool, explain: str | None, show_config: bool) -> None:
    if show_config:
        click.echo(config_toml(opts), nl=False)
        return
    if list_rules:
        cfg = load(opts.preset, opts.user_config, opts.user_source, opts.enable, opts.disable, opts.keep_recent)
        width = max((len(r.name) for r in cfg.rules), default=4)
        click.echo(f"preset {cfg.name} (keep_recent={cfg.keep_recent}); rules in the order they run:")
        for i, rule in enumerate(cfg.rules, 1):
            state = "on " if rule.enabled else "off"
            click.echo(f"{i:>2}. {state} {rule.name:<{width}}  {rule.action.doc.what.splitlines()[0]}"
                       f" [scope {rule.scope}; {', '.join(rule.kinds)}]")
        return
    assert explain is not None
    actions = registry()
    cfg = load(opts.preset, opts.user_config, opts.user_source, opts.enable, opts.disable, opts.keep_recent)
    rule = next((r for r in cfg.rules if r.name == explain), None)
    action = rule.action if rule else actions.get(explain)
    if action is None:
        import difflib

        close = difflib.get_close_matches(explain, list(actions) + [r.name for r in cfg.rules], n=3)
        hint = f"; did you mean {' or '.join(close)}?" if close else ""
        raise ConfigError(f"--explain: unknown rule {explain!r}{hint}")
    d = action.doc
    out = [f"{explain}" + (f" (action {action.name})" if action.name != explain else ""), "",
           f"What it does: {d.what}", f"Why: {d.why}", f"What it can lose: {d.loses}"]
    if rule is not None:
        out += ["", f"In preset {cfg.name}: " + ", ".join(f"{k}={toml_value(v)}" for k, v in rule.describe().items()
                                                         if k not in ("name",))]
    else:
        out += ["", f"Not in preset {cfg.name}; enable it with --enable {action.name}"]
    if d.before:
        out += ["", "Before:", _indent(d.before), "After:", _indent(d.after)]
    click.echo("\n".join(out))


def _indent(text: str) -> str:
    return "\n".join("    " + line for line in text.splitlines())
