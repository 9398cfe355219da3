"""The exact token figures of a report, counted in one batch for one or many results.

A run first records which texts its figures need (`Tally`: the text of every part before, the
changed parts before and after, each rule's removed and added texts); `settle` counts the texts
of many tallies in one `TokenCounter.count_many` call and writes the sums into their reports.
One call per dataset batch instead of one per line lets a batch of small lines reach the size
at which the counter encodes in worker processes, and `settle_later` lets the caller go on with
the next batch meanwhile; the figures are the same either way.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from sanitizer.model import Part
from sanitizer.report import Report, RuleStats
from sanitizer.tokens.counter import TokenCounter


@dataclass(slots=True)
class Tally:
    """The texts behind one report's token figures, in groups whose sums make the figures."""

    report: Report
    groups: list[list[str]]

    @property
    def chars(self) -> int:
        """Chars of the text before the run (most of what is left to encode: the rest repeats it)."""
        return sum(map(len, self.groups[0]))


def tally(report: Report, originals: Sequence[str], parts: Sequence[Part], stats: dict[str, RuleStats]) -> Tally:
    """The texts to count for `report`: `originals[i]` is what `parts[i]` read before the run.

    Clears each rule's (old, new) pairs, which are kept only for this.
    """
    changed = [(o, p) for o, p in zip(originals, parts, strict=True) if p.changed]
    groups = [list(originals), [o for o, _ in changed], [p.text for _, p in changed if not p.dropped]]
    for st in stats.values():
        groups += [[o for o, _ in st.pairs], [n for _, n in st.pairs]]
        st.pairs.clear()
    return Tally(report, groups)


def settle(counter: TokenCounter, tallies: Sequence[Tally]) -> None:
    """Count the texts of all `tallies` in one batch and fill in their reports' token figures."""
    settle_later(counter, tallies)()


def settle_later(counter: TokenCounter, tallies: Sequence[Tally]) -> Callable[[], None]:
    """Start counting like `settle`; the returned function waits and fills in the reports."""
    later = counter.count_many_later([t for ta in tallies for g in ta.groups for t in g])

    def fill() -> None:
        counts = iter(later())
        for ta in tallies:
            sums = [sum(next(counts) for _ in g) for g in ta.groups]
            before, changed_before, changed_after, *per_rule = sums
            ta.report.tokens_before = before
            ta.report.tokens_after = before - changed_before + changed_after
            for st, removed, added in zip(ta.report.rules.values(), per_rule[::2], per_rule[1::2], strict=True):
                st.tokens_saved = removed - added

    return fill
