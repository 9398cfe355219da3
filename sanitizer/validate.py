"""Structural checks on views: tool pairs, order, role alternation, signed thinking, empty content.

Each finding names the file, line (or record) and what is wrong; `validate` never changes anything.

Codes (severity in brackets):

* pairs [error]: `unanswered-call`, `orphan-result`, `duplicate-call-id`;
* order [error]: `result-before-call`; chat formats: `tool-message-misplaced` (a `tool` message
  not in the run of tool messages right after the assistant message holding its call);
* roles: `first-not-user` [error] (Anthropic Messages: the first non-system message must be a
  user message; Claude Code: reported as a warning since sub-agent and resumed files start
  elsewhere), `role-alternation` [warning] (Anthropic Messages only: two user or two assistant
  messages in a row.  The API merges consecutive same-role turns today and real exports — e.g.
  Claude Code sessions converted to Messages — have them everywhere, so it is not an error.
  Claude Code files are not checked: one API message is split over several records and each tool
  result is its own user record, so same-role runs are the normal layout);
* `signed-thinking-edited` [error]: an Anthropic thinking block kept with its signature whose
  text differs from the reference input (only with `reference=`; Responses reasoning summaries
  are not signed, so they are not checked);
* `empty-text-block` [error]: a `{"type": "text", "text": ""}` block (providers reject it);
* `empty-content` [error in Anthropic / Claude Code, warning elsewhere]: `content: []`;
* `tool-result-null` [error]: a tool result whose content is null (or missing, in chat and
  Responses formats, where a string is required).
"""

from __future__ import annotations

import contextlib
from collections import Counter
from dataclasses import dataclass
from typing import Any

from sanitizer import formats
from sanitizer.document import loader
from sanitizer.formats.base import BLOCKS, CHAT, ITEMS, RECORD_BLOCKS, item_of
from sanitizer.model import Document, Part, View, get_at
from sanitizer.pairs import Pairs


@dataclass(frozen=True, slots=True)
class Finding:
    """One structural problem of a conversation: where it is, its code and what is wrong."""
    source: str
    line: int | None
    record: int
    code: str  # unanswered-call | orphan-result | duplicate-call-id | …
    message: str
    key: str = ""  # what identifies the finding across edits (a call id, a signature prefix …)
    severity: str = "error"  # error | warning

    def __str__(self) -> str:
        where = f"{self.source}:{self.line}" if self.line is not None else f"{self.source}:record {self.record}"
        return f"{where}: {self.code}: {self.message}"

    def to_dict(self) -> dict[str, Any]:
        return {"source": self.source, "line": self.line, "record": self.record, "code": self.code,
                "message": self.message, "key": self.key, "severity": self.severity}


def _finding(view: View, part: Part, code: str, message: str, key: str = "", severity: str = "error") -> Finding:
    return _at(view, part.record, code, message, key, severity)


def _at(view: View, record: int, code: str, message: str, key: str = "", severity: str = "error") -> Finding:
    return Finding(view.doc.source, view.doc.line_of(record), record, code, message, key, severity)


def pair_findings(view: View) -> list[Finding]:
    """Unanswered tool calls, results without a call, and call ids used twice."""
    pairs = Pairs(view)
    out = []
    for call_id, calls in pairs.duplicates():
        out.append(_finding(view, calls[0], "duplicate-call-id", f"tool call id {call_id} is used by {len(calls)} calls",
                            call_id))
    for p in pairs.unanswered():
        out.append(_finding(view, p, "unanswered-call", f"tool call {p.call_id} ({p.tool}) has no result", p.call_id or ""))
    for p in pairs.orphans():
        out.append(_finding(view, p, "orphan-result", f"tool result for {p.call_id} has no call", p.call_id or ""))
    return out


def order_findings(view: View) -> list[Finding]:
    """Results placed before their call; in chat, tool messages away from their assistant batch."""
    out: list[Finding] = []
    pairs = Pairs(view)
    reported: set[str] = set()
    for p in pairs.result_parts:
        at = pairs.call_message(p.call_id)
        if at is not None and at > p.message and p.call_id not in reported:
            reported.add(p.call_id)
            out.append(_finding(view, p, "result-before-call", f"tool result for {p.call_id} comes before its call",
                                p.call_id))
    if view.adapter.dialect(view) != CHAT:
        return out
    msgs = view.messages
    for m in msgs:
        if m.role != "tool":
            continue
        j = m.index - 1
        while j >= 0 and msgs[j].role == "tool":
            j -= 1
        batch = {p.call_id for p in view.parts_of(msgs[j]) if p.kind == "tool_call"} if j >= 0 else set()
        for p in view.parts_of(m):
            if pairs.call_message(p.call_id) is not None and p.call_id not in batch and p.call_id not in reported:
                reported.add(p.call_id)
                out.append(_finding(view, p, "tool-message-misplaced",
                                    f"tool message for {p.call_id} does not follow the assistant message of its call",
                                    p.call_id))
    return out


def role_findings(view: View) -> list[Finding]:
    kind = view.adapter.dialect(view)
    if kind not in (BLOCKS, RECORD_BLOCKS):
        return []
    msgs = [m for m in view.messages if m.role != "system"]
    out: list[Finding] = []
    if msgs and msgs[0].role != "user":
        out.append(_at(view, msgs[0].records[0], "first-not-user", f"the first message is {msgs[0].role}, not user",
                       severity="error" if kind == BLOCKS else "warning"))
    if kind == BLOCKS:
        for x, y in zip(msgs, msgs[1:], strict=False):
            if x.role == y.role:
                out.append(_at(view, y.records[0], "role-alternation", f"two {y.role} messages in a row",
                               severity="warning"))
    return out


