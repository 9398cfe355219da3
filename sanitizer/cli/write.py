"""`sanitize FILE…`: the run of many files from the command line's side: where each output goes
(stdout, a file), what is said on stderr, the exit code; the work itself is `run/`."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path

from sanitizer.cli.progress import progress_bar, should_show
from sanitizer.cli.report import BUDGET_NOT_MET, Messages, budget_warning, report
from sanitizer.report import Report
from sanitizer.run.job import build_sanitizer, targets
from sanitizer.run.many import outcomes
from sanitizer.run.options import RunOptions
from sanitizer.run.outcome import Outcome
from sanitizer.run.output import WriteError, write_atomic, write_failure
from sanitizer.run.progress import Bar
from sanitizer.run.sizes import file_size
from sanitizer.run.workers import worker_threads


def write_stdout(data: bytes) -> None:
    """The output on stdout; a closed stdout or a reader that went away is a WriteError."""
    if sys.stdout is None:
        raise WriteError("<stdout>: cannot write: standard output is closed")
    try:
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    except OSError as exc:
        raise write_failure(exc, "<stdout>") from exc


def run(files: tuple[str, ...], output: Path | None, opts: RunOptions, *, jobs: int, strict: bool, quiet: bool,
        report_kind: str | None, report_file: Path | None, terminal: bool) -> int:
    """Sanitize `files` as the options ask, write the outputs, report on stderr; the exit code."""
    where = targets(files, output, opts)
    # Built once, here: --jobs workers inherit it, each with its share of the token-counting processes.
    san = build_sanitizer(opts, worker_threads(jobs, len(files)) if jobs > 1 and len(files) > 1 else None)
    total = Report(source=files[0] if len(files) == 1 else f"{len(files)} files", format="", preset=opts.preset,
                   tokens_before=0 if opts.count_tokens and opts.mode == "copy" else None,
                   encoding=opts.encoding if opts.count_tokens else None)
    # With a JSON report on stderr, every warning goes inside it: stderr stays one JSON document.
    say = Messages(into_report=report_kind == "json" and not quiet)
    sizes = [file_size(f) for f in files]
    with progress_bar(should_show(terminal, quiet, sizes), sum(sizes)) as bar:
        found = outcomes(files, opts, san, jobs, bar=bar, targets=where, strict=strict, stdout=write_stdout)
        try:
            code = _write_all(found, where, total, opts, say, strict, bar, dict(zip(files, sizes, strict=True)))
        finally:
            close = getattr(found, "close", None)
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


def _write_all(found: Iterable[Outcome], where: list[Path | None], total: Report, opts: RunOptions,
               say: Messages, strict: bool, bar: Bar, sizes: dict[str, int]) -> int:
    """Write each outcome where it goes, merging its report into `total`; the exit code."""
    if strict:  # every file's problems are known before any output is written (nothing streams)
        found = list(found)
    code = 0
    formats: list[str] = []
    for outcome, target in zip(found, where, strict=True):
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
        failed = outcome.write_error  # written already, as it was made (`run.job.Sink`)
        if outcome.output is not None:
            try:
                write_stdout(outcome.output) if target is None else write_atomic(target, outcome.output)
            except WriteError as exc:
                failed = str(exc)
        if failed is not None:
            say(f"sanitize: {failed}")
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
