"""Whole processes, start-up included: `python -m sanitizer FILE -o OUT [--no-tokens]` against
`python bench/json_roundtrip.py FILE OUT` (a stdlib json load+dump), each a fresh interpreter.

    python bench/process.py [--repeat 3] [--old ROOT] [FILE ...]   # default: every corpus file
    python bench/run.py --only process [--old ROOT]                 # the same, as a group of run.py

Each time is the fastest of `--repeat` rounds; in each round every command runs once, one after
the other (interleaved), so a busy moment of the machine hits every side alike.  `--old ROOT`
also runs the two `sanitize` commands from another checkout (`PYTHONPATH=ROOT`: e.g. a worktree
of main), in the same rounds: old and new side by side.  Peak RSS is the child's `ru_maxrss`
(`os.wait4`).  Standard library only.

Both checkouts get their bytecode compiled first (`compileall`), as `pip install` does for an
installed package: where `PYTHONDONTWRITEBYTECODE` is set, a checkout would otherwise compile
every module from source at every start (about 0.1 s here) and measure that instead.  Likewise
the compiled-pattern cache (`SANITIZER_CACHE_DIR`) is a folder of this run, one for each side (the
kept anchors file holds one side's specs), filled by the first round: the fastest round is a warm one.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"
MB = 1024 * 1024


def timed(cmd: list[str], env: dict[str, str] | None, cwd: Path) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (user + system, its waited-for workers included) and peak RSS
    (MB) of one fresh process."""
    t = time.perf_counter()
    # Not run from a checkout: `python -m` puts the working folder first on sys.path (before PYTHONPATH).
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=cwd, env=env)
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    took = time.perf_counter() - t
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):  # 1: input problems reported (damaged lines), still a copy
        raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}):\n{err.decode(errors='replace')[-2000:]}")
    return took, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def commands(src: Path, out: Path, old: Path | None) -> dict[str, tuple[list[str], dict[str, str] | None]]:
    py = sys.executable
    new_env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    new_env["PYTHONPATH"] = str(ROOT)
    found: dict[str, tuple[list[str], dict[str, str] | None]] = {
        "json": ([py, str(ROOT / "bench" / "json_roundtrip.py"), str(src), str(out)], None),
        "no-tokens": ([py, "-m", "sanitizer", str(src), "-o", str(out), "--no-tokens"], new_env),
        "tokens": ([py, "-m", "sanitizer", str(src), "-o", str(out)], new_env),
    }
    if old is not None:
        old_env = dict(new_env, PYTHONPATH=str(old))
        if "SANITIZER_CACHE_DIR" in new_env:  # a folder of its own: the kept anchors name their specs
            old_env["SANITIZER_CACHE_DIR"] = new_env["SANITIZER_CACHE_DIR"] + "-old"
        found["old no-tokens"] = (found["no-tokens"][0], old_env)
        found["old tokens"] = (found["tokens"][0], old_env)
    return found


