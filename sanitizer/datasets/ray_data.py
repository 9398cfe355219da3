"""Ray Data: the same callable in `map_batches`, local (`ray.init()`) or on a cluster, unchanged.

    import ray
    from sanitizer.datasets import SanitizeColumn
    from sanitizer.datasets.ray_data import SanitizeBatches

    ds = ray.data.read_parquet("traj/")                      # or read_json / read_lines below
    ds = ds.map_batches(SanitizeBatches, fn_constructor_args=(SanitizeColumn("messages"),),
                        batch_format="pyarrow", compute=ray.data.ActorPoolStrategy(size=8))
    ds.write_parquet("clean/")

`SanitizeBatches` is a callable class: Ray starts `concurrency` actors, each holding one
Sanitizer.  For byte-exact output (`sanitize --engine ray`) the lines are read as bytes
(`read_lines`): `read_text` splits with `str.splitlines`, which also cuts a JSON line at a
U+2028 or a form feed inside a string, and drops `\\r`.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import ray
from ray.data.datasource import FileBasedDatasource

from sanitizer.datasets.row import SanitizeColumn, rows_of

# A read block holds about this many bytes of lines (so that several actors share one file).
BLOCK_BYTES = 4 * 1024 * 1024
# Rows per batch handed to an actor (trajectories are 20-300 KB each, so a batch is a few MB).  On
# the 100 MB bench an actor's private memory peaked near 310 MB with 16 rows as with 64.
BATCH_ROWS = 16


class LinesDatasource(FileBasedDatasource):
    """Each physical line of the files, as bytes without its `\\n` (`line`), with its number from 1."""

    def __init__(self, paths: str | list[str], block_bytes: int = BLOCK_BYTES, **kwargs: Any) -> None:
        super().__init__(paths, **kwargs)
        self.block_bytes = block_bytes

    def _read_stream(self, f: pa.NativeFile, path: str) -> Iterator[pa.Table]:
        number, rest = 1, b""
        while True:
            chunk = f.read(self.block_bytes)
            data = rest + chunk
            if not chunk:
                if data:
                    yield _block([data], number)
                return
            cut = data.rfind(b"\n")
            if cut < 0:
                rest = data
                continue
            lines = data[:cut].split(b"\n")
            rest = data[cut + 1:]
            yield _block(lines, number)
            number += len(lines)


def _block(lines: list[bytes], first: int) -> pa.Table:
    return pa.table({"line": pa.array(lines, pa.large_binary()),
                     "number": pa.array(range(first, first + len(lines)), pa.int64())})


def read_lines(paths: str | Path | list[str], block_bytes: int = BLOCK_BYTES) -> ray.data.Dataset:
    """A Ray dataset of the lines of JSONL files: `line` (bytes, exactly as in the file) and `number`.

    Reading asks for no CPU: it only moves bytes, and the actors that sanitize hold the CPUs (with
    a CPU per read task, N actors on N CPUs would leave none for reading and wait forever)."""
    files = [str(p) for p in paths] if isinstance(paths, list) else str(paths)
    ds = ray.data.read_datasource(LinesDatasource(files, block_bytes), num_cpus=0)
    # Ray merges a read task's blocks up to this size (128 MB by default) before handing them on:
    # a 100 MB file would reach one actor as one block, and the reader would hold it all.
    ds.context.target_max_block_size = 2 * block_bytes
    return ds


class SanitizeBatches:
    """A Ray actor's callable: `fn` on pyarrow batches (its Sanitizer is built once per actor)."""

    def __init__(self, fn: SanitizeColumn) -> None:
        self.fn = fn
        fn.sanitizer()

    def __call__(self, table: pa.Table) -> pa.Table:
        batch = table.to_pydict()
        new = self.fn(batch)
        out = {name: batch[name] for name in table.column_names if name not in new}
        out.update(new)
        return pa.Table.from_pydict(out)


def sanitize(ds: ray.data.Dataset, fn: SanitizeColumn, concurrency: int = 1) -> ray.data.Dataset:
    """`ds.map_batches` with `fn` on `concurrency` actors (a CPU each), in input order.

    The read before it needs CPUs of its own (Ray's readers ask for one per task, except
    `read_lines`): leave them free, or the actors wait for input forever."""
    ds.context.execution_options.preserve_order = True  # a dataset keeps the context it was made in
    done = ds.map_batches(SanitizeBatches, fn_constructor_args=(fn,), batch_format="pyarrow",
                          batch_size=BATCH_ROWS, compute=ray.data.ActorPoolStrategy(size=concurrency),
                          zero_copy_batch=True)
    done.context.execution_options.preserve_order = True
    return done


def sanitize_file(path: str | Path, fn: SanitizeColumn, *, concurrency: int = 1,
                  block_bytes: int = BLOCK_BYTES) -> Iterator[tuple[bytes, dict[str, Any]]]:
    """Sanitize a dataset JSONL with `fn` (its column `line`, index `number`): each line's output
    bytes (without `\\n`) and report columns, in input order."""
    ds = sanitize(read_lines(path, block_bytes), fn, concurrency)
    for table in ds.iter_batches(batch_format="pyarrow", batch_size=None, prefetch_batches=1):
        yield from rows_of(table.drop_columns(["number"]).to_pydict(), fn)
