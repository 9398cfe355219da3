"""What a process start leaves for later: modules only some inputs need are imported on first use.

Checked in a fresh interpreter (this one has imported everything long ago); never timed.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest
from conftest import EXAMPLE, ROOT

from sanitizer import config

# click imports uuid itself, and difflib where it tries `-o` as a long option.  An output file is
# written without `tempfile` (with `shutil` and `random`, 3 ms of a start).
LATER = ("sqlite3", "importlib.resources", "importlib.metadata", "hyperscan", "ctypes", "tempfile", "shutil")
LIBRARY_LATER = (*LATER, "uuid", "difflib")


def test_importing_the_library_imports_none_of_the_later_modules() -> None:
    code = f"import sys, sanitizer\nprint(*[m for m in {LIBRARY_LATER!r} if m in sys.modules])\n"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert done.stdout.strip() == ""


def test_a_plain_run_imports_none_of_the_later_modules(tmp_path: Path) -> None:
    code = ("import sys\nfrom sanitizer.cli.command import main\n"
            "try:\n    main([sys.argv[1], '-o', sys.argv[2], '--no-tokens'])\nexcept SystemExit:\n    pass\n"
            f"print('imported:', *[m for m in {LATER!r} if m in sys.modules])\n")
    out = tmp_path / "out.jsonl"
    done = subprocess.run([sys.executable, "-c", code, str(EXAMPLE), str(out)], capture_output=True, text=True,
                          cwd=ROOT, check=True, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert out.stat().st_size > 0
    assert [line for line in done.stdout.splitlines() if line.startswith("imported:")] == ["imported:"]


def test_the_packs_folder_is_what_importlib_resources_gives() -> None:
    installed = importlib.util.find_spec("sanitizer.packs") is not None
    want = resources.files("sanitizer.packs") if installed else resources.files("sanitizer").joinpath("..", "rules")
    assert config._packs() == want
    assert config.pack_names() == sorted(p.name[:-5] for p in want.iterdir() if p.name.endswith(".toml"))


def test_a_package_that_is_no_folder_goes_through_importlib_resources(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec

    def no_location(name: str, package: str | None = None):  # noqa: ANN202
        spec = real(name, package)
        if spec is not None and name.startswith("sanitizer"):
            spec = importlib.util.spec_from_loader(spec.name, spec.loader, origin=spec.origin, is_package=True)
            spec.has_location = False
        return spec

    want = config._packs()
    monkeypatch.setattr(importlib.util, "find_spec", no_location)
    assert config._packs() == want  # the same folder, found by importlib.resources
    assert config.pack_names() == ["default", "display", "genericagent", "hermes"]
