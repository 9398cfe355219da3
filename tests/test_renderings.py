"""`--to text` and `--to messages` on agent trajectories: readable, valid, paired."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import check_chat_messages, corpus_params

from sanitizer import Sanitizer, read_conversations, sanitize
from sanitizer.cli.command import main
from sanitizer.model import View
from sanitizer.transcript import to_text

TRAJECTORIES = corpus_params("swe_agent_traj", "openhands_events", "mini_swe_agent")


def cli(*args: str) -> str:
    result = CliRunner().invoke(main, [*args, "--quiet"], catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    return result.stdout


@pytest.mark.parametrize("path", TRAJECTORIES)
def test_to_text_is_a_readable_transcript(path: Path) -> None:
    text = cli(str(path), "--to", "text")
    assert "[USER]: " in text and "[ASSISTANT]: " in text
    if "function_calling" in path.name or path.parent.name == "openhands_events":
        assert "[Tool calls: " in text and "[TOOL RESULT " in text
    assert "\n\n" in text


@pytest.mark.parametrize("path", TRAJECTORIES)
def test_to_messages_is_valid_chat_with_pairs_as_in_the_input(path: Path) -> None:
    out = cli(str(path), "--to", "messages")
    views = Sanitizer("none", count_tokens=False).sanitize_file(path).views
    # One conversation: a JSON list; several (an evaluation output): one JSON list per line.
    convs = [json.loads(out)] if len(views) == 1 else [json.loads(line) for line in out.splitlines()]
    assert len(convs) == len(views)
    for messages, view in zip(convs, views, strict=True):
        calls, answered = check_chat_messages(messages)
        input_answered = {p.call_id for p in view.parts if p.role == "tool" and p.call_id}
        input_calls = {p.call_id for p in view.parts if p.kind == "tool_call" and p.call_id}
        assert answered == input_answered & input_calls


def _chat_view(messages: list) -> View:
    return read_conversations(messages)[0]


def test_text_parallel_calls_of_one_tool_are_numbered_and_their_results_name_the_number() -> None:
    def call(cid: str, name: str) -> dict:
        return {"id": cid, "type": "function", "function": {"name": name, "arguments": "{}"}}

    msgs = [{"role": "user", "content": "go"},
            {"role": "assistant", "content": None, "tool_calls": [call("toolu_01AAAA", "grep"),
                                                                 call("toolu_01BBBB", "grep"), call("c3", "ls")]},
            {"role": "tool", "tool_call_id": "toolu_01AAAA", "content": "a"},
            {"role": "tool", "tool_call_id": "toolu_01BBBB", "content": "b"},
            {"role": "tool", "tool_call_id": "c3", "content": "c"}]
    text = to_text(_chat_view(msgs))
    assert "[Tool calls: #1 grep({}), #2 grep({}), #3 ls({})]" in text
    assert "[TOOL RESULT grep #1]: a" in text and "[TOOL RESULT grep #2]: b" in text
    assert "[TOOL RESULT ls]: c" in text
    assert "toolu_" not in text and "c3" not in text


def test_text_call_forms_unwrap_shell_argv_and_show_a_lone_text_argument_as_it_is() -> None:
    def call(cid: str, name: str, args: dict) -> dict:
        return {"id": cid, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}

    patch = "*** Begin Patch\n*** Update File: src/a.py\n+x = 1\n*** End Patch"
    msgs = [{"role": "user", "content": "go"},
            {"role": "assistant", "content": None, "tool_calls": [
                call("c1", "shell", {"command": ["bash", "-lc", "rg -n 'a b' src"], "workdir": "/repo"}),
                call("c2", "Bash", {"command": 'ls "C:\\Users\\dev"'}),
                call("c3", "shell", {"command": ["apply_patch", patch]}),
                call("c4", "Grep", {"pattern": "x", "path": "src"})]},
            *[{"role": "tool", "tool_call_id": f"c{k}", "content": "ok"} for k in range(1, 5)]]
    text = to_text(_chat_view(msgs))
    assert 'shell({"command": "rg -n \'a b\' src", "workdir": "/repo"})' in text
    assert 'Bash(ls "C:\\Users\\dev")' in text
    assert "shell(apply_patch " + patch + ")" in text
    assert 'Grep({"pattern": "x", "path": "src"})' in text


def test_text_blocks_of_one_result_share_one_header() -> None:
    msgs = [{"role": "user", "content": "look"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "computer",
                                               "input": {"action": "screenshot"}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": [
                {"type": "text", "text": "Captured."}, {"type": "text", "text": "Tab Context: 1 tab"}]}]}]
    text = to_text(read_conversations(msgs)[0])
    assert text.count("[TOOL RESULT computer]") == 1
    assert "[TOOL RESULT computer]: Captured.\nTab Context: 1 tab" in text


def test_text_digest_shows_only_its_outcome_and_empty_reasoning_shows_nothing() -> None:
    out = "Exit code 1\n" + "\n".join(f"step {k} ok" for k in range(40)) + "\nE   AssertionError: expected 3"
    msgs = [{"role": "user", "content": "run the tests"},
            {"role": "assistant", "content": None, "reasoning_content": "",
             "tool_calls": [{"id": "c1", "type": "function",
                             "function": {"name": "bash", "arguments": '{"command": "pytest -q"}'}}]},
            {"role": "tool", "tool_call_id": "c1", "content": out}]
    msgs += [{"role": r, "content": f"turn {k}"} for k in range(12) for r in ("user", "assistant")]
    text = sanitize(msgs).text()
    assert "[Tool calls: bash(" in text and "pytest -q" in text
    assert "[TOOL RESULT bash]: exit 1, 42 lines; first error: AssertionError: expected 3" in text
    assert "[THINKING]" not in text
