"""Structural checks on views: tool pairs, duplicate ids, signed thinking, empty text, order.

Each finding names the file, line (or record) and what is wrong; `validate` never changes anything.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from .model import Part, View


@dataclass(frozen=True, slots=True)
class Finding:
    source: str
    line: int | None
    record: int
    code: str  # unanswered-call | orphan-result | duplicate-call-id | …
    message: str

    def __str__(self) -> str:
        where = f"{self.source}:{self.line}" if self.line is not None else f"{self.source}:record {self.record}"
        return f"{where}: {self.code}: {self.message}"

    def to_dict(self) -> dict[str, Any]:
        return {"source": self.source, "line": self.line, "record": self.record, "code": self.code,
                "message": self.message}


def _finding(view: View, part: Part, code: str, message: str) -> Finding:
    return Finding(view.doc.source, view.doc.line_of(part.record), part.record, code, message)


def pair_findings(view: View) -> list[Finding]:
    """Unanswered tool calls, results without a call, and call ids used twice."""
    calls = [p for p in view.parts if p.kind == "tool_call" and p.call_id]
    results = [p for p in view.parts if p.role == "tool" and p.call_id]
    answered = {p.call_id for p in results}
    called = {p.call_id for p in calls}
    out = []
    for call_id, n in sorted(Counter(p.call_id for p in calls).items()):
        if n > 1:
            first = next(p for p in calls if p.call_id == call_id)
            out.append(_finding(view, first, "duplicate-call-id", f"tool call id {call_id} is used by {n} calls"))
    for p in calls:
        if p.call_id not in answered:
            out.append(_finding(view, p, "unanswered-call", f"tool call {p.call_id} ({p.tool}) has no result"))
    seen: set[str] = set()
    for p in results:
        if p.call_id not in called and p.call_id not in seen:
            seen.add(p.call_id)
            out.append(_finding(view, p, "orphan-result", f"tool result for {p.call_id} has no call"))
    return out


def validate_views(views: list[View]) -> list[Finding]:
    out: list[Finding] = []
    for view in views:
        out.extend(pair_findings(view))
    return out
