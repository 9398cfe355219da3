"""LangChain / LangGraph: `sanitize_messages` and the summarization middleware, on real langchain objects."""

from __future__ import annotations

import asyncio
import importlib
import json
import re
import sys
from typing import Any

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from tests.conftest import CORPUS, EXAMPLE, ROOT, require_corpus

pytest.importorskip("langchain_core", reason="the [langchain] extra is not installed: pip install 'sanitizer[langchain]'")
pytest.importorskip("langchain.agents.middleware",
                    reason="the [langchain] extra is not installed: pip install 'sanitizer[langchain]'")

from langchain.agents import create_agent  # noqa: E402
from langchain.agents.middleware import SummarizationMiddleware  # noqa: E402
from langchain_core.callbacks import BaseCallbackHandler  # noqa: E402
from langchain_core.language_models import BaseChatModel  # noqa: E402
from langchain_core.language_models.fake_chat_models import FakeListChatModel, GenericFakeChatModel  # noqa: E402
from langchain_core.messages import (  # noqa: E402
    AIMessage,
    BaseMessage,
    HumanMessage,
    RemoveMessage,
    SystemMessage,
    ToolMessage,
    convert_to_messages,
    get_buffer_string,
)
from langchain_core.outputs import ChatResult  # noqa: E402

from sanitizer import Sanitizer  # noqa: E402
from sanitizer.integrations.langchain import SanitizingSummarizationMiddleware, sanitize_messages  # noqa: E402

PNG = "iVBORw0KGgo" + "A" * 4000


def corpus_conversations() -> list[tuple[str, list[dict[str, Any]]]]:
    """OpenAI chat conversations of the corpus: the OpenHands SDK message list and tau-bench episodes."""
    require_corpus()
    chat = CORPUS / "openai_chat"
    out = [("openhands", json.loads((chat / "openhands-sdk__fncall-llm-message.json").read_text()))]
    episodes = json.loads((chat / "taubench__gpt-4o-airline.json").read_text())
    out += [(f"taubench-{i}", ep["traj"]) for i, ep in enumerate(episodes[:4])]
    return out


def example_chat() -> list[dict[str, Any]]:
    """The bundled Claude Code session as plain OpenAI chat messages (every rule off: a faithful rendering)."""
    names = list(Sanitizer(count_tokens=False).sanitize_file(EXAMPLE).report.rules)
    return Sanitizer(disable=names, count_tokens=False).sanitize_file(EXAMPLE).to_messages()


def to_langchain(chat: list[dict[str, Any]], prefix: str = "m") -> list[BaseMessage]:
    messages = convert_to_messages(chat)
    for i, message in enumerate(messages):
        message.id = f"{prefix}{i}"
        message.additional_kwargs["trace"] = {"n": i}
    return messages


def dump(messages: list[BaseMessage]) -> list[dict[str, Any]]:
    return [m.model_dump() for m in messages]


def pairs_valid(messages: list[BaseMessage]) -> bool:
    """LangChain's rule: each ToolMessage answers an earlier AIMessage tool call, each call is answered."""
    open_calls: set[str] = set()
    answered: set[str] = set()
    for m in messages:
        if isinstance(m, AIMessage):
            open_calls.update(c["id"] for c in m.tool_calls)
        elif isinstance(m, ToolMessage):
            if m.tool_call_id not in open_calls:
                return False
            answered.add(m.tool_call_id)
    return open_calls == answered


def readme_block(heading: str) -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split(f"### {heading}\n", 1)[1].split("\n### ", 1)[0].split("\n## ", 1)[0]
    match = re.search(r"```python\n(.*?)```", section, re.S)
    assert match, f"no python block under {heading}"
    return match.group(1)


class PromptRecorder(BaseCallbackHandler):
    """LangChain's own callback seam: what the chat model was really asked."""

    def __init__(self) -> None:
        self.prompts: list[str] = []

    def on_chat_model_start(self, serialized: Any, messages: list[list[BaseMessage]], **kwargs: Any) -> None:
        self.prompts.extend(get_buffer_string(batch) for batch in messages)


class FailingChatModel(BaseChatModel):
    """A chat model whose provider is down (a real BaseChatModel, failing like a network call)."""

    @property
    def _llm_type(self) -> str:
        return "failing"

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        raise ConnectionError("summary provider unreachable")


@pytest.mark.parametrize("name", ["example", "openhands", "taubench-0", "taubench-3"])
def test_corpus_conversation_comes_back_smaller_same_types_and_pairs(name: str) -> None:
    chat = example_chat() if name == "example" else dict(corpus_conversations())[name]
    messages = to_langchain(chat)
    before = dump(messages)
    out = sanitize_messages(messages, keep_recent=0)
    assert dump(messages) == before, "the caller's messages were mutated"
    assert [type(m) for m in out] == [type(m) for m in messages]
    for a, b in zip(messages, out, strict=True):
        assert a is not b
        assert (b.id, b.name, b.additional_kwargs) == (a.id, a.name, a.additional_kwargs)
        if isinstance(a, ToolMessage):
            assert b.tool_call_id == a.tool_call_id
        if isinstance(a, AIMessage):
            assert [c["id"] for c in b.tool_calls] == [c["id"] for c in a.tool_calls]
    assert pairs_valid(out) == pairs_valid(messages)
    assert len(get_buffer_string(out)) < len(get_buffer_string(messages))


