"""The library API: `sanitize(obj)` for one call, `Sanitizer` for repeated use."""

from __future__ import annotations

import gc
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sanitizer import cuts as recover
from sanitizer import formats, transcript
from sanitizer.config import Config, load
from sanitizer.document import loader
from sanitizer.engine import Cut, Engine, RuleStats
from sanitizer.formats.base import Adapter
from sanitizer.model import Document, View
from sanitizer.report import Report
from sanitizer.secrets import contract as redaction
from sanitizer.textkit.images import label_of
from sanitizer.textkit.markers import ids_of_width
from sanitizer.tokens import tally as token_report
from sanitizer.tokens.counter import DEFAULT_ENCODING, TokenCounter
from sanitizer.tokens.tally import Tally


@contextmanager
def gc_paused() -> Iterator[None]:
    """The one pause of the cyclic garbage collector: around loading, the rules and rendering.

    Parsed JSON holds no reference cycles, but every few hundred new containers CPython walks
    all live objects again, which makes loading 100,000 records super-linear; reference counting
    still frees everything as usual.  Taken by the pipeline's entry points (and by `run.job` around
    one file); a pause inside a pause changes nothing.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


class Result:
    """A sanitized copy in the input's format, plus renderings and the report."""

    def __init__(self, doc: Document, adapter: Adapter, views: list[View], report: Report,
                 tally: Tally | None = None, recoverable: list[recover.RecoverableCut] | None = None) -> None:
        self.doc = doc
        self.adapter = adapter
        self.views = views
        self.report = report
        self.tally = tally  # token figures still to count (`Sanitizer.run(..., defer_tokens=True)`)
        self.recoverable = recoverable or []  # the cuts by id, with `Sanitizer(cut_ids=True)`

    def expand(self, cut_id: str, *, include_secrets: bool = False) -> str:
        """The text cut `cut_id` (`c17`) stands for, byte-exact; redacted unless `include_secrets`."""
        found = [c for c in self.recoverable if c.id == cut_id]
        if not found:
            hint = "" if self.recoverable else " (run with Sanitizer(cut_ids=True) for cut ids)"
            raise KeyError(f"no cut {cut_id!r}{hint}")
        return str(recover.records(found, include_secrets=include_secrets)[0]["text"])

    def cuts_sidecar(self, *, include_secrets: bool = False) -> str:
        """The cuts sidecar as JSONL text (one cut per line; `sanitize expand` reads it)."""
        return recover.dumps(recover.records(self.recoverable, include_secrets=include_secrets))

    @property
    def output(self) -> Any:
        """The sanitized copy, shaped like the input (a list, or one object). Yours to mutate."""
        return loader.to_object(self.doc)

    def dumps(self) -> str:
        """The sanitized copy as text in the input's layout (JSONL stays JSONL, JSON stays JSON)."""
        return loader.to_text(self.doc)

    def text(self, *, skip_injected: bool = False) -> str:
        """The summarizer transcript (`[USER]: …`, `[ASSISTANT]: …`, `[TOOL RESULT …]: …`)."""
        return "\n".join(transcript.to_text(v, skip_injected=skip_injected) for v in self.views)

    def to_messages(self, *, skip_injected: bool = False) -> list[dict[str, Any]]:
        """Normalized OpenAI chat messages of the (single) conversation; see `conversations()`."""
        if len(self.views) != 1:
            raise ValueError(f"{self.doc.source} holds {len(self.views)} conversations; use conversations()")
        return transcript.to_messages(self.views[0], skip_injected=skip_injected)

    def conversations(self, *, skip_injected: bool = False) -> list[list[dict[str, Any]]]:
        """Normalized OpenAI chat messages, one list per conversation."""
        return [transcript.to_messages(v, skip_injected=skip_injected) for v in self.views]


