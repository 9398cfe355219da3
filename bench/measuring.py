"""The parent side of `bench/run.py`: one measurement in a fresh interpreter (`bench/child.py`), the
fastest of repeated runs, and a corpus or generated input measured old and new side by side.

`REPEAT` and `OLD` are set once by `run.py`'s command line.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"
MB = 1024 * 1024


@dataclass
class Measure:
    seconds: float
    rss_mb: float
    startup: float = 0.0
    extra: dict = field(default_factory=dict)


def measure(kind: str, *args: str, code: Path | None = None) -> Measure:
    """Run one measurement in a fresh interpreter: its time and its peak RSS (ru_maxrss).  `code`:
    the checkout whose package is measured (this one by default)."""
    cmd = [sys.executable, str(Path(__file__).resolve().with_name("child.py")), kind, *map(str, args)]
    env = dict(os.environ, BENCH_CODE_ROOT=str(code)) if code is not None else None
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, env=env)
    out, err = proc.communicate()
    if proc.returncode != 0:
        raise RuntimeError(f"{kind} {' '.join(map(str, args))} failed:\n{err.decode(errors='replace')[-2000:]}")
    data = json.loads(out.decode().strip().splitlines()[-1])
    return Measure(data["seconds"], data["rss_kb"] / 1024, data.get("startup", 0.0), data)


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def size_label(path: Path) -> str:
    n = path.stat().st_size if path.is_file() else sum(p.stat().st_size for p in path.iterdir())
    return f"{n / MB:.1f} MB" if n >= MB else f"{n / 1024:.0f} KB"


def exponent(t1: float, t2: float, s1: float, s2: float) -> float:
    return math.log(t2 / t1) / math.log(s2 / s1)


@dataclass
class Row:
    name: str
    size: str
    json_s: float
    plain_s: float
    tok_s: float
    tik_s: float
    rss_mb: float
    startup: float
    old_plain_s: float | None = None  # with `--old`: the other checkout, in the same rounds
    old_tok_s: float | None = None

    def cells(self) -> list[str]:
        plain, tok = f"**{self.plain_s / self.json_s:.2f}×**", f"**{self.tok_s / self.tik_s:.2f}×**"
        if self.old_plain_s is not None and self.old_tok_s is not None:
            plain = f"{self.old_plain_s / self.json_s:.2f}× → {plain}"
            tok = f"{self.old_tok_s / self.tik_s:.2f}× → {tok}"
        return [self.name, self.size, plain, tok,
                f"{self.rss_mb:.0f}", f"{self.json_s:.2f} / {self.plain_s:.2f}", f"{self.tik_s:.2f} / {self.tok_s:.2f}"]


REPEAT = 3  # runs per measurement (`--repeat`); the fastest counts
OLD: Path | None = None  # `--old ROOT`: that checkout runs beside this one (corpus, generated inputs, library)


def best(runs: list[Measure]) -> Measure:
    """The fastest of repeated runs (noise only ever adds time), with the highest peak RSS."""
    fastest = min(runs, key=lambda m: m.seconds)
    return Measure(fastest.seconds, max(m.rss_mb for m in runs), fastest.startup, fastest.extra)


def compare(name: str, path: Path, tmp: Path) -> Row:
    out = tmp / ("out" + "".join(path.suffixes[-1:]))
    runs: dict[str, list[Measure]] = {"json": [], "plain": [], "tik": [], "tok": [], "old plain": [], "old tok": []}
    for _ in range(REPEAT):  # interleaved, so a noisy moment hits every side alike
        runs["json"].append(measure("json", path, out))
        runs["plain"].append(measure("sanitize", path, "--no-tokens", "-q", "-o", out))
        runs["tik"].append(measure("tiktoken", path))
        runs["tok"].append(measure("sanitize", path, "-q", "-o", out))
        if OLD is not None:
            runs["old plain"].append(measure("sanitize", path, "--no-tokens", "-q", "-o", out, code=OLD))
            runs["old tok"].append(measure("sanitize", path, "-q", "-o", out, code=OLD))
    j, plain, tik, tok = (best(runs[k]) for k in ("json", "plain", "tik", "tok"))
    out.unlink(missing_ok=True)
    row = Row(name, size_label(path), j.seconds, plain.seconds, tok.seconds, tik.seconds,
              max(plain.rss_mb, tok.rss_mb), tok.startup,
              *((best(runs["old plain"]).seconds, best(runs["old tok"]).seconds) if OLD is not None else ()))
    log(f"  {name}: " + " | ".join(row.cells()[2:]))
    return row


def table(headers: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


ROW_HEADERS = ["input", "size", "no-tokens / json", "tokens / tiktoken", "peak RSS MB",
               "json / no-tokens s", "tiktoken / tokens s"]
