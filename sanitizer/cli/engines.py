"""`sanitize DATASET --engine datasets|ray --num-proc N`: a dataset JSONL through an engine.

Each line is sanitized by the CLI's own per-line function (`SanitizeColumn` on the line's bytes),
so the output is byte-identical per record to `sanitize DATASET`; the engine only spreads the lines
over `N` processes (Hugging Face `datasets` map workers, or Ray actors: on the cluster that
`RAY_ADDRESS` names, else on a local Ray started for the run and stopped after it).

Problems are printed as `file:line: what`; a row that fails is written through unchanged and
reported as `file:line: row failed, …`, and then the exit code is 1.  Nothing is dropped.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import click

from sanitizer.datasets.row import SanitizeColumn
from sanitizer.run.dataset import atomic_output, is_dataset_jsonl

if TYPE_CHECKING:
    from sanitizer.run.options import RunOptions

INSTALL = {"datasets": "pip install 'sanitizer[datasets]'", "ray": "pip install 'sanitizer[ray]'"}


def line_callable(opts: RunOptions, source: str) -> SanitizeColumn:
    """The callable the CLI's options ask for, on the `line` column of `read_lines`."""
    return SanitizeColumn("line", index_column="number", preset=opts.preset, config=opts.user_config,
                          config_source=opts.user_source, enable=opts.enable, disable=opts.disable,
                          keep_recent=opts.keep_recent, encoding=opts.encoding, format=opts.format,
                          tokens=opts.count_tokens, repair_pairs=opts.repair_pairs, source=source)


def check_usage(files: tuple[str, ...], opts: RunOptions, engine: str, *, jobs: int = 1, strict: bool = False) -> str:
    """The one input file, or a usage error saying why the engine cannot run on these options."""
    if len(files) != 1 or files[0] == "-":
        raise click.UsageError(f"--engine {engine} takes one dataset JSONL file (not stdin)")
    if jobs > 1 or strict:
        raise click.UsageError(f"--engine {engine} runs without --jobs and --strict: use --num-proc N for "
                               "processes, and the exit code (1 when a row failed) instead of --strict")
    if opts.mode != "copy" or opts.budget is not None or opts.to != "same":
        raise click.UsageError(f"--engine {engine} makes the sanitized copy only: drop --budget, --to, "
                               "--summary and --check")
    source = files[0]
    if not Path(source).is_file():
        raise click.UsageError(f"{source}: no such file")
    # The line-by-line check only reads the forced format (if any) from the sanitizer it is given.
    if not is_dataset_jsonl(source, SimpleNamespace(format=opts.format)):  # type: ignore[arg-type]
        raise click.UsageError(f"{source}: --engine {engine} needs a dataset JSONL (one conversation per line)")
    return source


def records(engine: str, source: str, fn: SanitizeColumn, num_proc: int, *,
            progress: bool) -> Iterator[tuple[bytes, dict[str, Any]]]:
    """Each line's output bytes and report columns, in input order, through `engine`."""
    try:
        if engine == "datasets":
            import datasets

            from sanitizer.datasets import hf
        else:
            import ray

            from sanitizer.datasets import ray_data
    except ImportError as exc:
        raise click.UsageError(f"--engine {engine} needs {exc.name}: {INSTALL[engine]}") from exc
    if engine == "datasets":
        if not progress:
            datasets.disable_progress_bars()
        with tempfile.TemporaryDirectory(prefix="sanitize-datasets-") as cache:
            yield from hf.sanitize_file(source, fn, num_proc=num_proc, cache_dir=cache)
        return
    ray.data.DataContext.get_current().enable_progress_bars = progress
    if not progress:
        logging.getLogger("ray.data").setLevel(logging.WARNING)  # its per-run INFO lines
    started = not ray.is_initialized()
    if started:
        # RAY_ADDRESS (a cluster) is honoured by ray.init itself; locally, a CPU per actor.
        local = {} if os.environ.get("RAY_ADDRESS") else {"num_cpus": num_proc, "include_dashboard": False}
        ray.init(log_to_driver=False, logging_level="WARNING", **local)
    try:
        yield from ray_data.sanitize_file(source, fn, concurrency=num_proc)
    finally:
        if started:
            ray.shutdown()


def run(files: tuple[str, ...], output: Path | None, opts: RunOptions, *, engine: str, num_proc: int,
        quiet: bool, report_kind: str | None, report_file: Path | None, terminal: bool, jobs: int = 1,
        strict: bool = False) -> int:
    """Run the dataset through the engine; print problems and the summary on stderr; the exit code."""
    source = check_usage(files, opts, engine, jobs=jobs, strict=strict)
    with open(source, "rb") as fh:
        fh.seek(max(0, os.path.getsize(source) - 1))
        trailing = fh.read(1) == b"\n"
    target = output / Path(source).name if output is not None and output.is_dir() else output
    if target is not None and target.resolve() == Path(source).resolve():
        raise click.UsageError(f"{target}: refusing to overwrite the input; choose another -o")
    fn = line_callable(opts, source)
    rows = records(engine, source, fn, num_proc, progress=terminal and not quiet)
    if target is None:
        totals = _write(rows, sys.stdout.buffer.write, trailing)
        sys.stdout.buffer.flush()
    else:
        with atomic_output(target) as write:
            totals = _write(rows, write, trailing)
    totals.update(source=source, engine=engine, num_proc=num_proc)
    if report_file is not None:
        with atomic_output(report_file) as write:
            write((json.dumps(totals, ensure_ascii=False, indent=2) + "\n").encode())
    if report_kind == "json" and not quiet:
        click.echo(json.dumps(totals, ensure_ascii=False, indent=2), err=True)
    elif not quiet and report_kind != "none":
        click.echo(_summary(totals), err=True)
    return 1 if totals["failed"] else 0


def _write(rows: Iterator[tuple[bytes, dict[str, Any]]], write: Callable[[bytes], object],
           trailing: bool) -> dict[str, Any]:
    """Write the lines (a `\\n` between them, and after the last one if the input had it); totals."""
    totals: dict[str, Any] = {"records": 0, "failed": 0, "cuts": 0, "tokens_before": None, "tokens_after": None,
                              "problems": [], "errors": []}
    for data, rep in rows:
        if totals["records"]:
            write(b"\n")
        write(data)
        totals["records"] += 1
        totals["cuts"] += rep.get("cuts") or 0
        for key in ("tokens_before", "tokens_after"):
            if rep.get(key) is not None:
                totals[key] = (totals[key] or 0) + rep[key]
        for problem in rep.get("problems") or ():
            click.echo(problem, err=True)
            totals["problems"].append(problem)
        if rep.get("error"):
            click.echo(rep["error"], err=True)
            totals["errors"].append(rep["error"])
            totals["failed"] += 1
    if trailing and totals["records"]:
        write(b"\n")
    return totals


def _summary(totals: dict[str, Any]) -> str:
    if totals["tokens_before"] is not None:
        before, after = totals["tokens_before"], totals["tokens_after"] or 0
        pct = 100 * (before - after) / before if before else 0.0
        figures = f"tokens {before:,} -> {after:,} ({pct:.1f}% saved)"
    else:
        figures = "no token counts"
    failed = f", {totals['failed']:,} failed (written unchanged)" if totals["failed"] else ""
    return (f"sanitize: {totals['source']}: {totals['records']:,} records via {totals['engine']} "
            f"×{totals['num_proc']}, {totals['cuts']:,} cuts{failed}, {figures}")