class Sanitizer:
    """A reusable, stateless sanitizer: loads the rule pack, actions and encoding once."""

    def __init__(self, preset: str = "default", *, config: dict[str, Any] | None = None,
                 config_source: str = "<config>", enable: Iterable[str] = (), disable: Iterable[str] = (),
                 keep_recent: int | None = None, encoding: str = DEFAULT_ENCODING,
                 count_tokens: bool = True, format: str | None = None, threads: int = 2,
                 cut_ids: bool = False) -> None:
        self.preset = preset
        self.cut_ids = cut_ids  # number the cuts and write their ids into the markers (`--cuts`)
        self.config: Config = load(preset, config, config_source, tuple(enable), tuple(disable), keep_recent)
        self.counter = TokenCounter(encoding, threads=threads)
        self.engine = Engine(self.config, self.counter)
        self.count_tokens = count_tokens
        self.format = format

    def adapter_for(self, doc: Document) -> Adapter:
        return formats.by_name(self.format) if self.format else formats.detect(doc)

    def sanitize(self, obj: Any, source: str = "<memory>") -> Result:
        """Sanitize an in-memory conversation (never mutated; the result shares nothing with it)."""
        with gc_paused():
            return self._run(loader.from_object(obj, source), False, None)

    def sanitize_text(self, text: str, source: str = "<input>") -> Result:
        """Sanitize JSON or JSONL text."""
        with gc_paused():
            doc = loader.from_text(text, source)
            del text  # not needed once parsed: freed during the run when the caller holds no reference
            return self._run(doc, False, None)

    def sanitize_file(self, path: str | Path) -> Result:
        path = Path(path)  # the decoded text (keeping \r\n as is) is passed on, not held here
        return self.sanitize_text(path.read_bytes().decode("utf-8", errors="surrogateescape"), str(path))

    def run(self, doc: Document, *, defer_tokens: bool = False, format: str | None = None) -> Result:
        """Apply the rules to a loaded document (with the cyclic GC paused: see `gc_paused`).

        With `defer_tokens`, the report's token figures are left to the caller: `result.tally`
        holds the texts to count, and `token_report.settle` counts many results' texts at once.
        `format` reads the document in that format for this run only (a dataset line).
        """
        with gc_paused():
            return self._run(doc, defer_tokens, format)

    def _run(self, doc: Document, defer_tokens: bool, format: str | None) -> Result:
        started = time.perf_counter()
        adapter = formats.by_name(format) if format else self.adapter_for(doc)
        views = list(adapter.views(doc))
        report = Report(source=doc.source, format=adapter.name, preset=self.config.name,
                        encoding=self.counter.encoding_name if self.count_tokens else None)
        stats: dict[str, RuleStats] = {}
        cuts: list[Cut] = []
        before = self._texts_before(views)
        # The text before the run is most of what the report counts: a big one is encoded by the
        # counter's worker processes while the rules run (this only fills the memo early).
        early = self.counter.count_many_later(before) if self.count_tokens and not defer_tokens else None
        redacting = redaction.rule_of(self.config)
        found = redaction.guard_document(doc, views) if redacting else []
        recoverable: list[recover.RecoverableCut] = []
        # With cut ids, every cut is made knowing what its id will cost (`textkit.markers`).
        with ids_of_width(recover.id_width(views) if self.cut_ids else 0):
            for view in views:
                if self.config.active:
                    start = len(cuts)
                    self.engine.run(view, stats, cuts)
                    if self.cut_ids:  # before the write: the ids reach the copy, the transcript, the counts
                        recoverable += recover.assign(view, cuts[start:], len(recoverable), redacting,
                                                      self.config.protected_tags)
                    adapter.write(view)
        if redacting:
            redaction.record(found + redaction.settle_copies(doc, views), redacting, doc, stats, cuts)
        tally = self._fill_report(report, views, before, stats, cuts)
        if tally is not None and not defer_tokens:
            if early is not None:
                early()
            token_report.settle(self.counter, [tally])
            tally = None
        report.problems = list(doc.problems)
        unknown: Counter[str] = Counter()
        for view in views:
            unknown.update(view.meta.get("unknown_kinds") or {})
        if unknown:  # passed through unchanged, never an error
            report.notes.append("record kinds this reader does not know, passed through unchanged: "
                                + ", ".join(f"{k} ×{n}" for k, n in sorted(unknown.items())))
        report.seconds = time.perf_counter() - started
        return Result(doc, adapter, views, report, tally, recoverable)

    @staticmethod
    def _texts_before(views: list[View]) -> list[str]:
        """What a summarizer reads of the input, before any rule runs: every part's text, an image
        as its label (never its data).  Rules change no part's kind to or from `other`."""
        return [label_of(p.meta) if p.kind == "image" else p.text for v in views for p in v.parts if p.kind != "other"]

    def _fill_report(self, report: Report, views: list[View], originals: list[str], stats: dict[str, RuleStats],
                     cuts: list[Cut]) -> Tally | None:
        report.conversations = len(views)
        report.messages = sum(len(v.messages) for v in views)
        parts = [p for v in views for p in v.parts if p.kind != "other"]
        report.chars_before = sum(map(len, originals))
        report.chars_after = sum(len(transcript.part_text(p)) for p in parts if not p.dropped)
        report.rules = stats
        report.cuts = cuts
        if not self.count_tokens:
            for st in stats.values():
                st.pairs.clear()
            return None
        return token_report.tally(report, originals, parts, stats)


def sanitize(obj: Any, preset: str = "default", **options: Any) -> Result:
    """One call for the common case: `sanitize(messages).output` is the smaller copy."""
    return Sanitizer(preset, **options).sanitize(obj)


def read_conversations(obj: Any, format: str | None = None) -> list[View]:
    """Views of an input without any rule applied (for the fallback summary and the validator)."""
    doc = loader.from_object(obj) if not isinstance(obj, Document) else obj
    adapter = formats.by_name(format) if format else formats.detect(doc)
    return list(adapter.views(doc))
