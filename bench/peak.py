"""Peak memory of one big session: `python -m sanitizer BIG.jsonl -o OUT --no-tokens`, peak RSS
against the input's size, with orjson, with `SANITIZER_PLAIN=1`, and (`--old ROOT`) from another
checkout, in interleaved rounds; every output is compared byte for byte with the first.

    python bench/peak.py [--mb 100] [--repeat 2] [--old ROOT] [--tokens] [FILE]

Without FILE a Claude Code-like session of `--mb` MB is generated (`bench/gen.py`) into a
temporary folder, deleted at the end.  Peak RSS is the child's `ru_maxrss` (`os.wait4`); times
are the fastest round's wall and CPU seconds.  Standard library only.
"""

from __future__ import annotations

import argparse
import filecmp
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import gen  # noqa: E402
from process import timed  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
MB = 1024 * 1024


def variants(old: Path | None) -> dict[str, dict[str, str]]:
    """{label: environment} for each way of running the command."""
    base = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "SANITIZER_PLAIN")}
    found = {"new": dict(base, PYTHONPATH=str(ROOT)),
             "new SANITIZER_PLAIN=1": dict(base, PYTHONPATH=str(ROOT), SANITIZER_PLAIN="1")}
    if old is not None:
        found["old"] = dict(base, PYTHONPATH=str(old))
        found["old SANITIZER_PLAIN=1"] = dict(base, PYTHONPATH=str(old), SANITIZER_PLAIN="1")
    return found


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file", nargs="?", type=Path, help="the input (default: a generated session)")
    ap.add_argument("--mb", type=float, default=100, help="size of the generated session")
    ap.add_argument("--repeat", type=int, default=2, help="interleaved rounds")
    ap.add_argument("--old", type=Path, help="another checkout to run side by side (PYTHONPATH)")
    ap.add_argument("--tokens", action="store_true", help="the exact token report instead of --no-tokens")
    opts = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="sanitizer-peak-") as tmp:
        folder = Path(tmp)
        src = opts.file.resolve() if opts.file else gen.claude_session(folder / "big.jsonl", int(opts.mb * MB))
        size = src.stat().st_size / MB
        envs = variants(opts.old.resolve() if opts.old else None)
        runs: dict[str, list[tuple[float, float, float]]] = {k: [] for k in envs}
        outs = {k: folder / f"out-{i}.jsonl" for i, k in enumerate(envs)}
        for _ in range(max(1, opts.repeat)):
            for key, env in envs.items():
                cmd = [sys.executable, "-m", "sanitizer", str(src), "-o", str(outs[key])]
                runs[key].append(timed(cmd + ([] if opts.tokens else ["--no-tokens"]), env, folder))
                print(f"  {key}: {runs[key][-1][2]:.0f} MB, {runs[key][-1][0]:.2f} s", file=sys.stderr, flush=True)
        first = next(iter(outs.values()))
        print(f"Input: {src.name}, {size:.1f} MB; `sanitize FILE -o OUT{'' if opts.tokens else ' --no-tokens'}`, "
              f"{opts.repeat} interleaved rounds.\n")
        print("| run | peak RSS MB | peak / input | wall s | CPU s | output = first |")
        print("|---|---:|---:|---:|---:|---|")
        for key, got in runs.items():
            rss = max(r[2] for r in got)
            same = filecmp.cmp(first, outs[key], shallow=False)
            print(f"| {key} | {rss:.0f} | {rss / size:.2f}x | {min(r[0] for r in got):.2f} | "
                  f"{min(r[1] for r in got):.2f} | {'yes' if same else '**NO**'} |")


if __name__ == "__main__":
    main()
