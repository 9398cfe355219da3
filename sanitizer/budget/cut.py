"""Stage 3 of budget mode: replace the oldest middle turns of a view by one marker message.

A dropped range `[a, b)` of messages is chosen so that

* it holds no protected message (system, first user message, latest user message, the tail),
* no tool call inside it has a result outside it and no result inside it answers a call outside
  it (parallel calls are one batch: every result of the batch goes with it),
* the kept part after it does not start with a tool result,
* the marker keeps the format valid: for Anthropic Messages that alternated strictly, the range
  runs from an assistant message to just before an assistant message and the marker is appended
  as a text block to the user message before it (the API needs user/assistant alternation); for
  Responses / Codex a `reasoning` item is never separated from the item it produced.

Ranges are taken oldest first, one per stretch of droppable messages, each as short as the budget
allows.  The marker (`budget.marker`) carries every protected block (`<key_info>` …) of the
dropped messages verbatim, after its count line, and its cost is part of the plan.  Every record between the first dropped message and the next kept one goes with the
range (pass-through records such as Claude Code `progress`, `system`, `file-history-snapshot`, or
Codex `event_msg`/`state` lines describe the dropped turns); damaged lines are always kept.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any

from sanitizer.budget.document import list_at, splice
from sanitizer.budget.marker import SUMMARY_MAX_CHARS, SUMMARY_MIN_CHARS, count_line, kept_blocks, summarized
from sanitizer.formats.base import BLOCKS, item_of
from sanitizer.model import Damaged, Message, View
from sanitizer.pairs import Pairs
from sanitizer.scope import Scopes

START_SEARCH = 16  # how far past a stretch's start a valid first dropped message is looked for


@dataclass(slots=True)
class Drop:
    """One dropped range of messages and the marker that replaces it."""

    start: int
    stop: int
    tokens: int
    marker: str = ""
    marker_tokens: int = 0
    merged: bool = False  # marker appended to the user message before the range (Anthropic)
    records: list[int] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    passthrough: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"messages": self.stop - self.start, "first_message": self.start, "tokens": self.tokens,
                "marker_tokens": self.marker_tokens, "records": self.records, "lines": self.lines,
                "passthrough_records": self.passthrough, "marker": self.marker}


def strict_alternation(view: View) -> bool:
    roles = [m.role for m in view.messages if m.role != "system"]
    return bool(roles) and roles[0] == "user" and all(x != y for x, y in zip(roles, roles[1:], strict=False))


class Planner:
    """Chooses the ranges to drop in one view (nothing is changed until `apply`)."""

    def __init__(self, view: View, counts: list[int], scopes: Scopes, count: Callable[[str], int],
                 budget: int, summarize: bool = True, protected_tags: Collection[str] = ("key_info",)) -> None:
        self.view = view
        self.msgs = view.messages
        self.counts = counts
        self.scopes = scopes
        self.count = count
        self.budget = budget
        self.summarize = summarize
        self.protected_tags = sorted(protected_tags)
        self._blocks: dict[int, list[str]] = {}
        self.adapter = view.adapter
        self.nested = self.adapter.nested(view)
        self.merge = self.adapter.dialect(view) == BLOCKS and strict_alternation(view)
        self._bounds()

    def _bounds(self) -> None:
        """lo[i] / hi[i]: the first / last message a message must stay with (its calls' results,
        its results' calls).  A result pairs with the latest call of its id before it (ids are
        reused in real files, e.g. τ-bench), else with the first one after it."""
        n = len(self.msgs)
        self.lo = list(range(n))
        self.hi = list(range(n))
        pairs = Pairs(self.view)
        for p in pairs.result_parts:
            partner = pairs.partner(p)
            if partner is None:
                continue
            lo, hi = min(partner, p.message), max(partner, p.message)
            for i in (partner, p.message):
                self.lo[i] = min(self.lo[i], lo)
                self.hi[i] = max(self.hi[i], hi)

    def stretches(self) -> list[tuple[int, int]]:
        """Maximal runs of droppable messages after the first user message."""
        # An earlier run's marker stays: dropping it again would only trade it for a shorter count
        # line (a second run would change the output, and the dropped turns' tally would be lost).
        protected = self.scopes.protected | self.scopes.markers
        users = [i for i in self.scopes.head if self.msgs[i].role != "system"]
        first = min(users) if users else max((i for i in self.scopes.head), default=-1)
        out: list[tuple[int, int]] = []
        i, n = first + 1, len(self.msgs)
        while i < n:
            if i in protected:
                i += 1
                continue
            j = i
            while j < n and j not in protected:
                j += 1
            out.append((i, j))
            i = j
        return out

    def _starts_with_result(self, msg: Message) -> bool:
        if msg.role == "tool":
            return True
        first = next(iter(self.view.parts_of(msg)), None)
        return first is not None and first.role == "tool"

    def start_ok(self, a: int) -> bool:
        msg = self.msgs[a]
        if self._starts_with_result(msg) and self.lo[a] < a:
            return False
        if self.nested and item_of(self.view, msg) is None:
            return False
        if self.merge:
            prev = self.msgs[a - 1] if a > 0 else None
            if msg.role != "assistant" or prev is None or prev.role != "user" or self.adapter.message_node(self.view, prev) is None:
                return False
            if prev.index == self.scopes.latest_user:
                return False  # the marker would be appended to the latest user ask, which stays verbatim
        return not (a > 0 and self.adapter.binds_next(self.view, self.msgs[a - 1]))

    def end_ok(self, b: int) -> bool:
        if b < len(self.msgs):
            msg = self.msgs[b]
            if self._starts_with_result(msg):
                return False
            if self.nested and item_of(self.view, msg) is None:
                return False
            if self.merge and msg.role != "assistant":
                return False
        return not self.adapter.binds_next(self.view, self.msgs[b - 1])

    def valid_ends(self, a: int, e: int) -> list[int]:
        out, mn, mx = [], a, a
        for b in range(a + 1, e + 1):
            mn, mx = min(mn, self.lo[b - 1]), max(mx, self.hi[b - 1])
            if mn < a:
                break  # a result inside answers a call before the range: no later end helps
            if mx < b and self.end_ok(b):
                out.append(b)
        return out

    def count_line(self, a: int, b: int) -> str:
        """The marker's first line for messages [a, b), then their protected blocks."""
        blocks = dict.fromkeys(blk for i in range(a, b) for blk in self._blocks_of(i))  # in order, no repeats
        return "\n".join([count_line(self.view, self.msgs[a:b], self.budget), *blocks])

    def _blocks_of(self, i: int) -> list[str]:
        """Message `i`'s protected blocks, scanned once (plans try many ends for one start)."""
        if i not in self._blocks:
            self._blocks[i] = kept_blocks(list(self.view.parts_of(self.msgs[i])), self.protected_tags)
        return self._blocks[i]

    def plan(self, total: int) -> tuple[list[Drop], int, list[str]]:
        """Ranges to drop (oldest first), the predicted total after them, and notes."""
        drops: list[Drop] = []
        notes: list[str] = []
        prefix = [0]
        for c in self.counts:
            prefix.append(prefix[-1] + c)
        for s, e in self.stretches():
            if total <= self.budget:
                break
            a = next((x for x in range(s, min(e, s + START_SEARCH)) if self.start_ok(x)), None)
            if a is None:
                notes.append(f"messages {s}–{e - 1}: no place to start a cut that keeps the format valid")
                continue
            ends = self.valid_ends(a, e)
            chosen: Drop | None = None
            for b in ends:
                saved = prefix[b] - prefix[a]
                if saved - 120 < total - self.budget and b != ends[-1]:
                    continue  # cannot be enough even with a short marker
                line = self.count_line(a, b)
                cost = self.count(line)
                if saved - cost >= total - self.budget or b == ends[-1]:
                    chosen = Drop(a, b, saved, line, cost, merged=self.merge)
                    break
            if chosen is None or chosen.tokens <= chosen.marker_tokens:
                if not ends:
                    notes.append(f"messages {a}–{e - 1}: every cut would split a tool call from its result")
                continue
            drops.append(chosen)
            total -= chosen.tokens - chosen.marker_tokens
        if drops and total > self.budget:
            markers = sum(d.marker_tokens for d in drops)
            notes.append(f"every droppable turn is dropped; the kept messages and the {markers:,} tokens of "
                         f"marker(s) in their place still exceed the budget")
        if self.summarize:
            total = self._add_summaries(drops, total)
        return drops, total, notes

    def _add_summaries(self, drops: list[Drop], total: int) -> int:
        for d in drops:
            slack = self.budget - total
            max_chars = min(SUMMARY_MAX_CHARS, slack * 3)
            if max_chars < SUMMARY_MIN_CHARS:
                break
            room = self.budget - total + d.marker_tokens  # what the marker may cost
            found = summarized(self.view, self.msgs[d.start:d.stop], d.marker, max_chars, room, self.count)
            if found is not None:
                marker, cost = found
                total += cost - d.marker_tokens
                d.marker, d.marker_tokens = marker, cost
        return total


