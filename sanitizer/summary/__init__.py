"""The deterministic, no-LLM fallback summary (DESIGN §8).

`summarize_messages(messages, …)` builds the headed summary from normalized OpenAI Chat messages;
`summarize_with_fallback_messages(messages, summarizers, …)` tries LLM summarizers first and falls
back to it.  Modules: `extract` (messages → facts), `text` / `paths` / `state` (spotting
sentences, paths, cwd/branch/tests), `sections` (facts → items), `merge` (previous summary),
`render` (markdown within `max_chars`), `fallback` (summarizer chain).
"""

from __future__ import annotations

from sanitizer.summary.core import summarize_messages
from sanitizer.summary.fallback import (
    KINDS,
    SummaryFailed,
    SummaryResult,
    classify_exception,
    summarize_with_fallback_messages,
)
from sanitizer.summary.layout import TITLES, Summary, parse_summary

__all__ = [
    "KINDS",
    "TITLES",
    "Summary",
    "SummaryFailed",
    "SummaryResult",
    "classify_exception",
    "parse_summary",
    "summarize_messages",
    "summarize_with_fallback_messages",
]
