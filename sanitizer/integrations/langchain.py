"""LangChain / LangGraph: sanitize `langchain_core` message lists and the summarization middleware's input.

`sanitize_messages(messages)` round-trips through OpenAI chat messages (what the sanitizer reads),
and maps each sanitized message back onto a copy of its original: type, id, name, tool_call_id,
additional_kwargs and response_metadata are kept; only content (and tool-call arguments, when a
rule shortened them) change.  `SanitizingSummarizationMiddleware` is LangChain's own
`SummarizationMiddleware` whose summarizer sees that sanitized copy, with the deterministic
fallback summary when the summary call fails.
"""

from __future__ import annotations

import functools
import json
import logging
import re
from collections.abc import Sequence
from typing import Any

try:
    from langchain.agents.middleware import SummarizationMiddleware
    from langchain_core.messages import (
        AIMessage,
        BaseMessage,
        HumanMessage,
        ToolMessage,
        convert_to_openai_messages,
    )
    from langgraph.errors import GraphBubbleUp
except ImportError as error:  # pragma: no cover - exercised without the extra
    raise ImportError(f"{error}: this module needs the [langchain] extra: pip install 'sanitizer[langchain]'") from error

from sanitizer import Sanitizer, fallback_summary

log = logging.getLogger(__name__)

__all__ = ["SanitizingSummarizationMiddleware", "sanitize_messages"]


def _sanitizer(sanitizer: Sanitizer | None, options: dict[str, Any]) -> Sanitizer:
    if sanitizer is not None:
        if options:
            raise TypeError("pass either sanitizer= or sanitizer options, not both")
        return sanitizer
    if not options:
        return _default_sanitizer()
    options.setdefault("count_tokens", False)
    return Sanitizer(**{**options, "format": "openai_chat"})


@functools.cache
def _default_sanitizer() -> Sanitizer:
    """The default pack, loaded once for `sanitize_messages(messages)` called without options."""
    return Sanitizer(format="openai_chat", count_tokens=False)


def _content(original: Any, before: Any, after: Any) -> Any:
    """The new content in LangChain's terms: unchanged blocks stay the original objects' copies."""
    if isinstance(after, str) or not isinstance(original, list):
        return after
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after) == len(original):
        return [orig if b == a else a for orig, b, a in zip(original, before, after, strict=True)]
    return after  # OpenAI-style parts (`text`, `image_url`) are valid LangChain content blocks


def _tool_calls(message: AIMessage, before: dict[str, Any], after: dict[str, Any]) -> list[dict[str, Any]]:
    new_args: dict[str, str] = {}
    for b, a in zip(before.get("tool_calls") or [], after.get("tool_calls") or [], strict=False):
        if b != a and isinstance(a.get("function"), dict):
            new_args[str(b.get("id"))] = a["function"].get("arguments", "")
    calls = []
    for call in message.tool_calls:
        call = dict(call)
        text = new_args.get(str(call.get("id")))
        if text is not None:
            try:
                args = json.loads(text)
            except ValueError:
                args = None
            if isinstance(args, dict):  # LangChain needs a dict; else keep the original arguments
                call["args"] = args
        calls.append(call)
    return calls


def _back(message: BaseMessage, before: dict[str, Any], after: dict[str, Any]) -> BaseMessage:
    if before == after:
        return message.model_copy(deep=True)
    update: dict[str, Any] = {"content": _content(message.content, before.get("content"), after.get("content"))}
    if isinstance(message, AIMessage) and message.tool_calls:
        update["tool_calls"] = _tool_calls(message, before, after)
    copy = message.model_copy(deep=True)
    for key, value in update.items():
        setattr(copy, key, value)
    return copy


def sanitize_messages(messages: Sequence[BaseMessage], *, sanitizer: Sanitizer | None = None,
                      **options: Any) -> list[BaseMessage]:
    """Sanitized copies of `messages`, same length, same types; the input is never mutated.

    `options` go to `sanitizer.Sanitizer` (`preset`, `keep_recent`, `enable`, `disable` …); or
    pass a ready `sanitizer=` for repeated calls.  A message the OpenAI conversion cannot map
    one-to-one comes back as an unchanged copy; so does everything when the sanitizer cannot read
    the list (it fails open and logs why).
    """
    messages = list(messages)
    if not messages:
        return []
    runner = _sanitizer(sanitizer, dict(options))
    chat: list[dict[str, Any]] = []
    spans: list[tuple[int, int]] = []
    try:
        for message in messages:
            converted = convert_to_openai_messages(message)
            part = converted if isinstance(converted, list) else [converted]
            spans.append((len(chat), len(part)))
            chat.extend(part)
        cleaned = runner.sanitize(chat, source="<langchain>").output
    except Exception:
        log.warning("sanitizer could not read these LangChain messages; returning unchanged copies",
                    exc_info=True)
        return [m.model_copy(deep=True) for m in messages]
    if len(cleaned) != len(chat):
        return [m.model_copy(deep=True) for m in messages]
    out: list[BaseMessage] = []
    for message, (start, size) in zip(messages, spans, strict=True):
        if size == 1:
            out.append(_back(message, chat[start], cleaned[start]))
        else:
            out.append(message.model_copy(deep=True))
    return out


