"""One input file as a job: read it, run the mode the options ask for (copy | check | summary |
budget), and hand back an Outcome; the caller decides where the bytes go."""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Callable, Iterable
from contextlib import ExitStack
from functools import partial
from pathlib import Path
from typing import Any, BinaryIO, cast

from sanitizer import modes  # the modes' own modules (HTML here): imported when their mode runs
from sanitizer.document import filelines, loader, writer
from sanitizer.document.loader import InputError
from sanitizer.formats import FormatError, by_name, detect, message_count
from sanitizer.formats.hermes import read_state_db
from sanitizer.model import Damaged, Document
from sanitizer.pipeline import Result, Sanitizer, gc_paused, repair_result
from sanitizer.run.dataset import is_dataset_jsonl, sanitize_jsonl
from sanitizer.run.options import RunOptions, UsageError
from sanitizer.run.outcome import Outcome, guarded
from sanitizer.run.output import WriteError, atomic_output, encode, reason, write_atomic, write_failure
from sanitizer.run.progress import PARSED, SANITIZED, Bar, CountingReader
from sanitizer.run.sizes import file_size

READ_CHUNK = 4 * 1024 * 1024
# An input this big has enough text for the token-counting processes: they are started before it
# is loaded.  (Below, starting them costs more than they save; the counter still starts them on
# its own for a batch of `tokens.PARALLEL_MIN_CHARS`.)
START_WORKERS_BYTES = 1024 * 1024
# A JSONL file this big is read line by line (`InputFile`): its text and lines are never held.
# Below, the whole text is read (faster: no per-line bookkeeping, no second read of the lines).
LINEWISE_BYTES = 4 * 1024 * 1024


def build_sanitizer(opts: RunOptions, threads: int | None = None) -> Sanitizer:
    """The Sanitizer the options ask for (`threads`: token-counting processes, default the API's)."""
    more = {} if threads is None else {"threads": threads}
    if opts.mode in ("check", "summary"):  # read-only modes: no rule runs
        return Sanitizer("none", encoding=opts.encoding, count_tokens=False, format=opts.format, **more)
    return Sanitizer(opts.preset, config=opts.user_config, config_source=opts.user_source, enable=opts.enable,
                     disable=opts.disable, keep_recent=opts.keep_recent, encoding=opts.encoding,
                     count_tokens=opts.count_tokens, format=opts.format, cut_ids=opts.cuts is not None, **more)


class InputFile:
    """A regular JSONL file of `LINEWISE_BYTES` or more, read line by line when it is processed (`document.filelines`): the
    records are built with the collector paused, and the lines stay in the file."""

    def __init__(self, fh: BinaryIO, source: str) -> None:
        self.fh = fh
        self.source = source

    def load(self, bar: Bar | None = None) -> Document:
        """The file's document (the file stays open for its raw lines)."""
        try:
            doc = filelines.from_open(self.fh, self.source, None if bar is None else bar.read)
        except OSError as exc:
            raise InputError(f"{self.source}: cannot read: {reason(exc)}") from exc
        del self.fh  # the document's raw lines own the file now
        return doc


def read_input(source: str, opts: RunOptions, bar: Bar | None = None) -> str | InputFile | Any:
    """The text of a file (or stdin), a JSONL file to read line by line (`InputFile`), or the
    messages of a Hermes state.db session (`bar`: told of the bytes as they are read)."""
    if source == "-":
        if sys.stdin is None:
            raise InputError("-: cannot read: standard input is closed")
        return sys.stdin.buffer.read().decode("utf-8", errors="surrogateescape")
    path = Path(source)
    try:
        fh = path.open("rb")
        with ExitStack() as owned:
            owned.enter_context(fh)
            head = fh.read(16)
            if head.startswith(b"SQLite format 3"):
                if not opts.session:
                    raise InputError(f"{source}: a Hermes state.db holds many sessions; pick one with --session ID")
                # Sanitized as a Hermes JSON session; the database itself is opened read-only.
                return {"session_id": opts.session, "messages": read_state_db(path, opts.session)}
            head += fh.read(filelines.PEEK)
            st = os.fstat(fh.fileno())
            regular = stat.S_ISREG(st.st_mode)
            if regular and st.st_size >= LINEWISE_BYTES and filelines.streamable(head, source):
                fh.seek(0)
                owned.pop_all()  # open until the document lets go of it
                return InputFile(fh, source)
            if regular:  # read again from the start: no second copy of the text to join the head to
                fh.seek(0)
                del head
                data = fh.read() if bar is None else _read_chunks(fh, bar)
            else:
                if bar is not None:
                    bar.read(len(head))
                data = head + (fh.read() if bar is None else _read_chunks(fh, bar))
                del head
    except OSError as exc:
        raise InputError(f"{source}: cannot read: {reason(exc)}") from exc
    return data.decode("utf-8", errors="surrogateescape")


