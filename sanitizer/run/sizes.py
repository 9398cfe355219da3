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

__all__ = ["file_size", "known_size", "workers_read_encoding"]


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


def workers_read_encoding(files: Sequence[str], opts: RunOptions, jobs: int) -> bool:
    """True where the token-counting workers are started before the input is read and each reads
    the encoding itself (`TokenCounter.start_workers(load=True)`), rather than this process:
    a copy with the exact token report and no budget (which counts in this process, a text at a
    time), of files too big for `short` to count, in one process with other cores at hand."""
    if opts.mode != "copy" or not opts.count_tokens or opts.budget is not None or (jobs > 1 and len(files) > 1):
        return False
    size = known_size(files)
    return size is not None and size > SHORT_MAX_CHARS and default_threads() > 1 and not in_daemon()