def _signature(view: View, part: Part) -> str | None:
    """The `signature` of an Anthropic thinking block.  Responses reasoning is not checked: its
    `encrypted_content` carries the reasoning, the summary text beside it is not signed."""
    if part.block is None:
        return None
    try:
        block = get_at(view.doc.records[part.record], part.block)
    except (KeyError, IndexError, TypeError):
        return None
    sig = block.get("signature") if isinstance(block, dict) else None
    return sig if isinstance(sig, str) and sig else None


def thinking_findings(view: View, reference: View) -> list[Finding]:
    """Signed thinking kept with its signature must be byte-identical to the reference's."""
    ref: dict[str, str] = {}
    for p in reference.parts:
        if p.kind == "thinking" and p.signed and (sig := _signature(reference, p)):
            ref.setdefault(sig, p.text)
    out = []
    for p in view.parts:
        if p.kind == "thinking" and p.signed and (sig := _signature(view, p)) and sig in ref and ref[sig] != p.text:
            out.append(_finding(view, p, "signed-thinking-edited",
                                "a thinking block kept with its signature differs from the input", sig[:24]))
    return out


def _message_dicts(view: View) -> list[tuple[int, Any]]:
    """(record, message dict) of every message of the view, including ones without parts."""
    out: list[tuple[int, Any]] = []
    if not view.adapter.nested(view):
        for m in view.messages:
            node = view.adapter.message_node(view, m)
            if node is None:
                continue
            # Claude Code splits one API message over records: each holds its own `message`.
            for r in m.records if node[1] == ("message",) else [node[0]]:
                with contextlib.suppress(KeyError, IndexError, TypeError):
                    out.append((r, get_at(view.doc.records[r], node[1])))
        return out
    lists = {item[:2] for m in view.messages if (item := item_of(view, m)) is not None}
    for record, path in sorted(lists, key=str):
        out.extend((record, m) for m in get_at(view.doc.records[record], path))
    return out


def content_findings(view: View) -> list[Finding]:
    kind = view.adapter.dialect(view)
    out: list[Finding] = []
    for p in view.parts:
        if p.text == "" and p.kind in ("text", "tool_result") and p.block is not None:
            try:
                block = get_at(view.doc.records[p.record], p.block)
            except (KeyError, IndexError, TypeError):
                continue
            if isinstance(block, dict) and block.get("type") in ("text", "input_text", "output_text"):
                out.append(_finding(view, p, "empty-text-block", f"empty text block in a {p.role} message"))
        if p.role == "tool" and p.meta.get("empty"):
            try:
                holder = get_at(view.doc.records[p.record], p.path[:-1])
            except (KeyError, IndexError, TypeError):
                continue
            key = p.path[-1]
            missing = isinstance(holder, dict) and key not in holder
            if isinstance(holder, dict) and (holder.get(key, 0) is None or missing and kind in (CHAT, ITEMS)):
                out.append(_finding(view, p, "tool-result-null", f"tool result for {p.call_id} has no content",
                                    p.call_id or ""))
    severity = "error" if kind in (BLOCKS, RECORD_BLOCKS) else "warning"
    for record, m in _message_dicts(view):
        if isinstance(m, dict) and m.get("content") == [] and not (kind == CHAT and m.get("tool_calls")):
            out.append(_at(view, record, "empty-content", f"{m.get('role', 'a')} message with an empty content list",
                           severity=severity))
    return out


def validate_views(views: list[View], reference: list[View] | None = None) -> list[Finding]:
    """Every finding of every view; `reference` (the input's views, same order) enables the
    signed-thinking check."""
    out: list[Finding] = []
    for i, view in enumerate(views):
        out.extend(pair_findings(view))
        out.extend(order_findings(view))
        out.extend(role_findings(view))
        out.extend(content_findings(view))
        if reference is not None and i < len(reference):
            out.extend(thinking_findings(view, reference[i]))
    return out


def views_of(obj: Any, format: str | None = None) -> list[View]:
    """Fresh views of a Result, a Document, or an in-memory conversation (never mutated)."""
    if hasattr(obj, "doc") and hasattr(obj, "adapter"):
        return list(obj.adapter.views(obj.doc))
    doc = obj if isinstance(obj, Document) else loader.from_object(obj)
    adapter = formats.by_name(format) if format else formats.detect(doc)
    return list(adapter.views(doc))


def validate(obj: Any, reference: Any = None, format: str | None = None) -> list[Finding]:
    """Findings of `obj` (a Result, Document or conversation); with `reference` (the input) also
    signed thinking blocks that were edited."""
    ref = views_of(reference, format) if reference is not None else None
    return validate_views(views_of(obj, format), ref)


def new_findings(before: list[Finding], after: list[Finding]) -> list[Finding]:
    """Findings of `after` not already in `before`, matched by (code, key) as a multiset (records
    and lines move when messages are dropped, so they are not part of the match)."""
    budget = Counter((f.code, f.key) for f in before)
    out = []
    for f in after:
        k = (f.code, f.key)
        if budget[k] > 0:
            budget[k] -= 1
        else:
            out.append(f)
    return out
