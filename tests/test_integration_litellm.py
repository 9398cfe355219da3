"""LiteLLM: `SanitizerCallback` cleans exactly the summarizer's calls, through LiteLLM's own request path."""

from __future__ import annotations

import asyncio
import copy
import importlib
import json
import os
import re
import sys
from typing import Any

import pytest

from tests.conftest import CORPUS, ROOT, require_corpus

# LiteLLM fetches its model price map from the network at import unless told to use its bundled copy.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
litellm = pytest.importorskip("litellm", reason="the [litellm] extra is not installed: pip install 'sanitizer[litellm]'")

from litellm import CustomLLM  # noqa: E402
from litellm.caching.dual_cache import DualCache  # noqa: E402
from litellm.proxy._types import UserAPIKeyAuth  # noqa: E402

from sanitizer.integrations.litellm import SanitizerCallback  # noqa: E402


class Recorder(CustomLLM):
    """A LiteLLM custom provider (LiteLLM's own extension point): records what reaches the provider."""

    def __init__(self) -> None:
        super().__init__()
        self.sent: list[tuple[str, list[dict[str, Any]]]] = []

    async def acompletion(self, model: str, messages: list, *args: Any, **kwargs: Any) -> Any:
        return self.completion(model, messages)

    def completion(self, model: str, messages: list, *args: Any, **kwargs: Any) -> Any:
        self.sent.append((model, copy.deepcopy(messages)))
        return litellm.completion(model="gpt-4o", messages=[{"role": "user", "content": "x"}],
                                  mock_response="SUMMARY")


@pytest.fixture
def recorder(monkeypatch: pytest.MonkeyPatch) -> Recorder:
    rec = Recorder()
    monkeypatch.setattr(litellm, "custom_provider_map", [{"provider": "recorder", "custom_handler": rec}])
    monkeypatch.setattr(litellm, "callbacks", [])
    return rec


def conversation(name: str = "openhands-sdk__fncall-llm-message.json") -> list[dict[str, Any]]:
    require_corpus()
    return json.loads((CORPUS / "openai_chat" / name).read_text())


def pairs_valid(messages: list[dict[str, Any]]) -> bool:
    """OpenAI chat's rule: every tool message answers a tool call, every tool call is answered."""
    calls = {c["id"] for m in messages if m.get("role") == "assistant" for c in m.get("tool_calls") or []}
    answers = {m["tool_call_id"] for m in messages if m.get("role") == "tool"}
    return calls == answers


def test_summarizer_call_reaches_the_provider_sanitized_others_untouched(
        recorder: Recorder, monkeypatch: pytest.MonkeyPatch) -> None:
    messages = conversation()
    before = copy.deepcopy(messages)
    monkeypatch.setattr(litellm, "callbacks", [SanitizerCallback(models=["summarizer"], keep_recent=0)])

    async def calls() -> list[Any]:
        return [await litellm.acompletion(model="recorder/summarizer", messages=messages),
                await litellm.acompletion(model="recorder/agent", messages=messages)]

    replies = asyncio.run(calls())
    assert [r.choices[0].message.content for r in replies] == ["SUMMARY", "SUMMARY"]
    assert messages == before, "the caller's messages were mutated"
    (model_a, cleaned), (model_b, untouched) = recorder.sent
    assert (model_a, model_b) == ("summarizer", "agent")
    assert untouched == before
    assert len(json.dumps(cleaned)) < len(json.dumps(before))
    assert [m["role"] for m in cleaned] == [m["role"] for m in before]
    assert pairs_valid(cleaned) and pairs_valid(before)


def test_router_alias_selects_the_call_whatever_deployment_serves_it(
        recorder: Recorder, monkeypatch: pytest.MonkeyPatch) -> None:
    messages = conversation()
    monkeypatch.setattr(litellm, "callbacks", [SanitizerCallback(models=["summarizer"], keep_recent=0)])
    router = litellm.Router(model_list=[
        {"model_name": "summarizer", "litellm_params": {"model": "recorder/small-model"}},
        {"model_name": "agent", "litellm_params": {"model": "recorder/big-model"}}])
    asyncio.run(router.acompletion(model="summarizer", messages=messages))
    asyncio.run(router.acompletion(model="agent", messages=messages))
    (small, cleaned), (big, untouched) = recorder.sent
    assert (small, big) == ("small-model", "big-model")
    assert len(json.dumps(cleaned)) < len(json.dumps(messages)) and untouched == messages


def test_synchronous_completion_has_no_request_changing_hook(
        recorder: Recorder, monkeypatch: pytest.MonkeyPatch) -> None:
    """The documented limit: LiteLLM runs `async_pre_call_deployment_hook` on `acompletion` only."""
    messages = conversation()
    monkeypatch.setattr(litellm, "callbacks", [SanitizerCallback(models=["summarizer"], keep_recent=0)])
    litellm.completion(model="recorder/summarizer", messages=messages)
    assert recorder.sent == [("summarizer", messages)]


