"""The work behind `sanitize FILE…`: read, process, write atomically, report on stderr."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from .loader import InputError
from .report import Report, render_table

if TYPE_CHECKING:
    from .api import Sanitizer
    from .cli import RunOptions
    from .model import Document

PROGRESS_MIN_BYTES = 8 * 1024 * 1024


@dataclass
class Outcome:
    """What processing one input produced (picklable, returned from worker processes)."""

    source: str
    output: bytes | None
    report: Report
    findings: list[str] = field(default_factory=list)  # --check / pair findings, as `file:line: what`


def build_sanitizer(opts: RunOptions, threads: int | None = None) -> Sanitizer:
    """The Sanitizer the options ask for (`threads`: token-counting processes, default the API's)."""
    from .api import Sanitizer

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


def read_input(source: str, opts: RunOptions) -> str | Any:
    """The text of a file (or stdin), or the messages of a Hermes state.db session."""
    if source == "-":
        return sys.stdin.buffer.read().decode("utf-8", errors="surrogateescape")
    path = Path(source)
    try:
        with path.open("rb") as fh:
            head = fh.read(16)
            if head.startswith(b"SQLite format 3"):
                from .formats.hermes import read_state_db

                if not opts.session:
                    raise InputError(f"{source}: a Hermes state.db holds many sessions; pick one with --session ID")
                # Sanitized as a Hermes JSON session; the database itself is opened read-only.
                return {"session_id": opts.session, "messages": read_state_db(path, opts.session)}
            data = head + fh.read()
    except OSError as exc:
        raise InputError(f"{source}: cannot read: {exc.strerror}") from exc
    return data.decode("utf-8", errors="surrogateescape")


def encode(text: str) -> bytes:
    return text.encode("utf-8", errors="surrogateescape")


def process(san: Sanitizer, source: str, content: str | Any, opts: RunOptions) -> Outcome:
    """Run one input through the mode the options ask for, with the cyclic GC paused throughout
    (loading and the rules already pause it; this also covers rendering and writing the copy)."""
    from . import loader

    with loader.gc_paused():
        doc = loader.from_text(content, source) if isinstance(content, str) else loader.from_object(content, source)
        del content  # the decoded file (up to 4 bytes a char) is not needed once parsed
        outcome = _process(san, source, doc, opts)
        # Freed while the collector is paused: otherwise its first pass after the pause walks
        # every object of the document once more (0.18 s on 100,000 messages).
        del doc
    return outcome


def _process(san: Sanitizer, source: str, doc: Document, opts: RunOptions) -> Outcome:
    from .validate import validate_views

    if opts.mode == "check":
        adapter = san.adapter_for(doc)
        views = list(adapter.views(doc))
        report = Report(source=source, format=adapter.name, preset="none", conversations=len(views),
                        messages=sum(len(v.messages) for v in views), problems=list(doc.problems))
        findings = [str(f) for f in validate_views(views)]
        report.extra["check"] = findings
        return Outcome(source, None, report, findings)
    if opts.mode == "summary":
        from .fallback import fallback_summary

        adapter = san.adapter_for(doc)
        summary = fallback_summary(doc, format=adapter.name)
        report = Report(source=source, format=adapter.name, preset="summary", problems=list(doc.problems))
        report.extra["summary"] = summary.to_dict()
        return Outcome(source, encode(summary.text if summary.text.endswith("\n") else summary.text + "\n"), report)
    if opts.budget is not None:
        from .fit import fit_document

        result = fit_document(san, doc, opts.budget, repair=opts.repair_pairs)
    else:
        result = san.run(doc)
        if opts.repair_pairs != "report":
            from .fit import repair_result

            repair_result(result, opts.repair_pairs)
    if opts.to == "text":
        text = result.text()
    elif opts.to == "messages":
        convs = result.conversations()
        text = (json.dumps(convs[0], ensure_ascii=False, indent=2) + "\n" if len(convs) == 1 else
                "".join(json.dumps(c, ensure_ascii=False) + "\n" for c in convs))
    else:
        text = result.dumps()
    return Outcome(source, encode(text), result.report)


def write_atomic(target: Path, data: bytes) -> None:
    """Write via a temporary file in the same folder and rename: readers never see half a file."""
    from .stream import atomic_output

    with atomic_output(target) as write:
        write(data)


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
        if target is not None and src != "-" and Path(src).resolve() == target.resolve():
            raise click.UsageError(f"{target}: refusing to overwrite the input; choose another -o")
    from .workers import worker_threads

    # Built once, here: --jobs workers inherit it, each with its share of the token-counting processes.
    san = build_sanitizer(opts, worker_threads(jobs, len(files)) if jobs > 1 and len(files) > 1 else None)
    total = Report(source=files[0] if len(files) == 1 else f"{len(files)} files", format="", preset=opts.preset,
                   tokens_before=0 if opts.count_tokens and opts.mode == "copy" else None,
                   encoding=opts.encoding if opts.count_tokens else None)
    outcomes = _outcomes(files, opts, san, jobs, quiet=quiet, terminal=terminal, targets=targets, strict=strict)
    if strict:  # every file's problems are known before any output is written (nothing streams)
        outcomes = list(outcomes)
    code = 0
    formats: list[str] = []
    for outcome, target in zip(outcomes, targets, strict=True):
        for problem in outcome.report.problems:
            click.echo(str(problem), err=True)
        for finding in outcome.findings:
            click.echo(finding, err=True)
        if strict and (outcome.report.problems or outcome.findings):
            click.echo(f"sanitize: {outcome.source}: stopped (--strict): input problems found", err=True)
            return 1
        if outcome.output is not None:
            if target is None:
                sys.stdout.buffer.write(outcome.output)
                sys.stdout.buffer.flush()
            else:
                write_atomic(target, outcome.output)
        formats.append(outcome.report.format)
        total.merge(outcome.report)
        total.seconds += outcome.report.seconds
        total.extra.update(outcome.report.extra)
        if opts.mode == "check":
            total.extra["check"] = total.extra.get("all_findings", []) + outcome.findings
            total.extra["all_findings"] = total.extra["check"]
    total.extra.pop("all_findings", None)
    total.format = ",".join(sorted(set(formats)))
    _report(total, report_kind, report_file, quiet=quiet, terminal=terminal, mode=opts.mode)
    return code


def streamable(source: str, opts: RunOptions, san: Sanitizer) -> bool:
    """A dataset JSONL file in plain copy mode is processed line by line (bounded memory)."""
    from .stream import is_dataset_jsonl

    return (opts.mode == "copy" and opts.budget is None and opts.to == "same" and source != "-"
            and is_dataset_jsonl(source, san))


def stream_file(san: Sanitizer, source: str, target: Path | None, opts: RunOptions, jobs: int = 1) -> Outcome:
    """Stream a dataset JSONL to `target` (atomically) or stdout; `jobs` processes share its lines."""
    from functools import partial

    from .fit import repair_result
    from .stream import atomic_output, sanitize_jsonl

    finish = None if opts.repair_pairs == "report" else partial(repair_result, mode=opts.repair_pairs)
    if target is None:
        report = sanitize_jsonl(san, source, sys.stdout.buffer.write, finish=finish, jobs=jobs)
        sys.stdout.buffer.flush()
    else:
        with atomic_output(target) as write:
            report = sanitize_jsonl(san, source, write, finish=finish, jobs=jobs)
    return Outcome(source, None, report)


def _outcomes(files: tuple[str, ...], opts: RunOptions, san: Sanitizer, jobs: int, *, quiet: bool,
              terminal: bool, targets: list[Path | None], strict: bool) -> Iterable[Outcome]:
    """One Outcome per input, in input order (lazily where outputs are written as they come)."""
    if jobs > 1 and len(files) > 1:
        from .cli_jobs import pooled

        return pooled(files, targets, opts, san, jobs, strict=strict)
    # --strict must see problems before any output is written, so it never streams.
    streams = [False] * len(files) if strict else [streamable(f, opts, san) for f in files]  # sniffed once
    if any(streams):
        return _streamed(files, streams, opts, san, jobs, targets)
    sizes = [Path(f).stat().st_size if f != "-" and Path(f).is_file() else 0 for f in files]
    if san.count_tokens and max(sizes, default=0) >= START_WORKERS_BYTES:
        san.counter.start_workers()  # before a big input is loaded (see TokenCounter.start_workers)
    show = terminal and not quiet and sum(sizes) >= PROGRESS_MIN_BYTES
    if not show:
        return [process(san, f, read_input(f, opts), opts) for f in files]
    from rich.console import Console
    from rich.progress import Progress

    out = []
    with Progress(console=Console(stderr=True), redirect_stdout=False, redirect_stderr=False,
                  transient=True) as bar:
        task = bar.add_task("sanitizing", total=sum(sizes))
        for f, size in zip(files, sizes, strict=True):
            out.append(process(san, f, read_input(f, opts), opts))
            bar.advance(task, size)
    return out


def _streamed(files: tuple[str, ...], streams: list[bool], opts: RunOptions, san: Sanitizer, jobs: int,
              targets: list[Path | None]) -> Iterator[Outcome]:
    """Dataset JSONL files (`streams`) go straight to their output, line by line (`jobs` processes
    share the lines of one file); yielded one at a time so stdout gets every output in input order."""
    for f, is_stream, t in zip(files, streams, targets, strict=True):
        yield stream_file(san, f, t, opts, jobs) if is_stream else process(san, f, read_input(f, opts), opts)


def _report(report: Report, kind: str | None, report_file: Path | None, *, quiet: bool, terminal: bool,
            mode: str) -> None:
    if report_file is not None or (kind == "json" and not quiet):
        data = report.to_dict()  # built only when asked for: a cut list can be long
        if report_file is not None:
            write_atomic(report_file, (json.dumps(data, ensure_ascii=False, indent=2) + "\n").encode())
    if quiet or kind == "none":
        return
    if kind == "json":
        click.echo(json.dumps(data, ensure_ascii=False, indent=2), err=True)
    elif mode == "check":
        n = len(report.extra.get("check", []))
        click.echo(f"check: {report.source}: {report.messages:,} messages, {n} finding(s)", err=True)
    elif kind == "table" or (terminal and mode == "copy"):
        from rich.console import Console

        Console(stderr=True).print(render_table(report))
    elif mode == "copy":
        if report.tokens_before is not None:
            before, after = report.tokens_before, report.tokens_after or 0
            pct = 100 * (before - after) / before if before else 0.0
            figures = f"tokens {before:,} -> {after:,} ({pct:.1f}% saved)"
        else:
            figures = f"chars {report.chars_before:,} -> {report.chars_after:,}"
        hits = sum(s.hits for s in report.rules.values())
        click.echo(f"sanitize: {report.source}: {report.messages:,} messages, {hits:,} cuts, {figures}", err=True)