def test_images_and_content_blocks_become_labels_and_text_stays() -> None:
    messages = [SystemMessage("You are a reviewer.", id="s"),
                HumanMessage([{"type": "text", "text": "What is on this screenshot?"},
                              {"type": "image", "base64": PNG, "mime_type": "image/png"}], id="h", name="ana"),
                AIMessage("A login form.", id="a"),
                HumanMessage("Thanks, now fix the CSS.", id="h2")]
    before = dump(messages)
    out = sanitize_messages(messages, keep_recent=0)
    assert dump(messages) == before
    first = out[1]
    assert isinstance(first, HumanMessage) and first.name == "ana" and first.id == "h"
    assert first.content[0] == {"type": "text", "text": "What is on this screenshot?"}
    assert PNG not in json.dumps(first.content)
    assert out[3].content == "Thanks, now fix the CSS."
    assert dump(out[:1]) == before[:1]


def test_tool_use_blocks_and_tool_result_images_keep_their_pair() -> None:
    messages = [HumanMessage("Take a screenshot.", id="h"),
                AIMessage([{"type": "text", "text": "Taking it."},
                           {"type": "tool_use", "id": "c1", "name": "shot", "input": {}}],
                          tool_calls=[{"name": "shot", "args": {}, "id": "c1"}], id="a"),
                ToolMessage([{"type": "text", "text": "saved shot.png"},
                             {"type": "image", "base64": PNG, "mime_type": "image/png"}],
                            tool_call_id="c1", id="t", artifact={"path": "shot.png"}),
                HumanMessage("Describe it.", id="h2")]
    before = dump(messages)
    out = sanitize_messages(messages, keep_recent=0)
    assert dump(messages) == before
    assert dump(out[:2]) == before[:2], "an unchanged message must come back equal"
    tool = out[2]
    assert isinstance(tool, ToolMessage) and tool.tool_call_id == "c1" and tool.artifact == {"path": "shot.png"}
    assert tool.content[0] == {"type": "text", "text": "saved shot.png"}
    assert PNG not in json.dumps(tool.content) and pairs_valid(out)


def test_a_list_it_cannot_convert_comes_back_as_copies() -> None:
    messages = [HumanMessage("hello", id="h"), RemoveMessage(id="h")]
    out = sanitize_messages(messages)
    assert dump(out) == dump(messages) and all(a is not b for a, b in zip(messages, out, strict=True))


def test_tool_call_arguments_stay_a_dict() -> None:
    big = json.dumps({"path": "/w/app.py", "file_text": "x = 1\n" * 3000})
    chat = [{"role": "user", "content": "write the app"},
            {"role": "assistant", "content": "", "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "write", "arguments": big}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "written"},
            {"role": "user", "content": "now test it"}]
    messages = to_langchain(chat)
    out = sanitize_messages(messages, keep_recent=0)
    assert isinstance(out[1].tool_calls[0]["args"], dict)
    assert out[1].tool_calls[0]["args"]["path"] == "/w/app.py"
    assert pairs_valid(out)


@hsettings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(min_value=1, max_value=40), st.integers(min_value=0, max_value=3))
def test_a_second_pass_changes_nothing(length: int, episode: int) -> None:
    require_corpus()
    chat = corpus_conversations()[1 + episode][1][:length]
    once = sanitize_messages(to_langchain(chat), keep_recent=0)
    twice = sanitize_messages(once, keep_recent=0)
    assert dump(twice) == dump(once)


def run_agent(middleware: Any, messages: list[BaseMessage], use_async: bool = False) -> list[BaseMessage]:
    agent = create_agent(GenericFakeChatModel(messages=iter([AIMessage("All done.")])), [],
                         middleware=[middleware])
    state = {"messages": messages}
    result = asyncio.run(agent.ainvoke(state)) if use_async else agent.invoke(state)
    return result["messages"]


@pytest.mark.parametrize("use_async", [False, True], ids=["invoke", "ainvoke"])
def test_middleware_summarizer_reads_the_sanitized_copy(use_async: bool) -> None:
    chat = dict(corpus_conversations())["taubench-3"]
    plain_seen, clean_seen = PromptRecorder(), PromptRecorder()
    kw: dict[str, Any] = {"trigger": ("messages", 8), "keep": ("messages", 6), "trim_tokens_to_summarize": None}
    plain = SummarizationMiddleware(FakeListChatModel(responses=["S"], callbacks=[plain_seen]), **kw)
    run_agent(plain, to_langchain(chat, "p"), use_async)
    messages = to_langchain(chat)
    before = dump(messages)
    clean = SanitizingSummarizationMiddleware(FakeListChatModel(responses=["THE SUMMARY"],
                                                                callbacks=[clean_seen]), **kw)
    final = run_agent(clean, messages, use_async)
    assert dump(messages) == before
    assert len(clean_seen.prompts) == len(plain_seen.prompts) == 1
    assert len(clean_seen.prompts[0]) < len(plain_seen.prompts[0])
    assert "THE SUMMARY" in final[0].content
    assert final[-1].content == "All done."
    assert pairs_valid(final)


