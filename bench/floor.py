"""How near the speed targets can come: the run next to what no run can go below, per corpus file.

    python bench/floor.py [--repeat 3] [FILE ...]   # default: every corpus file

Two tables, each ratio against a stdlib json load+dump of the same file, side by side in one run:

- whole processes (fastest of `--repeat` interleaved rounds, interpreter start-up included):
  `json` (`bench/json_roundtrip.py`), `deps` (`bench/deps_roundtrip.py`: the same round trip
  after importing `click` and `regex`, the two core dependencies the command cannot start
  without), and `python -m sanitizer FILE -o OUT --no-tokens`.  `deps / json` is a floor of the
  whole-process ratio: no command written with them starts faster.
- in-process (one interpreter, imports and `Sanitizer()` outside the timing, fastest of
  `--repeat`): `walk` reads the file with the fastest reader installed (orjson with `[fast]`),
  collects the strings a credential scan must see (`secrets.walk.scannable_strings`, the guard's
  own one-loop walk) and writes the value back; `scan` adds the credential scan of those strings
  (`secrets.scan.redact_many`, with the `[fast]` gate where installed), which every text goes
  through before any rule cuts it.  `scan / json` is what reading, scanning and writing alone
  cost, before any rule runs and before the copy is checked again.

The compiled-pattern cache is a folder of this run, filled by the first round.  Standard
library only, besides this package and what it has installed.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from process import compile_bytecode, corpus_files, size_label, timed

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench"


def _docs(text: str, jsonl: bool) -> list:
    """The file's values as the fastest installed reader gives them (a JSONL line that is not
    JSON stays a string, as the run copies it through)."""
    from sanitizer.document import fastjson

    def read(piece: str):  # noqa: ANN202
        value = fastjson.loads(piece)
        return json.loads(piece) if value is fastjson.MISS else value

    if not jsonl:
        try:
            return [read(text)]
        except ValueError:
            pass
    out = []
    for line in text.split("\n"):
        try:
            out.append(read(line))
        except ValueError:
            out.append(line)
    return out


def _dump(docs: list) -> bytes:
    try:
        import orjson
    except ImportError:
        return "\n".join(json.dumps(d, ensure_ascii=False) for d in docs).encode("utf-8", "surrogateescape")
    try:
        return b"\n".join(map(orjson.dumps, docs))
    except TypeError:  # a value orjson does not write (a lone surrogate, a 65-bit integer)
        return "\n".join(json.dumps(d, ensure_ascii=False) for d in docs).encode("utf-8", "surrogateescape")


def in_process(path: Path, out: Path, repeat: int) -> dict[str, float]:
    """Fastest seconds of `json`, `walk`, `scan` and `run` on one file, in this process, each
    from reading the file to writing `out`."""
    from json_roundtrip import main as stdlib

    from sanitizer import Sanitizer
    from sanitizer.secrets import scan
    from sanitizer.secrets.walk import scannable_strings

    jsonl = path.suffix == ".jsonl"

    def read() -> str:
        return path.read_bytes().decode("utf-8", errors="surrogateescape")

    def walk(scanned: bool) -> None:
        docs = _docs(read(), jsonl)
        strings: list[str] = []
        for d in docs:
            scannable_strings(d, strings)
        if scanned:
            scan.redact_many(strings)
        out.write_bytes(_dump(docs))

    def run() -> None:
        out.write_bytes(sanitizer.sanitize_text(read(), path.name).dumps().encode("utf-8", "surrogateescape"))

    sanitizer = Sanitizer(count_tokens=False)
    steps = {"json": lambda: stdlib(str(path), str(out)), "walk": lambda: walk(False),
             "scan": lambda: walk(True), "run": run}
    best = dict.fromkeys(steps, float("inf"))
    for _ in range(repeat):
        for key, step in steps.items():
            gc.collect()
            t = time.perf_counter()
            step()
            best[key] = min(best[key], time.perf_counter() - t)
    out.unlink(missing_ok=True)
    return best


def processes(path: Path, tmp: Path, repeat: int) -> dict[str, float]:
    """Fastest wall seconds of the `json`, `deps` and `sanitize --no-tokens` processes."""
    out = tmp / ("out" + "".join(path.suffixes[-1:]))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(ROOT)
    py = sys.executable
    cmds = {"json": [py, str(BENCH / "json_roundtrip.py"), str(path), str(out)],
            "deps": [py, str(BENCH / "deps_roundtrip.py"), str(path), str(out)],
            "run": [py, "-m", "sanitizer", str(path), "-o", str(out), "--no-tokens"]}
    best = dict.fromkeys(cmds, float("inf"))
    for _ in range(repeat):
        for key, cmd in cmds.items():
            best[key] = min(best[key], timed(cmd, env, tmp)[0])
    out.unlink(missing_ok=True)
    return best


def _table(headers: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in rows])


def report(files: list[Path], repeat: int, log=print) -> str:  # noqa: ANN001
    """Both tables, in markdown."""
    compile_bytecode(ROOT)
    whole, inner = [], []
    with tempfile.TemporaryDirectory(prefix="sanitizer-floor-") as tmp:
        was = os.environ.get("SANITIZER_CACHE_DIR")
        os.environ["SANITIZER_CACHE_DIR"] = str(Path(tmp) / "cache")
        try:
            for path in files:
                p = processes(path.resolve(), Path(tmp), repeat)
                i = in_process(path.resolve(), Path(tmp) / ("in" + "".join(path.suffixes[-1:])), repeat)
                name = [f"`{path.parent.name}/{path.name}`", size_label(path)]
                whole.append([*name, f"{p['deps'] / p['json']:.2f}×", f"**{p['run'] / p['json']:.2f}×**",
                              f"{p['json']:.3f} / {p['deps']:.3f} / {p['run']:.3f}"])
                inner.append([*name, f"{i['walk'] / i['json']:.2f}×", f"{i['scan'] / i['json']:.2f}×",
                              f"**{i['run'] / i['json']:.2f}×**", f"{i['json'] * 1000:.1f}"])
                log(f"  floor {path.name}: " + " | ".join(whole[-1][2:4] + inner[-1][2:5]))
        finally:
            if was is None:
                os.environ.pop("SANITIZER_CACHE_DIR", None)
            else:
                os.environ["SANITIZER_CACHE_DIR"] = was
    return (f"Whole processes, fastest of {repeat} interleaved rounds, each against `python "
            "bench/json_roundtrip.py FILE OUT`:\n\n"
            + _table(["input", "size", "deps / json (floor)", "`sanitize --no-tokens` / json",
                      "s (json / deps / sanitize)"], whole)
            + f"\n\nIn one process, fastest of {repeat}, each from reading the file to writing its copy, against `json_roundtrip.main` on the same file:\n\n"
            + _table(["input", "size", "read + walk + write / json", "+ credential scan / json (floor)",
                      "`Sanitizer(count_tokens=False)` / json", "json ms"], inner))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="*", type=Path, help="inputs (default: every file of ../shared/corpus)")
    ap.add_argument("--repeat", type=int, default=3, help="interleaved rounds; the fastest counts")
    opts = ap.parse_args()
    files = opts.files or corpus_files()
    if not files:
        raise SystemExit("bench: no input: ../shared/corpus not found and no FILE given")
    print(report(files, max(1, opts.repeat), log=lambda m: print(m, file=sys.stderr, flush=True)))


if __name__ == "__main__":
    main()
