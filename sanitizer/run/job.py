"""The work behind `sanitize FILE…`: read, process, write atomically, report on stderr."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from sanitizer.cli.errors import WriteError, check_readable, encode, guarded, reason
from sanitizer.cli.progress import PARSED, SANITIZED, Bar, progress_bar, should_show
from sanitizer.cli.report import BUDGET_NOT_MET
from sanitizer.cli.write import stream_file, write_atomic, write_stdout
from sanitizer.document.loader import InputError
from sanitizer.report import Report

if TYPE_CHECKING:
    from sanitizer.cli.command import RunOptions
    from sanitizer.model import Document
    from sanitizer.pipeline import Sanitizer

READ_CHUNK = 4 * 1024 * 1024


@dataclass
class Outcome:
    """What processing one input produced (picklable, returned from worker processes)."""

    source: str
    output: bytes | None
    report: Report
    findings: list[str] = field(default_factory=list)  # --check / pair findings, as `file:line: what`
    error: str | None = None  # `file[:line]: what is wrong` when this input could not be handled
    code: int = 1  # the exit code `error` asks for (2: its format or session is a usage error)


def build_sanitizer(opts: RunOptions, threads: int | None = None) -> Sanitizer:
    """The Sanitizer the options ask for (`threads`: token-counting processes, default the API's)."""
    from sanitizer.pipeline import Sanitizer

    more = {} if threads is None else {"threads": threads}
    if opts.mode in ("check", "summary"):  # read-only modes: no rule runs
        return Sanitizer("none", encoding=opts.encoding, count_tokens=False, format=opts.format, **more)
    return Sanitizer(opts.preset, config=opts.user_config, config_source=opts.user_source, enable=opts.enable,
                     disable=opts.disable, keep_recent=opts.keep_recent, encoding=opts.encoding,
                     count_tokens=opts.count_tokens, format=opts.format, **more)


# An input this big has enough text for the token-counting processes: they are started before it
# is loaded.  (Below, starting them costs more than they save; the counter still starts them on
# its own for a batch of `tokens.PARALLEL_MIN_CHARS`.)
START_WORKERS_BYTES = 1024 * 1024


def read_input(source: str, opts: RunOptions, bar: Bar | None = None) -> str | Any:
    """The text of a file (or stdin), or the messages of a Hermes state.db session (`bar`: told
    of the bytes as they are read)."""
    if source == "-":
        if sys.stdin is None:
            raise InputError("-: cannot read: standard input is closed")
        return sys.stdin.buffer.read().decode("utf-8", errors="surrogateescape")
    path = Path(source)
    try:
        with path.open("rb") as fh:
            head = fh.read(16)
            if head.startswith(b"SQLite format 3"):
                from sanitizer.formats.hermes import read_state_db

                if not opts.session:
                    raise InputError(f"{source}: a Hermes state.db holds many sessions; pick one with --session ID")
                # Sanitized as a Hermes JSON session; the database itself is opened read-only.
                return {"session_id": opts.session, "messages": read_state_db(path, opts.session)}
            data = head + (fh.read() if bar is None else _read_chunks(fh, bar))
    except OSError as exc:
        raise InputError(f"{source}: cannot read: {reason(exc)}") from exc
    return data.decode("utf-8", errors="surrogateescape")


def _read_chunks(fh: Any, bar: Bar) -> bytes:
    chunks = []
    while chunk := fh.read(READ_CHUNK):
        chunks.append(chunk)
        bar.read(len(chunk))
    return b"".join(chunks)


def process(san: Sanitizer, source: str, content: str | Any, opts: RunOptions, bar: Bar | None = None,
            size: int = 0) -> Outcome:
    """Run one input through the mode the options ask for, with the cyclic GC paused throughout
    (loading and the rules already pause it; this also covers rendering and writing the copy)."""
    from sanitizer.document import loader

    with loader.gc_paused():
        doc = loader.from_text(content, source) if isinstance(content, str) else loader.from_object(content, source)
        check_readable(doc, source, san)
        del content  # the decoded file (up to 4 bytes a char) is not needed once parsed
        if bar is not None:
            bar.step(size, PARSED)
            bar.records(len(doc.records))
        outcome = _process(san, source, doc, opts)
        if bar is not None:
            bar.step(size, SANITIZED)
        # Freed while the collector is paused: otherwise its first pass after the pause walks
        # every object of the document once more (0.18 s on 100,000 messages).
        del doc
    return outcome


def _process(san: Sanitizer, source: str, doc: Document, opts: RunOptions) -> Outcome:
    from sanitizer.document import loader
    from sanitizer.validate import validate_views

    if opts.mode == "check":
        adapter = san.adapter_for(doc)
        views = list(adapter.views(doc))
        report = Report(source=source, format=adapter.name, preset="none", conversations=len(views),
                        messages=sum(len(v.messages) for v in views), problems=list(doc.problems))
        findings = [str(f) for f in validate_views(views)]
        report.extra["check"] = findings
        return Outcome(source, None, report, findings)
    if opts.mode == "summary":
        from sanitizer.summary.from_input import fallback_summary

        adapter = san.adapter_for(doc)
        summary = fallback_summary(doc, format=adapter.name)
        report = Report(source=source, format=adapter.name, preset="summary", problems=list(doc.problems))
        report.extra["summary"] = summary.to_dict()
        return Outcome(source, encode(summary.text if summary.text.endswith("\n") else summary.text + "\n"), report)
    if opts.budget is not None:
        from sanitizer.budget.fit import fit_document

        result = fit_document(san, doc, opts.budget, repair=opts.repair_pairs)
    else:
        result = san.run(doc)
        if opts.repair_pairs != "report":
            from sanitizer.budget.fit import repair_result

            repair_result(result, opts.repair_pairs)
    if opts.to == "text":
        text = result.text()
    elif opts.to == "messages":
        convs = result.conversations()
        text = (loader.dumps_value(convs[0], indent=2) + "\n" if len(convs) == 1 else
                "".join(loader.dumps_value(c) + "\n" for c in convs))
    else:
        text = result.dumps()
    return Outcome(source, encode(text), result.report)


def _targets(files: tuple[str, ...], output: Path | None, opts: RunOptions) -> list[Path | None]:
    if output is None:
        return [None] * len(files)
    if len(files) > 1 or output.is_dir():
        suffix = {"text": ".txt", "messages": ".json"}.get(opts.to)
        names = [Path("stdin.jsonl" if f == "-" else f).name for f in files]
        if len(set(names)) != len(names):
            raise click.UsageError("two inputs share a file name; give them one at a time with -o")
        return [output / (Path(n).with_suffix(suffix).name if suffix else n) for n in names]
    return [output]


def run(files: tuple[str, ...], output: Path | None, opts: RunOptions, *, jobs: int, strict: bool, quiet: bool,
        report_kind: str | None, report_file: Path | None, terminal: bool) -> int:
    targets = _targets(files, output, opts)
    for src, target in zip(files, targets, strict=True):
        if target is not None and src != "-" and _same_file(Path(src), target):
            raise click.UsageError(f"{target}: refusing to overwrite the input; choose another -o")
    from sanitizer.cli.report import Messages, report
    from sanitizer.run.workers import worker_threads

    # Built once, here: --jobs workers inherit it, each with its share of the token-counting processes.
    san = build_sanitizer(opts, worker_threads(jobs, len(files)) if jobs > 1 and len(files) > 1 else None)
    total = Report(source=files[0] if len(files) == 1 else f"{len(files)} files", format="", preset=opts.preset,
                   tokens_before=0 if opts.count_tokens and opts.mode == "copy" else None,
                   encoding=opts.encoding if opts.count_tokens else None)
    # With a JSON report on stderr, every warning goes inside it: stderr stays one JSON document.
    say = Messages(into_report=report_kind == "json" and not quiet)
    sizes = [_size(f) for f in files]
    with progress_bar(should_show(terminal, quiet, sizes), sum(sizes)) as bar:
        outcomes = _outcomes(files, opts, san, jobs, bar=bar, targets=targets, strict=strict)
        try:
            code = _write_all(outcomes, targets, total, opts, say, strict, bar, dict(zip(files, sizes, strict=True)))
        finally:
            close = getattr(outcomes, "close", None)
            if close is not None:
                close()  # a --jobs or streaming generator stopped early closes its pool now
            san.counter.close()
    say.into(total)
    if say.stopped:  # --strict stopped the run: no report file; a JSON report on stderr still says why
        report_file = None
        report_kind = "json" if say.into_report else "none"
    if total.format or report_kind == "json" or report_file is not None:  # no summary of nothing done
        report(total, report_kind, report_file, quiet=quiet, terminal=terminal, mode=opts.mode)
    return code


def _same_file(src: Path, target: Path) -> bool:
    try:
        return src.resolve() == target.resolve() or (target.exists() and src.samefile(target))
    except OSError:
        return False


def _write_all(outcomes: Iterable[Outcome], targets: list[Path | None], total: Report, opts: RunOptions,
               say: Any, strict: bool, bar: Bar, sizes: dict[str, int]) -> int:
    """Write each outcome where it goes, merging its report into `total`; the exit code."""
    from sanitizer.cli.report import budget_warning

    if strict:  # every file's problems are known before any output is written (nothing streams)
        outcomes = list(outcomes)
    code = 0
    formats: list[str] = []
    for outcome, target in zip(outcomes, targets, strict=True):
        bar.file_done(outcome.source, sizes.get(outcome.source, 0))
        for problem in outcome.report.problems:
            say(str(problem))
        for finding in outcome.findings:
            say(finding)
        if strict and (outcome.report.problems or outcome.findings):
            say(f"sanitize: {outcome.source}: stopped (--strict): input problems found")
            say.stopped = True
            return 1
        if outcome.error is not None:
            say(f"sanitize: {outcome.error}")
            if strict:
                say.stopped = True
                return outcome.code
            code = max(code, outcome.code)
            continue
        if outcome.output is not None:
            try:
                write_stdout(outcome.output) if target is None else write_atomic(target, outcome.output)
            except WriteError as exc:
                say(f"sanitize: {exc}")
                if target is None or strict:
                    say.stopped = True
                    return 1
                code = 1
                continue
        warning = budget_warning(outcome.report, strict)
        if warning:
            say(warning)
            code = max(code, BUDGET_NOT_MET if strict else 0)
        formats.append(outcome.report.format)
        total.merge(outcome.report)
        total.seconds += outcome.report.seconds
        total.extra.update(outcome.report.extra)
        if opts.mode == "check":
            total.extra["check"] = total.extra.get("all_findings", []) + outcome.findings
            total.extra["all_findings"] = total.extra["check"]
    total.extra.pop("all_findings", None)
    total.format = ",".join(sorted(set(formats)))
    return code


def streamable(source: str, opts: RunOptions, san: Sanitizer) -> bool:
    """A dataset JSONL file in plain copy mode is processed line by line (bounded memory)."""
    from sanitizer.run.dataset import is_dataset_jsonl

    return (opts.mode == "copy" and opts.budget is None and opts.to == "same" and source != "-"
            and is_dataset_jsonl(source, san))


def one(san: Sanitizer, source: str, opts: RunOptions, bar: Bar | None = None) -> Outcome:
    """Read and process one input; an input it cannot handle gives an Outcome with `error`."""
    size = _size(source) if bar is not None else 0
    return guarded(source, lambda: process(san, source, read_input(source, opts, bar), opts, bar, size))


def _streamable(source: str, opts: RunOptions, san: Sanitizer) -> bool:
    try:
        return streamable(source, opts, san)
    except (OSError, InputError, RecursionError):  # reported when the file is read
        return False


def _size(source: str) -> int:
    try:
        return os.stat(source).st_size if source != "-" and os.path.isfile(source) else 0
    except OSError:
        return 0


def _outcomes(files: tuple[str, ...], opts: RunOptions, san: Sanitizer, jobs: int, *, bar: Bar,
              targets: list[Path | None], strict: bool) -> Iterable[Outcome]:
    """One Outcome per input, in input order (lazily where outputs are written as they come)."""
    if jobs > 1 and len(files) > 1:
        from sanitizer.run.many import pooled

        return pooled(files, targets, opts, san, jobs, strict=strict)
    # --strict must see problems before any output is written, so it never streams.
    streams = [False] * len(files) if strict else [_streamable(f, opts, san) for f in files]  # sniffed once
    if any(streams):
        return _streamed(files, streams, opts, san, jobs, targets, bar)
    if san.count_tokens and max(map(_size, files), default=0) >= START_WORKERS_BYTES:
        san.counter.start_workers()  # before a big input is loaded (see TokenCounter.start_workers)
    return [one(san, f, opts, bar) for f in files]


def _streamed(files: tuple[str, ...], streams: list[bool], opts: RunOptions, san: Sanitizer, jobs: int,
              targets: list[Path | None], bar: Bar) -> Iterator[Outcome]:
    """Dataset JSONL files (`streams`) go straight to their output, line by line (`jobs` processes
    share the lines of one file); yielded one at a time so stdout gets every output in input order."""
    for f, is_stream, t in zip(files, streams, targets, strict=True):
        yield guarded(f, stream_file, san, f, t, opts, jobs, bar) if is_stream else one(san, f, opts, bar)
