"""How the run layer tells its caller about progress: a no-op base the command line draws from."""

from __future__ import annotations

from collections.abc import Iterator
from typing import BinaryIO

# Shares of a file's bytes credited for each step of processing it in this process.
READ, PARSED, SANITIZED = 0.2, 0.1, 0.6  # the rest when its output is encoded


class Bar:
    """Where the run credits progress; the base class draws nothing."""

    def read(self, n: int) -> None:
        """`n` bytes of the current file were read (its READ share of them is credited)."""

    def step(self, size: int, share: float) -> None:
        """A step worth `share` of a file of `size` bytes is done."""

    def records(self, n: int) -> None:
        """`n` more records were processed."""

    def file_done(self, source: str, size: int) -> None:
        """`source` is finished: the bar reaches the sum of the finished files' sizes."""


class CountingReader:
    """A binary file that tells `bar` how many bytes and lines were read through it."""

    def __init__(self, fh: BinaryIO, bar: Bar) -> None:
        self.fh = fh
        self.bar = bar
        self.name = fh.name

    def _seen(self, data: bytes) -> bytes:
        if data:
            self.bar.step(len(data), 1.0)
            self.bar.records(data.count(b"\n"))
        return data

    def read(self, size: int = -1) -> bytes:
        return self._seen(self.fh.read(size))

    def readline(self, size: int = -1) -> bytes:
        return self._seen(self.fh.readline(size))

    def __iter__(self) -> Iterator[bytes]:
        for line in self.fh:
            self.bar.step(len(line), 1.0)
            self.bar.records(1)
            yield line

    def fileno(self) -> int:
        return self.fh.fileno()

    def tell(self) -> int:
        return self.fh.tell()
