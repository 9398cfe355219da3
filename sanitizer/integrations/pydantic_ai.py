"""Pydantic AI: a history processor that sanitizes `ModelMessage` lists before each model request.

    from pydantic_ai.capabilities import ProcessHistory
    agent = Agent(model, capabilities=[ProcessHistory(sanitize_history)])   # Pydantic AI 2.x
    agent = Agent(model, history_processors=[sanitize_history])             # Pydantic AI 1.x

The messages are dumped to their JSON form (`ModelMessagesTypeAdapter`), sanitized by the
`pydantic_ai` format adapter, and validated back: the result is new `ModelRequest` /
`ModelResponse` objects for the edited messages (the input is never mutated; untouched messages
are returned as they came), with every tool call still answered by its return.  Any failure returns the input list unchanged (fail open): a history processor must never
stop the agent.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelMessagesTypeAdapter

from sanitizer import Result, Sanitizer

log = logging.getLogger(__name__)

HistoryProcessor = Callable[[list[ModelMessage]], list[ModelMessage]]

_lock = threading.Lock()
_shared: dict[tuple, Sanitizer] = {}


def _sanitizer(preset: str, options: dict[str, Any]) -> Sanitizer:
    """One Sanitizer per option set, built on first use (loading a pack is the costly part).
    Token counting is off: a history processor needs the copy, not the report's figures."""
    key = (preset, tuple(sorted((k, repr(v)) for k, v in options.items())))
    with _lock:
        found = _shared.get(key)
        if found is None:
            found = _shared[key] = Sanitizer(preset, format="pydantic_ai", count_tokens=False, **options)
        return found


def sanitize_result(messages: Sequence[ModelMessage], preset: str = "default", **options: Any) -> Result:
    """Sanitize `messages` and return the full `Result` (the copy as JSON, the report, renderings)."""
    data = ModelMessagesTypeAdapter.dump_python(list(messages), mode="json")
    return _sanitizer(preset, options).sanitize(data, source="<pydantic-ai history>")


def sanitize_history(messages: list[ModelMessage]) -> list[ModelMessage]:
    """The default-pack history processor: a smaller copy of `messages`, same types, pairs kept."""
    return _process(messages, "default", {})


def history_processor(preset: str = "default", **options: Any) -> HistoryProcessor:
    """A history processor with a chosen pack and `Sanitizer` options (`keep_recent=4`, `disable=[...]`)."""
    _sanitizer(preset, options)  # a bad preset or option fails here, at agent construction

    def process(messages: list[ModelMessage]) -> list[ModelMessage]:
        return _process(messages, preset, options)

    process.__name__ = process.__qualname__ = f"sanitize_history_{preset}"
    return process


def _process(messages: list[ModelMessage], preset: str, options: dict[str, Any]) -> list[ModelMessage]:
    if not messages:
        return list(messages)
    try:
        result = sanitize_result(messages, preset, **options)
        dirty = result.doc.dirty
        if not dirty:
            return list(messages)
        out = result.output
        if len(out) != len(messages):
            return ModelMessagesTypeAdapter.validate_python(out)
        # Only edited messages are rebuilt; untouched ones are the caller's own (never mutated) objects.
        rebuilt = ModelMessagesTypeAdapter.validate_python([out[i] for i in sorted(dirty)])
        by_index = dict(zip(sorted(dirty), rebuilt, strict=True))
        return [by_index.get(i, m) for i, m in enumerate(messages)]
    except Exception:  # fail open: the agent keeps its full history
        log.warning("sanitizer: history left unchanged", exc_info=True)
        return list(messages)
