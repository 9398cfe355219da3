"""The per-line loop of a dataset JSONL: each line its own conversation, through the one pipeline.

`run_lines` is what `dataset.sanitize_jsonl` runs in this process and what each worker of
`dataset_pool` runs on its batch of lines: every line is loaded as one record and given to
`Sanitizer.run` with the dataset format, so the bytes equal the whole-file path's, and so do the
report's figures and its set of cuts (a line's cuts outside its parts are listed after that line's
rule cuts, where the whole-file path lists them after every line's).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Iterable, Iterator
from typing import TYPE_CHECKING, BinaryIO

from sanitizer.document import loader
from sanitizer.formats.dataset import Dataset
from sanitizer.model import Document
from sanitizer.report import Report
from sanitizer.secrets import contract as redaction
from sanitizer.tokens import tally as token_report
from sanitizer.tokens.tally import Tally

if TYPE_CHECKING:
    from sanitizer.pipeline import Result, Sanitizer

# Token counts remembered from earlier lines (repeated system prompts) are kept up to this size.
MEMO_CHARS = 8 * 1024 * 1024
# Lines whose token figures are counted together: enough text for the counter's worker processes
# (`tokens.PARALLEL_MIN_CHARS`), little enough memory for the lines held until then.  Once they
# run (started before the file is read), smaller batches keep them busy while lines are sanitized
# (a generated 3 MB dataset: 9.4x a json round trip, against 11.2x in one batch after the lines).
COUNT_BATCH_CHARS = 4 * 1024 * 1024
WARM_BATCH_CHARS = 512 * 1024
# Lines whose strings are cleared of credentials in one scan (`redaction.clean_strings`): each
# line's guard and redaction then scan only what that leaves, not each line's texts apart (every
# scan pays a fixed cost a pattern).  Their parsed records are held until the group is done.
CLEAR_GROUP_CHARS = 1024 * 1024
# Lines longer than this on average are not cleared: a scan's fixed cost (about 0.3 ms, the scan of
# some 10 K chars) is little beside theirs, and a generated dataset of 115 K-char lines measured no
# faster with the clearing.
CLEAR_LINE_CHARS = 32 * 1024


def numbered_lines(fh: BinaryIO, start: int = 1) -> Iterator[tuple[int, str, bool]]:
    """(number counted from `start`, text without `\\n`, had `\\n`) of each physical line."""
    for number, raw in enumerate(fh, start=start):
        ended = raw.endswith(b"\n")
        yield number, (raw[:-1] if ended else raw).decode("utf-8", errors="surrogateescape"), ended


def empty_report(san: Sanitizer, source: str) -> Report:
    """The report a dataset stream starts from (lines' reports are merged into it)."""
    return Report(source=source, format=Dataset.name, preset=san.config.name,
                  tokens_before=0 if san.count_tokens else None, tokens_after=0 if san.count_tokens else None,
                  encoding=san.counter.encoding_name if san.count_tokens else None)


def _documents(san: Sanitizer, lines: Iterable[tuple[int, str, bool]], source: str,
               total: Report) -> Iterator[tuple[int, bool, Document, Collection[str]]]:
    """(number, had `\\n`, document, strings known to hold no credential) of each line.

    While a redaction rule is on, lines are parsed a group at a time (`CLEAR_GROUP_CHARS`) and
    the strings of the group cleared in one scan.
    """
    clearing = bool(san.config.redaction_rule and san.config.active)
    group: list[tuple[int, bool, Document]] = []
    size = 0
    for number, line, ended in lines:
        group.append((number, ended, loader.from_line(line, number, source)))
        size += len(line)
        if not clearing or size >= CLEAR_GROUP_CHARS:
            yield from _with_clean(group, size, total)
            group, size = [], 0
    yield from _with_clean(group, size, total)


def _with_clean(group: list[tuple[int, bool, Document]], size: int,
                total: Report) -> Iterator[tuple[int, bool, Document, Collection[str]]]:
    clean: set[str] = set()
    if len(group) > 1 and size <= CLEAR_LINE_CHARS * len(group):
        started = time.perf_counter()
        clean = redaction.clean_strings(doc for _, _, doc in group)
        total.seconds += time.perf_counter() - started
    for number, ended, doc in group:
        yield number, ended, doc, clean


def run_lines(san: Sanitizer, lines: Iterable[tuple[int, str, bool]], write: Callable[[bytes], object],
              source: str, finish: Callable[[Result], None] | None = None) -> Report:
    """Sanitize numbered lines (as `numbered_lines` gives them) one at a time; their merged report.

    Token figures are counted for batches of lines at once (`COUNT_BATCH_CHARS` of text), so a
    batch of small lines is encoded by the counter's worker processes like one big conversation,
    while this process sanitizes the next batch; a batch's lines are written once it is counted.
    """
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

    for number, ended, doc, clean in _documents(san, lines, source, total):
        result = san.run(doc, defer_tokens=True, format=Dataset.name, clean=clean)
        del doc
        if finish is not None:
            finish(result)
        for cut in result.report.cuts:
            cut.record = number - 1
        total.seconds += result.report.seconds
        text = loader.to_text(result.doc)
        pending.append((result.report, result.tally,
                        text.encode("utf-8", errors="surrogateescape") + (b"\n" if ended else b"")))
        pending_chars += result.tally.chars if result.tally is not None else 0
        if pending_chars >= (WARM_BATCH_CHARS if san.counter.warm else COUNT_BATCH_CHARS) or result.tally is None:
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
    # Also after a call with few lines: an engine's map calls this once per row or batch, and the
    # memo would otherwise grow to the counter's own limit in every worker.
    san.counter.trim(MEMO_CHARS)
    return total
