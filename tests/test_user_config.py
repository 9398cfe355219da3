"""The user configuration the command finds in the current folder: `sanitizer.toml`, else
`[tool.sanitizer]` in `pyproject.toml`; a pyproject.toml that never names us is not read as one."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from sanitizer.cli import main
from sanitizer.config import find_user_config

MINE = 'extends = "default"\ndisable = ["collapse-code"]\n[settings]\nkeep_recent = 3\n'


def _shown(folder: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[int, str, str]:
    monkeypatch.chdir(folder)
    result = CliRunner().invoke(main, ["--show-config"])
    return result.exit_code, result.stdout, result.stderr


def test_sanitizer_toml_in_the_folder_extends_the_pack(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "sanitizer.toml").write_text(MINE, encoding="utf-8")
    code, out, _ = _shown(tmp_path, monkeypatch)
    assert code == 0
    assert "sanitizer.toml" in out.splitlines()[0]
    assert "keep_recent = 3" in out
    assert 'name = "collapse-code"\nuse = "collapse-code"\nenabled = false' in out


def test_tool_sanitizer_in_pyproject_extends_the_pack(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    table = MINE.replace("[settings]", "[tool.sanitizer.settings]")
    (tmp_path / "pyproject.toml").write_text(f'[project]\nname = "x"\n[tool.sanitizer]\n{table}', encoding="utf-8")
    assert find_user_config(tmp_path) == (
        {"extends": "default", "disable": ["collapse-code"], "settings": {"keep_recent": 3}},
        f"{tmp_path / 'pyproject.toml'} [tool.sanitizer]")
    code, out, _ = _shown(tmp_path, monkeypatch)
    assert code == 0 and "[tool.sanitizer]" in out.splitlines()[0] and "keep_recent = 3" in out


@pytest.mark.parametrize("spelling", ['[tool."sanitizer"]\n', '[tool."s\\u0061nitizer"]\n', '[tool]\nsanitizer = '])
def test_every_toml_spelling_of_the_table_is_read(tmp_path: Path, spelling: str) -> None:
    body = '{ extends = "hermes" }' if spelling.endswith("= ") else 'extends = "hermes"'
    (tmp_path / "pyproject.toml").write_text(f'[project]\nname = "x"\n{spelling}{body}\n', encoding="utf-8")
    found = find_user_config(tmp_path)
    assert found is not None and found[0] == {"extends": "hermes"}


def test_a_pyproject_that_never_names_us_is_not_a_configuration(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n[tool.ruff]\nline-length = 100\n', encoding="utf-8")
    assert find_user_config(tmp_path) is None
    # Another tool's broken file is not ours to report: the run goes on with the pack.
    (tmp_path / "pyproject.toml").write_text('[project\nname = "x"\n', encoding="utf-8")
    assert find_user_config(tmp_path) is None
    code, out, err = _shown(tmp_path, monkeypatch)
    assert code == 0 and out.startswith("# resolved from: rules/default.toml") and err == ""


def test_a_broken_pyproject_that_names_us_is_one_clear_error(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.sanitizer\nextends = "default"\n', encoding="utf-8")
    code, out, err = _shown(tmp_path, monkeypatch)
    assert code == 2 and out == ""
    assert err.startswith(f"sanitize: {tmp_path / 'pyproject.toml'}: invalid TOML:") and err.count("\n") == 1


def test_sanitizer_toml_wins_over_pyproject(tmp_path: Path) -> None:
    (tmp_path / "sanitizer.toml").write_text('extends = "display"\n', encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text('[tool.sanitizer]\nextends = "hermes"\n', encoding="utf-8")
    assert find_user_config(tmp_path) == ({"extends": "display"}, str(tmp_path / "sanitizer.toml"))
