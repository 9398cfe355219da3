"""The credential scan alone with and without the `[fast]` extra, interleaved in one process.

Usage: `python bench/prefilter_ab.py FILE ...`: `redact_many` over every string of each parsed file,
3 times each way (fastest counts), and whether both ways gave the same result.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from sanitizer.secrets import prefilter
from sanitizer.secrets import scan as secrets
from sanitizer.secrets.raw import strings


def texts_of(path: Path) -> list[str]:
    out: list[str] = []
    text = path.read_text(encoding="utf-8", errors="surrogateescape")
    for line in text.split("\n") if path.suffix == ".jsonl" else [text]:
        try:
            strings(json.loads(line), out)
        except ValueError:
            continue
    return out


def main() -> None:
    if not prefilter.available():
        sys.exit("hyperscan is not installed: pip install -e '.[fast]'")
    print("| input | strings | plain s | [fast] s | plain / [fast] | same result |\n|---|---|---|---|---|---|")
    for name in sys.argv[1:]:
        path = Path(name)
        texts = texts_of(path)
        best = {True: float("inf"), False: float("inf")}
        results = {}
        for on in (True, False) * 3:
            prefilter.ENABLED = on
            t = time.perf_counter()
            results[on] = secrets.redact_many(texts)
            best[on] = min(best[on], time.perf_counter() - t)
        print(f"| `{path.parent.name}/{path.name}` | {len(texts):,} | {best[False]:.3f} | {best[True]:.3f} | "
              f"{best[False] / best[True]:.2f}× | {results[True] == results[False]} |", flush=True)


if __name__ == "__main__":
    main()
