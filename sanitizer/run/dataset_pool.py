"""Lines of one dataset JSONL sanitized in parallel: batches of lines in a process pool.

`dataset.sanitize_jsonl(..., jobs=N)` comes here.  Consecutive lines are read in batches of a few
MB (`batches`; a batch ends at a line end, so it is bounded by its size plus the longest line) and
sanitized in N worker processes, each running the sequential per-line loop (`lines.run_lines`)
on its batch with the real line numbers.  Outputs are written in input order as they arrive, and
at most `2 × N` batches are in flight, so memory stays bounded whatever the file size.

The merged report is the sequential one: a batch's report is the merge of its lines' reports
(sums, cuts and problems in line order, rules in order of first appearance), and merging the
batches in order gives exactly the merge of all lines in order.  Counts are exact, so neither the
token memo of each worker nor its thread count changes a figure.

Workers inherit the Sanitizer when processes are forked; with the spawn start method it is
pickled to them once (as is `finish`, which must then be picklable: use `functools.partial`).
Its token counter is handled as `workers` says (its share of counting processes per worker).
"""

from __future__ import annotations

import io
import itertools
import os
from collections import deque
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, BinaryIO

from sanitizer import processes
from sanitizer.report import Report
from sanitizer.run.lines import empty_report, numbered_lines, run_lines
from sanitizer.run.workers import adopt, before_fork, worker_threads

if TYPE_CHECKING:
    from concurrent.futures import Future

    from sanitizer.pipeline import Result, Sanitizer

# A batch holds about this many bytes of lines (fewer for small files, so every worker gets work).
BATCH_MAX = 4 * 1024 * 1024
BATCH_MIN = 256 * 1024
# Batches per worker a file is cut into, when its size is known and small.
BATCHES_PER_JOB = 8
# Batches in flight (submitted, not yet written) per worker.
IN_FLIGHT_PER_JOB = 2

Finish = Callable[["Result"], None] | None


def batch_size(total: int | None, jobs: int) -> int:
    """Bytes per batch: a few MB, smaller for a small file so that `jobs` workers share it."""
    if total is None:
        return BATCH_MAX // 4
    return max(BATCH_MIN, min(BATCH_MAX, total // (jobs * BATCHES_PER_JOB)))


def batches(fh: BinaryIO, size: int) -> Iterator[tuple[int, bytes]]:
    """(number of its first line, bytes) of consecutive batches of whole lines of about `size` bytes."""
    number = 1
    while True:
        blob = fh.read(size)
        if not blob:
            return
        if not blob.endswith(b"\n"):
            blob += fh.readline()  # complete the last line (at the end of input it has no `\n`)
        yield number, blob
        number += blob.count(b"\n")


def _size_of(fh: BinaryIO) -> int | None:
    """Bytes left to read in `fh` when it is a regular file, else None (a pipe)."""
    try:
        st = os.fstat(fh.fileno())
        return max(0, st.st_size - fh.tell()) if st.st_size else None
    except (OSError, AttributeError, io.UnsupportedOperation):
        return None


_state: tuple[Sanitizer, str, Finish] | None = None


def _init(san: Sanitizer, source: str, finish: Finish, threads: int) -> None:
    """Worker start: keep the (inherited or unpickled) Sanitizer, with `threads` counting processes."""
    global _state
    adopt(san, threads)
    _state = (san, source, finish)


def _run_batch(first: int, blob: bytes) -> tuple[bytes, Report]:
    """In a worker: the output bytes and the merged report of one batch of lines."""
    assert _state is not None, "worker not initialized"
    san, source, finish = _state
    out: list[bytes] = []
    report = run_lines(san, numbered_lines(io.BytesIO(blob), first), out.append, source, finish)
    return b"".join(out), report


def sanitize_parallel(san: Sanitizer, fh: BinaryIO, write: Callable[[bytes], object], *, source: str,
                      finish: Finish, jobs: int) -> Report:
    """`dataset.sanitize_jsonl` with `jobs` worker processes (same bytes, same report)."""
    chunks = batches(fh, batch_size(_size_of(fh), jobs))
    head = list(itertools.islice(chunks, 2))
    if len(head) < 2:  # one batch at most: a pool would only add its start-up
        lines = numbered_lines(io.BytesIO(head[0][1]) if head else io.BytesIO(b""))
        return run_lines(san, lines, write, source, finish)
    total = empty_report(san, source)
    before_fork(san)
    pool = processes.new_pool(jobs, initializer=_init, initargs=(san, source, finish, worker_threads(jobs)))
    pending: deque[Future[tuple[bytes, Report]]] = deque()

    def drain_one() -> None:
        out, report = pending.popleft().result()
        total.merge(report)
        total.seconds += report.seconds
        write(out)

    try:
        for first, blob in itertools.chain(head, chunks):
            if len(pending) >= IN_FLIGHT_PER_JOB * jobs:
                drain_one()
            pending.append(pool.submit(_run_batch, first, blob))
        while pending:
            drain_one()
    finally:
        processes.close_pool(pool)
    return total
