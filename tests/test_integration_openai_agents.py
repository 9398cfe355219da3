"""OpenAI Agents SDK: the model-input filter and the handoff filter, inside real `Runner` runs."""

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
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from tests.conftest import CORPUS, ROOT, require_corpus

# The SDK exports traces to OpenAI when a key is set: these tests stay offline.
os.environ.setdefault("OPENAI_AGENTS_DISABLE_TRACING", "1")
pytest.importorskip("agents", reason="the [openai-agents] extra is not installed: pip install 'sanitizer[openai-agents]'")

from agents import Agent, HandoffInputData, Model, ModelResponse, RunConfig, Runner, function_tool, handoff  # noqa: E402
from agents.run_config import CallModelData, ModelInputData  # noqa: E402
from agents.usage import Usage  # noqa: E402
from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText  # noqa: E402

from sanitizer.integrations.openai_agents import (
    SanitizeFilter,
    sanitize_handoff,
    sanitize_items,
    sanitize_model_input,
)


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


BUILD_LOG = "\n".join(f"[{i:04d}] compiling module_{i}.c ... ok" for i in range(2500))


def reply(text: str) -> list[Any]:
    return [ResponseOutputMessage(id="msg", type="message", role="assistant", status="completed",
                                  content=[ResponseOutputText(type="output_text", text=text, annotations=[])])]


def call(name: str, call_id: str, arguments: str = "{}") -> list[Any]:
    return [ResponseFunctionToolCall(type="function_call", id=f"fc_{call_id}", call_id=call_id, name=name,
                                     arguments=arguments, status="completed")]


