"""Which messages a rule may touch: the protected head and tail, and the latest user ask.

Protected by default: system messages, the first user message, and the last `keep_recent`
messages (or the last messages within `tail_tokens`).  The tail never starts with a tool result
whose call lies before it: the boundary moves back to the call, so a cut between middle and tail
never splits a pair.  The latest user message is verbatim whatever the configuration, except
that redaction reaches it (its credentials become markers), and so is a budget marker (`fit`
sized it; editing it again would make a second run change the output).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from sanitizer.model import Message, View
from sanitizer.pairs import Pairs


@dataclass(frozen=True, slots=True)
class Scopes:
    """The messages of one view each scope holds (by index), and the latest user ask."""
    head: frozenset[int]
    tail: frozenset[int]
    latest_user: int | None
    count: int
    markers: frozenset[int] = frozenset()  # budget markers: sized by `fit`, no rule edits them

    def members(self, scope: str, *, with_latest_user: bool = False) -> frozenset[int]:
        """The messages of `scope`; the latest user ask only `with_latest_user` (redaction)."""
        everything = frozenset(range(self.count))
        if scope == "all":
            chosen = everything
        elif scope == "head":
            chosen = self.head
        elif scope == "tail":
            chosen = self.tail
        else:  # older
            chosen = everything - self.head - self.tail
        chosen = chosen if with_latest_user else chosen - {self.latest_user}
        return chosen - self.markers

    @property
    def protected(self) -> frozenset[int]:
        extra = {self.latest_user} if self.latest_user is not None else set()
        return self.head | self.tail | extra


# The count line that starts the message budget mode puts in place of dropped turns.
BUDGET_MARKER = re.compile(r"\[… [\d,]++ earlier messages? dropped to fit a [\d,]++-token budget")


def is_budget_marker(view: View, msg: Message) -> bool:
    """A user message holding the marker of turns a budget run dropped (alone or appended)."""
    return msg.role == "user" and any(p.kind == "text" and "earlier message" in p.text and BUDGET_MARKER.match(p.text)
                                      for p in view.parts_of(msg))


def is_user_ask(view: View, msg: Message) -> bool:
    """A user message the user typed: has text, is not injected, is not only tool results, is
    not a tool observation carried as user text (SWE-agent v0, mini-swe-agent), and is not the
    marker of turns an earlier budget run dropped (else a second run would protect other turns)."""
    if msg.role != "user" or msg.injected or msg.meta.get("observation"):
        return False
    texts = [p.text for p in view.parts_of(msg) if p.kind in ("text", "image") and p.role == "user" and p.text.strip()]
    return bool(texts) and not (len(texts) == 1 and BUDGET_MARKER.match(texts[0]))


def tail_start(view: View, start: int) -> int:
    """Move `start` back so the tail does not begin inside a tool-call batch."""
    pairs = Pairs(view)
    moved = True
    while moved and start > 0:
        moved = False
        for i in range(start, len(view.messages)):
            for p in view.parts_of(view.messages[i]):
                at = pairs.call_message(p.call_id, last=True) if p.role == "tool" else None
                if at is not None and at < start:
                    start, moved = at, True
                    break
            if moved:
                break
        if not moved and start < len(view.messages) and view.messages[start].role == "tool":
            start, moved = start - 1, True  # a result with no known call still stays with what precedes it
    return max(start, 0)


def compute(view: View, keep_recent: int, tail_tokens: int = 0,
            count: Callable[[Message], int] | None = None) -> Scopes:
    n = len(view.messages)
    head: set[int] = {m.index for m in view.messages if m.role == "system"}
    first_user = next((m.index for m in view.messages if is_user_ask(view, m)), None)
    if first_user is None:
        first_user = next((m.index for m in view.messages if m.role == "user"), None)
    if first_user is not None:
        head.add(first_user)
    latest = next((m.index for m in reversed(view.messages) if is_user_ask(view, m)), None)
    if tail_tokens > 0 and count is not None:
        start, used = n, 0
        while start > 0 and (used + count(view.messages[start - 1]) <= tail_tokens or start == n):
            used += count(view.messages[start - 1])
            start -= 1
    else:
        start = max(n - keep_recent, 0)
    start = tail_start(view, start) if start < n else n
    markers = frozenset(m.index for m in view.messages if m.role == "user" and is_budget_marker(view, m))
    return Scopes(head=frozenset(head), tail=frozenset(range(start, n)), latest_user=latest, count=n, markers=markers)
