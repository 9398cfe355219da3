"""Plugin actions are looked up only for a rule that names an action that is not built in.

A config of built-ins resolves without reading the installed distributions' entry points (slow to
list); a rule using a plugin action, and an error message listing the valid actions, still see
the plugins.
"""

from __future__ import annotations

import dataclasses
import importlib.metadata
import subprocess
import sys

import pytest
from conftest import ROOT

from sanitizer import actions, config
from sanitizer.actions.thinking import DROP_THINKING
from sanitizer.errors import ConfigError

PLUGIN = dataclasses.replace(DROP_THINKING, name="drop-thinking-too")


class _EntryPoint:
    name, value = "drop-thinking-too", "plugin:ACTION"

    def load(self) -> actions.Action:
        return PLUGIN


@pytest.fixture
def plugin(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """One plugin action installed; the list records each lookup of the entry points."""
    looked: list[str] = []

    def entry_points(group: str) -> list[_EntryPoint]:
        looked.append(group)
        return [_EntryPoint()] if group == actions.ENTRY_POINT_GROUP else []

    monkeypatch.setattr(importlib.metadata, "entry_points", entry_points)
    actions.registry.cache_clear()
    yield looked
    actions.registry.cache_clear()


def test_builtins_need_no_lookup(plugin: list[str]) -> None:
    cfg = config.load("default", {"rule": [{"use": "trim-text", "scope": "all"}]})
    assert plugin == []
    assert cfg.rules == config.load("default", {"rule": [{"use": "trim-text", "scope": "all"}]}).rules


def test_a_plugin_rule_finds_its_action_after_the_builtins(plugin: list[str]) -> None:
    cfg = config.load("default", {"rule": [{"use": "drop-thinking-too"}]})
    assert plugin == [actions.ENTRY_POINT_GROUP]
    names = [r.action.name for r in cfg.rules]
    assert names[-1] == "drop-thinking-too"  # plugins rank after every built-in
    assert list(actions.registry())[:len(actions.builtins())] == list(actions.builtins())


def test_an_unknown_action_lists_the_plugins_too(plugin: list[str]) -> None:
    with pytest.raises(ConfigError, match="drop-thinking-too"):
        config.load("default", {"rule": [{"use": "drop-thinking-to0"}]})


def test_a_plain_run_reads_no_entry_points() -> None:
    code = ("import sys\nfrom sanitizer import Sanitizer\n"
            "Sanitizer().sanitize_file(sys.argv[1])\n"
            "print('importlib.metadata' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", code, str(ROOT / "examples" / "claude_code_session.jsonl")],
                          capture_output=True, text=True, cwd=ROOT, check=True,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert done.stdout.split()[-1] == "False"
