"""Datasets at scale: `sanitize --engine datasets|ray --num-proc N` next to `sanitize --jobs N`.

    python bench/datasets.py                 # a 100 MB generated dataset JSONL (bench/gen.py)
    python bench/datasets.py --mb 500        # the issue's size
    python bench/datasets.py --engines cli,datasets --mb 20

Every run is `python -m sanitizer FILE -o OUT -q` in its own process, timed from outside (wall
clock, start-up included), on the same generated file.  Start-up (imports, the rule pack, the
encoding, starting Ray) is measured apart on a one-record file and printed; `work s` is the wall
time less that start-up.  Speed-up is 1 process's work time over 2 processes'.

Peak memory: the process tree of each run is sampled every 0.2 s; for each process its peak RSS
(`VmHWM` in /proc: shared pages included, such as Ray's object store and memory-mapped Arrow
files) and the largest private RSS seen (`RssAnon`) are kept; `driver` is the command's own process, `worker` the largest process
that sanitizes (the `--jobs` pool, the `datasets` map workers, the Ray actors; Ray's own daemons
are left out and their largest is printed apart).  Every output is checked against the plain
CLI's: same bytes, same record count, same ids in the same order.  Standard library only
(besides the engines the runs use).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MB = 1024 * 1024
RAY_DAEMONS = ("gcs_server", "raylet", "dashboard", "log_monitor", "monitor.py", "DashboardAgent",
               "RuntimeEnvAgent", "_StatsActor", "ActorLocationTracker", "_Autoscaling")

_spec = importlib.util.spec_from_file_location("bench_gen", ROOT / "bench" / "gen.py")
gen = importlib.util.module_from_spec(_spec)
assert _spec.loader is not None
_spec.loader.exec_module(gen)


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            tree.setdefault(ppid, []).append(int(entry))
    return tree


def _memory(pid: int) -> tuple[int, int, str] | None:
    """(peak RSS MB, private RSS MB now, command line) of a process."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
        cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return None
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    if "VmHWM" not in fields:
        return None
    return int(fields["VmHWM"].split()[0]) // 1024, int(fields.get("RssAnon", "0 kB").split()[0]) // 1024, cmd


def sample(root: int, peaks: dict[int, tuple[int, int, str]], stop: threading.Event) -> None:
    """Keep each descendant's peak RSS, its largest private RSS seen (MB) and command line until `stop`."""
    while not stop.is_set():
        tree, todo = _children(), [root]
        while todo:
            pid = todo.pop()
            todo.extend(tree.get(pid, ()))
            found = _memory(pid)
            if found is not None:
                old = peaks.get(pid, (0, 0, ""))
                peaks[pid] = (max(found[0], old[0]), max(found[1], old[1]), found[2] or old[2])
        stop.wait(0.2)


def run(src: Path, out: Path, args: list[str]) -> dict[str, object]:
    """One timed run of the CLI on `src` with `args`; wall seconds and peak memory (MB)."""
    cmd = [sys.executable, "-m", "sanitizer", str(src), "-o", str(out), "-q", *args]
    peaks: dict[int, tuple[int, int, str]] = {}
    stop = threading.Event()
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT, stderr=subprocess.PIPE)
    watcher = threading.Thread(target=sample, args=(proc.pid, peaks, stop))
    watcher.start()
    _, err = proc.communicate()
    seconds = time.perf_counter() - started
    stop.set()
    watcher.join()
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}): {err.decode()[-2000:]}")
    driver = peaks.pop(proc.pid, (0, 0, ""))
    daemons = [hwm for hwm, _, c in peaks.values() if any(d in c for d in RAY_DAEMONS)]
    workers = [(hwm, anon) for hwm, anon, c in peaks.values() if not any(d in c for d in RAY_DAEMONS)]
    return {"seconds": seconds, "driver_mb": f"{driver[0]} / {driver[1]}",
            "worker_mb": f"{max(w[0] for w in workers)} / {max(w[1] for w in workers)}" if workers else "",
            "daemon_mb": max(daemons, default=0)}


