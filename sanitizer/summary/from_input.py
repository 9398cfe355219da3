"""The deterministic fallback summary of any supported input.

`sanitizer.summary` works on normalized chat messages; this module reads any format into them
(without injected meta records); `sanitizer.summarize` runs the LLM summarizers on a sanitized copy.  Every summary built here is built from redacted
messages (and a redacted previous summary) whenever redaction is on: a summary is a text that
leaves the sanitizer like any other.
"""

from __future__ import annotations

from typing import Any

from sanitizer.formats import read_views as read_conversations
from sanitizer.model import View
from sanitizer.secrets.contract import redact_text, redact_tree
from sanitizer.summary import Summary, summarize_messages
from sanitizer.transcript import to_messages


def input_messages(views: list[View]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for view in views:
        out.extend(to_messages(view, skip_injected=True))
    return out


def compact_summary(views: list[View]) -> str | None:
    """The newest compaction summary already in the input (Claude Code `isCompactSummary`)."""
    for view in reversed(views):
        for msg in reversed(view.messages):
            if msg.meta.get("compact_summary"):
                text = "\n".join(p.text for p in view.parts_of(msg) if p.kind == "text")
                if text.strip():
                    return text
    return None


def redacted(messages: list[dict[str, Any]], previous: str | None) -> tuple[list[dict[str, Any]], str | None]:
    return redact_tree(messages), redact_text(previous) if previous else previous


def fallback_summary(obj: Any, previous_summary: str | None = None, focus: str | None = None,
                     reason: str | None = None, max_chars: int = 8000, format: str | None = None,
                     redact: bool = True) -> Summary:
    """The headed, deterministic summary of a conversation (no LLM; same input → same bytes).

    A compaction summary already stored in the input is merged as the previous summary when
    none is given.  With `redact` (the default), credentials in the messages and in the previous
    summary become redaction markers first, as `redact-secrets` writes them.
    """
    views = read_conversations(obj, format)
    previous = previous_summary if previous_summary is not None else compact_summary(views)
    messages = input_messages(views)
    if redact:
        messages, previous = redacted(messages, previous)
    return summarize_messages(messages, previous_summary=previous, focus=focus, reason=reason,
                              max_chars=max_chars)


def fallback_summaries(obj: Any, *, max_chars: int = 8000, format: str | None = None,
                       redact: bool = True) -> list[tuple[str, Summary]]:
    """One headed summary per conversation of the input, each with the label that names it.

    A file of many conversations (a dataset, a Hermes export) is many tasks: summarizing them as
    one would pick one task as "the" active task without saying which.
    """
    views = read_conversations(obj, format)
    out = []
    for number, view in enumerate(views, 1):
        messages, previous = input_messages([view]), compact_summary([view])
        if redact:
            messages, previous = redacted(messages, previous)
        summary = summarize_messages(messages, previous_summary=previous, max_chars=max_chars)
        out.append((conversation_label(view, number, len(views)), summary))
    return out


def conversation_label(view: View, number: int, total: int) -> str:
    """`conversation 3 of 200 (record 2, line 3, session abc)`: what the reader needs to find it."""
    where = []
    record = view.meta.get("record")
    if isinstance(record, int):
        where.append(f"record {record}")
        line = view.doc.line_of(record)
        if line is not None:
            where.append(f"line {line}")
    if view.meta.get("session_id"):
        where.append(f"session {view.meta['session_id']}")
    return f"conversation {number} of {total}" + (f" ({', '.join(where)})" if where else "")