def _read_chunks(fh: Any, bar: Bar) -> bytearray:
    data = bytearray()  # grown in place: no list of chunks beside their join
    while chunk := fh.read(READ_CHUNK):
        data += chunk
        bar.read(len(chunk))
    return data


def check_readable(doc: Document, source: str, san: Sanitizer) -> None:
    """Raise InputError for an input with nothing to sanitize (empty, a scalar) or one that a
    forced `--format` reads no or far fewer messages from than the detected format does."""
    records = [r for r in doc.records if not isinstance(r, Damaged)]
    if not doc.records:
        raise InputError(f"{source}: empty input: no conversation to read")
    if records and not any(isinstance(r, dict | list) for r in records):
        kind = type(records[0]).__name__
        raise InputError(f"{source}: expected a conversation (a JSON object or a list of messages), got {kind}")
    if not san.format or not records:
        return
    forced = by_name(san.format)
    got = message_count(forced, doc)
    try:
        other = detect(doc)
    except FormatError:
        other = None
    more = message_count(other, doc) if other is not None and other is not forced else 0
    if got == 0 and more == 0:
        raise InputError(f"{source}: --format {forced.name} reads no messages from this input; check --format")
    if other is not None and got * 2 < more:
        raise InputError(f"{source}: --format {forced.name} reads {got:,} messages where {other.name} reads "
                         f"{more:,}; drop --format or use --format {other.name}")


Sink = Callable[[Iterable[bytes]], None]
"""Where an output goes as it is made: called once with its pieces (may raise WriteError)."""


def process(san: Sanitizer, source: str, content: str | InputFile | Any, opts: RunOptions, bar: Bar | None = None,
            size: int = 0, sink: Sink | None = None) -> Outcome:
    """Run one input through the pipeline in the mode the options ask for, and encode what it
    gives (loading, the rules, rendering and encoding all inside the pipeline's one loop).

    With `sink`, the output is written there in pieces while the document is still paused for
    the collector, and the Outcome carries no bytes (a failed write: `write_error`).
    """

    def accept(doc: Document) -> None:
        check_readable(doc, source, san)
        if bar is not None:
            bar.step(size, PARSED)
            bar.records(len(doc.records))

    def then(result: Result) -> Outcome:
        outcome = _outcome(result, source, opts, sink)
        if bar is not None:
            bar.step(size, SANITIZED)
        return outcome

    with gc_paused():  # the line-by-line load too (see `gc_paused`); the pipeline's own pause nests
        if isinstance(content, InputFile):
            content = content.load(bar)
        out = san.process(content, source, loaded=isinstance(content, str | Document), mode=opts.mode,
                          budget=opts.budget, repair=opts.repair_pairs, accept=accept, then=then)
    return cast(Outcome, out)


def _outcome(result: Result, source: str, opts: RunOptions, sink: Sink | None = None) -> Outcome:
    """What one input gives: the bytes the options ask for, the report, the check's findings."""
    if opts.mode == "check":
        return Outcome(source, None, result.report, result.findings)
    pieces: Iterable[bytes]
    if opts.mode == "summary":
        pieces = [encode(result.summary_text())]
    elif opts.to == "text":
        pieces = [encode(result.text())]
    elif opts.to == "messages":
        convs = result.conversations()
        pieces = [encode(loader.dumps_value(convs[0], indent=2) + "\n" if len(convs) == 1 else
                         "".join(loader.dumps_value(c) + "\n" for c in convs))]
    else:
        pieces = writer.chunks(result.doc)
    if opts.mode != "summary":
        if opts.cuts is not None:  # redacted unless --cuts-include-secrets
            write_atomic(sidecar_path(opts, source), result.cuts_sidecar(include_secrets=opts.cuts_secrets).encode())
        if opts.html is not None:  # the page is built from the result's (redacted) texts only
            write_atomic(Path(opts.html), encode(modes.render_html(result)))
    if sink is None:
        return Outcome(source, b"".join(pieces), result.report)
    try:
        sink(pieces)
    except WriteError as exc:
        return Outcome(source, None, result.report, write_error=str(exc))
    return Outcome(source, None, result.report)


