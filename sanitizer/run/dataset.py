"""Line-by-line sanitizing of dataset JSONL (one conversation per line), in bounded memory.

A dataset file can hold gigabytes of conversations; each line is its own conversation and is
sanitized independently (DESIGN §2), so it is read, sanitized and written one line at a time:
memory is bounded by the largest line, not by the file.  The output bytes and the report are the
same as the whole-file path (`Sanitizer.sanitize_text` + `loader.to_text`) would give:

- untouched lines are written back byte for byte, damaged and blank lines are copied through;
- the last line ends with a newline only if the input's did;
- problems carry their real line numbers, and each cut its real record index and line.

Use `is_dataset_jsonl` to decide, then `sanitize_jsonl` to run (see the functions' docs); the
per-line loop is `lines.run_lines`, the parallel one `dataset_pool`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from sanitizer import formats
from sanitizer.document import loader
from sanitizer.formats.dataset import Dataset, conversation_of
from sanitizer.report import Report
from sanitizer.run.dataset_pool import sanitize_parallel
from sanitizer.run.lines import numbered_lines, run_lines
from sanitizer.run.output import atomic_output

if TYPE_CHECKING:
    from sanitizer.pipeline import Result, Sanitizer

__all__ = ["atomic_output", "is_dataset_jsonl", "numbered_lines", "sanitize_jsonl"]

# Detection looks at the same records the whole-file path would (up to 300, see ClaudeCode.sniff),
# but reads no more than this many bytes for it.
HEAD_LINES = 300
HEAD_BYTES = 64 * 1024 * 1024
def is_dataset_jsonl(path: str | Path, san: Sanitizer | None = None) -> bool:
    """True when the whole-file path would read `path` as JSONL in the `dataset` format.

    That is: the first non-blank char is `{`, the first line is a complete JSON value (so the
    file is not one pretty-printed document), a later line is not blank (else the file is one
    JSON object), and the format is `dataset` (forced by `san.format`, or detected on the first
    lines as the whole-file path would: the same records, each line parsed once).
    """
    forced = bool(san is not None and san.format)
    records: list[object] = []
    raw: list[str] = []
    size = 0
    seen_first = more = False
    with open(path, "rb") as fh:
        for number, line, _ in numbered_lines(fh):
            record, _problem = loader.parse_line(line, number, str(path))
            raw.append(line)
            records.append(record)
            size += len(line)
            if not seen_first and line.strip():
                seen_first = True
                if not _first_line_allows(record, line, forced):
                    return False  # decided on one line, without reading the head
            elif seen_first and not more and line.strip():
                more = True
            if len(raw) >= HEAD_LINES or size >= HEAD_BYTES:
                break
    if not more:
        return False
    if san is not None and san.format:
        return san.format == Dataset.name
    doc = loader.Document(records=records, container="jsonl", source=str(path), lines=list(range(1, len(raw) + 1)),
                          raw_lines=raw, trailing_newline=True)
    try:
        return formats.detect(doc).name == Dataset.name
    except formats.FormatError:
        return False


def _first_line_allows(record: object, line: str, forced: bool) -> bool:
    """Whether the first non-blank line leaves a dataset JSONL possible: one JSON object that
    holds a conversation (detection wants every sampled record to hold one), unless forced."""
    if not line.lstrip().startswith("{") or isinstance(record, loader.Damaged):
        return False
    return forced or bool(conversation_of(record))


def sanitize_jsonl(san: Sanitizer, src: str | Path | BinaryIO, write: Callable[[bytes], object], *,
                   source: str | None = None, finish: Callable[[Result], None] | None = None,
                   jobs: int = 1) -> Report:
    """Sanitize a dataset JSONL line by line, calling `write` with the output bytes in order.

    `src` is a path or a binary file object (stdin: `sys.stdin.buffer`).  `write` receives the
    output in input order, a line (with its `\\n` where the input had one) or a batch of lines at a
    time; the caller decides where the bytes go (stdout, or a temporary file renamed at the end:
    see `atomic_output`).  `finish`, when given, is called on each line's `Result` before it is
    written (for example `functools.partial(repair_result, mode="stub")`; picklable when
    `jobs > 1` and processes are spawned).  With `jobs > 1`, batches of lines are sanitized in
    that many worker processes (see `dataset_pool`); the bytes and the report are the same.
    Returns the merged report of all lines, equal to the whole-file report except for `seconds`.
    """
    if isinstance(src, str | Path):
        with open(src, "rb") as fh:
            return sanitize_jsonl(san, fh, write, source=source or str(src), finish=finish, jobs=jobs)
    source = source or getattr(src, "name", "<input>")
    if jobs > 1:
        return sanitize_parallel(san, src, write, source=source, finish=finish, jobs=jobs)
    return run_lines(san, numbered_lines(src), write, source, finish)
