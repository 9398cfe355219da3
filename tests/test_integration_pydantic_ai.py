"""Pydantic AI: the `pydantic_ai` format (dumped `ModelMessage` JSON) and the history processor, run
by a real `Agent` on corpus conversations converted to Pydantic AI's own message types."""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from conftest import ROOT, corpus_params, pairs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sanitizer import Sanitizer, sanitize, validate
from sanitizer.cli.command import main as cli
from sanitizer.document.loader import from_object
from sanitizer.formats import detect

NEEDS = "Pydantic AI integration tests need the extra: pip install 'sanitizer[pydantic-ai]'"
LONG = "".join(f"{i:04d} build step output line, nothing to see here\n" for i in range(400))
PNG = "iVBORw0KGgo" + "A" * 4000


def _dumped_history() -> list[dict[str, Any]]:
    """A dumped Pydantic AI history, as `ModelMessagesTypeAdapter.dump_python(mode="json")` writes it."""
    history: list[dict[str, Any]] = [
        {"kind": "request", "parts": [
            {"part_kind": "system-prompt", "content": "You are a build assistant.", "dynamic_ref": None},
            {"part_kind": "user-prompt", "content": ["Why does the build fail?",
                                                     {"kind": "binary", "data": PNG, "media_type": "image/png",
                                                      "identifier": "shot"}]}]},
        {"kind": "response", "parts": [
            {"part_kind": "thinking", "content": "Let me look. " * 300, "signature": "sig-abc"},
            {"part_kind": "tool-call", "tool_name": "run", "args": {"cmd": "make"}, "tool_call_id": "c1"}],
         "model_name": "test"},
        {"kind": "request", "parts": [
            {"part_kind": "tool-return", "tool_name": "run", "content": LONG + "Error: missing header foo.h\n",
             "tool_call_id": "c1", "outcome": "success"}]},
        {"kind": "response", "parts": [
            {"part_kind": "tool-call", "tool_name": "read", "args": '{"path": "src/main.c"}', "tool_call_id": "c2"}]},
        {"kind": "request", "parts": [
            {"part_kind": "tool-return", "tool_name": "read", "content": {"text": LONG, "lines": 400},
             "tool_call_id": "c2"}]},
    ]
    for i in range(12):
        history.append({"kind": "request", "parts": [{"part_kind": "user-prompt", "content": f"question {i}"}]}
                       if i % 2 == 0 else
                       {"kind": "response", "parts": [{"part_kind": "text", "content": f"answer {i}"}]})
    return history


# -- the format adapter (no Pydantic AI needed) ---------------------------------------------------

def test_dumped_history_is_detected_with_its_roles_and_pairs() -> None:
    doc = from_object(_dumped_history())
    adapter = detect(doc)
    assert adapter.name == "pydantic_ai"
    [view] = adapter.views(doc)
    assert [m.role for m in view.messages[:5]] == ["user", "assistant", "tool", "assistant", "tool"]
    assert pairs(view) == (2, 2, 2)
    kinds = [p.kind for p in view.parts_of(view.messages[0])]
    assert kinds == ["text", "text", "image"]
    assert next(p for p in view.parts if p.kind == "thinking").signed


def test_sanitized_copy_keeps_pairs_and_shapes_and_shrinks() -> None:
    history = _dumped_history()
    before = json.dumps(history)
    result = sanitize(history, count_tokens=False)
    out = result.output
    assert json.dumps(history) == before  # the input is never mutated
    assert len(json.dumps(out)) < len(before) / 3
    assert validate(out, format="pydantic_ai") == []
    assert out[0]["parts"][1]["content"][1].startswith("[image: image/png")
    assert out[1]["parts"][0]["part_kind"] == "text"  # old thinking: a short text part, never an edited signed one
    assert out[2]["parts"][0]["content"].startswith("[run] called `cmd=make` -> 401 lines")  # a digest
    assert out[-1] == history[-1]  # the protected tail comes out equal
    assert sanitize(out, count_tokens=False).output == out  # a second pass changes nothing


