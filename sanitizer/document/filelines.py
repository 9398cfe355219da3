"""A JSONL file read line by line into a `Document` whose raw lines stay in the file.

The whole-text reader holds the decoded text, its lines and the records at once; here each line
is read, parsed and dropped, and `FileLines` keeps only where each line starts, its length and
its CRC-32.  An untouched line is read back from the file (still open) when it is written, and
checked against its CRC: a file changed while it is sanitized stops the run with one line, never
a silently mixed copy.  The records, line numbers, problems and output bytes are those of
`loader.from_text` on the decoded file.
"""

from __future__ import annotations

import os
import weakref
import zlib
from array import array
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, BinaryIO, overload

from sanitizer.document import fastjson, loader
from sanitizer.errors import InputError
from sanitizer.model import Damaged, Document, Problem

# What `str.isspace` holds among single bytes (ASCII whitespace and the four separators): bytes
# the whole-text reader would also skip before the first char.
_LEADING_SPACE = b" \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f"
PEEK = 64 * 1024
PROGRESS_BYTES = 4 * 1024 * 1024
SHORT = 64  # chars: up to this a string is shared with every record that holds it


class _Source:
    """The open input file the lines are read back from; closed when no line list needs it."""

    def __init__(self, fh: BinaryIO, name: str) -> None:
        self.fd = fh.fileno()
        self.name = name
        weakref.finalize(self, fh.close)

    def read(self, start: int, length: int, crc: int, number: int) -> bytes:
        try:
            data = os.pread(self.fd, length, start)
        except OSError as exc:
            raise InputError(f"{self.name}: cannot read it again to copy line {number}: "
                             f"{(exc.strerror or str(exc)).lower()}") from exc
        if len(data) != length or zlib.crc32(data) != crc:
            raise InputError(f"{self.name}:{number}: the file changed while it was being sanitized; run again")
        return data


class FileLines(Sequence[str]):
    """The raw text of each JSONL line (without its `\\n`), read from the file when asked for."""

    def __init__(self, source: _Source, starts: array, lengths: array, crcs: array, numbers: range) -> None:
        self._source = source
        self._starts, self._lengths, self._crcs = starts, lengths, crcs
        self._numbers = numbers  # the 1-based line number of each entry (slices keep theirs)

    def __len__(self) -> int:
        return len(self._starts)

    @overload
    def __getitem__(self, i: int) -> str: ...
    @overload
    def __getitem__(self, i: slice) -> FileLines: ...

    def __getitem__(self, i: int | slice) -> str | FileLines:
        if isinstance(i, slice):
            return FileLines(self._source, self._starts[i], self._lengths[i], self._crcs[i], self._numbers[i])
        return self.bytes_at(i).decode("utf-8", errors="surrogateescape")

    def bytes_at(self, i: int) -> bytes:
        """The bytes of entry `i` as they are in the file (checked against what was read)."""
        return self._source.read(self._starts[i], self._lengths[i], self._crcs[i], self._numbers[i])

    def __iter__(self) -> Iterator[str]:
        return (self[i] for i in range(len(self)))


def streamable(head: bytes, source: str) -> bool:
    """True when `loader.from_text` reads a file starting with `head` as JSONL line by line:
    a `.jsonl` name and `{` as the first char after whitespace."""
    return source.endswith(".jsonl") and head.lstrip(_LEADING_SPACE)[:1] == b"{"


