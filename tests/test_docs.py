"""The README's generated sections match the code (rules, formats, options, the module tree)."""

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


def test_readme_tree_has_one_line_per_module() -> None:
    """Every module and folder of the package is in "How it is built", with its docstring's line."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    tree = readme.split("<!-- modules-tree -->", 1)[1].split("<!-- /modules-tree -->", 1)[0]
    rows = [line.split() for line in tree.splitlines() if line.strip() and not line.startswith("```")]
    names = {row[0] for row in rows}
    package = ROOT / "sanitizer"
    expected = {p.name for p in package.rglob("*.py") if p.name != "__init__.py" and "__pycache__" not in p.parts}
    expected |= {p.parent.name + "/" for p in package.rglob("__init__.py")}
    assert expected <= names
    undocumented = [row[0] for row in rows if len(row) == 1]
    assert not undocumented, f"modules without a docstring: {undocumented}"