def test_json_tool_return_stays_a_value_while_its_text_still_parses() -> None:
    secret = "sk-" + "A1b2C3d4E5f6G7h8I9j0" * 2
    history = _dumped_history()
    history[4]["parts"][0]["content"] = {"token": secret, "ok": True}
    out = sanitize(history, count_tokens=False).output
    content = out[4]["parts"][0]["content"]
    assert isinstance(content, dict) and content["ok"] is True
    assert secret not in json.dumps(out)


def test_cli_reads_a_saved_history_file(tmp_path: Path) -> None:
    path = tmp_path / "history.json"
    path.write_text(json.dumps(_dumped_history()), encoding="utf-8")
    result = CliRunner().invoke(cli, [str(path), "--no-tokens", "-q"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert len(result.stdout) < path.stat().st_size / 3
    assert [m["kind"] for m in out] == [m["kind"] for m in _dumped_history()]


# -- the history processor on Pydantic AI's own types ---------------------------------------------

@pytest.fixture(scope="module")
def pai() -> Any:
    pytest.importorskip("pydantic_ai", reason=NEEDS)
    warnings.filterwarnings("ignore", category=DeprecationWarning)
    from pydantic_ai import messages

    return messages


def to_model_messages(chat: list[dict[str, Any]], pai: Any) -> list[Any]:
    """OpenAI chat messages (a corpus conversation, normalized) as Pydantic AI messages."""
    out: list[Any] = []
    pending: list[Any] = []

    def flush() -> None:
        if pending:
            out.append(pai.ModelRequest(parts=list(pending)))
            pending.clear()

    for m in chat:
        role, content = m["role"], m.get("content") or ""
        if role == "system":
            pending.append(pai.SystemPromptPart(content=content))
        elif role == "user":
            pending.append(pai.UserPromptPart(content=content))
        elif role == "tool":
            pending.append(pai.ToolReturnPart(tool_name=m.get("name") or "tool", content=content,
                                              tool_call_id=m["tool_call_id"]))
        else:
            flush()
            parts: list[Any] = [pai.TextPart(content=content)] if content else []
            parts += [pai.ToolCallPart(tool_name=c["function"]["name"], args=c["function"]["arguments"],
                                       tool_call_id=c["id"]) for c in m.get("tool_calls") or ()]
            out.append(pai.ModelResponse(parts=parts or [pai.TextPart(content="")]))
    flush()
    if not isinstance(out[-1], pai.ModelRequest):
        out.append(pai.ModelRequest(parts=[pai.UserPromptPart(content="What next?")]))
    return out


def corpus_history(path: Path, pai: Any) -> list[Any]:
    chat = Sanitizer("none", count_tokens=False).sanitize_file(path).conversations()[0]
    return to_model_messages(chat, pai)


def call_ids(messages: list[Any], pai: Any) -> tuple[list[str], list[str]]:
    calls = [p.tool_call_id for m in messages if isinstance(m, pai.ModelResponse)
             for p in m.parts if isinstance(p, pai.ToolCallPart)]
    returns = [p.tool_call_id for m in messages if isinstance(m, pai.ModelRequest)
               for p in m.parts if isinstance(p, pai.ToolReturnPart)]
    return calls, returns


CORPUS = corpus_params("claude_code_jsonl")
PICKED = [p for p in CORPUS if p.values[0] is None or p.values[0].name.startswith(("mclaude__343e", "mclaude__f551"))]


@pytest.mark.parametrize("path", PICKED)
def test_corpus_history_comes_back_smaller_same_types_pairs_valid(path: Path, pai: Any) -> None:
    from sanitizer.integrations.pydantic_ai import sanitize_history

    history = corpus_history(path, pai)
    before = pai.ModelMessagesTypeAdapter.dump_json(history)
    out = sanitize_history(history)
    assert pai.ModelMessagesTypeAdapter.dump_json(history) == before  # input unchanged
    assert len(pai.ModelMessagesTypeAdapter.dump_json(out)) < len(before)
    assert [type(m) for m in out] == [type(m) for m in history]
    calls, returns = call_ids(out, pai)
    assert calls == call_ids(history, pai)[0] and sorted(returns) == sorted(call_ids(history, pai)[1])
    assert set(returns) <= set(calls)
    assert out[-1] is history[-1]  # the current request is passed through as is


def _readme_snippet(title: str, lang: str) -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split(f"### {title}\n", 1)[1].split("\n### ", 1)[0].split("\n## ", 1)[0]
    return re.search(rf"```{lang}\n(.*?)```", section, re.S).group(1)


@pytest.mark.parametrize("path", PICKED)
def test_readme_agent_sends_the_sanitized_history_to_the_model(path: Path, pai: Any) -> None:
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    seen: list[list[Any]] = []

    def model_fn(messages: list[Any], info: AgentInfo) -> Any:
        seen.append(messages)
        return pai.ModelResponse(parts=[pai.TextPart(content="Next: fix the header.")])

    namespace: dict[str, Any] = {"model": FunctionModel(model_fn)}
    exec(_readme_snippet("Pydantic AI", "python"), namespace)
    history = corpus_history(path, pai)
    while history and not (isinstance(history[-1], pai.ModelResponse) and not history[-1].tool_calls):
        history.pop()  # end on a finished answer: the run adds its own user prompt
    result = namespace["agent"].run_sync("What next?", message_history=history)
    assert result.output == "Next: fix the header."
    sent = seen[0]
    size = pai.ModelMessagesTypeAdapter.dump_json
    assert len(size(sent)) < len(size(history))
    calls, returns = call_ids(sent, pai)
    assert set(returns) <= set(calls)
    assert sent[-1].parts[-1].content == "What next?"


def test_short_history_is_passed_through_as_the_same_objects(pai: Any) -> None:
    from sanitizer.integrations.pydantic_ai import sanitize_history

    history = [pai.ModelRequest(parts=[pai.UserPromptPart(content="hi")]),
               pai.ModelResponse(parts=[pai.TextPart(content="hello")])]
    out = sanitize_history(history)
    assert out == history and all(a is b for a, b in zip(out, history, strict=True)) and out is not history


def test_images_in_user_prompts_and_tool_returns_become_labels(pai: Any) -> None:
    from sanitizer.integrations.pydantic_ai import history_processor

    image = pai.BinaryContent(data=b"\x89PNG" + bytes(range(256)) * 40, media_type="image/png")
    history = [pai.ModelRequest(parts=[pai.UserPromptPart(content=["look", image])]),
               pai.ModelResponse(parts=[pai.ToolCallPart(tool_name="shot", args={}, tool_call_id="s1")]),
               pai.ModelRequest(parts=[pai.ToolReturnPart(tool_name="shot", content=["taken", image],
                                                          tool_call_id="s1")]),
               pai.ModelResponse(parts=[pai.TextPart(content="done")]),
               pai.ModelRequest(parts=[pai.UserPromptPart(content="and now?")])]
    out = history_processor(keep_recent=1)(history)
    assert out[0].parts[0].content[1].startswith("[image: image/png")
    assert out[2].parts[0].content[1].startswith("[image: image/png")
    assert out[2].parts[0].tool_call_id == "s1"
    assert isinstance(history[0].parts[0].content[1], pai.BinaryContent)


def test_unknown_preset_fails_when_the_agent_is_built(pai: Any) -> None:
    from sanitizer import ConfigError
    from sanitizer.integrations.pydantic_ai import history_processor

    with pytest.raises(ConfigError, match="unknown preset"):
        history_processor("no-such-pack")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(sizes=st.lists(st.integers(min_value=0, max_value=3000), min_size=1, max_size=8),
       tail=st.integers(min_value=0, max_value=4))
def test_processing_twice_changes_nothing_and_keeps_every_pair(sizes: list[int], tail: int, pai: Any) -> None:
    from sanitizer.integrations.pydantic_ai import history_processor

    history: list[Any] = [pai.ModelRequest(parts=[pai.UserPromptPart(content="start")])]
    for i, n in enumerate(sizes):
        history.append(pai.ModelResponse(parts=[pai.ToolCallPart(tool_name="run", args={"i": i}, tool_call_id=f"c{i}")]))
        history.append(pai.ModelRequest(parts=[pai.ToolReturnPart(tool_name="run", content="x\n" * n,
                                                                  tool_call_id=f"c{i}")]))
    process = history_processor(keep_recent=tail)
    once = process(history)
    assert process(once) == once
    assert call_ids(once, pai) == call_ids(history, pai)
