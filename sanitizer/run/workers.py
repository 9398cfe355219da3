"""What the `--jobs` process pools (files: `cli_jobs`; dataset lines: `stream_pool`) share.

A pool's workers are forked from a parent that holds the Sanitizer (rules, engine, encoding), so
they inherit it instead of building it.  The token counter of that Sanitizer encodes big batches
in its own pool of processes (`TokenCounter.threads` of them), so:

- the parent closes its counter's pool before forking (a worker must not inherit a pool whose
  processes are not its children);
- each of N workers gets `default_threads() // N` counting processes, so N workers do not
  oversubscribe the cores (counts are exact whatever that number);
- a worker closes its counter's pool when it exits: a worker process joins its children at
  exit, and the counter's processes would otherwise wait for work forever.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sanitizer.tokens.counter import default_threads

if TYPE_CHECKING:
    from sanitizer.pipeline import Sanitizer


def worker_threads(jobs: int, inputs: int | None = None) -> int:
    """Counting processes per worker when `jobs` workers share the cores (`inputs`: at most that many busy)."""
    busy = jobs if inputs is None else min(jobs, inputs)
    return max(1, default_threads() // max(1, busy))


def before_fork(san: Sanitizer) -> None:
    """Call in the parent before a pool forks its workers."""
    san.counter.close()


def adopt(san: Sanitizer, threads: int) -> None:
    """Call in a worker on the Sanitizer it inherited (or built): its share of counting processes,
    and its counter's own pool closed before the worker's exit joins that pool's processes."""
    san.counter.threads = threads
    # Before the finalizers (priority 10) that stop the feeder threads of multiprocessing queues:
    # closing the pool sends its processes their stop sentinels through such a queue.
    from multiprocessing import util  # here: a worker has it imported; a plain start need not

    util.Finalize(san.counter, san.counter.close, exitpriority=100)
