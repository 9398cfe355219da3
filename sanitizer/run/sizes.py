"""The sizes of inputs, read from the file system before they are opened."""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from typing import TYPE_CHECKING

from sanitizer.processes import default_threads, in_daemon
from sanitizer.tokens.counter import SHORT_MAX_CHARS

if TYPE_CHECKING:
    from sanitizer.run.options import RunOptions

__all__ = ["encoding_workers", "file_size", "known_size"]


def file_size(source: str) -> int:
    """Bytes of a regular file (0 for stdin, a device, or a file that cannot be read)."""
    try:
        return os.stat(source).st_size if source != "-" and os.path.isfile(source) else 0
    except OSError:
        return 0


def known_size(files: Sequence[str]) -> int | None:
    """Total bytes of `files`, or None when one is stdin or no regular file (its size is unknown)."""
    total = 0
    for source in files:
        try:
            st = os.stat(source) if source != "-" else None
        except OSError:
            continue  # reported when it is read
        if st is None or not stat.S_ISREG(st.st_mode):
            return None
        total += st.st_size
    return total


# Up to this size one counting worker keeps up with this process; above, every core counts.  On
# 2 cores, generated Claude Code sessions with the token report: 12 and 40 MB ran 8% and 5%
# faster with one worker than with two; 100 MB 5% slower (`bench/process.py`, `bench/peak.py`).
ONE_WORKER_BYTES = 64 * 1024 * 1024


def encoding_workers(files: Sequence[str], opts: RunOptions, jobs: int) -> int:
    """How many token-counting workers to start before the input is read, each reading the
    encoding itself (`TokenCounter.start_workers(load=...)`) so this process never builds the
    encoder (0: none, this process reads it): for a copy with the exact token report and no
    budget (which counts here, a text at a time), of files too big for `short` to count, in one
    process with other cores at hand.  Two workers building the encoder beside this process
    slowed a 2-core machine more than they saved, below `ONE_WORKER_BYTES`."""
    if opts.mode != "copy" or not opts.count_tokens or opts.budget is not None or jobs > 1:
        return 0  # (--jobs: the processes that take files or lines inherit the encoding this one reads)
    size = known_size(files)
    if size is None or size <= SHORT_MAX_CHARS or default_threads() < 2 or in_daemon():
        return 0
    return 1 if size <= ONE_WORKER_BYTES else default_threads()
