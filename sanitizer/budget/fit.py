"""Budget mode: fit a conversation into `max_tokens` without ever breaking it (DESIGN §7).

Stages, each measured with exact tiktoken counts over the part texts a summarizer reads (an image
as its label, unknown blocks not at all; the same measure as the report's `tokens_after`):

1. the pack's rules, as configured (older messages only, tail of `keep_recent`);
2. the same rules with tighter limits and a smaller tail: every numeric option scaled by 1/2 with
   `keep_recent` 4, then by 1/4 with `keep_recent` 2 (each level only on conversations still
   over budget; a level whose options the action rejects keeps that rule's own options);
3. the oldest middle turns replaced by ONE marker message in the input's format carrying a count
   line, the dropped turns' `<key_info>` blocks and, where the budget leaves room, the
   deterministic summary of what was dropped (`fit_cut`);
4. last, before giving up: the same rules at the tightest limits (scaled by 1/4, then 1/16) on
   every message, the protected ones included (system prompt, first user message, the tail),
   except the latest user ask; `<key_info>` blocks and signed thinking stay as the engine keeps
   them everywhere, and no pair is broken (rules never remove a call or a result).

The protected set in budget mode is the system message(s), the first user message, the latest
user message and the last two messages (moved back so a call batch is never split): stages 1-3
never touch it, stage 4 trims it but never drops a message.  `report.extra["budget"]` says
whether the budget was `met` and the smallest size reached (`tokens_after`, also as
`smallest_tokens` with a note when the budget is not met).  Orphans
already in the input are reported, stripped or stubbed first (`repair`, see `fit_repair`), so
the budget accounts for stubs.  Each conversation of a dataset is fitted independently.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any

from sanitizer.budget.cut import Drop, Planner, apply
from sanitizer.budget.repair import MODES, repair_doc
from sanitizer.config import Config, Rule
from sanitizer.document import loader
from sanitizer.engine import Cut, Engine, RuleStats
from sanitizer.formats.base import Adapter
from sanitizer.model import Document, Part, View
from sanitizer.pipeline import Result, Sanitizer
from sanitizer.report import Report
from sanitizer.scope import compute
from sanitizer.secrets import contract as redaction
from sanitizer.textkit.images import label_of

# (keep_recent, factor applied to numeric rule options) of stage 2's levels.
LADDER: tuple[tuple[int, float], ...] = ((4, 0.5), (2, 0.25))
LAST_RESORT: tuple[float, ...] = (0.25, 0.0625)  # stage 4's factors, every message but the latest ask
FINAL_KEEP_RECENT = LADDER[-1][0]
MIN_OPTION = 2  # numeric options at or below this are left alone (counts such as "keep 1 line")


def _shown(part: Part) -> str:
    return label_of(part.meta) if part.kind == "image" else part.text


def measured_texts(view: View) -> list[str]:
    """The texts a summarizer reads: every part but unknown blocks, an image as its label (the
    report's measure, so an image placeholder never counts as added tokens)."""
    return [_shown(p) for p in view.parts if p.kind != "other" and not p.dropped]


def message_counts(view: View, san: Sanitizer) -> list[int]:
    parts = [p for p in view.parts if p.kind != "other" and not p.dropped]
    counts = [0] * len(view.messages)
    for p, n in zip(parts, san.counter.count_many([_shown(p) for p in parts]), strict=True):
        counts[p.message] += n
    return counts


def protected_tag_names(config: Config) -> set[str]:
    """The config's protected tags (`key_info` plus what its rules protect), as the engine uses them."""
    return set(config.protected_tags)


def measure(view: View, san: Sanitizer) -> int:
    return sum(san.counter.count_many(measured_texts(view)))


def tighter(config: Config, keep_recent: int, factor: float) -> Config:
    """`config` with a smaller tail and every numeric option of every rule scaled by `factor`."""
    rules: list[Rule] = []
    for rule in config.rules:
        changes: dict[str, Any] = {}
        for f in dataclasses.fields(rule.options):
            value = getattr(rule.options, f.name)
            if isinstance(value, int) and not isinstance(value, bool) and value > MIN_OPTION:
                changes[f.name] = max(MIN_OPTION, int(value * factor))
        try:
            options = dataclasses.replace(rule.options, **changes) if changes else rule.options
        except (TypeError, ValueError):
            options = rule.options
        rules.append(dataclasses.replace(rule, options=options))
    return dataclasses.replace(config, rules=tuple(rules), keep_recent=min(keep_recent, config.keep_recent),
                               tail_tokens=0)


def last_resort(config: Config, factor: float) -> Config:
    """`tighter` with no tail, every rule scoped to all messages (the latest user ask stays out)."""
    tight = tighter(config, 0, factor)
    return dataclasses.replace(tight, rules=tuple(dataclasses.replace(r, scope="all") for r in tight.rules))


def fit(obj: Any, max_tokens: int, preset: str = "default", *, repair: str = "report",
        **sanitizer_options: Any) -> Result:
    """A copy of `obj` (never mutated) whose exact token count is at most `max_tokens` where that
    is possible without touching the protected set; `result.report.extra["budget"]` says how."""
    san = Sanitizer(preset, **sanitizer_options)
    return fit_document(san, loader.from_object(obj), max_tokens, repair=repair)


def _check(max_tokens: int, repair: str) -> None:
    if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 1:
        raise ValueError(f"max_tokens must be a positive integer, got {max_tokens!r}")
    if repair not in MODES:
        raise ValueError(f"unknown repair mode {repair!r}; choose one of: {', '.join(MODES)}")


def fit_document(san: Sanitizer, doc: Document, max_tokens: int, repair: str = "report") -> Result:
    """Fit every conversation of `doc` (owned by the caller's sanitizer run; edited in place)."""
    _check(max_tokens, repair)
    started = time.perf_counter()
    adapter = san.adapter_for(doc)
    views = list(adapter.views(doc))
    before = [measure(v, san) for v in views]
    chars_before = sum(len(t) for v in views for t in measured_texts(v))
    notes = repair_doc(doc, views, repair)
    stats: dict[str, RuleStats] = {}
    cuts: list[Cut] = []
    views = list(adapter.views(doc))
    redacting = redaction.rule_of(san.config)
    found = redaction.guard_document(doc, views) if redacting else []
    stage = [0] * len(views)
    levels: list[tuple[int, Engine]] = [(san.config.keep_recent, san.engine)]
    if san.config.active:
        levels += [(k, Engine(tighter(san.config, k, f), san.counter)) for k, f in LADDER]
    sizes = [measure(v, san) for v in views]
    for level, (_, engine) in enumerate(levels, start=1):
        over = [i for i, n in enumerate(sizes) if n > max_tokens or level == 1]
        if not over or not san.config.active:
            break
        for i in over:
            engine.run(views[i], stats, cuts)
            adapter.write(views[i])
            stage[i] = max(stage[i], 1 if level == 1 else 2)
        if redacting and level == 1:
            found += redaction.settle_copies(doc, [views[i] for i in over])
        views = list(adapter.views(doc))
        sizes = [measure(v, san) for v in views]
    budget: dict[str, Any] = {"max_tokens": max_tokens, "conversations": []}
    for i, view in enumerate(views):
        info = _drop_stage(san, adapter, view, sizes[i], max_tokens) if sizes[i] > max_tokens else {}
        if info.get("dropped"):
            stage[i] = 3
        budget["conversations"].append(info)
    views = list(adapter.views(doc))
    after = [measure(v, san) for v in views]
    if san.config.active and any(n > max_tokens for n in after):
        after = _trim_protected(san, adapter, doc, after, max_tokens, stage, budget, stats, cuts)
        views = list(adapter.views(doc))
    _notes(budget, views, before, after, stage, max_tokens, notes, len(views) > 1)
    if redacting:
        redaction.record(found, redacting, doc, stats, cuts)
    report = _report(san, doc, adapter, views, stats, cuts, before, after, chars_before, notes, budget)
    report.seconds = time.perf_counter() - started
    return Result(doc, adapter, views, report)


def _trim_protected(san: Sanitizer, adapter: Adapter, doc: Document, sizes: list[int], max_tokens: int,
                    stage: list[int], budget: dict[str, Any], stats: dict[str, RuleStats],
                    cuts: list[Cut]) -> list[int]:
    """Stage 4 on the conversations still over budget; returns the sizes after it."""
    for factor in LAST_RESORT:
        over = [i for i, n in enumerate(sizes) if n > max_tokens]
        if not over:
            break
        engine = Engine(last_resort(san.config, factor), san.counter)
        views = list(adapter.views(doc))
        for i in over:
            hits = len(cuts)
            engine.run(views[i], stats, cuts)
            adapter.write(views[i])
            if len(cuts) > hits:
                stage[i] = 4
                info = budget["conversations"][i]
                info["trimmed_protected"] = info.get("trimmed_protected", 0) + len(cuts) - hits
        sizes = [measure(v, san) for v in adapter.views(doc)]
    return sizes


def _drop_stage(san: Sanitizer, adapter: Adapter, view: View, size: int, max_tokens: int) -> dict[str, Any]:
    """Stage 3 for one conversation: plan and apply the drops; returns what the report needs."""
    counts = message_counts(view, san)
    engine_scopes = compute(view, FINAL_KEEP_RECENT)
    protected = sorted(engine_scopes.protected | set(range(min(engine_scopes.head, default=0))))
    info: dict[str, Any] = {"protected_tokens": sum(counts[i] for i in protected),
                            "protected_messages": len(protected)}
    if not adapter.can_drop_turns:
        info["why"] = f"dropping turns is not available for format {adapter.name}"
        return info
    planner = Planner(view, counts, engine_scopes, san.counter.count, max_tokens,
                      protected_tags=protected_tag_names(san.config))
    drops, predicted, why = planner.plan(size)
    apply(view, drops)
    info["dropped"] = [d.to_dict() for d in drops]
    info["predicted_tokens"] = predicted
    if why:
        info["why"] = "; ".join(why)
    return info


def _notes(budget: dict[str, Any], views: list[View], before: list[int], after: list[int], stage: list[int],
           max_tokens: int, notes: list[str], many: bool) -> None:
    met = [n <= max_tokens for n in after]
    budget.update({"tokens_before": sum(before), "tokens_after": sum(after), "smallest_tokens": sum(after),
                   "met": all(met),
                   "keep_recent": FINAL_KEEP_RECENT if any(s >= 2 for s in stage) else None})
    for i, info in enumerate(budget["conversations"]):
        info.update({"tokens_before": before[i], "tokens_after": after[i], "met": met[i], "stage": stage[i]})
        name = f"conversation {i + 1}: " if many else ""
        drops: list[dict[str, Any]] = info.get("dropped") or []
        if info.get("trimmed_protected"):
            notes.append(f"{name}trimmed {info['trimmed_protected']} part(s) of protected messages (system, first "
                         f"user message, tail; never the latest user ask or <key_info>) to approach the budget")
        for d in drops:
            where = f"lines {d['lines'][0]}–{d['lines'][-1]}" if len(d["lines"]) > 1 else f"records {d['records']}"
            extra = f", with {d['passthrough_records']} pass-through record(s)" if d["passthrough_records"] else ""
            notes.append(f"{name}dropped {d['messages']} message(s) ({d['tokens']:,} tokens; {where}{extra}) "
                         f"and put a {d['marker_tokens']:,}-token marker in their place")
        if met[i]:
            continue
        protected = info.get("protected_tokens")
        if protected is not None and protected > max_tokens:
            why = (f"the protected set alone (system, first and latest user message, last {FINAL_KEEP_RECENT} "
                   f"messages: {info['protected_messages']} messages) is {protected:,} tokens, "
                   f"{protected - max_tokens:,} over the {max_tokens:,} budget")
        else:
            why = info.get("why") or "no further cut keeps every tool call with its result"
        notes.append(f"{name}budget not met: the smallest size reached is {after[i]:,} tokens for a "
                     f"{max_tokens:,}-token budget; {why}")


def _report(san: Sanitizer, doc: Document, adapter: Adapter, views: list[View], stats: dict[str, RuleStats],
            cuts: list[Cut], before: list[int], after: list[int], chars_before: int, notes: list[str],
            budget: dict[str, Any]) -> Report:
    report = Report(source=doc.source, format=adapter.name, preset=san.config.name,
                    encoding=san.counter.encoding_name)
    report.conversations = len(views)
    report.messages = sum(len(v.messages) for v in views)
    report.chars_before = chars_before
    report.chars_after = sum(len(t) for v in views for t in measured_texts(v))
    report.tokens_before, report.tokens_after = sum(before), sum(after)
    for st in stats.values():
        st.tokens_saved = sum(san.counter.count_many([o for o, _ in st.pairs])) - sum(
            san.counter.count_many([n for _, n in st.pairs]))
        st.pairs.clear()
    report.rules = stats
    report.cuts = cuts
    report.problems = list(doc.problems)
    report.notes = notes
    report.extra["budget"] = budget
    return report


def repair_result(result: Result, mode: str) -> Result:
    """Apply a pair repair (`report`, `strip`, `stub`) to an already-sanitized result, in place."""
    if mode not in MODES:
        raise ValueError(f"unknown repair mode {mode!r}; choose one of: {', '.join(MODES)}")
    notes = repair_doc(result.doc, list(result.adapter.views(result.doc)), mode)
    result.views = list(result.adapter.views(result.doc))
    result.report.notes.extend(notes)
    result.report.extra["repair"] = {"mode": mode, "notes": notes}
    return result


__all__ = ["Drop", "fit", "fit_document", "measure", "repair_result", "tighter"]
