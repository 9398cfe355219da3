"""The credential scan of one text, by the text's length, a short library call, and whole sessions.

`python bench/scan_sizes.py [--old ROOT] [--rounds N]` takes the distinct strings of three corpus
sessions (../shared/corpus), groups them by length (8-32 chars … 4-8 K), and times `redact(text)`
on up to 300 of each group, fastest of 5, after a first pass over every string (the patterns a run
needs are compiled, the `[fast]` gate is built).  Then a 5-message chat conversation holding a
1.3 K-char tool output, sanitized again and again on one `Sanitizer(count_tokens=False)`.  Then
`redact_many` over every string of each session (what a run scans, in its 1 MB batches), and over
the last one's with a Kubernetes Secret manifest among them (a pattern that runs only on a batch
holding `kind: Secret`).  With `--old`, the same in a process whose package comes from ROOT, round
after round (`SANITIZER_PLAIN=1` measures the way without the extra).  Microseconds a text / a
call, milliseconds a session; standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from child import _strings  # noqa: E402 - bench/ is this script's folder: run as `python bench/scan_sizes.py`

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"
FILES = ("claude_code_jsonl/mclaude__3cfce0ff-0725-47be-a572-f8af8122b71e.jsonl",
         "hermes_session/hermes-agent__exprted.jsonl", "codex_rollout/codex-session-viewer__example.jsonl")
SECRET_MANIFEST = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ntype: Opaque\ndata:\n  username: YWRtaW4=\n"
SIZES = ((8, 32), (32, 64), (64, 128), (128, 256), (256, 512), (512, 1024), (1024, 2048), (2048, 4096),
         (4096, 8192))
CALL = [{"role": "system", "content": "You are a helpful agent."},
        {"role": "user", "content": "Fix the failing test in tests/test_api.py please"},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function", "function": {
            "name": "bash", "arguments": json.dumps({"command": "pytest -x tests/test_api.py"})}}]},
        {"role": "tool", "tool_call_id": "c1",
         "content": "FAILED tests/test_api.py::test_get - AssertionError: 404 != 200\n" * 20},
        {"role": "assistant", "content": "The route is missing; I'll add it."}]


def measure() -> list[float]:
    """In this process: µs a text for each group of `SIZES`, then µs a call of `CALL`."""
    from sanitizer import Sanitizer
    from sanitizer.secrets.scan import redact, redact_many

    sessions: list[list[str]] = []
    for name in FILES:
        sessions.append([])
        for line in (CORPUS / name).read_text(encoding="utf-8").splitlines():
            try:
                _strings(json.loads(line), sessions[-1])
            except ValueError:
                continue
    texts = [t for session in sessions for t in session]
    redact_many(texts)
    out = []
    for lo, hi in SIZES:
        group = [t for t in dict.fromkeys(texts) if lo <= len(t) < hi][:300]
        out.append(_best(lambda g=group: [redact(t) for t in g], len(group)))
    san = Sanitizer(count_tokens=False)
    for _ in range(30):
        san.sanitize(CALL)
    out.append(_best(lambda: [san.sanitize(CALL) for _ in range(300)], 300))
    for strings in (*sessions, [*sessions[-1], SECRET_MANIFEST]):
        redact_many(strings)
        out.append(_best(lambda s=strings: redact_many(s), 1000))  # µs / 1000: ms
    return out


def _best(fn, n: int) -> float:  # noqa: ANN001
    best = float("inf")
    for _ in range(5):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best / n * 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", type=Path, help="also measure this checkout's package, round after round")
    ap.add_argument("--rounds", type=int, default=3)
    opts = ap.parse_args()
    if not CORPUS.is_dir():
        raise SystemExit(f"bench: {CORPUS} is not there (the shared corpus sits beside the clone)")
    sides = [("old", opts.old.resolve()), ("new", ROOT)] if opts.old else [("new", ROOT)]
    heads = ([f"{lo}-{hi}" for lo, hi in SIZES] + ["5-message call"]
             + [f"`{name.split('__')[-1][:12]}` ms" for name in FILES] + ["the last + a Secret, ms"])
    print("| side | " + " | ".join(heads) + " |\n|---|" + "---:|" * len(heads))
    for _ in range(opts.rounds):
        for side, code in sides:
            env = dict(os.environ, PYTHONPATH=str(code))
            got = subprocess.run([sys.executable, __file__, "--child"], env=env, capture_output=True, text=True,
                                 check=True).stdout
            print(f"| {side} | " + " | ".join(f"{v:.1f}" for v in json.loads(got)) + " |", flush=True)


if __name__ == "__main__":
    if sys.argv[1:] == ["--child"]:
        print(json.dumps(measure()))
    else:
        main()