def apply(view: View, drops: list[Drop]) -> None:
    """Remove the planned ranges from the document and put their markers in (views go stale)."""
    if not drops:
        return
    doc = view.doc
    msgs = view.messages
    for d in drops:  # merges first: they edit records before the ranges, indices still valid
        if d.merged:
            view.adapter.append_text(view, msgs[d.start - 1], d.marker)
    if view.adapter.nested(view):
        for d in reversed(drops):
            record, lpath, ia = item_of(view, msgs[d.start])  # type: ignore[misc]
            items = list_at(doc, record, lpath)
            ib = item_of(view, msgs[d.stop])[2] if d.stop < len(msgs) else len(items)  # type: ignore[index]
            d.records = [record]
            d.lines = [ln] if (ln := doc.line_of(record)) is not None else []
            d.passthrough = (ib - ia) - (d.stop - d.start)
            del items[ia:ib]
            if not d.merged:
                items.insert(ia, view.adapter.marker_node(view, d.marker))
            doc.dirty.add(record)
        return
    kept = {r for m in msgs for r in m.records}
    drop_set: set[int] = set()
    inserts: dict[int, list[Any]] = {}
    for d in drops:
        first = msgs[d.start].records[0]
        stop = msgs[d.stop].records[0] if d.stop < len(msgs) else len(doc.records)
        inside = {r for m in msgs[d.start:d.stop] for r in m.records}
        rng = [r for r in range(first, stop) if not isinstance(doc.records[r], Damaged)
               and (r in inside or r not in kept)]
        d.records = rng
        d.lines = [ln for r in rng if (ln := doc.line_of(r)) is not None]
        d.passthrough = len(rng) - len(inside)
        drop_set.update(rng)
        if not d.merged:
            marker = view.adapter.marker_node(view, d.marker, near=first)
            view.adapter.link_marker(view, marker, rng, stop)
            inserts[first] = [marker]
    splice(doc, drop_set, inserts)

