"""The command line and the library give the outputs recorded in `fixtures/equivalence.json`.

The manifest was recorded at the commit before the package moved into its rooms; an intended
change of output re-records it (`python scripts/equivalence.py record fixtures/equivalence.json`)
in the same commit, so its diff names every case that changed.
"""

from __future__ import annotations

import subprocess
import sys

from conftest import ROOT


def test_outputs_and_reports_match_the_recorded_manifest() -> None:
    ran = subprocess.run([sys.executable, str(ROOT / "scripts" / "equivalence.py"), "check",
                          str(ROOT / "fixtures" / "equivalence.json")],
                         capture_output=True, text=True, cwd=ROOT, timeout=1800)
    assert ran.returncode == 0, ran.stdout[-4000:] + ran.stderr[-4000:]
    assert " 0 differences" in ran.stdout
