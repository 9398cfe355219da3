"""The summarizer chain on a sanitized copy: LLM summarizers first, the fallback summary last.

The LLM summarizers see the copy sanitized by the pack (the default one unless told); the
fallback reads the unsanitized messages, redacted whenever the pack redacts.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from sanitizer.formats import read_views
from sanitizer.pipeline import Sanitizer
from sanitizer.summary import SummaryResult, summarize_with_fallback_messages
from sanitizer.summary.from_input import compact_summary, input_messages, redacted
from sanitizer.transcript import to_messages


def summarize_with_fallback(obj: Any, summarizers: Sequence[Callable[[list[dict[str, Any]]], str]], *,
                            sanitize_first: bool = True, abort_on_failure: bool = False,
                            previous_summary: str | None = None, focus: str | None = None,
                            max_chars: int = 8000, preset: str = "default", format: str | None = None) -> SummaryResult:
    """Try each summarizer on the (sanitized) messages; fall back to `fallback_summary`.

    Never mutates `obj`; never returns an empty or error-text summary.  With
    `abort_on_failure=True`, raises `SummaryFailed` instead so the caller keeps the full history.
    When `sanitize_first` and the preset redacts, the previous summary and the messages the
    fallback reads are redacted too (the fallback reads the unsanitized messages, redacted).
    """
    full = read_views(obj, format)
    redacting = False
    if sanitize_first:
        san = Sanitizer(preset, format=format, count_tokens=False)
        redacting = san.config.redaction_rule is not None
        for_llm = [m for conv in san.sanitize(obj).conversations() for m in conv]
    else:
        for_llm = [m for view in full for m in to_messages(view)]
    previous = previous_summary if previous_summary is not None else compact_summary(full)
    fallback_messages = input_messages(full)
    if redacting:
        fallback_messages, previous = redacted(fallback_messages, previous)
    return summarize_with_fallback_messages(for_llm, summarizers, abort_on_failure=abort_on_failure,
                                            previous_summary=previous, focus=focus, max_chars=max_chars,
                                            fallback_messages=fallback_messages)
