"""`summarize_messages`: the deterministic, no-LLM summary of a conversation (DESIGN §8)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sanitizer.summary import layout as L
from sanitizer.summary.extract import extract
from sanitizer.summary.merge import sections_of
from sanitizer.summary.render import Page, fit
from sanitizer.summary.sections import build
from sanitizer.summary.text import clip

REASON_CHARS = 200


def summarize_messages(
    messages: Sequence[dict[str, Any]],
    previous_summary: str | None = None,
    focus: str | None = None,
    reason: str | None = None,
    max_chars: int = 8000,
) -> L.Summary:
    """Summarize normalized OpenAI Chat messages without an LLM.

    Same input, same output, byte for byte.  `messages` is only read.  `previous_summary` (markdown
    in this layout) is merged section by section; `focus` keeps what mentions that topic in more
    detail (a `## Focus: <topic>` section, and its items are left out last); `reason` (why the LLM
    summary failed) becomes one note line at the top.  The text is never longer than `max_chars`
    and never empty; left-out items are named by a marker in their section.
    """
    if not isinstance(max_chars, int) or isinstance(max_chars, bool) or max_chars < 1:
        raise ValueError(f"max_chars must be a positive integer, got {max_chars!r}")
    focus = focus.strip() if isinstance(focus, str) and focus.strip() else None
    session = extract(messages)
    previous = L.parse_summary(previous_summary) if previous_summary and previous_summary.strip() else None
    built = build(session, focus=focus,
                  turn_offset=L.max_turn(previous) if previous else 0,
                  action_offset=L.max_number(previous.get(L.ACTIONS, [])) if previous else 0)
    page = Page(sections_of(built, previous, focus), max_chars)
    if reason and reason.strip():
        page.notes.append(f"> Fallback summary (no LLM): {clip(reason, REASON_CHARS)}")
    if session.empty and not previous:
        n = len(messages)
        page.notes.append(f"> Nothing to summarize: no user, assistant or tool messages "
                          f"({n} message{'' if n == 1 else 's'} given).")
    text = fit(page)
    sections = {s.key: [it.line() if it.number is not None else it.text for it in s.items] for s in page.sections}
    omitted = {s.key: s.folded + s.dropped for s in page.sections if s.folded or s.dropped}
    for s in page.sections:
        if s.cut_chars:
            omitted[s.key] = s.cut_chars
    if len(text) < len(page.text()):  # hard cut: sections no longer match the text exactly
        sections = L.parse_summary(text)
    return L.Summary(text=text, sections=sections, omitted=omitted, max_chars=max_chars)
