"""`sanitize FILE --html PAGE`: the page is written beside the usual output, which does not change."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import EXAMPLE


def sanitize(*args: str, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "sanitizer", *args], cwd=cwd, capture_output=True, timeout=300)


def test_html_writes_the_page_and_leaves_the_copy_as_it_was(tmp_path: Path) -> None:
    plain = sanitize(str(EXAMPLE), "--report", "none", cwd=tmp_path)
    with_page = sanitize(str(EXAMPLE), "--report", "none", "--html", "page.html", cwd=tmp_path)
    assert plain.returncode == with_page.returncode == 0
    assert with_page.stdout == plain.stdout
    page = (tmp_path / "page.html").read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") or page.lower().startswith("<!doctype html>")
    for rule in ("drop-thinking", "digest-tool-result", "image-placeholder"):
        assert rule in page


def test_html_wants_one_input(tmp_path: Path) -> None:
    ran = sanitize(str(EXAMPLE), str(EXAMPLE), "--html", "page.html", cwd=tmp_path)
    assert ran.returncode == 2
    assert ran.stderr.decode().strip().startswith("sanitize: --html writes the page of one input")
    assert not (tmp_path / "page.html").exists()
