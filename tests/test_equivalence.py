"""The command line and the library give the outputs recorded in `fixtures/equivalence.json`,
on the plain path and with the `[fast]` extra's accelerators, byte for byte and report for report.

The manifest was recorded at the commit before the package moved into its rooms; an intended
change of output re-records it (`python scripts/equivalence.py record fixtures/equivalence.json`)
in the same commit, so its diff names every case that changed.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import pytest
from conftest import ROOT

FAST = [name for name in ("hyperscan", "orjson") if importlib.util.find_spec(name) is not None]


@pytest.mark.parametrize("path", [
    "plain",
    pytest.param("fast", marks=pytest.mark.skipif(
        not FAST, reason="the [fast] extra is not installed (pip install -e '.[fast]'): only the plain path runs")),
])
def test_outputs_and_reports_match_the_recorded_manifest(path: str) -> None:
    env = {k: v for k, v in os.environ.items() if k != "SANITIZER_PLAIN"}
    if path == "plain":
        env["SANITIZER_PLAIN"] = "1"  # every accelerator off, as without the extra
    ran = subprocess.run([sys.executable, str(ROOT / "scripts" / "equivalence.py"), "check",
                          str(ROOT / "fixtures" / "equivalence.json")],
                         capture_output=True, text=True, cwd=ROOT, timeout=1800, env=env)
    assert ran.returncode == 0, ran.stdout[-4000:] + ran.stderr[-4000:]
    assert " 0 differences" in ran.stdout
    if path == "fast":  # the accelerators really ran
        probe = subprocess.run([sys.executable, "-c", "from sanitizer.secrets import prefilter; print(prefilter.ENABLED)"],
                               capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)
        assert probe.stdout.strip() == ("True" if "hyperscan" in FAST else "False")