def _spin(n: int) -> int:
    total = 0
    for i in range(n):
        total += i * i % 7
    return total


def cpu_ceiling(n: int = 30_000_000) -> float:
    """The machine's own 2-process speed-up now: the same CPU work in 1 process, then split over 2."""
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(2) as pool:
        pool.submit(int).result()
        started = time.perf_counter()
        pool.submit(_spin, n).result()
        one = time.perf_counter() - started
        started = time.perf_counter()
        list(pool.map(_spin, [n // 2, n // 2]))
        two = time.perf_counter() - started
    return one / two


def ids(data: bytes) -> list[object]:
    out = []
    for line in data.splitlines():
        try:
            out.append(json.loads(line).get("id"))
        except ValueError:
            out.append(None)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mb", type=float, default=100, help="size of the generated dataset JSONL")
    parser.add_argument("--engines", default="cli,datasets,ray", help="comma-separated: cli, datasets, ray")
    parser.add_argument("--no-tokens", action="store_true", help="runs without exact token counts")
    opts = parser.parse_args()
    engines = opts.engines.split(",")
    extra = ["--no-tokens"] if opts.no_tokens else []
    with tempfile.TemporaryDirectory(prefix="bench-datasets-") as tmp:
        folder = Path(tmp)
        src = gen.dataset(folder / "dataset.jsonl", int(opts.mb * MB))
        tiny = folder / "tiny.jsonl"
        with src.open("rb") as fh:
            tiny.write_bytes(fh.readline() + fh.readline())  # two records: the dataset path
        size = src.stat().st_size
        print(f"dataset JSONL: {size / MB:.1f} MB, {sum(1 for _ in src.open('rb')):,} records; "
              f"{os.cpu_count()} cores; tokens {'off' if opts.no_tokens else 'on'}", flush=True)
        ceiling = cpu_ceiling()
        reference = folder / "reference.jsonl"
        rows = [("cli", 1, run(src, reference, extra), run(tiny, folder / "tiny.out", extra)["seconds"], "yes")]
        expected = reference.read_bytes()
        assert ids(expected) == ids(src.read_bytes()), "the plain CLI lost or reordered records"
        for engine in engines:
            for n in (2,) if engine == "cli" else (1, 2):
                args = (["--jobs", str(n)] if engine == "cli" else ["--engine", engine, "--num-proc", str(n)]) + extra
                start = run(tiny, folder / "tiny.out", args)["seconds"]
                out = folder / f"{engine}-{n}.jsonl"
                figures = run(src, out, args)
                data = out.read_bytes()
                same = "yes" if data == expected else (
                    "NO: order" if sorted(data.split(b"\n")) == sorted(expected.split(b"\n")) else "NO: bytes")
                rows.append((engine, n, figures, start, same))
                out.unlink()
                print(f"  {engine} ×{n}: {figures['seconds']:.1f} s", file=sys.stderr, flush=True)
        print(f"plain CPU work, 2 processes vs 1, before the runs: {ceiling:.2f}×")
        print("| run | procs | wall s | start-up s | work s | MB/s | speed-up | driver MB peak / private | "
              "largest worker MB peak / private | "
              "Ray daemons MB | same bytes, count, ids |")
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        one: dict[str, float] = {}
        for engine, n, f, start, same in rows:
            work = max(0.01, float(f["seconds"]) - start)
            if n == 1:
                one[engine] = work
            speed = f"{one[engine] / work:.2f}×" if n == 2 and engine in one else ""
            print(f"| {engine} | {n} | {f['seconds']:.1f} | {start:.1f} | {work:.1f} | {size / MB / work:.1f} | "
                  f"{speed} | {f['driver_mb']} | {f['worker_mb'] or ''} | {f['daemon_mb'] or ''} | "
                  f"{same} |")
        print(f"plain CPU work, 2 processes vs 1, after the runs: {cpu_ceiling():.2f}×")


if __name__ == "__main__":
    main()
