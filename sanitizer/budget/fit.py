"""Budget mode: fit a conversation into `max_tokens` without ever breaking it (DESIGN §7).

Stages, each measured with exact tiktoken counts over the part texts a summarizer reads (an image
as its label, unknown blocks not at all; the same measure as the report's `tokens_after`):

1. the pack's rules, as configured (older messages only, tail of `keep_recent`);
2. the same rules with tighter limits and a smaller tail: every numeric option scaled by 1/2 with
   `keep_recent` 4, then by 1/4 with `keep_recent` 2 (each level only on conversations still
   over budget; a level whose options the action rejects keeps that rule's own options);
3. the oldest middle turns replaced by ONE marker message in the input's format carrying a count
   line, the dropped turns' `<key_info>` blocks and, where the budget leaves room, the
   deterministic summary of what was dropped (`budget.cut`);
4. last, before giving up: the same rules at the tightest limits (scaled by 1/4, then 1/16) on
   every message, the protected ones included (system prompt, first user message, the tail),
   except the latest user ask; `<key_info>` blocks and signed thinking stay as the engine keeps
   them everywhere, and no pair is broken (rules never remove a call or a result).

The protected set in budget mode is the system message(s), the first user message, the latest
user message and the last two messages (moved back so a call batch is never split): stages 1-3
never touch it, stage 4 trims it but never drops a message.  `report.extra["budget"]` says
whether the budget was `met` and the smallest size reached (`tokens_after`, also as
`smallest_tokens` with a note when the budget is not met).  Orphans
already in the input are reported, stripped or stubbed first (`repair`, see `budget.repair`), so
the budget accounts for stubs.  Each conversation of a dataset is fitted independently.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from sanitizer.budget.cut import Drop, Planner, apply
from sanitizer.budget.repair import MODES
from sanitizer.config import Config, Rule
from sanitizer.engine import Engine
from sanitizer.formats.base import Adapter
from sanitizer.model import Document, Part, View
from sanitizer.report import Cut, RuleStats
from sanitizer.scope import compute
from sanitizer.textkit.images import label_of
from sanitizer.tokens.counter import TokenCounter

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


def message_counts(view: View, counter: TokenCounter) -> list[int]:
    parts = [p for p in view.parts if p.kind != "other" and not p.dropped]
    counts = [0] * len(view.messages)
    for p, n in zip(parts, counter.count_many([_shown(p) for p in parts]), strict=True):
        counts[p.message] += n
    return counts


def protected_tag_names(config: Config) -> set[str]:
    """The config's protected tags (`key_info` plus what its rules protect), as the engine uses them."""
    return set(config.protected_tags)


def measure(view: View, counter: TokenCounter) -> int:
    """The exact tokens a summarizer reads of one conversation."""
    return sum(counter.count_many(measured_texts(view)))


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


@dataclass(slots=True)
class Fitting:
    """What the pipeline hands the budget stages: one document in the middle of its run."""

    config: Config
    engine: Engine
    counter: TokenCounter
    adapter: Adapter
    doc: Document
    stats: dict[str, RuleStats]
    cuts: list[Cut]


def check_budget(max_tokens: int, repair: str) -> None:
    """Raise ValueError for a budget that is not a positive integer or an unknown repair mode."""
    if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 1:
        raise ValueError(f"max_tokens must be a positive integer, got {max_tokens!r}")
    if repair not in MODES:
        raise ValueError(f"unknown repair mode {repair!r}; choose one of: {', '.join(MODES)}")


def fit_views(fx: Fitting, max_tokens: int, before: list[int], notes: list[str]) -> tuple[list[View], dict[str, Any]]:
    """Stages 2-4 on a document whose stage 1 (the pack as configured) the pipeline has run.

    `before`: each conversation's size before any rule (and before pair repair).  Returns the
    conversations as they now read and `report.extra["budget"]`; appends the stages' notes.
    """
    views = list(fx.adapter.views(fx.doc))
    stage = [1 if fx.config.active else 0] * len(views)
    sizes = [measure(v, fx.counter) for v in views]
    if fx.config.active:
        for keep, factor in LADDER:
            over = [i for i, n in enumerate(sizes) if n > max_tokens]
            if not over:
                break
            engine = Engine(tighter(fx.config, keep, factor), fx.counter)
            for i in over:
                engine.run(views[i], fx.stats, fx.cuts)
                fx.adapter.write(views[i])
                stage[i] = 2
            views = list(fx.adapter.views(fx.doc))
            sizes = [measure(v, fx.counter) for v in views]
    budget: dict[str, Any] = {"max_tokens": max_tokens, "conversations": []}
    for i, view in enumerate(views):
        info = _drop_stage(fx, view, sizes[i], max_tokens) if sizes[i] > max_tokens else {}
        if info.get("dropped"):
            stage[i] = 3
        budget["conversations"].append(info)
    views = list(fx.adapter.views(fx.doc))
    after = [measure(v, fx.counter) for v in views]
    if fx.config.active and any(n > max_tokens for n in after):
        after = _trim_protected(fx, after, max_tokens, stage, budget)
        views = list(fx.adapter.views(fx.doc))
    _notes(budget, views, before, after, stage, max_tokens, notes, len(views) > 1)
    return views, budget


def _trim_protected(fx: Fitting, sizes: list[int], max_tokens: int, stage: list[int],
                    budget: dict[str, Any]) -> list[int]:
    """Stage 4 on the conversations still over budget; returns the sizes after it."""
    for factor in LAST_RESORT:
        over = [i for i, n in enumerate(sizes) if n > max_tokens]
        if not over:
            break
        engine = Engine(last_resort(fx.config, factor), fx.counter)
        views = list(fx.adapter.views(fx.doc))
        for i in over:
            hits = len(fx.cuts)
            engine.run(views[i], fx.stats, fx.cuts)
            fx.adapter.write(views[i])
            if len(fx.cuts) > hits:
                stage[i] = 4
                info = budget["conversations"][i]
                info["trimmed_protected"] = info.get("trimmed_protected", 0) + len(fx.cuts) - hits
        sizes = [measure(v, fx.counter) for v in fx.adapter.views(fx.doc)]
    return sizes


def _drop_stage(fx: Fitting, view: View, size: int, max_tokens: int) -> dict[str, Any]:
    """Stage 3 for one conversation: plan and apply the drops; returns what the report needs."""
    counts = message_counts(view, fx.counter)
    engine_scopes = compute(view, FINAL_KEEP_RECENT)
    protected = sorted(engine_scopes.protected | set(range(min(engine_scopes.head, default=0))))
    info: dict[str, Any] = {"protected_tokens": sum(counts[i] for i in protected),
                            "protected_messages": len(protected)}
    if not fx.adapter.can_drop_turns:
        info["why"] = f"dropping turns is not available for format {fx.adapter.name}"
        return info
    planner = Planner(view, counts, engine_scopes, fx.counter.count, max_tokens,
                      protected_tags=protected_tag_names(fx.config))
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


__all__ = ["Drop", "Fitting", "check_budget", "fit_views", "measure", "measured_texts", "tighter"]
