"""The rule fixtures in fixtures/ are the regression suite: one pytest case per fixture case.

`pytest -k trim-tag` runs one action's cases; after an intended change, run
`sanitize rule-fixtures --update fixtures/<file>.toml` and review the rewrite with `git diff`.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

from sanitizer.actions import registry
from sanitizer.testing import Case, check_case, fixture_files, load_cases, update_file

FIXTURES = ROOT / "fixtures"
RULE_FILES = [p for p in fixture_files(FIXTURES) if p.parent == FIXTURES]
CASES = [case for path in RULE_FILES for case in load_cases(path)]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_fixture_case(case: Case) -> None:
    check_case(case)


def test_every_action_has_a_fixture_file_with_changed_and_unchanged_cases() -> None:
    for name in registry():
        path = FIXTURES / f"{name}.toml"
        assert path.is_file(), f"no fixture file for action {name}"
        cases = load_cases(path)
        part_cases = [c for c in cases if not c.whole_conversation]
        changed = [c for c in part_cases if c.data["expected"] != c.data["input"]]
        unchanged = [c for c in part_cases if c.data["expected"] == c.data["input"]]
        convs = [c for c in cases if c.whole_conversation]
        assert changed or convs, f"{path.name}: no case where the rule changes something"
        assert unchanged or convs, f"{path.name}: no case where the rule leaves the text alone"


def test_case_names_describe_the_case() -> None:
    for case in CASES:
        assert not case.name.rstrip("0123456789_").endswith(("test", "case")), case.id
        assert len(case.name) >= 8, case.id


def test_update_rewrites_only_the_stale_expected_values(tmp_path: Path) -> None:
    source = FIXTURES / "trim-text.toml"
    text = source.read_text(encoding="utf-8")
    cases = load_cases(source)
    stale = next(c for c in cases if c.data["expected"] != c.data["input"])
    target = tmp_path / "trim-text.toml"
    broken = text.replace(stale.data["expected"], "STALE EXPECTATION", 1)
    assert broken != text
    target.write_text(broken, encoding="utf-8")
    assert update_file(target) == 1
    for case in load_cases(target):
        check_case(case)
    assert update_file(target) == 0


def test_the_fixtures_verb_checks_and_updates_files(tmp_path: Path) -> None:
    source = FIXTURES / "trim-text.toml"
    stale = next(c for c in load_cases(source) if c.data["expected"] != c.data["input"])
    target = tmp_path / "trim-text.toml"
    target.write_text(source.read_text(encoding="utf-8").replace(stale.data["expected"], "STALE", 1), encoding="utf-8")
    command = [sys.executable, "-m", "sanitizer", "rule-fixtures"]
    failed = subprocess.run([*command, str(target)], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert failed.returncode == 1 and "FAIL" in failed.stdout and "1 failed" in failed.stdout, failed
    updated = subprocess.run([*command, "--update", str(target)], capture_output=True, text=True, cwd=tmp_path,
                             timeout=120)
    assert updated.returncode == 0 and "1 case(s) updated" in updated.stdout, updated
    passed = subprocess.run([*command, str(target)], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert passed.returncode == 0 and passed.stdout.strip() == "all fixture cases pass", passed
