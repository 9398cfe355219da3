"""OpenAI Agents SDK: a `call_model_input_filter` and a handoff `input_filter` on Responses input items.

`RunConfig(call_model_input_filter=sanitize_model_input)`.  The filter runs before every model
call, so its output must stay byte-stable for an unchanged prefix or prompt caching breaks:
- the items from the start of the last `keep_turns` user turns on are passed through as the same
  objects (the model always sees the current turn's tool outputs whole, and the SDK tracks its
  pending input by identity);
- the items before that boundary are sanitized on their own (nothing after the boundary is read),
  with no rule that looks ahead (`dedupe-tool-results` points at a *later* copy, so it is off);
- user messages are left verbatim (`user_verbatim=True`): the sanitizer keeps the latest ask
  whole, so trimming a user message once it is no longer the latest would change an old item.
So items added during a turn never change an earlier output item, and an item cleaned once is
never cleaned differently later: each turn changes once, when the next user turn starts.
"""

from __future__ import annotations

import functools
import logging
from dataclasses import dataclass, field
from typing import Any

try:
    from agents import HandoffInputData
    from agents.run_config import CallModelData, ModelInputData
except ImportError as error:  # pragma: no cover - exercised without the extra
    raise ImportError(f"{error}: this module needs the [openai-agents] extra: pip install 'sanitizer[openai-agents]'") from error

from sanitizer import Sanitizer

log = logging.getLogger(__name__)

__all__ = ["SanitizeFilter", "sanitize_handoff", "sanitize_items", "sanitize_model_input"]

_LOOK_AHEAD_RULES = ("dedupe-tool-results",)


def _is_user_message(item: Any) -> bool:
    return isinstance(item, dict) and item.get("role") == "user" and item.get("type", "message") == "message"


def _boundary(items: list[Any], keep_turns: int) -> int:
    """Index of the first item of the last `keep_turns` user turns (0 keeps everything)."""
    seen = 0
    for index in range(len(items) - 1, -1, -1):
        if _is_user_message(items[index]):
            seen += 1
            if seen >= keep_turns:
                return index
    return 0


@dataclass
class SanitizeFilter:
    """A `call_model_input_filter` (and the core of the handoff filter), modeled on `ToolOutputTrimmer`.

    `keep_turns` user turns at the end are never changed; `options` go to `sanitizer.Sanitizer`
    (a `config` there replaces the user-verbatim layer).
    Unchanged items come back as the same objects; changed ones are new dicts; the caller's items
    are never mutated.  It fails open: input the sanitizer cannot read is returned as is.
    """

    keep_turns: int = 1
    options: dict[str, Any] = field(default_factory=dict)
    user_verbatim: bool = True
    _sanitizer: Sanitizer | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.keep_turns < 1:
            raise ValueError(f"keep_turns must be >= 1, got {self.keep_turns}")

    @property
    def sanitizer(self) -> Sanitizer:
        """The `Sanitizer`, built on first use (loading the pack costs once, not per call)."""
        if self._sanitizer is None:
            options = {"keep_recent": 0, "count_tokens": False, **self.options, "format": "responses"}
            options["disable"] = tuple(sorted({*options.get("disable", ()), *_LOOK_AHEAD_RULES}))
            if self.user_verbatim and "config" not in options:
                options["config"] = _user_verbatim_layer(options.get("preset", "default"))
            self._sanitizer = Sanitizer(**options)
        return self._sanitizer

    def items(self, items: list[Any]) -> list[Any]:
        """The sanitized item list: old items cleaned, the protected tail the same objects."""
        cut = _boundary(items, self.keep_turns)
        old = items[:cut]
        if not old or not all(isinstance(item, dict) for item in old):
            return list(items)
        try:
            cleaned = self.sanitizer.sanitize(old, source="<openai-agents>").output
        except Exception:
            log.warning("sanitizer could not read these input items; sent unchanged", exc_info=True)
            return list(items)
        if len(cleaned) != len(old):
            return list(items)
        kept = [orig if orig == new else new for orig, new in zip(old, cleaned, strict=True)]
        return kept + items[cut:]

    def __call__(self, data: CallModelData[Any]) -> ModelInputData:
        """The `call_model_input_filter` callback."""
        model_data = data.model_data
        return ModelInputData(input=self.items(list(model_data.input)), instructions=model_data.instructions)

    def handoff(self, data: HandoffInputData) -> HandoffInputData:
        """The handoff `input_filter`: sanitizes `input_history`; run items pass through unchanged."""
        history = data.input_history
        if isinstance(history, str):
            return data.clone()
        return data.clone(input_history=tuple(self.items(list(history))))


def _user_verbatim_layer(preset: str) -> dict[str, Any]:
    """A config layer over `preset` whose rules touch only assistant and tool parts."""
    rules = Sanitizer(preset, count_tokens=False).config.rules
    return {"extends": preset, "rule": [{"name": r.name, "roles": ["assistant", "tool"]}
                                        for r in rules if not r.roles]}


@functools.cache
def _default() -> SanitizeFilter:
    return SanitizeFilter()  # built on first use: importing this module loads no rule pack


def sanitize_model_input(data: CallModelData[Any]) -> ModelInputData:
    """`RunConfig(call_model_input_filter=sanitize_model_input)` with the default pack."""
    return _default()(data)


def sanitize_handoff(data: HandoffInputData) -> HandoffInputData:
    """`handoff(agent, input_filter=sanitize_handoff)` or `RunConfig(handoff_input_filter=...)`."""
    return _default().handoff(data)


def sanitize_items(items: list[Any], **options: Any) -> list[Any]:
    """Sanitize a Responses input item list outside a run (same rules as the filter)."""
    keep_turns = options.pop("keep_turns", 1)
    return SanitizeFilter(keep_turns=keep_turns, options=options).items(list(items))
