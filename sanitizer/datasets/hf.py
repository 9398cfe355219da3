"""Hugging Face `datasets`: dataset JSONL lines in, the CLI's bytes out, `num_proc` processes.

    from sanitizer.datasets import SanitizeColumn
    ds = load_dataset("json", data_files="traj.jsonl", split="train")      # or "parquet"
    ds = ds.map(SanitizeColumn("messages", tokens=False), batched=True, num_proc=8)
    ds.to_parquet("clean.parquet")

For byte-exact output (`sanitize --engine datasets`), the lines are read as bytes (`read_lines`):
the `text` loader opens files in text mode, which turns `\\r\\n` into `\\n` and cannot hold a line
that is not UTF-8, so it cannot give back every file byte for byte.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import datasets

from sanitizer.datasets.row import SanitizeColumn, rows_of

# Rows per batch handed to a worker and per Arrow write: trajectories are 20-300 KB each, so a
# thousand rows (the library's default) would hold hundreds of MB per worker.
BATCH_ROWS = 64


def _lines(path: str, size: int, mtime_ns: int) -> Iterator[dict[str, Any]]:
    """Each physical line of `path` without its `\\n`, as bytes, with its number (from 1).

    `size` and `mtime_ns` are unused here: they are in the generator's arguments so that the
    library's cache (keyed on them) is not reused after the file changed."""
    with open(path, "rb") as fh:
        for number, raw in enumerate(fh, start=1):
            yield {"line": raw[:-1] if raw.endswith(b"\n") else raw, "number": number}


def read_lines(path: str | Path, cache_dir: str | None = None) -> datasets.Dataset:
    """A dataset of the lines of a JSONL file: `line` (bytes, exactly as in the file) and `number`."""
    st = os.stat(path)
    features = datasets.Features({"line": datasets.Value("binary"), "number": datasets.Value("int64")})
    return datasets.Dataset.from_generator(_lines, features=features, cache_dir=cache_dir,
                                           gen_kwargs={"path": str(path), "size": st.st_size,
                                                       "mtime_ns": st.st_mtime_ns},
                                           writer_batch_size=BATCH_ROWS)


def sanitize(ds: datasets.Dataset, fn: SanitizeColumn, num_proc: int = 1) -> datasets.Dataset:
    """`ds.map(fn)` in batches, over `num_proc` processes (`num_proc=1`: in this process)."""
    return ds.map(fn, batched=True, batch_size=BATCH_ROWS, writer_batch_size=BATCH_ROWS,
                  num_proc=num_proc if num_proc > 1 else None, desc="sanitizing")


def sanitize_file(path: str | Path, fn: SanitizeColumn, *, num_proc: int = 1,
                  cache_dir: str | None = None) -> Iterator[tuple[bytes, dict[str, Any]]]:
    """Sanitize a dataset JSONL with `fn` (its column `line`, index `number`): each line's output
    bytes (without `\\n`) and report columns, in input order."""
    ds = sanitize(read_lines(path, cache_dir), fn, num_proc)
    columns = [c for c in ds.column_names if c != "number"]
    for batch in ds.select_columns(columns).iter(batch_size=BATCH_ROWS):
        yield from rows_of(batch, fn)