class CannedModel(Model):
    """An Agents SDK `Model` that answers from a script and records the input of every call."""

    def __init__(self, outputs: list[list[Any]]) -> None:
        self.outputs = list(outputs)
        self.inputs: list[list[Any]] = []

    async def get_response(self, system_instructions: str | None, input: Any, model_settings: Any, tools: Any,
                           output_schema: Any, handoffs: Any, tracing: Any, **kwargs: Any) -> ModelResponse:
        self.inputs.append(copy.deepcopy(input))
        return ModelResponse(output=self.outputs.pop(0), usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("these tests run the non-streaming path")


def chat_to_items(chat: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """OpenAI chat messages as Responses input items (what an Agents SDK history holds)."""
    items: list[dict[str, Any]] = []
    for m in chat:
        text = m.get("content") if isinstance(m.get("content"), str) else json.dumps(m.get("content") or "")
        if m["role"] == "tool":
            items.append({"type": "function_call_output", "call_id": m["tool_call_id"], "output": text})
            continue
        if text:
            kind = "output_text" if m["role"] == "assistant" else "input_text"
            items.append({"type": "message", "role": m["role"], "content": [{"type": kind, "text": text}]})
        for c in m.get("tool_calls") or []:
            items.append({"type": "function_call", "call_id": c["id"], "name": c["function"]["name"],
                          "arguments": c["function"]["arguments"]})
    return items


def corpus_items(episode: int = 3) -> list[dict[str, Any]]:
    require_corpus()
    episodes = json.loads((CORPUS / "openai_chat" / "taubench__gpt-4o-airline.json").read_text())
    return chat_to_items(episodes[episode]["traj"])


def codex_items() -> list[dict[str, Any]]:
    """The Responses items of a real Codex rollout (its `response_item` payloads)."""
    require_corpus()
    items = []
    for line in (CORPUS / "codex_rollout" / "rtchess__exported-session.jsonl").read_text().splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if record.get("type") == "response_item":
            items.append(record["payload"])
    return items


def pairs_valid(items: list[Any]) -> bool:
    """Responses' rule: each function_call_output answers an earlier function_call with its call_id."""
    calls: set[str] = set()
    for item in items:
        if item.get("type") in ("function_call", "custom_tool_call"):
            calls.add(item["call_id"])
        elif item.get("type") in ("function_call_output", "custom_tool_call_output") and item["call_id"] not in calls:
            return False
    return True


def dumps(items: list[Any]) -> list[str]:
    return [json.dumps(i, sort_keys=True) for i in items]


@function_tool
def read_build_log() -> str:
    """Return the build log."""
    return BUILD_LOG


def run(model: CannedModel, history: list[Any], run_config: RunConfig | None = None) -> Any:
    agent = Agent(name="builder", instructions="Fix the build.", model=model, tools=[read_build_log])
    question = {"role": "user", "content": "The build is red again; look at the log and fix it."}
    return asyncio.run(Runner.run(agent, [*history, question], run_config=run_config or RunConfig()))


def script() -> list[list[Any]]:
    return [call("read_build_log", "b1"), call("read_build_log", "b2"), reply("Fixed: module_17 include path.")]


def test_runner_sends_a_smaller_prefix_stable_input_and_leaves_the_history_alone() -> None:
    history = corpus_items()
    before = copy.deepcopy(history)
    plain, clean = CannedModel(script()), CannedModel(script())
    run(plain, history)
    result = run(clean, history, RunConfig(call_model_input_filter=sanitize_model_input))
    assert history == before, "the caller's items were mutated"
    assert result.final_output == "Fixed: module_17 include path."
    assert len(clean.inputs) == len(plain.inputs) == 3
    for sent, raw in zip(clean.inputs, plain.inputs, strict=True):
        assert [i.get("type") for i in sent] == [i.get("type") for i in raw]
        assert len(json.dumps(sent)) < len(json.dumps(raw))
        assert pairs_valid(sent)
    # the current turn (its build logs) reaches the model whole
    assert dumps(clean.inputs[-1][len(history):]) == dumps(plain.inputs[-1][len(history):])
    # prompt caching: every call's input starts with the previous call's input, byte for byte
    for earlier, later in zip(clean.inputs, clean.inputs[1:], strict=False):
        assert dumps(later[:len(earlier)]) == dumps(earlier)


def test_same_items_give_byte_identical_output_from_fresh_filters() -> None:
    items = codex_items()
    first = SanitizeFilter().items(copy.deepcopy(items))
    second = SanitizeFilter().items(copy.deepcopy(items))
    assert dumps(first) == dumps(second)
    assert len(json.dumps(first)) < len(json.dumps(items)) and pairs_valid(first)


@hsettings(max_examples=40, deadline=None)
@given(st.data())
def test_appended_items_never_change_earlier_ones(data: st.DataObject) -> None:
    items = codex_items()
    users = [i for i, item in enumerate(items) if item.get("role") == "user" and item.get("type") == "message"]
    ends = {u: next((v for v in users if v > u), len(items)) for u in users[1:]}
    # a turn: its user message and the items up to the next user message (appending that one starts a new turn)
    start = data.draw(st.sampled_from([u for u, end in ends.items() if end - u >= 2]), label="turn start")
    k = data.draw(st.integers(min_value=start + 1, max_value=ends[start] - 1), label="prefix")
    extra = data.draw(st.integers(min_value=1, max_value=ends[start] - k), label="appended")
    flt = SanitizeFilter()
    shorter = flt.items(items[:k])
    longer = flt.items(items[:k + extra])
    assert dumps(longer[:k]) == dumps(shorter)


@hsettings(max_examples=30, deadline=None)
@given(st.data())
def test_an_item_cleaned_once_is_never_cleaned_differently_later(data: st.DataObject) -> None:
    items = codex_items()
    k = data.draw(st.integers(min_value=1, max_value=len(items) - 1), label="earlier call")
    m = data.draw(st.integers(min_value=k + 1, max_value=len(items)), label="later call")
    flt = SanitizeFilter()
    earlier = flt.items(items[:k])
    # what the earlier call cleaned: everything before its latest user message
    boundary = max((i for i, item in enumerate(items[:k]) if item.get("role") == "user"
                    and item.get("type") == "message"), default=0)
    later = flt.items(items[:m])
    assert dumps(later[:boundary]) == dumps(earlier[:boundary])


def test_user_messages_pass_verbatim() -> None:
    items = codex_items()
    out = SanitizeFilter().items(items)
    for a, b in zip(items, out, strict=True):
        if a.get("role") == "user":
            assert a is b


def test_unchanged_items_are_the_same_objects_and_changed_ones_new() -> None:
    items = codex_items()
    out = SanitizeFilter().items(items)
    assert len(out) == len(items)
    same = [a is b for a, b in zip(items, out, strict=True)]
    assert any(same) and not all(same)
    for a, b in zip(items, out, strict=True):
        assert a is b or a != b


def test_filter_protects_more_turns_when_asked() -> None:
    items = codex_items()
    one, three = sanitize_items(items), sanitize_items(items, keep_turns=3)
    assert len(json.dumps(one)) < len(json.dumps(three)) < len(json.dumps(items))
    with pytest.raises(ValueError, match="keep_turns"):
        SanitizeFilter(keep_turns=0)


def test_the_filter_accepts_call_model_data() -> None:
    items = corpus_items(0)
    agent = Agent(name="a")
    out = sanitize_model_input(CallModelData(model_data=ModelInputData(input=items, instructions="be brief"),
                                             agent=agent, context=None))
    assert isinstance(out, ModelInputData) and out.instructions == "be brief"
    assert len(json.dumps(out.input)) < len(json.dumps(items))


def test_handoff_filter_cleans_the_history_the_specialist_receives() -> None:
    history = corpus_items()
    before = copy.deepcopy(history)
    inputs = {}
    for name, flt in (("plain", None), ("clean", sanitize_handoff)):
        specialist_model = CannedModel([reply("Specialist: done.")])
        specialist = Agent(name="specialist", model=specialist_model)
        triage = Agent(name="triage", model=CannedModel([call("transfer_to_specialist", "h1")]),
                       handoffs=[handoff(specialist, input_filter=flt)])
        result = asyncio.run(Runner.run(triage, [*history, {"role": "user", "content": "escalate please"}]))
        assert result.final_output == "Specialist: done."
        inputs[name] = specialist_model.inputs[0]
    assert history == before
    assert len(json.dumps(inputs["clean"])) < len(json.dumps(inputs["plain"]))
    assert [i.get("type") for i in inputs["clean"]] == [i.get("type") for i in inputs["plain"]]
    assert pairs_valid(inputs["clean"])


def test_handoff_filter_keeps_a_string_history_and_run_items() -> None:
    data = HandoffInputData(input_history="just a question", pre_handoff_items=(), new_items=())
    out = sanitize_handoff(data)
    assert out is not data and out.input_history == "just a question"


def test_readme_snippet_runs() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("### OpenAI Agents SDK\n", 1)[1].split("\n### ", 1)[0].split("\n## ", 1)[0]
    snippet = re.search(r"```python\n(.*?)```", section, re.S)
    assert snippet
    model = CannedModel([reply("Nothing yet.")])
    namespace: dict[str, Any] = {"agent": Agent(name="main", model=model),
                                 "specialist": Agent(name="specialist", model=CannedModel([]))}
    exec(compile(snippet.group(1), "README.md", "exec"), namespace)
    assert namespace["result"].final_output == "Nothing yet." and len(model.inputs) == 1
    assert namespace["agent"].handoffs[0].agent_name == "specialist"


def test_without_the_extra_the_import_error_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "agents", None)  # what an environment without the package looks like
    monkeypatch.delitem(sys.modules, "sanitizer.integrations.openai_agents")
    with pytest.raises(ImportError, match=r"pip install 'sanitizer\[openai-agents\]'"):
        importlib.import_module("sanitizer.integrations.openai_agents")
