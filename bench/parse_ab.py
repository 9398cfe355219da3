"""Reading JSONL files into documents, in process: orjson (the `[fast]` extra) against the stdlib
reader, on the whole-text read (`loader.from_text` of the decoded file: what the command line
does below `run.job.LINEWISE_BYTES`, and did for every file before) and line by line
(`document.filelines`, its strings shared: at and above that size).

    python bench/parse_ab.py [--repeat 3] [--mb 20] [FILE ...]   # default: the corpus JSONL files
    python bench/parse_ab.py --run [--repeat 2] FILE ...          # the whole `--no-tokens` run, A/B

Each figure is the fastest of `--repeat` interleaved rounds (every variant once per round), the
collector paused as in a run.  Without FILE, the corpus JSONL files and a generated Claude
Code-like session of `--mb` MB (`bench/gen.py`, in a temporary folder) are read.  With `--run`,
the command line's whole `--no-tokens` run of each FILE (read, rules, output to a temporary
file) is timed with orjson on and off, the `[fast]` credential scan on in both.
"""

from __future__ import annotations

import argparse
import gc
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import gen  # noqa: E402

from sanitizer.document import fastjson, filelines, loader  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus"
MB = 1024 * 1024


def whole_text(path: Path) -> object:
    fastjson.ENABLED = False
    return loader.from_text(path.read_bytes().decode("utf-8", errors="surrogateescape"), str(path))


def whole_text_fast(path: Path) -> object:
    fastjson.ENABLED = True
    return loader.from_text(path.read_bytes().decode("utf-8", errors="surrogateescape"), str(path))


def lines_plain(path: Path) -> object:
    fastjson.ENABLED = False
    return filelines.from_file(path, str(path))


def lines_fast(path: Path) -> object:
    fastjson.ENABLED = True
    return filelines.from_file(path, str(path))


VARIANTS = {"whole text, json (before)": whole_text, "whole text, orjson": whole_text_fast,
            "line by line, json": lines_plain, "line by line, orjson": lines_fast}


def measure(path: Path, repeat: int) -> dict[str, float]:
    best = dict.fromkeys(VARIANTS, float("inf"))
    gc.disable()
    try:
        for _ in range(repeat):
            for name, fn in VARIANTS.items():
                t = time.perf_counter()
                doc = fn(path)
                best[name] = min(best[name], time.perf_counter() - t)
                del doc
    finally:
        gc.enable()
    return best


def run_ab(files: list[Path], repeat: int) -> None:
    """The whole `--no-tokens` run in process, orjson on and off (interleaved)."""
    from sanitizer.run.job import build_sanitizer, file_sink, process, read_input
    from sanitizer.run.options import RunOptions

    opts = RunOptions(count_tokens=False)
    san = build_sanitizer(opts)
    print(f"Whole `--no-tokens` run in process, fastest of {repeat} interleaved rounds, seconds.\n")
    print("| input | MB | json | orjson | json / orjson |")
    print("|---|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory(prefix="sanitizer-run-") as tmp:
        sink = file_sink(Path(tmp) / "out.jsonl")
        for path in files:
            best = {True: float("inf"), False: float("inf")}
            for _ in range(repeat):
                for fast in (False, True):
                    fastjson.ENABLED = fast
                    t = time.perf_counter()
                    process(san, str(path), read_input(str(path), opts), opts, sink=sink)
                    best[fast] = min(best[fast], time.perf_counter() - t)
            print(f"| `{path.name[:40]}` | {path.stat().st_size / MB:.1f} | {best[False]:.2f} | {best[True]:.2f} | "
                  f"{best[False] / best[True]:.2f}x |", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="*", type=Path)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--mb", type=float, default=20, help="size of the generated session (no FILE given)")
    ap.add_argument("--run", action="store_true", help="time whole runs of FILE instead of reading")
    opts = ap.parse_args()
    if not fastjson.ENABLED:
        raise SystemExit("bench: orjson is not installed (or SANITIZER_PLAIN is set)")
    if opts.run:
        run_ab(opts.files, max(1, opts.repeat))
        return
    with tempfile.TemporaryDirectory(prefix="sanitizer-parse-") as tmp:
        files = opts.files or [*sorted(CORPUS.glob("*/*.jsonl")),
                               gen.claude_session(Path(tmp) / "session.jsonl", int(opts.mb * MB))]
        print(f"Fastest of {opts.repeat} interleaved rounds, seconds (ratio to the whole-text read).\n")
        print("| input | MB | " + " | ".join(VARIANTS) + " |")
        print("|---|---:|" + "---:|" * len(VARIANTS))
        totals = dict.fromkeys(VARIANTS, 0.0)
        for path in files:
            m = measure(path, max(1, opts.repeat))
            base = m["whole text, json (before)"]
            for k in totals:
                totals[k] += m[k]
            print(f"| `{path.name[:40]}` | {path.stat().st_size / MB:.1f} | "
                  + " | ".join(f"{v:.3f} ({v / base:.2f})" for v in m.values()) + " |", flush=True)
        base = totals["whole text, json (before)"]
        print("| **all** | | " + " | ".join(f"**{v:.3f} ({v / base:.2f})**" for v in totals.values()) + " |")


if __name__ == "__main__":
    main()
