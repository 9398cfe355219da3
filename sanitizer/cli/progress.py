"""The progress bar of `sanitize` on a terminal: bytes read and records processed, as they happen.

One bar over the bytes of all inputs.  A file processed here moves it while it is read (in
chunks), parsed, sanitized and encoded; a dataset streamed here moves it as its lines are read
(a few batches ahead of their output at most) and counts them as records; a file processed by a
`--jobs` worker moves it when its outcome arrives.  Off (a no-op) when stderr is not a terminal,
under `--quiet`, and for small inputs.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sanitizer.run.progress import READ, Bar

# A bar is drawn when the inputs total this many bytes, or for this many files.
MIN_BYTES = 8 * 1024 * 1024
MIN_FILES = 50
UPDATE_BYTES = 256 * 1024


class _Drawn(Bar):
    def __init__(self, progress: Any, total: int) -> None:
        self.progress = progress
        self.task = progress.add_task("sanitizing", total=total, records=0)
        self.credited = 0.0  # bytes credited in this file by read/step
        self.finished = 0  # bytes of the finished files
        self.count = 0
        self.shown = 0.0  # what the bar was last told (updates are batched: a line is cheap)

    def _move(self, amount: float) -> None:
        self.credited += amount
        if self.credited - self.shown >= UPDATE_BYTES:
            self.shown = self.credited
            self.progress.update(self.task, completed=self.finished + self.credited, records=self.count)

    def read(self, n: int) -> None:
        self._move(n * READ)

    def step(self, size: int, share: float) -> None:
        self._move(size * share)

    def records(self, n: int) -> None:
        self.count += n

    def file_done(self, source: str, size: int) -> None:
        self.finished += size
        self.credited = self.shown = 0.0
        self.progress.update(self.task, completed=self.finished, records=self.count, description=source)


@contextmanager
def progress_bar(show: bool, total: int) -> Iterator[Bar]:
    """A bar over `total` bytes on stderr when `show`, else a silent one."""
    if not show:
        yield Bar()
        return
    from rich.console import Console
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn

    columns = (TextColumn("[progress.description]{task.description}"), BarColumn(),
               TextColumn("[progress.percentage]{task.percentage:>3.0f}%"), DownloadColumn(),
               TextColumn("{task.fields[records]:,} records"), TimeRemainingColumn())
    with Progress(*columns, console=Console(stderr=True), redirect_stdout=False, redirect_stderr=False,
                  transient=True) as progress:
        yield _Drawn(progress, max(total, 1))


def should_show(terminal: bool, quiet: bool, sizes: list[int]) -> bool:
    return terminal and not quiet and (sum(sizes) >= MIN_BYTES or len(sizes) >= MIN_FILES)
