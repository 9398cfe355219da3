"""`summarize_with_fallback_messages`: the summarizer chain, its failure classes, its fallback."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from test_summary import load_fixture

from sanitizer.summary import (
    KINDS,
    SummaryFailed,
    classify_exception,
    summarize_messages,
    summarize_with_fallback_messages,
)


class APITimeoutError(Exception):
    pass


class RateLimitError(Exception):
    status_code = 429


class InternalServerError(Exception):
    def __init__(self, message: str, status_code: int):
        super().__init__(message)
        self.status_code = status_code


def times_out(messages: list[dict[str, Any]]) -> str:
    raise TimeoutError("summarizer took longer than 60 s")


def raises(messages: list[dict[str, Any]]) -> str:
    messages.clear()  # a misbehaving summarizer must not reach the caller's list
    raise ValueError("unexpected model output")


def answers_empty(messages: list[dict[str, Any]]) -> str:
    return "  \n"


def answers(messages: list[dict[str, Any]]) -> str:
    return f"## Active Task\nsummary of {len(messages)} messages\n"


def test_fallback_chain_uses_the_first_good_answer_and_records_failures() -> None:
    messages = load_fixture("bugfix_session")
    before = copy.deepcopy(messages)
    result = summarize_with_fallback_messages(messages, [times_out, raises, answers_empty, answers])
    assert (result.path, result.summarizer_index, result.summary) == ("llm", 3, None)
    assert result.text == f"## Active Task\nsummary of {len(before)} messages"
    assert [(i, kind) for i, kind, _m in result.failures] == [(0, "timeout"), (1, "exception"), (2, "empty")]
    assert "ValueError: unexpected model output" in result.failures[1][2]
    assert messages == before


def test_fallback_chain_falls_back_to_the_deterministic_summary() -> None:
    messages = load_fixture("bugfix_session")
    before = copy.deepcopy(messages)
    result = summarize_with_fallback_messages(messages, [times_out, raises, answers_empty])
    assert result.path == "fallback" and result.summarizer_index is None
    assert result.summary is not None and result.text == result.summary.text
    assert result.text.startswith("> Fallback summary (no LLM): LLM summary failed: #0 timeout; #1 exception; #2 empty")
    assert result.text.split("\n\n", 1)[1] == summarize_messages(messages).text
    assert messages == before
    assert result.to_dict()["failures"][0] == {"index": 0, "kind": "timeout",
                                               "message": "TimeoutError: summarizer took longer than 60 s"}


def test_no_summarizers_gives_the_deterministic_summary() -> None:
    result = summarize_with_fallback_messages(load_fixture("refactor_session"), [], abort_on_failure=True)
    assert result.path == "fallback" and result.failures == []


def test_abort_on_failure_raises_and_keeps_the_history() -> None:
    messages = load_fixture("bugfix_session")
    before = copy.deepcopy(messages)
    with pytest.raises(SummaryFailed, match=r"all 2 summarizers failed.*#0 timeout.*#1 empty") as info:
        summarize_with_fallback_messages(messages, [times_out, answers_empty], abort_on_failure=True)
    assert [k for _i, k, _m in info.value.failures] == ["timeout", "empty"]
    assert messages == before


@pytest.mark.parametrize(("exc", "kind"), [
    (TimeoutError("read"), "timeout"),
    (APITimeoutError("request timed out"), "timeout"),
    (RateLimitError("slow down"), "auth_quota"),
    (RuntimeError("Error code: 401 - invalid x-api-key"), "auth_quota"),
    (RuntimeError("You exceeded your current quota"), "auth_quota"),
    (PermissionError("403 Forbidden"), "auth_quota"),
    (InternalServerError("boom", 503), "server"),
    (RuntimeError("Error code: 529 - Overloaded"), "server"),
    (ConnectionError("server error while reading"), "server"),
    (ValueError("could not parse"), "exception"),
    (KeyError("choices"), "exception"),
])
def test_failures_are_classified(exc: Exception, kind: str) -> None:
    assert kind in KINDS
    assert classify_exception(exc) == kind


@pytest.mark.parametrize(("answer", "rejected"), [
    ("Error: the model is overloaded", True),
    ("I'm sorry, but I can't help with that.", True),
    ("I cannot help with summarizing this conversation.", True),
    ('{"error": {"type": "rate_limit_error"}}', True),
    ("Error handling was refactored; the retry loop now honours retry-after.", False),
    ("I'm sorry for the delay. The user fixed the bug in src/app.py and the tests pass.", False),
    ("## Active Task\nError: tests fail in CI\n## Goal\n- fix them", False),
])
def test_error_text_answers_are_rejected_conservatively(answer: str, rejected: bool) -> None:
    result = summarize_with_fallback_messages(load_fixture("research_session"), [lambda m: answer])
    assert (result.path == "fallback") is rejected
    if rejected:
        assert result.failures[0][1] == "error_text"


def test_non_string_answers_are_rejected() -> None:
    result = summarize_with_fallback_messages([], [lambda m: None, lambda m: {"summary": "x"}])
    assert [k for _i, k, _m in result.failures] == ["empty", "invalid"]
    assert result.text.startswith("> Fallback summary (no LLM)")