class _Shared:
    """Equal strings made one object while the records are read: short ones (names, ids, paths)
    shared by every record, long ones (a tool output and its copy) within one record.

    Strings are immutable and nothing here tells equal strings apart, so only memory changes
    (dicts keep their order).  The same walk notices a float orjson made of a wide integer.
    """

    def __init__(self) -> None:
        self.memo: dict[str, str] = {}
        self.local: dict[str, str] = {}
        self.wide = False

    def record(self, value: Any, keys: bool) -> Any:
        """`value` shared (`keys`: the keys too: `json` shares them only within a line)."""
        self.local = {}
        self.wide = False
        return self._node(value, keys)

    def _str(self, s: str) -> str:
        return self.memo.setdefault(s, s) if len(s) <= SHORT else self.local.setdefault(s, s)

    def _node(self, node: Any, keys: bool) -> Any:
        t = type(node)
        if t is dict:
            if keys:
                node = {self.memo.setdefault(k, k): v for k, v in node.items()}
            for k, v in node.items():
                tv = type(v)
                if tv is str:
                    node[k] = self._str(v)
                elif tv is dict or tv is list:
                    node[k] = self._node(v, keys)
                elif tv is float and not -fastjson.WIDE < v < fastjson.WIDE:
                    self.wide = True
        elif t is list:
            for i, v in enumerate(node):
                tv = type(v)
                if tv is str:
                    node[i] = self._str(v)
                elif tv is dict or tv is list:
                    node[i] = self._node(v, keys)
                elif tv is float and not -fastjson.WIDE < v < fastjson.WIDE:
                    self.wide = True
        elif t is str:
            node = self._str(node)
        elif t is float and not -fastjson.WIDE < node < fastjson.WIDE:
            self.wide = True
        return node


def parse_bytes(body: bytes, number: int, source: str, shared: _Shared) -> tuple[Any, Problem | None]:
    """`loader.parse_line` of the decoded `body` (a line without its `\\n`), by orjson where it
    reads the line as `json` does, its strings shared (`_Shared`)."""
    shallow = body.count(b"{") + body.count(b"[") < fastjson.MAX_OPENERS  # no walk nests too deep
    if shallow and fastjson.ENABLED and body[:1] == b"{":
        value = fastjson.loads_unscanned(body[:-1] if body.endswith(b"\r") else body)
        if value is not fastjson.MISS:
            value = shared.record(value, keys=False)  # orjson shares keys already
            if not shared.wide:
                return value, None
    record, problem = loader.parse_line_stdlib(body.decode("utf-8", errors="surrogateescape"), number, source)
    if shallow and problem is None and not isinstance(record, Damaged):
        record = shared.record(record, keys=True)
    return record, problem


def from_file(path: str | Path, source: str, progress: Callable[[int], None] | None = None) -> Document | None:
    """The document `loader.from_text` makes of the file's decoded text, read line by line; None
    when the file is not JSONL by that reader's rules (`streamable`): the caller reads it whole."""
    fh = open(path, "rb")  # noqa: SIM115 -- kept open by the document's raw lines
    try:
        if not streamable(fh.read(PEEK), source):
            fh.close()
            return None
        fh.seek(0)
        return from_open(fh, source, progress)
    except BaseException:
        fh.close()
        raise


def from_open(fh: BinaryIO, source: str, progress: Callable[[int], None] | None = None) -> Document:
    """The document of the JSONL file open at its start in `fh` (`streamable` said yes), which
    its raw lines keep open until the document is gone.  `progress` is told of the bytes read."""
    records: list[Any] = []
    problems: list[Problem] = []
    starts, lengths, crcs = array("q"), array("q"), array("L")
    offset = told = 0
    ended = True
    shared = _Shared()
    for number, line in enumerate(fh, start=1):
        size = len(line)
        ended = line.endswith(b"\n")
        body = line[:-1] if ended else line
        record, problem = parse_bytes(body, number, source, shared)
        records.append(record)
        if problem is not None:
            problems.append(problem)
        starts.append(offset)
        lengths.append(len(body))
        crcs.append(zlib.crc32(body))
        offset += size
        if progress is not None and offset - told >= PROGRESS_BYTES:
            progress(offset - told)
            told = offset
    if progress is not None and offset > told:
        progress(offset - told)
    raw = FileLines(_Source(fh, source), starts, lengths, crcs, range(1, len(records) + 1))
    return Document(records=records, container="jsonl", source=source, lines=list(range(1, len(records) + 1)),
                    raw_lines=raw, problems=problems, trailing_newline=ended)  # type: ignore[arg-type]
