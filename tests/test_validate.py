"""The structural validator: one named case per finding code, per format where it differs."""

from __future__ import annotations

import json
from typing import Any

import pytest

from sanitizer.document import loader
from sanitizer.validate import Finding, new_findings, validate, validate_views, views_of


def codes(obj: Any, **kw: Any) -> list[str]:
    return sorted(f.code for f in validate(obj, **kw))


def call(cid: str, name: str = "bash") -> dict[str, Any]:
    return {"id": cid, "type": "function", "function": {"name": name, "arguments": "{}"}}


CLEAN_CHAT = [
    {"role": "system", "content": "sys"},
    {"role": "user", "content": "go"},
    {"role": "assistant", "content": None, "tool_calls": [call("a"), call("b")]},
    {"role": "tool", "tool_call_id": "a", "content": "1"},
    {"role": "tool", "tool_call_id": "b", "content": "2"},
    {"role": "assistant", "content": "done"},
]


def test_clean_chat_has_no_findings() -> None:
    assert validate(CLEAN_CHAT) == []


def test_pairs_unanswered_orphan_and_duplicate_ids() -> None:
    msgs = [{"role": "user", "content": "go"},
            {"role": "assistant", "content": None, "tool_calls": [call("a"), call("a"), call("b")]},
            {"role": "tool", "tool_call_id": "a", "content": "1"},
            {"role": "tool", "tool_call_id": "x", "content": "?"}]
    found = validate(msgs)
    assert sorted((f.code, f.key) for f in found) == [
        ("duplicate-call-id", "a"), ("orphan-result", "x"), ("unanswered-call", "b")]


def test_chat_tool_message_away_from_its_batch_is_misplaced() -> None:
    msgs = [{"role": "user", "content": "go"},
            {"role": "assistant", "content": None, "tool_calls": [call("a")]},
            {"role": "user", "content": "wait"},
            {"role": "tool", "tool_call_id": "a", "content": "1"}]
    assert codes(msgs) == ["tool-message-misplaced"]


def test_result_before_its_call() -> None:
    items = [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]},
             {"type": "function_call_output", "call_id": "k", "output": "early"},
             {"type": "function_call", "name": "shell", "arguments": "{}", "call_id": "k"}]
    assert codes(items, format="responses") == ["result-before-call"]


def test_anthropic_first_message_must_be_user_and_roles_alternate() -> None:
    msgs = [{"role": "assistant", "content": [{"type": "text", "text": "hi"}]},
            {"role": "user", "content": "a"}, {"role": "user", "content": "b"}]
    found = validate(msgs, format="anthropic")
    assert sorted(f.code for f in found) == ["first-not-user", "role-alternation"]
    assert {f.code: f.severity for f in found} == {"first-not-user": "error", "role-alternation": "warning"}


def test_claude_code_same_role_runs_are_its_normal_layout() -> None:
    recs = [{"type": "user", "uuid": "1", "message": {"role": "user", "content": "go"}},
            {"type": "assistant", "uuid": "2", "message": {"id": "m", "role": "assistant", "content": [
                {"type": "tool_use", "id": "t1", "name": "Read", "input": {}}]}},
            {"type": "assistant", "uuid": "3", "message": {"id": "m", "role": "assistant", "content": [
                {"type": "tool_use", "id": "t2", "name": "Read", "input": {}}]}},
            {"type": "user", "uuid": "4", "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": "a"}]}},
            {"type": "user", "uuid": "5", "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "t2", "content": "b"}]}}]
    doc = loader.from_text("".join(json.dumps(r) + "\n" for r in recs), "s.jsonl")
    assert validate(doc) == []


def test_signed_thinking_edited_needs_the_reference() -> None:
    inp = [{"role": "user", "content": "go"},
           {"role": "assistant", "content": [{"type": "thinking", "thinking": "plan", "signature": "S1"},
                                             {"type": "text", "text": "ok"}]}]
    out = json.loads(json.dumps(inp))
    out[1]["content"][0]["thinking"] = "plan (edited)"
    assert codes(out, format="anthropic") == []
    assert codes(out, reference=inp, format="anthropic") == ["signed-thinking-edited"]
    out[1]["content"][0] = {"type": "text", "text": "[thinking omitted]"}  # replaced whole: fine
    assert codes(out, reference=inp, format="anthropic") == []


def test_empty_text_block_and_empty_content_list() -> None:
    msgs = [{"role": "user", "content": [{"type": "text", "text": ""}]},
            {"role": "assistant", "content": []},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": [{"type": "text", "text": ""}]}]}]
    found = validate(msgs, format="anthropic")
    assert sorted(f.code for f in found if f.code.startswith("empty")) == ["empty-content", "empty-text-block", "empty-text-block"]


def test_chat_tool_result_with_null_content() -> None:
    msgs = [{"role": "user", "content": "go"},
            {"role": "assistant", "content": None, "tool_calls": [call("a")]},
            {"role": "tool", "tool_call_id": "a", "content": None}]
    assert codes(msgs) == ["tool-result-null"]


@pytest.mark.parametrize("output", [pytest.param({"output": None}, id="null"), pytest.param({}, id="missing")])
def test_responses_output_without_content(output: dict[str, Any]) -> None:
    items = [{"type": "function_call", "name": "shell", "arguments": "{}", "call_id": "k"},
             {"type": "function_call_output", "call_id": "k", **output}]
    assert codes(items, format="responses") == ["tool-result-null"]


def test_anthropic_tool_result_may_omit_content_but_not_be_null() -> None:
    base = [{"role": "user", "content": "go"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "X", "input": {}}]}]
    omitted = base + [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t"}]}]
    null = base + [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": None}]}]
    assert codes(omitted, format="anthropic") == []
    assert codes(null, format="anthropic") == ["tool-result-null"]


def test_finding_prints_file_line_code_message() -> None:
    doc = loader.from_text('{"role":"user","content":"go"}\n{"role":"tool","tool_call_id":"q","content":"x"}\n',
                           "chat.jsonl")
    (finding,) = validate_views(views_of(doc))
    assert str(finding) == "chat.jsonl:2: orphan-result: tool result for q has no call"
    assert Finding("f", None, 3, "c", "m").__str__() == "f:record 3: c: m"


def test_new_findings_ignores_moved_records() -> None:
    a = Finding("f", 10, 9, "unanswered-call", "m", "k1")
    b = Finding("f", 3, 2, "unanswered-call", "m", "k1")
    c = Finding("f", 4, 3, "orphan-result", "m", "z")
    assert new_findings([a], [b]) == []
    assert new_findings([a], [b, c]) == [c]


def test_validate_never_changes_its_input() -> None:
    msgs = json.loads(json.dumps(CLEAN_CHAT))
    validate(msgs)
    assert msgs == CLEAN_CHAT
