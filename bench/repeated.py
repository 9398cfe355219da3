"""Growth on a repeated-record session: the corpus Claude Code sessions repeated (duplicate tool ids,
as after resumes and merges) to each size, `sanitize --no-tokens` work time against json load+dump.

Usage: `python bench/repeated.py [MB ...]` (default 6 12 24).  Prints one markdown table; each time
is the fastest of 2 in-process runs (the rule pack and the encoding loaded once before).
"""

from __future__ import annotations

import json
import math
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus" / "claude_code_jsonl"
MB = 1024 * 1024


def make(path: Path, size: int) -> Path:
    sources = sorted(CORPUS.glob("*.jsonl"))
    body = "".join(p.read_text(encoding="utf-8").rstrip("\n") + "\n" for p in sources)
    with path.open("w", encoding="utf-8") as out:
        written = 0
        while written < size:
            out.write(body)
            written += len(body)
    return path


def fastest(fn, n: int = 2) -> float:  # noqa: ANN001
    best = math.inf
    for _ in range(n):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def main() -> None:
    from sanitizer import Sanitizer

    sizes = [float(a) for a in sys.argv[1:]] or [6, 12, 24]
    san = Sanitizer(count_tokens=False)
    rows, prev = [], None
    with tempfile.TemporaryDirectory() as tmp:
        for mb in sizes:
            path = make(Path(tmp) / f"repeated-{mb:g}.jsonl", int(mb * MB))
            out = Path(tmp) / "out.jsonl"

            def plain(path: Path = path, out: Path = out) -> None:
                done = []
                for line in path.read_text(encoding="utf-8").split("\n"):
                    try:
                        done.append(json.dumps(json.loads(line)))
                    except ValueError:  # a damaged line is copied as it is (as sanitize does)
                        done.append(line)
                out.write_text("\n".join(done), encoding="utf-8")

            def ours(path: Path = path, out: Path = out) -> None:
                out.write_text(san.sanitize_file(path).dumps())

            j, s = fastest(plain), fastest(ours)
            exp = "" if prev is None else f"{math.log(s / prev[1]) / math.log(mb / prev[0]):.2f}"
            rows.append(f"| {mb:g} MB | {j:.2f} | {s:.2f} | {s / j:.2f}× | {exp} |")
            prev = (mb, s)
            print(rows[-1], file=sys.stderr, flush=True)
    print("| input | json s | sanitize --no-tokens s | ratio | growth exponent |\n|---|---|---|---|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
