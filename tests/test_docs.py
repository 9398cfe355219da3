"""The README's generated sections match the code (rules, formats, command-line options)."""

from __future__ import annotations

from conftest import ROOT

from sanitizer.cli.docs import render


def test_readme_generated_sections_are_current() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert render(readme) == readme, "README is out of step with the code: run `python -m sanitizer.docs`"


def test_readme_quickstart_has_the_two_commands_ci_runs() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    quickstart = readme.split("## Quickstart", 1)[1].split("\n## ", 1)[0]
    commands = [line for line in quickstart.splitlines() if line.startswith("python3 -m venv")]
    assert len(commands) == 2
    assert "sanitize examples/claude_code_session.jsonl" in commands[0]
    assert "pytest" in commands[1]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "<!-- test-command -->" in ci and "<!-- test-command -->" in quickstart
