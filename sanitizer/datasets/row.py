"""The engine-free part: a picklable callable that sanitizes one column of a batch of rows.

`SanitizeColumn` is what `datasets.Dataset.map(batched=True, num_proc=N)` and Ray Data's
`map_batches` call.  It holds only its configuration (plain, sorted data), so pickling it and
hashing it (the `datasets` cache fingerprint) give the same bytes in every process; the
`Sanitizer` it needs is built on first use in each worker process and kept in a per-process cache
keyed by that configuration (never pickled, never shared between configurations), with one
token-counting process: a worker of an engine already is one of N processes, and N × the
counter's own pool would oversubscribe the cores.

A cell holds either
- a conversation as a Python object (any supported format: chat messages, a trajectory dict…):
  the cell becomes the sanitized copy (`Result.output`);
- or one dataset JSONL line as `str` or `bytes`: the cell becomes the bytes (or text) the CLI
  writes for that line (the same per-line function, `stream.run_lines`), so a record comes out
  byte-identical to `sanitize FILE` on the same file.

Each row gets report columns (`REPORT_COLUMNS`, prefixed): tokens before and after (None without
token counting), the number of cuts, the input problems as `source:line: what`, and `error`: a row
whose sanitizing raised is written through unchanged and its reason is put there (with its
index); no row is ever dropped.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from sanitizer import Sanitizer
from sanitizer.result import repair_result
from sanitizer.run.dataset import run_lines
from sanitizer.tokens.counter import DEFAULT_ENCODING

REPORT_COLUMNS = ("tokens_before", "tokens_after", "cuts", "problems", "error")

_SANITIZERS: dict[str, Sanitizer] = {}  # per worker process: configuration (JSON) -> its Sanitizer


class SanitizeColumn:
    """Sanitize `column` of a batch (a mapping of column name to values); returns the new columns.

    Keyword options are `Sanitizer`'s (`preset`, `config`, `enable`, `disable`, `keep_recent`,
    `encoding`, `format`) plus `tokens` (exact token figures in the report columns, default on),
    `repair_pairs` (`report`, `strip` or `stub`, as the CLI's `--repair-pairs`), `source` (the
    name problems are reported under), `output_column` (default: `column` itself), `report_prefix`
    (default `sanitizer_`; None for no report columns) and `index_column` (a column holding each
    row's line number or index, used in problems and errors; `map(..., with_indices=True)` gives
    the index too).
    """

    def __init__(self, column: str = "text", *, preset: str = "default", config: dict[str, Any] | None = None,
                 config_source: str = "<config>", enable: Sequence[str] = (), disable: Sequence[str] = (),
                 keep_recent: int | None = None, encoding: str = DEFAULT_ENCODING, format: str | None = None,
                 tokens: bool = True, repair_pairs: str = "report", source: str = "<dataset>",
                 output_column: str | None = None, report_prefix: str | None = "sanitizer_",
                 index_column: str | None = None) -> None:
        if repair_pairs not in ("report", "strip", "stub"):
            raise ValueError(f"repair_pairs: {repair_pairs!r} is not one of report, strip, stub")
        self.column = column
        self.output_column = output_column or column
        self.report_prefix = report_prefix
        self.index_column = index_column
        self.source = source
        self.repair_pairs = repair_pairs
        # Only JSON-able data, sorted: the same options give the same pickle and fingerprint anywhere.
        self.options: dict[str, Any] = {
            "preset": preset, "config": config, "config_source": config_source, "enable": list(enable),
            "disable": list(disable), "keep_recent": keep_recent, "encoding": encoding, "format": format,
            "count_tokens": bool(tokens)}
        self._key = json.dumps(self.options, sort_keys=True, default=str)

    def __getstate__(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in ("column", "output_column", "report_prefix", "index_column",
                                               "source", "repair_pairs", "options", "_key")}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    def __repr__(self) -> str:
        return f"SanitizeColumn({self.column!r}, {self._key})"

    def sanitizer(self) -> Sanitizer:
        """This process's Sanitizer for these options (built on first use, with one counting process)."""
        san = _SANITIZERS.get(self._key)
        if san is None:
            opts = dict(self.options)
            preset = opts.pop("preset")
            san = _SANITIZERS[self._key] = Sanitizer(preset, threads=1, **opts)
        return san

    def __call__(self, batch: Mapping[str, Sequence[Any]], indices: Sequence[int] | None = None) -> dict[str, list]:
        """The batch's new columns: the sanitized cells, and the report columns when asked for."""
        cells = batch[self.column]
        numbers: Sequence[Any] | None = indices
        if self.index_column is not None:
            numbers = batch[self.index_column]
        out: list[Any] = []
        rows: list[tuple[int | None, int | None, int, list[str], str | None]] = []
        for i, cell in enumerate(cells):
            number = None if numbers is None else int(numbers[i])
            value, report = self.row(cell, number)
            out.append(value)
            rows.append(report)
        result: dict[str, list] = {self.output_column: out}
        if self.report_prefix is not None:
            for k, name in enumerate(REPORT_COLUMNS):
                result[self.report_prefix + name] = [r[k] for r in rows]
        return result

    def row(self, cell: Any, number: int | None) -> tuple[Any, tuple[int | None, int | None, int, list[str], str | None]]:
        """One cell's sanitized value and its report (tokens before, after, cuts, problems, error)."""
        try:
            if isinstance(cell, bytes | str):
                return self._line(cell, number)
            return self._object(cell, number)
        except Exception as exc:  # noqa: BLE001 - a failing row is reported and written through, never dropped
            where = self.source if number is None else (
                f"{self.source}:{number}" if isinstance(cell, bytes | str) else f"{self.source}[{number}]")
            reason = f"{where}: row failed, written through unchanged: {type(exc).__name__}: {exc}"
            return cell, (None, None, 0, [], reason)

    def _line(self, cell: bytes | str, number: int | None) -> tuple[Any, tuple]:
        text = cell.decode("utf-8", errors="surrogateescape") if isinstance(cell, bytes) else cell
        out: list[bytes] = []
        finish = None if self.repair_pairs == "report" else _Repair(self.repair_pairs)
        report = run_lines(self.sanitizer(), [(number if number is not None else 1, text, False)],
                           out.append, self.source, finish)
        data = b"".join(out)
        value = data if isinstance(cell, bytes) else data.decode("utf-8", errors="surrogateescape")
        return value, (report.tokens_before, report.tokens_after, len(report.cuts),
                       [str(p) for p in report.problems], None)

    def _object(self, cell: Any, number: int | None) -> tuple[Any, tuple]:
        source = f"{self.source}[{number}]" if number is not None else self.source
        result = self.sanitizer().sanitize(cell, source)
        if self.repair_pairs != "report":
            repair_result(result, self.repair_pairs)
        report = result.report
        return result.output, (report.tokens_before, report.tokens_after, len(report.cuts),
                               [str(p) for p in report.problems], None)


def rows_of(batch: dict[str, list], fn: SanitizeColumn) -> Iterator[tuple[Any, dict[str, Any]]]:
    """(sanitized cell, report columns without their prefix) of each row of a mapped batch."""
    prefix = fn.report_prefix or ""
    names = [n for n in REPORT_COLUMNS if prefix + n in batch]
    for i, data in enumerate(batch[fn.output_column]):
        yield data, {n: batch[prefix + n][i] for n in names}


class _Repair:
    """`finish` for `run_lines`: the CLI's `--repair-pairs strip|stub` on each line's result."""

    def __init__(self, mode: str) -> None:
        self.mode = mode

    def __call__(self, result: Any) -> None:
        repair_result(result, self.mode)
