"""Speed and scale of `sanitize`, measured side by side in one run (DESIGN §12).

    python bench/run.py                  # corpus files + generated inputs, dataset of 100 MB
    python bench/run.py --quick          # small sizes: a smoke run in about a minute
    python bench/run.py --only cjk       # one group: corpus session tags tool_result short cjk breakdown
                                         #   redaction library jobs dataset lines process
    python bench/run.py --big            # the dataset JSONL is 500 MB (slow to build)
    python bench/run.py --old ../main    # the other checkout beside this one: old → new in each cell

Every measurement runs in its own subprocess (`bench/child.py`), which reports its own peak RSS
(`getrusage(RUSAGE_SELF).ru_maxrss`, and the largest worker's with `--jobs`).  Times are
taken inside the subprocess after imports and after building a `Sanitizer()` (a fixed start cost,
printed apart); what a run compiles or reads on first need (patterns, the vocabulary, the
encoding) is inside them, so the whole-process group (`process`) is the fairer start-up figure:

- `no-tokens / json`: `sanitize FILE --no-tokens -o OUT` against a stdlib `json` load + dump of the
  same file (per line for JSONL), reading and writing included on both sides;
- `tokens / tiktoken`: `sanitize FILE -o OUT` (exact token report) against one
  `encode_ordinary` of the raw file text;
- growth exponent: log(time ratio) / log(size ratio) between two sizes of the same input;
- breakdown: `--no-tokens` with no rule, with `redact-secrets` alone and with the whole pack,
  against the same json load + dump (what the default pack's time is made of);
- redaction: the credential scan alone over a file's strings, the scanner before the table of
  kinds and the current one side by side, each against json load+dump (`bench/redaction.py`);
- the library call on about 200K tokens of chat messages already in memory, against a JSON round
  trip of the same objects and one tiktoken pass over them;
- lines: dataset JSONL files, which `sanitize` streams a line at a time (the corpus's 200 airline
  dialogues written one per line in a temporary folder, and a generated 30 MB dataset), in the
  same columns as the corpus files;
- `--jobs 2 / --jobs 1` on a folder of sessions and on the lines of one dataset JSONL (speed-up),
  next to the same ratio for plain CPU work in 1 and 2 processes (the machine's own ceiling), and
  peak RSS on a dataset JSONL.

Generated inputs are written to a temporary folder and deleted at the end.  Corpus files are read
in place from ../shared/corpus (skipped with a message when absent).  Standard library only.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shlex
import sys
import tempfile
from pathlib import Path

import measuring  # bench/ is this script's folder: run as `python bench/run.py`
from measuring import (
    CORPUS,
    MB,
    ROOT,
    ROW_HEADERS,
    Measure,
    Row,
    best,
    compare,
    exponent,
    log,
    measure,
    size_label,
    table,
)

GROUPS = ("corpus", "session", "tags", "tool_result", "short", "cjk", "breakdown", "redaction", "library", "jobs",
          "dataset", "lines", "process")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sizes (a smoke run)")
    ap.add_argument("--only", action="append", choices=GROUPS, help="run only this group (repeatable)")
    ap.add_argument("--big", action="store_true", help="a 500 MB dataset JSONL instead of 100 MB")
    ap.add_argument("--repeat", type=int, default=measuring.REPEAT, help="runs per measurement; the fastest counts")
    ap.add_argument("--old", type=Path, help="also run this checkout's package in the same rounds (old → new)")
    opts = ap.parse_args()
    measuring.REPEAT = REPEAT = max(1, opts.repeat)
    measuring.OLD = opts.old.resolve() if opts.old else None
    sys.path.insert(0, str(ROOT))
    from bench import gen

    groups = opts.only or list(GROUPS)
    q = opts.quick
    command = "python " + " ".join(shlex.quote(a) for a in ["bench/run.py", *sys.argv[1:]])
    sections: list[str] = []
    rows: list[Row] = []
    growth: list[list[str]] = []
    tmp = Path(tempfile.mkdtemp(prefix="sanitizer-bench-"))
    try:
        if "corpus" in groups:
            files = sorted(p for p in CORPUS.glob("*/*") if p.is_file()) if CORPUS.is_dir() else []
            if not files:
                log(f"corpus: skipped, {CORPUS} not found")
                sections.append(f"_corpus: skipped, `{CORPUS}` not found_")
            for p in files:
                log(f"corpus {p.parent.name}/{p.name}")
                rows.append(compare(f"corpus `{p.parent.name}/{p.name}`", p, tmp))

        def pair(name: str, unit: str, make, sizes) -> None:  # noqa: ANN001
            pts = []
            for s in sizes:
                path = make(tmp / f"{name}-{s}.jsonl", s)
                log(f"{name} {s} {unit}: {size_label(path)}")
                row = compare(f"{name} ({s:,} {unit})", path, tmp)
                rows.append(row)
                pts.append((s, row))
                path.unlink()
            for (s1, r1), (s2, r2) in zip(pts, pts[1:], strict=False):
                growth.append([name, f"{s1:,} → {s2:,} {unit}", f"**{exponent(r1.plain_s, r2.plain_s, s1, s2):.2f}**",
                               f"**{exponent(r1.tok_s, r2.tok_s, s1, s2):.2f}**",
                               f"{exponent(r1.json_s, r2.json_s, s1, s2):.2f}"])

        if "session" in groups:
            pair("session", "MB", lambda p, s: gen.claude_session(p, int(s * MB)), (0.25, 1, 4) if q else (1, 10, 100))
        if "tags" in groups:
            pair("unclosed <thinking>", "tags", gen.unclosed_tags, (1000, 2000) if q else (5000, 10_000))
        if "tool_result" in groups:
            pair("one tool result", "MB", gen.big_tool_result, (2, 4) if q else (10, 20))
        if "short" in groups:
            pair("short messages", "messages", gen.short_messages, (5000, 10_000) if q else (50_000, 100_000))
        if "cjk" in groups:
            pair("CJK run, no spaces", "MB", gen.cjk_run, (0.5, 1) if q else (2.5, 5))
        if "breakdown" in groups:
            sections.append(breakdown_section(gen, tmp, q))
        if "redaction" in groups:
            from bench import redaction

            corpus = sorted(p for p in CORPUS.glob("*/*") if p.is_file()) if CORPUS.is_dir() else []
            sections.append(redaction.section(gen, tmp, q, corpus, measure, best, REPEAT, table, size_label))
        if "library" in groups:
            sections.append(library_section(gen, tmp))
        if "jobs" in groups:
            sections.append(jobs_section(gen, tmp, q))
        if "dataset" in groups:
            sections.append(dataset_section(gen, tmp, q, opts.big))
        if "lines" in groups:
            for name, path in line_inputs(gen, tmp, q):
                log(f"lines {name}")
                rows.append(compare(f"lines: {name}", path, tmp))
        if "process" in groups:
            from bench import process

            sections.append(process.section(process.corpus_files(), REPEAT, opts.old.resolve() if opts.old else None,
                                            log=log))
    finally:
        for p in sorted(tmp.rglob("*"), reverse=True):
            p.unlink() if p.is_file() else p.rmdir()
        tmp.rmdir()

    nproc = os.cpu_count()
    print(f"## Benchmark ({datetime.date.today().isoformat()})\n")
    print(f"Machine: {nproc} cores (`nproc`), {platform.machine()}, Python {platform.python_version()}, "
          f"{platform.system()} {platform.release()}.  Command: `{command}`\n")
    print("Ratios are times measured side by side in this run (lower is faster; `tokens / tiktoken` "
          "below 1 means the exact token report costs less than one plain tiktoken pass over the raw "
          f"file).  Each time is the fastest of {REPEAT} interleaved runs.  Seconds exclude interpreter start-up, imports and "
          f"building a `Sanitizer()` ({rows[0].startup if rows else 0:.2f} s here, once per process); what a run "
          "compiles or reads on first need (patterns, the vocabulary, the encoding) is inside them.\n")
    if rows:
        print(table(ROW_HEADERS, [r.cells() for r in rows]) + "\n")
    if growth:
        print("Growth exponent (log time ratio / log size ratio; 1.0 is linear):\n")
        print(table(["input", "sizes", "no-tokens", "tokens", "json (reference)"], growth) + "\n")
    for s in sections:
        print(s + "\n")


def breakdown_section(gen, tmp: Path, quick: bool) -> str:  # noqa: ANN001
    """`--no-tokens` with no rule, with `redact-secrets` alone and with the default pack, against json."""
    from sanitizer import Sanitizer

    others = [r.name for r in Sanitizer().config.active if r.name != "redact-secrets"]
    variants = {"no rule": [*others, "redact-secrets"], "redact-secrets alone": others, "default pack": []}
    inputs = [(f"session ({1 if quick else 10} MB)", gen.claude_session(tmp / "bd-session.jsonl", (1 if quick else 10) * MB)),
              (f"one tool result ({4 if quick else 20} MB)", gen.big_tool_result(tmp / "bd-result.jsonl", 4 if quick else 20))]
    corpus = sorted(CORPUS.glob("claude_code_jsonl/*.jsonl"), key=lambda p: p.stat().st_size) if CORPUS.is_dir() else []
    if corpus:
        inputs.append((f"corpus `{corpus[-1].parent.name}/{corpus[-1].name}`", corpus[-1]))
    rows = []
    for name, path in inputs:
        out = tmp / "bd-out.jsonl"
        runs: dict[str, list[Measure]] = {k: [] for k in ("json", *variants)}
        for _ in range(measuring.REPEAT):
            runs["json"].append(measure("json", path, out))
            for label, disabled in variants.items():
                flags = [a for rule in disabled for a in ("--disable", rule)]
                runs[label].append(measure("sanitize", path, "--no-tokens", "-q", "-o", out, *flags))
        j = best(runs["json"]).seconds
        cells = [name, size_label(path)] + [f"**{best(runs[k]).seconds / j:.2f}×**" for k in variants]
        rows.append(cells + [f"{j:.2f}"])
        log(f"  breakdown {name}: " + " | ".join(cells[2:]))
        if path.parent == tmp:
            path.unlink()
    return ("What the `--no-tokens` time is made of: the same run with no rule active (read, views, "
            "write), with `redact-secrets` alone (every text slot scanned for credentials, as the "
            "default pack does before anything is cut), and with the default pack, each against the "
            f"json load+dump of the same file (fastest of {measuring.REPEAT}):\n\n"
            + table(["input", "size", *(f"{k} / json" for k in variants), "json s"], rows))


def library_section(gen, tmp: Path) -> str:  # noqa: ANN001
    """`Sanitizer.sanitize(messages)` on about 200K tokens of chat messages already in memory."""
    data = gen.dataset(tmp / "library-source.jsonl", 2 * MB)
    messages: list = []
    for line in data.read_text(encoding="utf-8").splitlines():
        messages += json.loads(line)["messages"]
        if len(json.dumps(messages)) >= 800 * 1024:
            break
    src = tmp / "library-messages.json"
    src.write_text(json.dumps(messages), encoding="utf-8")
    data.unlink()
    m = measure("library", src, measuring.REPEAT)
    m_old = measure("library", src, measuring.REPEAT, code=measuring.OLD) if measuring.OLD is not None else None
    src.unlink()
    x = m.extra
    log(f"library: {len(messages)} messages, {x['tokens_before']:,} tokens: {x['plain']:.3f}s / {x['tokens']:.3f}s")

    def cell(key: str, ref: str) -> str:
        new = f"**{x[key] / x[ref]:.2f}×**"
        return new if m_old is None else f"{m_old.extra[key] / m_old.extra[ref]:.2f}× → {new}"

    return (f"The library call on {len(messages):,} chat messages already in memory ({x['tokens_before']:,} tokens "
            "of text, the usual pre-summary case), each time the fastest of "
            f"{measuring.REPEAT}" + (f" (old: `{measuring.OLD}`, its own references measured in its process)" if m_old else "")
            + ":\n\n" + table(
                ["call", "time / reference", "s"],
                [["`Sanitizer(count_tokens=False).sanitize(messages).output` / `json.loads(json.dumps(messages))`",
                  cell("plain", "json"), f"{x['plain']:.3f} / {x['json']:.3f}"],
                 ["`Sanitizer().sanitize(messages).output` (exact tokens) / tiktoken over `json.dumps(messages)`",
                  cell("tokens", "tiktoken"), f"{x['tokens']:.3f} / {x['tiktoken']:.3f}"],
                 *([f"the same `count_tokens=False` call on the first {n} messages, again and again / json",
                    cell(f"plain_{n}", f"json_{n}"), f"{x[f'plain_{n}'] * 1e3:.2f} / {x[f'json_{n}'] * 1e3:.3f} ms"]
                   for n in (5, 20, 80) if f"plain_{n}" in x)]))


def jobs_section(gen, tmp: Path, quick: bool) -> str:  # noqa: ANN001
    folder = tmp / "sessions"
    folder.mkdir()
    n, size = (4, 1) if quick else (8, 5)
    files = [gen.claude_session(folder / f"session-{i}.jsonl", size * MB, seed=100 + i) for i in range(n)]
    data_mb = 10 if quick else 50
    data = gen.dataset(tmp / "jobs-dataset.jsonl", data_mb * MB)
    log(f"jobs: {n} sessions of {size} MB; a dataset JSONL of {size_label(data)}")
    out = tmp / "jobs-out"
    results = []
    data_out = tmp / "jobs-dataset-out.jsonl"
    for what, inputs, target in ((f"{n} sessions of {size} MB (files)", files, out),
                                 (f"dataset JSONL of {size_label(data)} (lines)", [data], data_out)):
        for label, extra in (("--no-tokens", ["--no-tokens"]), ("exact tokens", [])):
            r1: list[Measure] = []
            r2: list[Measure] = []
            c1: list[Measure] = []
            c2: list[Measure] = []
            for _ in range(measuring.REPEAT):  # plain CPU work in 1 and 2 processes at the same moments: the ceiling
                r1.append(measure("sanitize", *inputs, *extra, "-q", "--jobs", "1", "-o", target))
                r2.append(measure("sanitize", *inputs, *extra, "-q", "--jobs", "2", "-o", target))
                c1.append(measure("cpu", 1))
                c2.append(measure("cpu", 2))
            t1, t2 = best(r1), best(r2)
            ceiling = best(c1).seconds / best(c2).seconds
            log(f"  {what}, {label}: jobs1 {t1.seconds:.2f}s jobs2 {t2.seconds:.2f}s (CPU ceiling {ceiling:.2f}x)")
            results.append([what, label, f"**{t1.seconds / t2.seconds:.2f}×**", f"{ceiling:.2f}×",
                            f"{t1.seconds:.2f} / {t2.seconds:.2f}", f"{t1.rss_mb:.0f} / {t2.rss_mb:.0f}"])
    for f in [*files, data, data_out]:
        f.unlink(missing_ok=True)
    for f in out.iterdir():
        f.unlink()
    out.rmdir()
    folder.rmdir()
    return ("`--jobs 2` against `--jobs 1`: across files (a folder of generated sessions, to an `-o` folder) "
            "and across the lines of one dataset JSONL (batches of lines in a process pool).  Next to it, "
            "the same ratio for 8 equal chunks of plain Python CPU work in 1 and 2 processes, measured "
            "at the same moments: what this machine's two cores give at best.\n\n"
            + table(["input", "report", "speed-up (jobs 1 time / jobs 2 time)", "plain CPU work, 1 / 2 processes",
                     "jobs 1 / jobs 2 s",
                     "peak RSS MB (largest process) jobs 1 / jobs 2"], results))


def line_inputs(gen, tmp: Path, quick: bool) -> list[tuple[str, Path]]:  # noqa: ANN001
    """Dataset JSONL inputs: a corpus file of many conversations rewritten one per line (when the
    corpus is there) and a generated dataset."""
    out = []
    taubench = CORPUS / "openai_chat" / "taubench__gpt-4o-airline.json"
    if taubench.is_file():
        path = tmp / "taubench-lines.jsonl"
        rows = json.loads(taubench.read_text(encoding="utf-8"))
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
        out.append((f"`taubench` one conversation a line ({len(rows)} lines)", path))
    mb = 3 if quick else 30
    out.append((f"generated dataset ({mb} MB)", gen.dataset(tmp / "dataset-lines.jsonl", mb * MB)))
    return out


def dataset_section(gen, tmp: Path, quick: bool, big: bool) -> str:  # noqa: ANN001
    mb = 10 if quick else 500 if big else 100
    path = gen.dataset(tmp / "dataset.jsonl", mb * MB)
    label_size = size_label(path)
    log(f"dataset: {label_size}")
    out = tmp / "dataset-out.jsonl"
    j = measure("json", path, out)
    tk = measure("tiktoken", path)
    rows = []
    for label, kind, args, tokens in (
        ("`sanitize FILE --no-tokens`", "sanitize", [path, "--no-tokens", "-q", "-o", out], False),
        ("`sanitize FILE` (exact tokens)", "sanitize", [path, "-q", "-o", out], True),
        ("`stream.sanitize_jsonl` (exact tokens)", "stream", [path, out, "tokens"], True),
    ):
        m = measure(kind, *args)
        log(f"  {label}: {m.seconds:.2f}s, {m.rss_mb:.0f} MB")
        rows.append([label, f"**{m.rss_mb:.0f}**", f"{m.seconds / j.seconds:.2f}×",
                     f"{m.seconds / tk.seconds:.2f}×" if tokens else "", f"{m.seconds:.2f}"])
    path.unlink()
    out.unlink(missing_ok=True)
    note = "" if big else " (100 MB by default; `--big` builds the 500 MB one)"
    return (f"Dataset JSONL of {label_size}, one conversation per line{note}; "
            f"stdlib json load+dump of it: {j.seconds:.2f} s, {j.rss_mb:.0f} MB peak; one tiktoken pass over "
            f"the raw file: {tk.seconds:.2f} s:\n\n"
            + table(["run", "peak RSS MB", "time / json", "time / tiktoken", "s"], rows))


if __name__ == "__main__":
    main()
