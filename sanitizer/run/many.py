"""`sanitize FILE… --jobs N`: files sanitized in N worker processes, outcomes in input order.

- The parent builds the Sanitizer once; forked workers inherit it (with the spawn start method the
  initializer builds one from the options instead).  The token counter's own pool is handled as
  `workers` says: none crosses the fork, each of N workers counts with `default_threads() // N`
  processes, and a worker closes its pool before it exits.  While the workers run, the parent
  counts inline (a fork beside the pool's threads is not safe).
- With an output file, a worker writes its own output atomically and sends back only its report;
  a dataset JSONL is streamed there line by line (bounded memory).  Only stdout outputs travel
  back to the parent, which prints them in input order.  Under `--strict` no worker writes: the
  parent writes, in order, once it has seen every file's problems (`cli_run.run`).
- The biggest files are submitted first (the last ones to finish are small), and outcomes are
  yielded in input order.  Stdin, and a dataset JSONL streamed to stdout, are handled by the
  parent when their turn comes.
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import Future
from pathlib import Path
from typing import TYPE_CHECKING

from sanitizer.cli.errors import guarded
from sanitizer.cli.write import stream_file, write_atomic
from sanitizer.run import procs
from sanitizer.run.job import Outcome, _streamable, build_sanitizer, one, process, read_input, streamable
from sanitizer.run.workers import adopt, before_fork

if TYPE_CHECKING:
    from sanitizer.cli.command import RunOptions
    from sanitizer.pipeline import Sanitizer

_worker: Sanitizer | None = None


def _init_worker(opts: RunOptions, threads: int) -> None:
    global _worker
    if _worker is None:  # spawned, not forked: nothing was inherited
        _worker = build_sanitizer(opts, threads)
    adopt(_worker, threads)


def _work(source: str, target: Path | None, opts: RunOptions) -> Outcome:
    """In a worker: process one file; with a target, write the output there and return no bytes
    (an input or output it cannot handle comes back as an Outcome with `error`)."""
    return guarded(source, _work_on, source, target, opts)


def _work_on(source: str, target: Path | None, opts: RunOptions) -> Outcome:
    san = _worker
    assert san is not None, "worker not initialized"
    if target is None:
        return process(san, source, read_input(source, opts), opts)
    if streamable(source, opts, san):
        return stream_file(san, source, target, opts)
    outcome = process(san, source, read_input(source, opts), opts)
    if outcome.output is not None:
        write_atomic(target, outcome.output)
        outcome.output = None
    return outcome


def _size(source: str) -> int:
    try:
        return Path(source).stat().st_size
    except OSError:
        return 0


def _warm_imports() -> None:
    """Import, once in the parent, the modules `process` imports lazily (forked workers inherit them)."""
    from sanitizer import validate  # noqa: F401
    from sanitizer.budget import fit  # noqa: F401
    from sanitizer.document import loader  # noqa: F401
    from sanitizer.run import dataset as stream  # noqa: F401
    from sanitizer.summary import from_input as fallback  # noqa: F401


def pooled(files: tuple[str, ...], targets: list[Path | None], opts: RunOptions, san: Sanitizer, jobs: int, *,
           strict: bool) -> Iterator[Outcome]:
    """The outcomes of `files` in input order, processed by `jobs` worker processes.

    Workers write to their target unless `strict` (then every output comes back to the parent).
    """
    global _worker
    # Stdin, and dataset JSONL bound for stdout (streamed, not held whole), stay in the parent.
    streamed = {i for i, (f, t) in enumerate(zip(files, targets, strict=True))
                if not strict and t is None and f != "-" and _streamable(f, opts, san)}
    work = sorted((i for i, f in enumerate(files) if f != "-" and i not in streamed), key=lambda i: -_size(files[i]))
    futures: dict[int, Future[Outcome]] = {}
    pool = None
    threads = san.counter.threads
    if work:
        _warm_imports()
        before_fork(san)
        _worker = san
        pool = procs.new_pool(min(jobs, len(work)), initializer=_init_worker, initargs=(opts, threads))
    try:
        for i in work:
            assert pool is not None
            futures[i] = pool.submit(_work, files[i], None if strict else targets[i], opts)
        san.counter.threads = 1  # the workers are forked by now (at the first submit)
        for i, source in enumerate(files):
            if i in futures:
                yield futures[i].result()
            elif i in streamed:
                yield guarded(source, stream_file, san, source, None, opts)
            else:
                yield one(san, source, opts)
    finally:
        _worker = None
        san.counter.threads = threads
        if pool is not None:
            procs.close_pool(pool)