def compile_bytecode(root: Path) -> None:
    """Write the `__pycache__` of a checkout's package, whatever `PYTHONDONTWRITEBYTECODE` says."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(root / "sanitizer"), str(root / "rules")],
                   check=True, env=env, stdout=subprocess.DEVNULL)


def measure_file(src: Path, tmp: Path, repeat: int, old: Path | None) -> dict[str, tuple[float, float, float]]:
    """{command: (fastest wall seconds, least CPU seconds, highest peak RSS MB)} over `repeat`
    interleaved rounds."""
    out = tmp / ("out" + "".join(src.suffixes[-1:]))
    cmds = commands(src, out, old)
    runs: dict[str, list[tuple[float, float, float]]] = {k: [] for k in cmds}
    for _ in range(repeat):
        for key, (cmd, env) in cmds.items():
            runs[key].append(timed(cmd, env, tmp))
    out.unlink(missing_ok=True)
    return {k: (min(r[0] for r in v), min(r[1] for r in v), max(r[2] for r in v)) for k, v in runs.items()}


def _ratio(m: dict[str, tuple[float, float, float]], key: str, bold: bool = False) -> str:
    """`wall× (CPU×)` of `key` against json."""
    wall = f"{m[key][0] / m['json'][0]:.2f}×"
    return (f"**{wall}**" if bold else wall) + f" ({m[key][1] / max(m['json'][1], 1e-6):.2f}×)"


def size_label(path: Path) -> str:
    n = path.stat().st_size
    return f"{n / MB:.1f} MB" if n >= MB else f"{n / 1024:.0f} KB"


def section(files: list[Path], repeat: int, old: Path | None, log=print) -> str:  # noqa: ANN001
    """The markdown table of whole-process figures for `files`."""
    rows = []
    for root in (ROOT, old) if old is not None else (ROOT,):
        compile_bytecode(root)
    with tempfile.TemporaryDirectory(prefix="sanitizer-process-") as tmp:
        # The compiled-pattern cache lives in this run's folder, never the user's; the first
        # round fills it (as `compile_bytecode` fills `__pycache__`), so the fastest is warm.
        was = os.environ.get("SANITIZER_CACHE_DIR")
        os.environ["SANITIZER_CACHE_DIR"] = str(Path(tmp) / "cache")
        for path in files:
            m = measure_file(path.resolve(), Path(tmp), repeat, old)
            cells = [f"`{path.parent.name}/{path.name}`", size_label(path)]
            if old is not None:
                cells += [_ratio(m, "old no-tokens"), _ratio(m, "no-tokens", True), _ratio(m, "old tokens"),
                          _ratio(m, "tokens", True)]
            else:
                cells += [_ratio(m, "no-tokens", True), _ratio(m, "tokens", True)]
            secs = " / ".join(f"{m[k][0]:.3f}" for k in m)
            rss = " / ".join(f"{m[k][2]:.0f}" for k in m)
            rows.append([*cells, secs, rss])
            log(f"  process {path.name}: " + " | ".join(cells[2:]) + f" | {secs}")
        if was is None:
            os.environ.pop("SANITIZER_CACHE_DIR")
        else:
            os.environ["SANITIZER_CACHE_DIR"] = was
    keys = list(commands(Path("x"), Path("y"), old))
    if old is not None:
        heads = ["old `--no-tokens` / json", "new `--no-tokens` / json", "old tokens / json", "new tokens / json"]
    else:
        heads = ["`--no-tokens` / json", "tokens / json"]
    headers = ["input", "size", *heads, "s (" + ", ".join(keys) + ")", "peak RSS MB (same order)"]
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return (f"Whole processes, interpreter start-up included (fastest of {repeat} interleaved rounds): "
            "`python -m sanitizer FILE -o OUT [--no-tokens]` against `python bench/json_roundtrip.py "
            "FILE OUT`" + (f"; old = `PYTHONPATH={old}`" if old is not None else "") + ".  Each cell is the "
            "wall-time ratio, then in brackets the CPU-time ratio (user + system, workers included: "
            "steadier on a busy machine).\n\n"
            + "\n".join(lines))


def corpus_files() -> list[Path]:
    return sorted(p for p in CORPUS.glob("*/*") if p.is_file() and p.name != "SOURCES.md") if CORPUS.is_dir() else []


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="*", type=Path, help="inputs (default: every file of ../shared/corpus)")
    ap.add_argument("--repeat", type=int, default=3, help="interleaved rounds; the fastest counts")
    ap.add_argument("--old", type=Path, help="another checkout to run side by side (PYTHONPATH)")
    opts = ap.parse_args()
    files = opts.files or corpus_files()
    if not files:
        raise SystemExit(f"bench: no input: {CORPUS} not found and no FILE given")
    print(section(files, max(1, opts.repeat), opts.old.resolve() if opts.old else None,
                  log=lambda m: print(m, file=sys.stderr, flush=True)))


if __name__ == "__main__":
    main()
