"""The redaction group of `bench/run.py`: the credential scan alone, old and new, against json.

For each input (the corpus files and a generated 10 MB session, 1 MB with `--quick`), three
measurements in fresh interpreters (`bench/child.py`): the stdlib json load+dump of the file,
and `redact_many` over every string of the parsed file with the scanner as it stood at commit
`OLD` (14 patterns, loaded from git under another module name) and with the current one.  The
times of both scans are divided by the json time of the same file.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

OLD = "964ee01"  # the last commit before the table of kinds
MB = 1024 * 1024


def old_source(root: Path) -> str | None:
    """`sanitizer/secrets.py` at `OLD`, or None when git or the commit is not there."""
    try:
        proc = subprocess.run(["git", "show", f"{OLD}:sanitizer/secrets.py"], cwd=root, capture_output=True,
                              text=True, check=False)
    except OSError:
        return None
    return proc.stdout if proc.returncode == 0 else None


def section(gen, tmp: Path, quick: bool, corpus: list[Path], measure: Callable, best: Callable,  # noqa: ANN001
            repeat: int, table: Callable, size_label: Callable) -> str:
    """The table: per input, json seconds, old and new scan as a ratio to json, new / old."""
    root = Path(__file__).resolve().parents[1]
    has_old = old_source(root) is not None
    mb = 1 if quick else 10
    inputs = [(f"corpus `{p.parent.name}/{p.name}`", p) for p in corpus]
    inputs.append((f"session ({mb} MB)", gen.claude_session(tmp / "redact-session.jsonl", mb * MB)))
    rows = []
    for name, path in inputs:
        out = tmp / ("redact-out" + "".join(path.suffixes[-1:]))
        runs: dict[str, list] = {"json": [], "old": [], "new": []}
        for _ in range(repeat):
            runs["json"].append(measure("json", path, out))
            if has_old:
                runs["old"].append(measure("redact", path, "old"))
            runs["new"].append(measure("redact", path, "new"))
        j = best(runs["json"]).seconds
        new = best(runs["new"])
        old = best(runs["old"]) if has_old else None
        rows.append([name, size_label(path), f"{new.extra['texts']:,}",
                     f"**{old.seconds / j:.2f}×**" if old else "—", f"**{new.seconds / j:.2f}×**",
                     f"{new.seconds / old.seconds:.2f}" if old else "—",
                     f"{j:.3f} / {old.seconds if old else float('nan'):.3f} / {new.seconds:.3f}",
                     f"{old.extra['found'] if old else '—'} / {new.extra['found']}"])
        out.unlink(missing_ok=True)
        if path.parent == tmp:
            path.unlink()
    note = "" if has_old else f" (commit `{OLD}` not found: old scan skipped)"
    return (f"Redaction alone{note}: `secrets.redact_many` over every string of the parsed file, with the "
            f"scanner of commit `{OLD}` (old) and the current one (new), each against the json load+dump of "
            f"the same file (fastest of {repeat}; parsing is outside the scan's time):\n\n"
            + table(["input", "size", "strings", "old scan / json", "new scan / json", "new / old",
                     "json / old / new s", "secrets found old / new"], rows))
