"""Hermes Agent: a `ContextEngine` whose summarizer reads a sanitized copy of the compacted turns.

`SanitizerEngine` is Hermes' own `ContextCompressor` (same triggers, head/tail protection, tool-pair
repair, iterative summaries) with three seams replaced:

* the no-LLM pre-pass (`_prune_old_tool_results`) runs the sanitizer's rules outside the protected
  tail instead of Hermes' one-line placeholders (a digest keeps the exit code and last error);
* the turns handed to the summary model are first sanitized (the `hermes` pack by default: old
  tool outputs digested, images labelled, secrets redacted), so the summarizer's input is smaller
  and cleaner while the messages Hermes keeps are its own;
* when the summary call fails, the handoff is the sanitizer's deterministic fallback summary
  (task, files, commands, errors, latest ask) instead of Hermes' static one.

Hermes loads it from a plugin folder written by `sanitize hermes-plugin DIR` (see
`hermes_plugin.py`); `register(ctx)` is the plugin entry point.  The compressor internals it
overrides (`_prune_old_tool_results`, `_generate_summary`, `_build_static_fallback_summary`) are private to Hermes: tested
against hermes-agent 0.19.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from agent.context_compressor import ContextCompressor, _estimate_msg_budget_tokens

from sanitizer import Sanitizer, fallback_summary

log = logging.getLogger(__name__)

DEFAULT_NAME = "sanitizer"
DEFAULT_PRESET = "hermes"
# Hermes replaces this on `update_model()`; it only keeps construction from probing the network.
_PLACEHOLDER_CONTEXT = 256_000

_lock = threading.Lock()
_shared: dict[tuple[str, int], Sanitizer] = {}


def _sanitizer(preset: str, keep_recent: int = 0) -> Sanitizer:
    """One Sanitizer per pack and tail size, shared by every engine copy (Hermes deep-copies plugin
    engines and compresses on pooled threads: nothing mutable lives on the engine)."""
    with _lock:
        found = _shared.get((preset, keep_recent))
        if found is None:
            found = Sanitizer(preset, format="openai_chat", keep_recent=keep_recent, count_tokens=False)
            _shared[(preset, keep_recent)] = found
        return found


def sanitize_turns(turns: list[dict[str, Any]], preset: str = DEFAULT_PRESET, keep_recent: int = 0) -> list[dict[str, Any]]:
    """A sanitized copy of OpenAI-format turns (the input is never mutated), the last `keep_recent`
    left verbatim.  Raises what the sanitizer raises: callers fall back to Hermes' own path."""
    if not turns:
        return []
    return _sanitizer(preset, keep_recent).sanitize(turns, source="<hermes turns>").output