def sidecar_path(opts: RunOptions, source: str) -> Path:
    """Where the cuts sidecar of `source` goes: the --cuts file, or `<name>.cuts.jsonl` in its folder."""
    assert opts.cuts is not None
    if not opts.cuts_dir:
        return Path(opts.cuts)
    return Path(opts.cuts) / f"{Path('stdin' if source == '-' else source).name}.cuts.jsonl"


def streamable(source: str, opts: RunOptions, san: Sanitizer) -> bool:
    """A dataset JSONL file in plain copy mode is processed line by line (bounded memory); with
    --html or --cuts the whole file is read, since the page and the cut ids cover the whole file."""
    return (opts.mode == "copy" and opts.budget is None and opts.to == "same" and opts.html is None
            and opts.cuts is None and source != "-" and is_dataset_jsonl(source, san))


def sniff_streamable(source: str, opts: RunOptions, san: Sanitizer) -> bool:
    """`streamable`, False when the file cannot be read (that is reported when it is read)."""
    try:
        return streamable(source, opts, san)
    except (OSError, InputError, RecursionError):
        return False


def stream_file(san: Sanitizer, source: str, target: Path | None, opts: RunOptions, stdout: Callable[[bytes], object],
                jobs: int = 1, bar: Bar | None = None) -> Outcome:
    """Stream a dataset JSONL to `target` (atomically) or `stdout`; `jobs` processes share its lines."""
    if bar is not None:
        with open(source, "rb") as fh:
            return _stream_file(san, source, CountingReader(fh, bar), target, opts, stdout, jobs)
    return _stream_file(san, source, source, target, opts, stdout, jobs)


def _stream_file(san: Sanitizer, source: str, src: Any, target: Path | None, opts: RunOptions,
                 stdout: Callable[[bytes], object], jobs: int) -> Outcome:
    finish = None if opts.repair_pairs == "report" else partial(repair_result, mode=opts.repair_pairs)
    if target is None:
        report = sanitize_jsonl(san, src, stdout, source=source, finish=finish, jobs=jobs)
    else:
        try:
            with atomic_output(target) as write:
                report = sanitize_jsonl(san, src, write, source=source, finish=finish, jobs=jobs)
        except OSError as exc:
            if exc.filename == source:
                raise
            raise write_failure(exc, str(target)) from exc
    return Outcome(source, None, report)


def one(san: Sanitizer, source: str, opts: RunOptions, bar: Bar | None = None, sink: Sink | None = None) -> Outcome:
    """Read and process one input (its output into `sink` when given); an input it cannot
    handle gives an Outcome with `error`."""
    size = file_size(source) if bar is not None else 0
    return guarded(source, lambda: process(san, source, read_input(source, opts, bar), opts, bar, size, sink))


def file_sink(target: Path) -> Sink:
    """A sink that writes an output atomically into `target` (`output.write_atomic`)."""
    return partial(write_atomic, target)


def targets(files: tuple[str, ...], output: Path | None, opts: RunOptions) -> list[Path | None]:
    """Where each input's output goes (None: stdout); refuses to overwrite an input."""
    if output is None:
        return [None] * len(files)
    if len(files) > 1 or output.is_dir():
        suffix = {"text": ".txt", "messages": ".json"}.get(opts.to)
        names = [Path("stdin.jsonl" if f == "-" else f).name for f in files]
        if len(set(names)) != len(names):
            raise UsageError("two inputs share a file name; give them one at a time with -o")
        found: list[Path | None] = [output / (Path(n).with_suffix(suffix).name if suffix else n) for n in names]
    else:
        found = [output]
    for src, target in zip(files, found, strict=True):
        if target is not None and src != "-" and _same_file(Path(src), target):
            raise UsageError(f"{target}: refusing to overwrite the input; choose another -o")
    return found


def _same_file(src: Path, target: Path) -> bool:
    try:
        return src.resolve() == target.resolve() or (target.exists() and src.samefile(target))
    except OSError:
        return False
