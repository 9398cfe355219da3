"""Where the outputs of `sanitize` go: a file (atomically, or through a device), stdout, a stream."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sanitizer.cli.errors import WriteError, write_failure

if TYPE_CHECKING:
    from sanitizer.cli.command import RunOptions
    from sanitizer.cli.progress import Bar
    from sanitizer.pipeline import Sanitizer
    from sanitizer.run.job import Outcome


def write_atomic(target: Path, data: bytes) -> None:
    """Write via a temporary file in the same folder and rename (readers never see half a file);
    through a device, FIFO or `/dev/fd/N` in place (`stream.atomic_output`)."""
    from sanitizer.run.dataset import atomic_output

    try:
        with atomic_output(target) as write:
            write(data)
    except OSError as exc:
        raise write_failure(exc, str(target)) from exc


def write_stdout(data: bytes) -> None:
    """The output on stdout; a closed stdout or a reader that went away is a WriteError."""
    if sys.stdout is None:
        raise WriteError("<stdout>: cannot write: standard output is closed")
    try:
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    except OSError as exc:
        raise write_failure(exc, "<stdout>") from exc


def stream_file(san: Sanitizer, source: str, target: Path | None, opts: RunOptions, jobs: int = 1,
                bar: Bar | None = None) -> Outcome:
    """Stream a dataset JSONL to `target` (atomically) or stdout; `jobs` processes share its lines."""
    if bar is not None:
        from sanitizer.cli.progress import CountingReader

        with open(source, "rb") as fh:
            return _stream_file(san, source, CountingReader(fh, bar), target, opts, jobs)
    return _stream_file(san, source, source, target, opts, jobs)


def _stream_file(san: Sanitizer, source: str, src: Any, target: Path | None, opts: RunOptions,
                 jobs: int) -> Outcome:
    from functools import partial

    from sanitizer.budget.fit import repair_result
    from sanitizer.run.dataset import atomic_output, sanitize_jsonl

    finish = None if opts.repair_pairs == "report" else partial(repair_result, mode=opts.repair_pairs)
    if target is None:
        report = sanitize_jsonl(san, src, write_stdout, source=source, finish=finish, jobs=jobs)
    else:
        try:
            with atomic_output(target) as write:
                report = sanitize_jsonl(san, src, write, source=source, finish=finish, jobs=jobs)
        except OSError as exc:
            if exc.filename == source:
                raise
            raise write_failure(exc, str(target)) from exc
    from sanitizer.run.job import Outcome

    return Outcome(source, None, report)