class SanitizerEngine(ContextCompressor):
    """Hermes' compressor, with a sanitized summarizer input and the sanitizer's fallback summary."""

    def __init__(self, model: str = "", *, engine_name: str = DEFAULT_NAME, preset: str = DEFAULT_PRESET,
                 **options: Any) -> None:
        options.setdefault("config_context_length", _PLACEHOLDER_CONTEXT)
        options.setdefault("quiet_mode", True)
        super().__init__(model, **options)
        self.engine_name = engine_name
        self.preset = preset
        self.last_sanitized_chars: tuple[int, int] | None = None  # (before, after) of the last summary input
        _sanitizer(preset)  # a bad pack fails at registration, not mid-compaction

    @property
    def name(self) -> str:
        return self.engine_name

    def _prune_old_tool_results(self, messages: list[dict[str, Any]], protect_tail_count: int,
                                protect_tail_tokens: int | None = None) -> tuple[list[dict[str, Any]], int]:
        """Phase 1 of `compress()` (no LLM): the sanitizer's rules instead of Hermes' one-line
        placeholders, outside the tail Hermes protects; Hermes' own pass on failure."""
        try:
            tail = protected_tail(messages, protect_tail_count, protect_tail_tokens)
            clean = sanitize_turns(messages, self.preset, keep_recent=tail)
        except Exception:
            log.warning("sanitizer: pre-compression pass failed; using Hermes' own", exc_info=True)
            return super()._prune_old_tool_results(messages, protect_tail_count, protect_tail_tokens)
        changed = sum(1 for before, after in zip(messages, clean, strict=True) if before != after)
        return clean, changed

    def _generate_summary(self, turns_to_summarize: list[dict[str, Any]], focus_topic: str | None = None,
                          memory_context: str = "") -> str | None:
        try:
            clean = sanitize_turns(turns_to_summarize, self.preset)
        except Exception:
            log.warning("sanitizer: turns sent to the summarizer unsanitized", exc_info=True)
            clean = turns_to_summarize
        self.last_sanitized_chars = (_chars(turns_to_summarize), _chars(clean))
        return super()._generate_summary(clean, focus_topic=focus_topic, memory_context=memory_context)

    def _build_static_fallback_summary(self, turns_to_summarize: list[dict[str, Any]],
                                       reason: str | None = None) -> str:
        try:
            summary = fallback_summary(turns_to_summarize, previous_summary=self._previous_summary,
                                       reason=reason, format="openai_chat")
        except Exception:
            log.warning("sanitizer: fallback summary failed; using Hermes' own", exc_info=True)
            return super()._build_static_fallback_summary(turns_to_summarize, reason=reason)
        return self._with_summary_prefix(summary.text)


def protected_tail(messages: list[dict[str, Any]], count: int, tokens: int | None) -> int:
    """How many last messages Hermes' pre-pass leaves alone: those within the token budget (its
    own estimate, walking back from the end), and never fewer than `count`."""
    floor = max(0, min(count, len(messages)))
    if not tokens or tokens <= 0:
        return floor
    used = kept = 0
    for msg in reversed(messages):
        cost = _estimate_msg_budget_tokens(msg)
        if used + cost > tokens and kept >= floor:
            break
        used += cost
        kept += 1
    return max(kept, floor)


def _chars(turns: list[dict[str, Any]]) -> int:
    total = 0
    for t in turns:
        content = t.get("content")
        total += len(content) if isinstance(content, str) else len(str(content or ""))
        for call in t.get("tool_calls") or ():
            fn = call.get("function") if isinstance(call, dict) else None
            total += len(str(fn.get("arguments", ""))) if isinstance(fn, dict) else 0
    return total


def _compression_config() -> dict[str, Any]:
    """The `compression:` section of the user's Hermes config.yaml (empty when unreadable)."""
    try:
        from hermes_cli.config import load_config

        section = load_config().get("compression", {})
    except Exception:
        return {}
    return section if isinstance(section, dict) else {}


def build_engine(name: str = DEFAULT_NAME, preset: str = DEFAULT_PRESET) -> SanitizerEngine:
    """The engine as a plugin registers it, with the user's `compression:` numbers."""
    cfg = _compression_config()
    options: dict[str, Any] = {}
    for key, option, cast in (("threshold", "threshold_percent", float), ("target_ratio", "summary_target_ratio", float),
                              ("protect_last_n", "protect_last_n", int), ("protect_first_n", "protect_first_n", int)):
        if key in cfg:
            try:
                options[option] = cast(cfg[key])
            except (TypeError, ValueError):
                log.warning("sanitizer: ignoring compression.%s=%r in config.yaml", key, cfg[key])
    if str(cfg.get("abort_on_summary_failure", "")).lower() in ("1", "true", "yes"):
        options["abort_on_summary_failure"] = True
    return SanitizerEngine(engine_name=name, preset=preset, **options)


def register(ctx: Any, name: str = DEFAULT_NAME, preset: str = DEFAULT_PRESET) -> None:
    """Hermes plugin entry point: register the engine (selected by `context: {engine: <name>}`)."""
    ctx.register_context_engine(build_engine(name, preset))