@pytest.mark.parametrize("use_async", [False, True], ids=["invoke", "ainvoke"])
def test_failed_summary_call_falls_back_to_the_deterministic_summary(use_async: bool) -> None:
    chat = dict(corpus_conversations())["taubench-0"]
    middleware = SanitizingSummarizationMiddleware(FailingChatModel(), trigger=("messages", 8), keep=("messages", 4))
    final = run_agent(middleware, to_langchain(chat), use_async)
    summary = final[0].content
    assert "## Active Task" in summary and "ConnectionError" in summary
    assert final[-1].content == "All done."
    with pytest.raises(ConnectionError):
        run_agent(SanitizingSummarizationMiddleware(FailingChatModel(), trigger=("messages", 8),
                                                    keep=("messages", 4), fallback=False),
                  to_langchain(chat), use_async)


def test_fallback_summary_carries_no_credential_the_copy_redacts() -> None:
    key = "sk-ant-api03-" + "Zq9Xw8Vu7Ts6" * 7
    chat = dict(corpus_conversations())["taubench-0"]
    messages = to_langchain([*chat[:3], {"role": "user", "content": f"Deploy with the key {key} please."},
                             {"role": "assistant", "content": "Deploying now."}, *chat[3:]])
    middleware = SanitizingSummarizationMiddleware(FailingChatModel(), trigger=("messages", 8), keep=("messages", 4))
    summary = run_agent(middleware, messages)[0].content
    assert "Deploy with the key" in summary and key not in summary and "REDACTED" in summary


def earlier_summary(marker: str) -> HumanMessage:
    """The message LangChain's middleware leaves after a first summarization, long enough to be trimmed."""
    body = "\n".join(f"- step {i}: edited src/mod_{i}.py and ran its tests" for i in range(150))
    text = f"Here is a summary of the conversation to date:\n\n## Progress\n{body}\n{marker}\n{body}"
    return HumanMessage(text, id="summary-1", additional_kwargs={"lc_source": "summarization"})


def test_an_earlier_summary_reaches_the_summarizer_whole() -> None:
    marker = "DECISION: keep the v2 schema, never migrate users table"
    chat = dict(corpus_conversations())["taubench-3"]
    messages = [earlier_summary(marker), *to_langchain(chat)]
    assert len(messages[0].content) > 6000  # over the default pack's trim-text limit
    seen = PromptRecorder()
    middleware = SanitizingSummarizationMiddleware(FakeListChatModel(responses=["S2"], callbacks=[seen]),
                                                   trigger=("messages", 8), keep=("messages", 4),
                                                   trim_tokens_to_summarize=None)
    run_agent(middleware, messages)
    assert marker in seen.prompts[0] and messages[0].content[-200:] in seen.prompts[0]


def test_fallback_merges_an_earlier_summary_instead_of_quoting_it_as_an_ask() -> None:
    marker = "DECISION: keep the v2 schema, never migrate users table"
    chat = dict(corpus_conversations())["taubench-0"]
    middleware = SanitizingSummarizationMiddleware(FailingChatModel(), trigger=("messages", 8), keep=("messages", 4))
    summary = run_agent(middleware, [earlier_summary(marker), *to_langchain(chat)])[0].content
    active = summary.split("## Active Task", 1)[1].split("\n## ", 1)[0]
    assert "## Progress" in summary and "src/mod_0.py" in summary, "the earlier summary's sections are merged"
    assert summary.count("Here is a summary of the conversation to date") == 1
    assert "Here is a summary of the conversation to date" not in active


def test_readme_snippet_runs() -> None:
    chat = dict(corpus_conversations())["taubench-0"]
    seen = PromptRecorder()
    namespace: dict[str, Any] = {
        "model": GenericFakeChatModel(messages=iter([AIMessage("All done.")])),
        "summary_model": FakeListChatModel(responses=["README SUMMARY"], callbacks=[seen]),
        "tools": [], "messages": to_langchain(chat)}
    exec(compile(readme_block("LangChain / LangGraph"), "README.md", "exec"), namespace)
    assert len(get_buffer_string(namespace["smaller"])) < len(get_buffer_string(namespace["messages"]))
    final = namespace["agent"].invoke({"messages": to_langchain(chat)})["messages"]
    assert "README SUMMARY" in final[0].content and seen.prompts


def test_without_the_extra_the_import_error_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "langchain.agents.middleware", None)  # what an environment without the package looks like
    monkeypatch.delitem(sys.modules, "sanitizer.integrations.langchain")
    with pytest.raises(ImportError, match=r"pip install 'sanitizer\[langchain\]'"):
        importlib.import_module("sanitizer.integrations.langchain")
