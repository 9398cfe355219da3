"""Line-by-line sanitizing of dataset JSONL (one conversation per line), in bounded memory.

A dataset file can hold gigabytes of conversations; each line is its own conversation and is
sanitized independently (DESIGN §2), so it is read, sanitized and written one line at a time:
memory is bounded by the largest line, not by the file.  The output bytes and the report are the
same as the whole-file path (`Sanitizer.sanitize_text` + `loader.to_text`) would give:

- untouched lines are written back byte for byte, damaged and blank lines are copied through;
- the last line ends with a newline only if the input's did;
- problems carry their real line numbers, and each cut its real record index and line.

Use `is_dataset_jsonl` to decide, then `sanitize_jsonl` to run (see the functions' docs).
"""

from __future__ import annotations

import copy
import os
import stat
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from sanitizer import formats
from sanitizer.document import loader
from sanitizer.report import Report
from sanitizer.run import procs
from sanitizer.tokens import tally as token_report
from sanitizer.tokens.tally import Tally

if TYPE_CHECKING:
    from sanitizer.pipeline import Result, Sanitizer

# Detection looks at the same records the whole-file path would (up to 300, see ClaudeCode.sniff),
# but reads no more than this many bytes for it.
HEAD_LINES = 300
HEAD_BYTES = 64 * 1024 * 1024
# Token counts remembered from earlier lines (repeated system prompts) are kept up to this size.
MEMO_CHARS = 8 * 1024 * 1024
# Lines whose token figures are counted together: enough text for the counter's worker processes
# (`tokens.PARALLEL_MIN_CHARS`), little enough memory for the lines held until then.
COUNT_BATCH_CHARS = 4 * 1024 * 1024


def numbered_lines(fh: BinaryIO, start: int = 1) -> Iterator[tuple[int, str, bool]]:
    """(number counted from `start`, text without `\\n`, had `\\n`) of each physical line."""
    for number, raw in enumerate(fh, start=start):
        ended = raw.endswith(b"\n")
        yield number, (raw[:-1] if ended else raw).decode("utf-8", errors="surrogateescape"), ended


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
        return san.format == "dataset"
    doc = loader.Document(records=records, container="jsonl", source=str(path), lines=list(range(1, len(raw) + 1)),
                          raw_lines=raw, trailing_newline=True)
    try:
        return formats.detect(doc).name == "dataset"
    except formats.FormatError:
        return False


def _first_line_allows(record: object, line: str, forced: bool) -> bool:
    """Whether the first non-blank line leaves a dataset JSONL possible: one JSON object that
    holds a conversation (detection wants every sampled record to hold one), unless forced."""
    from sanitizer.formats.dataset import conversation_of

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
    that many worker processes (see `stream_pool`); the bytes and the report are the same.
    Returns the merged report of all lines, equal to the whole-file report except for `seconds`.
    """
    if isinstance(src, str | Path):
        with open(src, "rb") as fh:
            return sanitize_jsonl(san, fh, write, source=source or str(src), finish=finish, jobs=jobs)
    source = source or getattr(src, "name", "<input>")
    if jobs > 1:
        from sanitizer.run.dataset_pool import sanitize_parallel

        return sanitize_parallel(san, src, write, source=source, finish=finish, jobs=jobs)
    return run_lines(san, numbered_lines(src), write, source, finish)


def empty_report(san: Sanitizer, source: str) -> Report:
    """The report a dataset stream starts from (lines' reports are merged into it)."""
    return Report(source=source, format="dataset", preset=san.config.name,
                  tokens_before=0 if san.count_tokens else None, tokens_after=0 if san.count_tokens else None,
                  encoding=san.counter.encoding_name if san.count_tokens else None)


def run_lines(san: Sanitizer, lines: Iterable[tuple[int, str, bool]], write: Callable[[bytes], object],
              source: str, finish: Callable[[Result], None] | None = None) -> Report:
    """Sanitize numbered lines (as `numbered_lines` gives them) one at a time; their merged report.

    Token figures are counted for batches of lines at once (`COUNT_BATCH_CHARS` of text), so a
    batch of small lines is encoded by the counter's worker processes like one big conversation,
    while this process sanitizes the next batch; a batch's lines are written once it is counted.
    """
    line_san = copy.copy(san)  # shares the rules, engine and token memo; only the format differs
    line_san.format = "dataset"
    total = empty_report(san, source)
    pending: list[tuple[Report, Tally | None, bytes]] = []  # lines sanitized, not counted yet
    pending_chars = 0
    counting: Callable[[], None] = lambda: None  # noqa: E731 - the batch being counted: waits, writes it

    def count_pending() -> Callable[[], None]:
        batch = list(pending)
        started = time.perf_counter()
        fill = token_report.settle_later(san.counter, [t for _, t, _ in batch if t is not None])
        total.seconds += time.perf_counter() - started

        def write_batch() -> None:
            started = time.perf_counter()
            fill()
            total.seconds += time.perf_counter() - started
            for report, _, data in batch:
                total.merge(report)
                write(data)

        return write_batch

    for number, line, ended in lines:
        result = line_san.run(loader.from_line(line, number, source), defer_tokens=True)
        if finish is not None:
            finish(result)
        for cut in result.report.cuts:
            cut.record = number - 1
        total.seconds += result.report.seconds
        text = loader.to_text(result.doc)
        pending.append((result.report, result.tally,
                        text.encode("utf-8", errors="surrogateescape") + (b"\n" if ended else b"")))
        pending_chars += result.tally.chars if result.tally is not None else 0
        if pending_chars >= COUNT_BATCH_CHARS or result.tally is None:
            # The previous batch is written once counted; this one is counted while the next
            # lines are sanitized (the counter's worker processes take big batches).
            counting()
            counting = count_pending()
            pending.clear()
            pending_chars = 0
            san.counter.trim(MEMO_CHARS)
    counting()
    if pending:
        count_pending()()
    return total


@contextmanager
def atomic_output(target: Path) -> Iterator[Callable[[bytes], object]]:
    """A `write` function for `target`: into a temporary file beside it, renamed onto it on success.

    Writing never destroys: a symlink is followed and its target is replaced (the link stays a
    link); anything that is not a regular file or a folder (a device, a FIFO, a socket,
    `/dev/stdout`, `/dev/fd/N`) is opened and written in place, never renamed over or unlinked.
    """
    place = write_in_place(target)
    if place:
        with open(target, "wb") as fh:
            yield fh.write
        return
    real = Path(os.path.realpath(target)) if target.is_symlink() else target
    real.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{real.name}.", dir=real.parent)
    procs.track_temp(tmp)
    try:
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; a normal output file follows the umask
        with os.fdopen(fd, "wb", buffering=1024 * 1024) as fh:
            yield fh.write
        os.replace(tmp, real)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    finally:
        procs.untrack_temp(tmp)


def write_in_place(target: Path) -> bool:
    """True when `target` must be opened and written, not replaced: it exists (through its
    symlinks) and is not a regular file, or it names a file descriptor (`/dev/fd/N`, `/proc/…`)."""
    try:
        st = os.stat(target)
    except FileNotFoundError:
        return False
    if not stat.S_ISREG(st.st_mode):
        return True
    # `/dev/stdout` redirected to a file resolves to that file through /proc: the caller's shell
    # holds it open, so it is written through, as a redirection would be.
    real = os.path.realpath(target)
    return real.startswith(("/proc/", "/dev/")) or str(target).startswith(("/proc/", "/dev/"))


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
