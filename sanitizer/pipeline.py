"""The one loop from input to result (`Sanitizer.process`), and the library API around it."""

from __future__ import annotations

import gc
import time
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from sanitizer import cuts as recover
from sanitizer import formats, modes, transcript
from sanitizer.budget.repair import MODES, repair_doc
from sanitizer.config import Config, load
from sanitizer.document import loader
from sanitizer.engine import Engine
from sanitizer.formats.base import Adapter
from sanitizer.model import Document, View
from sanitizer.report import Cut, Report, RuleStats
from sanitizer.result import Result, repair_result
from sanitizer.secrets import contract as redaction
from sanitizer.textkit.images import label_of
from sanitizer.textkit.markers import ids_of_width
from sanitizer.tokens import tally as token_report
from sanitizer.tokens.counter import DEFAULT_ENCODING, TokenCounter
from sanitizer.tokens.tally import Tally
from sanitizer.validate import validate_views

T = TypeVar("T")


@contextmanager
def gc_paused() -> Iterator[None]:
    """The one pause of the cyclic garbage collector: around loading, the rules and rendering.

    Parsed JSON holds no reference cycles, but every few hundred new containers CPython walks
    all live objects again, which makes loading 100,000 records super-linear; reference counting
    still frees everything as usual.  Taken by `Sanitizer.process`, the loop every entry point
    goes through (and by `run.job.process` around a JSONL file's line-by-line load before it);
    a pause inside a pause changes nothing.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


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
        return self._reader(doc)[0]

    def _reader(self, doc: Document, format: str | None = None) -> tuple[Adapter, list[View] | None]:
        """The adapter for `doc` (`format`, this sanitizer's, or detected), and its views where
        detecting the format already read them (telling two claimants apart)."""
        forced = format or self.format
        return (formats.by_name(forced), None) if forced else formats.detect_views(doc)

    def sanitize(self, obj: Any, source: str = "<memory>") -> Result:
        """Sanitize an in-memory conversation (never mutated; the result shares nothing with it)."""
        return self.process(obj, source, loaded=False)

    def sanitize_text(self, text: str, source: str = "<input>") -> Result:
        """Sanitize JSON or JSONL text."""
        return self.process(text, source)

    def sanitize_file(self, path: str | Path) -> Result:
        path = Path(path)  # the decoded text (keeping \r\n as is) is passed on, not held here
        return self.sanitize_text(path.read_bytes().decode("utf-8", errors="surrogateescape"), str(path))

    def run(self, doc: Document, *, defer_tokens: bool = False, format: str | None = None,
            budget: int | None = None, repair: str = "report", clean: Collection[str] = ()) -> Result:
        """Apply the rules to a loaded document (edited in place; see `process`).

        With `defer_tokens`, the report's token figures are left to the caller: `result.tally`
        holds the texts to count, and `token_report.settle` counts many results' texts at once.
        `format` reads the document in that format for this run only (a dataset line).  `clean`:
        texts known to hold no credential (`redaction.clean_strings` of many lines at once).
        """
        return self.process(doc, doc.source, defer_tokens=defer_tokens, format=format, budget=budget,
                            repair=repair, clean=clean)

    def fit(self, obj: Any, max_tokens: int, *, repair: str = "report") -> Result:
        """A copy of `obj` (never mutated) that fits `max_tokens` where the protected set allows."""
        return self.process(obj, "<memory>", loaded=False, budget=max_tokens, repair=repair)

    def process(self, content: str | Any, source: str, *, loaded: bool = True, mode: str = "copy",
                budget: int | None = None, repair: str = "report", defer_tokens: bool = False,
                format: str | None = None, accept: Callable[[Document], None] | None = None,
                then: Callable[[Result], T] | None = None, clean: Collection[str] = ()) -> T | Result:
        """The one loop from input to result, for every entry point and every mode.

        `content`: a loaded `Document` (edited in place), JSON/JSONL text, or (`loaded=False`, or
        any other object) messages in memory, copied first.  `mode`: `copy` (the rules, then
        `budget` stages when a budget is given, then the pair `repair`), `check` (no rule: the
        findings of `validate` in `result.findings`) or `summary` (no rule: the fallback summary
        of each conversation in `result.summaries`).  `accept` sees the loaded document before
        anything runs (and may raise); `then` turns the result into what the caller keeps.

        The cyclic garbage collector is paused throughout (see `gc_paused`), and the document is
        freed before it is back on.
        """
        with gc_paused():
            if isinstance(content, Document) and loaded:
                doc = content
            elif isinstance(content, str) and loaded:
                doc = loader.from_text(content, source)
            else:
                doc = loader.from_object(content, source)
            del content  # the caller's text is not needed once parsed (freed if the caller keeps none)
            if accept is not None:
                accept(doc)
            result = self._run(doc, mode, budget, repair, defer_tokens, format, clean)
            del doc
            out = result if then is None else then(result)
            # Freed while the collector is paused: otherwise its first pass after the pause walks
            # every object of the document once more (0.18 s on 100,000 messages).
            del result
        return out

    def _run(self, doc: Document, mode: str, budget: int | None, repair: str, defer_tokens: bool,
             format: str | None, clean: Collection[str] = ()) -> Result:
        started = time.perf_counter()
        adapter, read = self._reader(doc, format)
        views = read if read is not None else list(adapter.views(doc))
        counting = self.count_tokens or budget is not None  # a budget is kept in exact tokens
        report = Report(source=doc.source, format=adapter.name, preset=self.config.name,
                        encoding=self.counter.encoding_name if counting else None)
        if mode != "copy":
            return self._read_only(doc, adapter, views, report, mode, started)
        if repair not in MODES:
            raise ValueError(f"unknown repair mode {repair!r}; choose one of: {', '.join(MODES)}")
        before = self._texts_before(views)
        notes: list[str] = []
        if budget is not None:  # orphans are repaired first, so the budget accounts for stubs
            modes.check_budget(budget, repair)
            sizes_before = [modes.measure(v, self.counter) for v in views]
            notes = repair_doc(doc, views, repair)
            views = list(adapter.views(doc))
        # The text before the run is most of what the report counts: a big one is encoded by the
        # counter's worker processes while the rules run (this only fills the memo early).
        early = self.counter.count_many_later(before) if counting and not defer_tokens else None
        stats: dict[str, RuleStats] = {}
        cuts: list[Cut] = []
        redacting = self.config.redaction_rule
        found = redaction.guard_document(doc, views, clean) if redacting else []
        # Many conversations: their texts are cleared in one scan, not in one scan per conversation.
        if redacting and self.config.active and len(views) > 1 and not clean:
            clean = redaction.clean_texts(views)
        recoverable: list[recover.RecoverableCut] = []
        # With cut ids, every cut is made knowing what its id will cost (`textkit.markers`).
        with ids_of_width(recover.id_width(views) if self.cut_ids else 0):
            for view in views:
                if self.config.active:
                    start = len(cuts)
                    self.engine.run(view, stats, cuts, clean)
                    if self.cut_ids:  # before the write: the ids reach the copy, the transcript, the counts
                        recoverable += recover.assign(view, cuts[start:], len(recoverable), redacting,
                                                      self.config.protected_tags)
                    adapter.write(view)
        if redacting:
            found += redaction.settle_copies(doc, views)
        if budget is not None:
            fx = modes.Fitting(self.config, self.engine, self.counter, adapter, doc, stats, cuts)
            views, report.extra["budget"] = modes.fit_views(fx, budget, sizes_before, notes)
        if redacting:
            redaction.record(found, redacting, doc, stats, cuts)
        tally = self._fill_report(report, views, before, stats, cuts, counting, budget is not None)
        if tally is not None and not defer_tokens:
            if early is not None:
                early()
            token_report.settle(self.counter, [tally])
            tally = None
        report.problems = list(doc.problems)
        report.notes = notes
        self._note_unknown_kinds(report, views)
        result = Result(doc, adapter, views, report, tally, recoverable)
        if budget is None and repair != "report":
            repair_result(result, repair)
        report.seconds = time.perf_counter() - started
        return result

    def _read_only(self, doc: Document, adapter: Adapter, views: list[View], report: Report, mode: str,
                   started: float) -> Result:
        """`check` and `summary`: the input read, nothing changed."""
        result = Result(doc, adapter, views, report)
        report.problems = list(doc.problems)
        if mode == "check":
            report.conversations = len(views)
            report.messages = sum(len(v.messages) for v in views)
            result.findings = [str(f) for f in validate_views(views)]
            report.extra["check"] = result.findings
        elif mode == "summary":
            report.preset = "summary"
            result.summaries = modes.fallback_summaries(doc, format=adapter.name)
            if len(result.summaries) == 1:
                report.extra["summary"] = result.summaries[0][1].to_dict()
            else:
                report.extra["summaries"] = [{"conversation": label, **summary.to_dict()}
                                             for label, summary in result.summaries]
        else:
            raise ValueError(f"unknown mode {mode!r}; choose one of: copy, check, summary")
        report.seconds = time.perf_counter() - started
        return result

    @staticmethod
    def _note_unknown_kinds(report: Report, views: list[View]) -> None:
        unknown: Counter[str] = Counter()
        for view in views:
            unknown.update(view.meta.get("unknown_kinds") or {})
        if unknown:  # passed through unchanged, never an error
            report.notes.append("record kinds this reader does not know, passed through unchanged: "
                                + ", ".join(f"{k} ×{n}" for k, n in sorted(unknown.items())))

    @staticmethod
    def _texts_before(views: list[View]) -> list[str]:
        """What a summarizer reads of the input, before any rule runs: every part's text, an image
        as its label (never its data).  Rules change no part's kind to or from `other`."""
        return [label_of(p.meta) if p.kind == "image" else p.text for v in views for p in v.parts if p.kind != "other"]

    def _fill_report(self, report: Report, views: list[View], originals: list[str], stats: dict[str, RuleStats],
                     cuts: list[Cut], counting: bool, reread: bool) -> Tally | None:
        """Totals, rules and cuts; the token figures as a `Tally` still to count (None without
        counting).  `reread`: the views were read again after the rules (budget stages add and
        drop messages), so "after" is what they read now rather than the changed parts."""
        report.conversations = len(views)
        report.messages = sum(len(v.messages) for v in views)
        report.chars_before = sum(map(len, originals))
        report.rules = stats
        report.cuts = cuts
        if reread:
            after = [t for v in views for t in modes.measured_texts(v)]
            report.chars_after = sum(map(len, after))
            # tokens_after = before - (changed before) + (changed after), with everything changed
            groups = [list(originals), list(originals), after]
            for st in stats.values():
                groups += [[o for o, _ in st.pairs], [n for _, n in st.pairs]]
                st.pairs.clear()
            return Tally(report, groups)
        parts = [p for v in views for p in v.parts if p.kind != "other"]
        report.chars_after = sum(len(transcript.part_text(p)) for p in parts if not p.dropped)
        if not counting:
            for st in stats.values():
                st.pairs.clear()
            return None
        return token_report.tally(report, originals, parts, stats)


def sanitize(obj: Any, preset: str = "default", **options: Any) -> Result:
    """One call for the common case: `sanitize(messages).output` is the smaller copy."""
    return Sanitizer(preset, **options).sanitize(obj)


def fit(obj: Any, max_tokens: int, preset: str = "default", *, repair: str = "report",
        **sanitizer_options: Any) -> Result:
    """A copy of `obj` (never mutated) whose exact token count is at most `max_tokens` where
    that is possible without touching the protected set; `result.report.extra["budget"]` says how
    (the stages: `sanitizer.budget.fit`)."""
    return Sanitizer(preset, **sanitizer_options).fit(obj, max_tokens, repair=repair)


def read_conversations(obj: Any, format: str | None = None) -> list[View]:
    """Views of an input without any rule applied (for the fallback summary and the validator)."""
    return formats.read_views(obj, format)