def test_tagged_calls_are_cleaned(recorder: Recorder, monkeypatch: pytest.MonkeyPatch) -> None:
    require_corpus()  # a LiteLLM request log of the OpenHands SDK: its `messages` are what was sent
    log = json.loads((CORPUS / "openai_chat" / "openhands-sdk__litellm-log-claude-sonnet-4-1757015046.707.json").read_text())
    messages = log["messages"]
    monkeypatch.setattr(litellm, "callbacks", [SanitizerCallback(tags=["compaction"], keep_recent=0)])
    asyncio.run(litellm.acompletion(model="recorder/any", messages=messages, metadata={"tags": ["compaction"]}))
    asyncio.run(litellm.acompletion(model="recorder/any", messages=messages, metadata={"tags": ["chat"]}))
    (_, tagged), (_, other) = recorder.sent
    assert len(json.dumps(tagged)) < len(json.dumps(messages))
    assert other == messages


def spy_on(callback: SanitizerCallback, monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, dict[str, Any]]]:
    """Record each (call type, request) LiteLLM sends on after the callback's SDK hook ran."""
    seen: list[tuple[Any, dict[str, Any]]] = []
    original = callback.async_pre_call_deployment_hook

    async def spy(kwargs: dict[str, Any], call_type: Any) -> dict | None:
        result = await original(kwargs, call_type)
        seen.append((call_type, result or kwargs))
        return result

    monkeypatch.setattr(callback, "async_pre_call_deployment_hook", spy)
    monkeypatch.setattr(litellm, "callbacks", [callback])
    return seen


def test_mock_response_completion_runs_through_the_hook(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = spy_on(SanitizerCallback(models=["summarizer"], keep_recent=0), monkeypatch)
    messages = conversation()
    reply = asyncio.run(litellm.acompletion(model="openai/summarizer", messages=messages, mock_response="ok"))
    assert reply.choices[0].message.content == "ok"
    assert len(seen) == 1 and len(json.dumps(seen[0][1]["messages"])) < len(json.dumps(messages))


def test_anthropic_messages_calls_are_read_as_anthropic(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = spy_on(SanitizerCallback(models=["summarizer"], keep_recent=0), monkeypatch)
    big = "\n".join(f"line {i}: ok" for i in range(4000))
    messages = [{"role": "user", "content": "run the tests"},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "bash",
                                                   "input": {"command": "pytest"}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": big}]},
                {"role": "user", "content": "summarize"}]
    before = copy.deepcopy(messages)
    reply = asyncio.run(litellm.anthropic.messages.acreate(model="anthropic/summarizer", messages=messages,
                                                            max_tokens=100, mock_response="ok"))
    assert reply["content"][0]["text"] == "ok" and messages == before
    (call_type, sent), = seen
    assert getattr(call_type, "value", call_type) == "anthropic_messages"
    result = sent["messages"][2]["content"][0]
    assert result["type"] == "tool_result" and result["tool_use_id"] == "t1"
    assert len(json.dumps(result)) < len(big)


def test_proxy_hook_returns_the_cleaned_body_and_leaves_other_models() -> None:
    callback = SanitizerCallback(models=["summarizer"], keep_recent=0)
    messages = conversation()
    body = {"model": "summarizer", "messages": messages, "temperature": 0}
    out = asyncio.run(callback.async_pre_call_hook(UserAPIKeyAuth(), DualCache(), body, "completion"))
    assert out is not body and out["temperature"] == 0 and body["messages"] is messages
    assert len(json.dumps(out["messages"])) < len(json.dumps(messages))
    other = {"model": "gpt-4o", "messages": messages}
    assert asyncio.run(callback.async_pre_call_hook(UserAPIKeyAuth(), DualCache(), other, "completion")) is other


def test_unreadable_messages_are_sent_unchanged() -> None:
    callback = SanitizerCallback(models=["summarizer"])
    assert callback.sanitized({"model": "summarizer", "messages": [1, 2, 3]}) is None
    assert callback.sanitized({"model": "summarizer", "messages": [{"role": "user", "content": None}]}) is None
    assert callback.sanitized({"model": "summarizer"}) is None


def test_needs_a_selector() -> None:
    with pytest.raises(ValueError, match="models="):
        SanitizerCallback()


def test_readme_snippet_runs(recorder: Recorder) -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("### LiteLLM\n", 1)[1].split("\n### ", 1)[0]
    snippet = re.search(r"```python\n(.*?)```", section, re.S)
    assert snippet
    exec(compile(snippet.group(1), "README.md", "exec"), {})
    assert [type(c) for c in litellm.callbacks] == [SanitizerCallback]
    require_corpus()
    episode = json.loads((CORPUS / "openai_chat" / "taubench__gpt-4o-airline.json").read_text())[0]
    messages = episode["traj"]  # long enough for the default pack's protected tail of 10 messages
    asyncio.run(litellm.acompletion(model="recorder/summarizer", messages=messages))
    assert len(json.dumps(recorder.sent[0][1])) < len(json.dumps(messages))


def test_without_the_extra_the_import_error_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "litellm.integrations.custom_logger", None)  # what an environment without the package looks like
    monkeypatch.delitem(sys.modules, "sanitizer.integrations.litellm")
    with pytest.raises(ImportError, match=r"pip install 'sanitizer\[litellm\]'"):
        importlib.import_module("sanitizer.integrations.litellm")