_SUMMARY_PREFIX = re.compile(r"\AHere is a summary of the conversation to date:\n\n")


def _is_summary(message: BaseMessage) -> bool:
    """The message `SummarizationMiddleware` wrote in place of an earlier summarized history."""
    return isinstance(message, HumanMessage) and message.additional_kwargs.get("lc_source") == "summarization"


def _pairs_ok(messages: Sequence[BaseMessage]) -> bool:
    """Every ToolMessage answers a tool call of an earlier AIMessage."""
    calls: set[str] = set()
    for message in messages:
        if isinstance(message, AIMessage):
            calls.update(str(c.get("id")) for c in message.tool_calls)
        elif isinstance(message, ToolMessage) and message.tool_call_id not in calls:
            return False
    return True


class SanitizingSummarizationMiddleware(SummarizationMiddleware):
    """LangChain's `SummarizationMiddleware` whose summarizer reads a sanitized copy.

    Cut-off, kept tail and replacement stay LangChain's; this class overrides the seam where the
    messages to summarize become the summarizer's input (`_trim_messages_for_summary`) and
    catches a failed summary call (`_create_summary` / `_acreate_summary`), answering with
    `sanitizer.fallback_summary` of those messages instead of failing the agent step.
    `sanitize_options` go to `sanitizer.Sanitizer` (default `keep_recent=0`: everything handed to
    the summarizer is old); `fallback=False` lets the model error propagate as before.
    """

    def __init__(self, model: Any, *, sanitize_options: dict[str, Any] | None = None,
                 fallback: bool = True, **kwargs: Any) -> None:
        super().__init__(model, **kwargs)
        options = {"keep_recent": 0, **(sanitize_options or {})}
        self.sanitizer = _sanitizer(None, dict(options))
        self.fallback = fallback
        # The fallback summary quotes the history verbatim: it reads a copy with only the
        # credentials redacted, so it carries no secret that the summarizer's copy hides.
        others = {r.name for r in self.sanitizer.config.rules if r.enabled} - {"redact-secrets"}
        redacts = any(r.name == "redact-secrets" and r.enabled for r in self.sanitizer.config.rules)
        self._redactor = _sanitizer(None, {**options, "disable": tuple(sorted(others))}) if redacts else None

    def _verbatim(self, messages: list[Any]) -> list[Any]:
        """Copies with only credentials redacted (when the pack redacts), every other word kept."""
        if self._redactor is None:
            return [m.model_copy(deep=True) for m in messages]
        return sanitize_messages(messages, sanitizer=self._redactor)

    def _trim_messages_for_summary(self, messages: list[Any]) -> list[Any]:
        # An earlier summary comes first, so the pack's protected head keeps it whole.
        cleaned = sanitize_messages(messages, sanitizer=self.sanitizer)
        return super()._trim_messages_for_summary(cleaned if _pairs_ok(cleaned) else messages)

    def _fallback(self, messages: list[Any], error: Exception) -> str:
        # LangGraph interrupts travel as exceptions: never swallow them
        if not self.fallback or isinstance(error, GraphBubbleUp):
            raise error
        log.warning("summary call failed (%s); using the deterministic fallback summary",
                    type(error).__name__)
        messages = self._verbatim(messages)
        earlier = [m for m in messages if _is_summary(m)]
        previous = _SUMMARY_PREFIX.sub("", earlier[-1].text, count=1) if earlier else None
        chat = convert_to_openai_messages([m for m in messages if not _is_summary(m)])
        return fallback_summary(chat, previous_summary=previous,
                                reason=f"summary model failed: {type(error).__name__}").text

    def _create_summary(self, messages_to_summarize: list[Any]) -> str:
        try:
            return super()._create_summary(messages_to_summarize)
        except Exception as error:
            return self._fallback(messages_to_summarize, error)

    async def _acreate_summary(self, messages_to_summarize: list[Any]) -> str:
        try:
            return await super()._acreate_summary(messages_to_summarize)
        except Exception as error:
            return self._fallback(messages_to_summarize, error)

