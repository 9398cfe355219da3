"""LiteLLM: a `CustomLogger` that sanitizes the messages of summarizer calls before they are sent.

`litellm.callbacks = [SanitizerCallback(models=["summarizer"])]`.  Only calls whose `model` is
one of `models` (or whose `metadata.tags` holds one of `tags`) are touched, so the agent's own
calls, and their prompt cache, stay as they are.

Which hook can change a request (LiteLLM 1.x source):
- SDK / Router: `async_pre_call_deployment_hook(kwargs, call_type)`; a returned dict replaces
  the request.  It runs on `litellm.acompletion` / `Router.acompletion` (and `aanthropic_messages`),
  not on the synchronous `litellm.completion`.
- Proxy: `async_pre_call_hook(user_api_key_dict, cache, data, call_type)`; the returned dict
  replaces `data`.  (`log_pre_api_call` only observes.)
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

try:
    from litellm.integrations.custom_logger import CustomLogger
except ImportError as error:  # pragma: no cover - exercised without the extra
    raise ImportError(f"{error}: this module needs the [litellm] extra: pip install 'sanitizer[litellm]'") from error

from sanitizer import Sanitizer

log = logging.getLogger(__name__)

_ANTHROPIC_CALLS = frozenset({"anthropic_messages", "aanthropic_messages"})


def _call_name(call_type: Any) -> str:
    return str(getattr(call_type, "value", call_type) or "")


class SanitizerCallback(CustomLogger):
    """Sanitize `messages` of the calls to the named models; leave every other call alone.

    `options` go to `sanitizer.Sanitizer` (`preset`, `keep_recent`, `enable`, `disable` …).
    A request it cannot read is sent unchanged (it never fails a call).
    """

    def __init__(self, models: Iterable[str] = (), *, tags: Iterable[str] = (), **options: Any) -> None:
        super().__init__()
        self.models = frozenset(models)
        self.tags = frozenset(tags)
        if not self.models and not self.tags:
            raise ValueError("SanitizerCallback needs models=[...] or tags=[...]: "
                             "it only cleans the summarizer's calls")
        options.setdefault("count_tokens", False)
        self._chat = Sanitizer(**{**options, "format": "openai_chat"})
        self._anthropic = Sanitizer(**{**options, "format": "anthropic"})

    def wants(self, data: dict[str, Any]) -> bool:
        """Whether this request is a summarizer call: by model, `provider/model`, Router model group, or tag."""
        metadata = {}
        for key in ("litellm_metadata", "metadata"):  # the Router puts the alias the caller used here
            if isinstance(data.get(key), dict):
                metadata.update(data[key])
        names = (data.get("model"), metadata.get("model_group"), metadata.get("original_model_group"))
        for name in names:
            if isinstance(name, str) and (name in self.models or name.rsplit("/", 1)[-1] in self.models):
                return True
        tags = metadata.get("tags")
        return bool(self.tags and isinstance(tags, list) and self.tags.intersection(map(str, tags)))

    def sanitized(self, data: dict[str, Any], call_type: Any = None) -> dict[str, Any] | None:
        """A copy of the request with sanitized `messages`, or None when it is not ours or nothing changed."""
        messages = data.get("messages")
        if not isinstance(messages, list) or not messages or not self.wants(data):
            return None
        sanitizer = self._anthropic if _call_name(call_type) in _ANTHROPIC_CALLS else self._chat
        try:
            cleaned = sanitizer.sanitize(messages, source=f"litellm:{data.get('model')}").output
        except Exception:  # fail open: a summarizer call must never break on our account
            log.warning("sanitizer could not read the messages of a %s call; sent unchanged",
                        data.get("model"), exc_info=True)
            return None
        return None if cleaned == messages else {**data, "messages": cleaned}

    async def async_pre_call_deployment_hook(self, kwargs: dict[str, Any], call_type: Any) -> dict | None:
        """SDK and Router: the returned kwargs are what LiteLLM sends."""
        return self.sanitized(kwargs, call_type)

    async def async_pre_call_hook(self, user_api_key_dict: Any, cache: Any, data: dict,
                                  call_type: Any) -> dict:
        """Proxy: the returned dict replaces the request body."""
        return self.sanitized(data, call_type) or data
