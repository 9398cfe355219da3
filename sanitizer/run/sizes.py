"""The sizes of inputs, read from the file system before they are opened."""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence

__all__ = ["file_size", "known_size"]


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
