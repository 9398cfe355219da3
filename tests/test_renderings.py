"""`--to text` and `--to messages` on agent trajectories: readable, valid, paired."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import check_chat_messages, corpus_params

from sanitizer import Sanitizer
from sanitizer.cli.command import main

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
