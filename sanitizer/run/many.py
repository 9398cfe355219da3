"""Many input files: their outcomes in input order, one at a time or in N worker processes (`--jobs N`).

- The parent builds the Sanitizer once; forked workers inherit it (with the spawn start method the
  initializer builds one from the options instead).  The token counter's own pool is handled as
  `workers` says: none crosses the fork, each of N workers counts with `default_threads() // N`
  processes, and a worker closes its pool before it exits.  While the workers run, the parent
  counts inline (a fork beside the pool's threads is not safe).
- With an output file, a worker writes its own output atomically and sends back only its report;
  a dataset JSONL is streamed there line by line (bounded memory).  Only stdout outputs travel
  back to the parent, which prints them in input order.  Under `--strict` no worker writes: the
  parent writes, in order, once it has seen every file's problems (`cli.write.run`).
- The biggest files are submitted first (the last ones to finish are small), and outcomes are
  yielded in input order.  Stdin, and a dataset JSONL streamed to stdout, are handled by the
  parent when their turn comes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from sanitizer import processes
from sanitizer.pipeline import Sanitizer
from sanitizer.run.job import (
    START_WORKERS_BYTES,
    Sink,
    build_sanitizer,
    file_sink,
    one,
    process,
    read_input,
    sniff_streamable,
    stream_file,
    streamable,
)
from sanitizer.run.options import RunOptions
from sanitizer.run.outcome import Outcome, guarded
from sanitizer.run.output import WriteError
from sanitizer.run.progress import Bar
from sanitizer.run.sizes import encoding_workers, file_size
from sanitizer.run.workers import adopt, before_fork

if TYPE_CHECKING:
    from concurrent.futures import Future

Write = Callable[[bytes], object]
_worker: Sanitizer | None = None


def outcomes(files: tuple[str, ...], opts: RunOptions, san: Sanitizer, jobs: int, *, bar: Bar,
             targets: list[Path | None], strict: bool, stdout: Write) -> Iterable[Outcome]:
    """One Outcome per input, in input order (lazily where outputs are written as they come);
    `stdout` receives a dataset streamed to standard output."""
    if jobs > 1 and len(files) > 1:
        return pooled(files, targets, opts, san, jobs, strict=strict, stdout=stdout)
    # --strict must see problems before any output is written, so it never streams.
    streams = [False] * len(files) if strict else [sniff_streamable(f, opts, san) for f in files]  # sniffed once
    # Counting workers that read the encoding while this process reads the input: every core's for
    # a dataset, whose lines are counted in batches after they are sanitized (one worker fell behind).
    if workers := encoding_workers(files, opts, jobs):
        san.counter.start_workers(load=san.counter.threads if any(streams) else workers)
    if any(streams):
        return _streamed(files, streams, opts, san, jobs, targets, bar, stdout)
    if not workers and san.count_tokens and max(map(file_size, files), default=0) >= START_WORKERS_BYTES:
        san.counter.start_workers()  # before a big input is loaded (see TokenCounter.start_workers)
    if strict:
        return [one(san, f, opts, bar) for f in files]
    # Each output is written as it is made (never whole in memory): into its file, or to stdout
    # when it is the only one (several wait for the run, so stdout gets them in input order).
    sinks = [file_sink(t) if t is not None else _stdout_sink(stdout) if len(files) == 1 else None for t in targets]
    return [one(san, f, opts, bar, sink) for f, sink in zip(files, sinks, strict=True)]


def _stdout_sink(stdout: Write) -> Sink:
    def sink(pieces: Iterable[bytes]) -> None:
        for piece in pieces:
            stdout(piece)
    return sink


def _streamed(files: tuple[str, ...], streams: list[bool], opts: RunOptions, san: Sanitizer, jobs: int,
              targets: list[Path | None], bar: Bar, stdout: Write) -> Iterator[Outcome]:
    """Dataset JSONL files (`streams`) go straight to their output, line by line (`jobs` processes
    share the lines of one file); yielded one at a time so stdout gets every output in input order."""
    for f, is_stream, t in zip(files, streams, targets, strict=True):
        yield guarded(f, stream_file, san, f, t, opts, stdout, jobs, bar) if is_stream else one(san, f, opts, bar)


def _init_worker(opts: RunOptions, threads: int) -> None:
    global _worker
    if _worker is None:  # spawned, not forked: nothing was inherited
        _worker = build_sanitizer(opts, threads)
    adopt(_worker, threads)


def _work(source: str, target: Path | None, opts: RunOptions) -> Outcome:
    """In a worker: process one file; with a target, write the output there and return no bytes
    (an input or output it cannot handle comes back as an Outcome with `error`)."""
    return guarded(source, _work_on, source, target, opts)


def _no_stdout(data: bytes) -> None:
    raise AssertionError("a worker never writes to standard output")


def _work_on(source: str, target: Path | None, opts: RunOptions) -> Outcome:
    san = _worker
    assert san is not None, "worker not initialized"
    if target is None:
        return process(san, source, read_input(source, opts), opts)
    if streamable(source, opts, san):
        return stream_file(san, source, target, opts, _no_stdout)
    outcome = process(san, source, read_input(source, opts), opts, sink=file_sink(target))
    if outcome.write_error is not None:
        raise WriteError(outcome.write_error)
    return outcome


def pooled(files: tuple[str, ...], targets: list[Path | None], opts: RunOptions, san: Sanitizer, jobs: int, *,
           strict: bool, stdout: Write) -> Iterator[Outcome]:
    """The outcomes of `files` in input order, processed by `jobs` worker processes.

    Workers write to their target unless `strict` (then every output comes back to the parent).
    """
    global _worker
    # Stdin, and dataset JSONL bound for stdout (streamed, not held whole), stay in the parent.
    streamed = {i for i, (f, t) in enumerate(zip(files, targets, strict=True))
                if not strict and t is None and f != "-" and sniff_streamable(f, opts, san)}
    work = sorted((i for i, f in enumerate(files) if f != "-" and i not in streamed),
                  key=lambda i: -file_size(files[i]))
    futures: dict[int, Future[Outcome]] = {}
    pool = None
    threads = san.counter.threads
    if work:
        before_fork(san)
        _worker = san
        pool = processes.new_pool(min(jobs, len(work)), initializer=_init_worker, initargs=(opts, threads))
    try:
        for i in work:
            assert pool is not None
            futures[i] = pool.submit(_work, files[i], None if strict else targets[i], opts)
        san.counter.threads = 1  # the workers are forked by now (at the first submit)
        for i, source in enumerate(files):
            if i in futures:
                yield futures[i].result()
            elif i in streamed:
                yield guarded(source, stream_file, san, source, None, opts, stdout)
            else:
                yield one(san, source, opts)
    finally:
        _worker = None
        san.counter.threads = threads
        if pool is not None:
            processes.close_pool(pool)
