"""The one index of tool calls and their results in a view, orphans included.

Built in one pass over the parts: a tool call is a `tool_call` part with a call id, a result is
any other part of role `tool` with one (a result whose content holds several parts is several
result parts).  Every consumer (the engine's context, `--check`, pair repair, the tail scope,
budget cuts) reads pairs from here.
"""

from __future__ import annotations

from sanitizer.model import Part, View


class Pairs:
    """Calls and results of one view by call id, in view order."""

    __slots__ = ("calls", "results", "call_parts", "result_parts")

    def __init__(self, view: View) -> None:
        self.call_parts: list[Part] = []
        self.result_parts: list[Part] = []
        self.calls: dict[str, list[Part]] = {}  # call id -> its calls (ids are reused in real files)
        self.results: dict[str, list[Part]] = {}  # call id -> its result parts
        for p in view.parts:
            if p.call_id is None:
                continue
            if p.kind == "tool_call":
                self.call_parts.append(p)
                self.calls.setdefault(p.call_id, []).append(p)
            elif p.role == "tool":
                self.result_parts.append(p)
                self.results.setdefault(p.call_id, []).append(p)

    def first_calls(self) -> dict[str, Part]:
        """The first call of every id (what a result is said to answer)."""
        return {call_id: calls[0] for call_id, calls in self.calls.items()}

    def unanswered(self) -> list[Part]:
        """Calls whose id no result carries, in view order."""
        return [p for p in self.call_parts if p.call_id and p.call_id not in self.results]

    def orphans(self, per_message: bool = False) -> list[Part]:
        """Results whose id no call carries: the first part of each id, or with `per_message`
        the first part of each id in each message."""
        seen: set[object] = set()
        out = []
        for p in self.result_parts:
            if not p.call_id or p.call_id in self.calls:
                continue
            key = (p.message, p.call_id) if per_message else p.call_id
            if key not in seen:
                seen.add(key)
                out.append(p)
        return out

    def duplicates(self) -> list[tuple[str, list[Part]]]:
        """(id, calls) of every id used by more than one call, by id."""
        return sorted(((k, v) for k, v in self.calls.items() if k and len(v) > 1), key=lambda kv: kv[0])

    def call_message(self, call_id: str | None, last: bool = False) -> int | None:
        """The message of the first (or `last`) call of `call_id`; None without a call."""
        calls = self.calls.get(call_id) if call_id else None
        if not calls:
            return None
        return calls[-1 if last else 0].message

    def partner(self, result: Part) -> int | None:
        """The message of the call `result` answers: the latest call of its id at or before it,
        else the first one after it (None for an orphan)."""
        calls = self.calls.get(result.call_id) if result.call_id else None
        if not calls:
            return None
        before = None
        for c in calls:  # no early stop: split records can add parts to an earlier message later
            if c.message <= result.message:
                before = c.message
        return before if before is not None else calls[0].message
