"""Record kinds of current tool versions: mini-swe-agent 1.1, the early OpenHands resolver, OpenHands
V1 SDK events (hand-built after `openhands/sdk/event`), Codex encoded outputs (Claude Code and
Hermes: test_claude_code_shapes.py).  Corpus files are read in place; each skips when `../shared/` is absent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import pairs
from hypothesis import given
from hypothesis import strategies as st
from shape_helpers import corpus, edit

from sanitizer import Sanitizer
from sanitizer.document.loader import from_object, from_text, to_text
from sanitizer.formats import detect
from sanitizer.model import Part
from sanitizer.transcript import to_messages

# -- mini-swe-agent 1.1 ------------------------------------------------------------------------

SQLFLUFF = "mini-swe-agent-pr816__sqlfluff__sqlfluff-2419.traj.json"
PVLIB = "mini-swe-agent-pr816-reasoner__pvlib__pvlib-python-1072.traj.json"


@pytest.mark.parametrize(("name", "calls", "answered"), [(SQLFLUFF, 48, 47), (PVLIB, 15, 15)])
def test_mini_swe_agent_11_exit_message_and_unanswered_submit(name: str, calls: int, answered: int) -> None:
    _, doc, [view] = corpus("mini_swe_agent", name)
    assert view.adapter.name == "mini_swe_agent"
    assert pairs(view) == (calls, answered, answered)
    last = view.messages[-1]
    assert last.role == "assistant" and last.meta["exit"]
    [exit_part] = list(view.parts_of(last))
    assert exit_part.text == doc.records[0]["messages"][-1]["content"]
    if calls != answered:  # the submit command is the one call without a result
        results = {p.call_id for p in view.parts if p.kind == "tool_result"}
        open_calls = [p for p in view.parts if p.kind == "tool_call" and p.call_id not in results]
        assert [p.text for p in open_calls] == [view.parts[-2].text]
        assert "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT" in open_calls[0].text
        # extra.submission repeats the diff: a copy of the exit text
        assert (0, ("messages", len(doc.records[0]["messages"]) - 1, "extra", "submission")) in exit_part.copies


def test_mini_swe_agent_11_extra_copies_are_linked_and_never_rendered() -> None:
    _, doc, [view] = corpus("mini_swe_agent", PVLIB)
    messages = doc.records[0]["messages"]
    thinking = next(p for p in view.parts if p.kind == "thinking")
    call = next(p for p in view.parts if p.kind == "tool_call")
    result = next(p for p in view.parts if p.kind == "tool_result")
    m = thinking.path[1]
    assert {path[-1] for _, path in thinking.copies} == {"reasoning_content"}  # in extra.response twice
    assert all(path[:3] == ("messages", m, "extra") for _, path in thinking.copies)
    assert [path[-1] for _, path in call.copies] == ["arguments"]
    assert result.copies == [(0, ("messages", result.path[1], "extra", "raw_output"))]
    assert messages[result.path[1]]["extra"]["raw_output"] in result.text
    rendered = "\n".join(str(m.get("content")) for m in to_messages(view))
    longest = max((p for p in view.parts if p.kind == "tool_result"), key=lambda p: len(p.text))
    raw = messages[longest.path[1]]["extra"]["raw_output"]
    assert len(raw) > 1000 and rendered.count(raw) == 1  # the copy in `extra` is not rendered again


def test_mini_swe_agent_11_default_pack_trims_raw_output_with_its_result() -> None:
    output = "".join(f"line {i}: collected item {i} of the suite\n" for i in range(600))
    run = {"trajectory_format": "mini-swe-agent-1.1", "info": {"exit_status": "Submitted"}, "messages": [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": "Fix the bug."},
        {"role": "assistant", "content": "", "tool_calls": [
            {"index": 0, "id": "c1", "type": "function", "function": {"name": "bash", "arguments": "{\"command\": \"pytest\"}"}}],
         "extra": {"actions": [{"command": "pytest", "tool_call_id": "c1"}]}},
        {"role": "tool", "tool_call_id": "c1", "content": f"<returncode>1</returncode>\n<output>\n{output}</output>",
         "extra": {"raw_output": output, "returncode": 1}},
        *({"role": "user", "content": f"Next step {i}."} for i in range(12)),
        {"role": "exit", "content": "", "extra": {"exit_status": "Submitted", "submission": ""}},
    ]}
    doc = from_object(run)
    assert detect(doc).name == "mini_swe_agent"
    result = Sanitizer("default").sanitize(run)
    tool = result.output["messages"][3]
    assert len(tool["content"]) < len(run["messages"][3]["content"])
    assert len(tool["extra"]["raw_output"]) < len(output)
    assert run["messages"][3]["extra"]["raw_output"] == output  # the caller's object is untouched


# -- OpenHands: early resolver output, V1 SDK shapes -------------------------------------------

def test_openhands_resolver_pairs_are_read_in_order_and_instruction_linked() -> None:
    _, doc, views = corpus("openhands_events", "openhands-resolver__mock_output_output.jsonl")
    assert [v.meta["record"] for v in views] == [0, 1]
    view = views[0]
    first = view.messages[0]
    assert first.role == "user"
    [task] = list(view.parts_of(first))
    assert task.text == doc.records[0]["instruction"]
    assert (0, ("instruction",)) in task.copies
    assert pairs(view) == (29, 29, 29)  # run ×2 + run_ipython ×27; message and finish have no result
    assert view.parts[-1].path[:3] == ("history", 30, 0)  # the finish action's text


def v1_eval_record() -> dict:
    """An evaluation output line whose V1 history has no user MessageEvent (fields after the SDK's
    ActionEvent / ObservationEvent / MessageToolCall / TextContent / ImageContent models)."""
    return {
        "instance_id": "demo__demo-1", "instruction": "Fix the failing test in tests/test_a.py.",
        "history": [
            {"kind": "SystemPromptEvent", "id": "s", "timestamp": "t", "source": "agent",
             "system_prompt": {"type": "text", "text": "You are OpenHands.", "cache_prompt": False}, "tools": [],
             "dynamic_context": {"type": "text", "text": "Repository: /workspace/demo", "cache_prompt": False}},
            {"kind": "ActionEvent", "id": "a1", "timestamp": "t", "source": "agent",
             "thought": [{"type": "text", "text": "Run the tests.", "cache_prompt": False}],
             "thinking_blocks": [{"type": "thinking", "thinking": "Tests first.", "signature": "[REDACTED_SIGNATURE]"}],
             "action": {"kind": "TerminalAction", "command": "pytest -q"}, "tool_name": "terminal",
             "tool_call_id": "c1", "llm_response_id": "r1", "security_risk": "LOW",
             "tool_call": {"id": "c1", "name": "terminal", "arguments": "{\"command\": \"pytest -q\"}",
                           "origin": "completion"}},
            {"kind": "HookExecutionEvent", "id": "h", "timestamp": "t", "source": "hook",
             "hook_event_type": "PostToolUse", "hook_command": "true", "success": True, "exit_code": 0},
            {"kind": "ObservationEvent", "id": "o1", "timestamp": "t", "source": "environment",
             "tool_name": "terminal", "tool_call_id": "c1", "action_id": "a1",
             "observation": {"kind": "TerminalObservation", "is_error": False,
                             "content": [{"type": "text", "text": "1 failed", "cache_prompt": False},
                                         {"type": "image", "image_urls": ["data:image/png;base64,iVBORw0KGgo="],
                                          "cache_prompt": False}]}},
            {"kind": "FutureEvent", "id": "f", "timestamp": "t", "source": "environment", "value": 1},
            {"kind": "ConversationErrorEvent", "id": "x", "timestamp": "t", "source": "environment",
             "code": "LLMError", "detail": "rate limited"},
        ],
        "test_result": {"git_patch": ""},
    }


def test_openhands_v1_eval_output_takes_its_task_from_instruction() -> None:
    record = v1_eval_record()
    doc = from_text(json.dumps(record) + "\n" + json.dumps(record) + "\n", "output.jsonl")
    adapter = detect(doc)
    assert adapter.name == "openhands"
    views = list(adapter.views(doc))
    assert len(views) == 2
    view = views[0]
    assert [m.role for m in view.messages] == ["system", "user", "assistant", "tool", "user"]
    assert view.messages[1].meta["instruction"] and view.parts[2].path == ("instruction",)
    assert pairs(view) == (1, 1, 1)
    kinds = [p.kind for p in view.parts]
    assert kinds == ["text", "text", "text", "text", "thinking", "tool_call", "tool_result", "image", "text"]
    thinking = next(p for p in view.parts if p.kind == "thinking")
    assert not thinking.signed  # a placeholder signature signs nothing
    assert view.meta["unknown_kinds"] == {"FutureEvent": 1}  # HookExecutionEvent is known, not a message
    report = Sanitizer("none", count_tokens=False).run(doc).report
    assert "record kinds this reader does not know, passed through unchanged: FutureEvent ×2" in report.notes
    messages = to_messages(view)
    assert messages[1] == {"role": "user", "content": record["instruction"]}
    assert to_text(doc) == json.dumps(record) + "\n" + json.dumps(record) + "\n"  # read, not changed


SDK_OUTPUT = Path(__file__).with_name("data") / "openhands_v1_eval_output.jsonl"


def test_openhands_v1_events_written_by_the_sdk_itself() -> None:
    """tests/data/make_openhands_v1.py wrote this line with openhands-sdk 1.58's own classes."""
    text = SDK_OUTPUT.read_text(encoding="utf-8")
    doc = from_text(text, str(SDK_OUTPUT))
    adapter = detect(doc)
    assert adapter.name == "openhands"
    [view] = adapter.views(doc)
    assert [m.role for m in view.messages] == [
        "system", "user", "assistant", "tool", "assistant", "tool", "assistant", "assistant"]
    assert view.parts[2].text == doc.records[0]["instruction"]
    assert pairs(view) == (3, 2, 2)  # think and an unknown tool answered; finish never is
    thinking = next(p for p in view.parts if p.kind == "thinking")
    assert thinking.signed and thinking.text == "Pages are 1-based."
    assert "unknown_kinds" not in view.meta  # ConversationStateUpdateEvent and PauseEvent are known
    rendered = to_messages(view)
    assert rendered[1] == {"role": "user", "content": doc.records[0]["instruction"]}
    assert to_text(doc) == text
    result = Sanitizer("default", count_tokens=False).sanitize_text(text, str(SDK_OUTPUT))
    assert json.loads(result.dumps())["history"][0] == doc.records[0]["history"][0]


def test_openhands_v1_bare_list_message_event_blocks() -> None:
    events = [
        {"kind": "MessageEvent", "id": "m", "timestamp": "t", "source": "user",
         "llm_message": {"role": "user", "content": [{"type": "text", "text": "Describe the image."},
                                                     {"type": "image", "image_urls": ["https://x/y.png"]}]},
         "extended_content": [{"type": "text", "text": "<skill>use care</skill>"}]},
        {"kind": "MessageEvent", "id": "n", "timestamp": "t", "source": "agent",
         "llm_message": {"role": "assistant", "content": [{"type": "text", "text": "A cat."}],
                         "reasoning_content": "It is a cat."}},
    ]
    doc = from_object(events)
    assert detect(doc).name == "openhands"
    [view] = detect(doc).views(doc)
    assert [(p.role, p.kind) for p in view.parts] == [
        ("user", "text"), ("user", "image"), ("user", "text"), ("assistant", "text"), ("assistant", "thinking")]
    edit(view.parts[0], "X")
    view.adapter.write(view)
    assert doc.records[0]["llm_message"]["content"][0] == {"type": "text", "text": "X"}
    assert doc.records[1] == events[1]


# -- Codex -------------------------------------------------------------------------------------

def codex_lines() -> list[dict]:
    out = json.dumps({"output": "Success. Updated the following files:\nM a.py\n",
                      "metadata": {"exit_code": 0, "duration_seconds": 0.1}}, separators=(",", ":"))
    failed = json.dumps({"output": "Error: déjà vu", "metadata": {"exit_code": 2}}, separators=(",", ":"),
                        ensure_ascii=True)
    items = [
        {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "Be careful."}]},
        {"type": "message", "role": "user",
         "content": [{"type": "input_text", "text": "<environment_context>\n<cwd>/w</cwd>\n</environment_context>"}]},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Fix a.py"}]},
        {"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": "<turn_aborted>\nThe user interrupted the turn.\n</turn_aborted>"}]},
        {"type": "ghost_snapshot", "ghost_commit": {"id": "abc", "parent": "def"}},
        {"type": "function_call", "name": "shell", "call_id": "c1",
         "arguments": json.dumps({"command": ["bash", "-lc", "cat a.py"], "workdir": "/w"})},
        {"type": "function_call_output", "call_id": "c1", "output": failed},
        {"type": "custom_tool_call", "name": "apply_patch", "call_id": "c2", "status": "completed",
         "input": "*** Begin Patch\n*** Update File: a.py\n*** End Patch"},
        {"type": "custom_tool_call_output", "call_id": "c2", "output": out},
    ]
    return [{"timestamp": "t", "type": "session_meta", "payload": {"id": "s", "instructions": None}},
            *({"timestamp": "t", "type": "response_item", "payload": it} for it in items)]


def test_codex_current_rollout_items() -> None:
    lines = codex_lines()
    text = "".join(json.dumps(r) + "\n" for r in lines)
    doc = from_text(text, "rollout.jsonl")
    adapter = detect(doc)
    assert adapter.name == "codex"
    [view] = adapter.views(doc)
    assert [m.role for m in view.messages] == [
        "system", "user", "user", "user", "assistant", "tool", "assistant", "tool"]
    assert [bool(m.meta.get("injected")) for m in view.messages[1:4]] == [True, False, True]
    assert pairs(view) == (2, 2, 2)
    shell, failed, patch, ok = (p for p in view.parts if p.kind in ("tool_call", "tool_result"))
    assert json.loads(shell.text)["command"] == ["bash", "-lc", "cat a.py"]
    assert patch.text.startswith("*** Begin Patch") and patch.path == ("payload", "input")
    assert failed.text == "Error: déjà vu" and failed.meta["is_error"] is True
    assert ok.text.startswith("Success.") and ok.meta["is_error"] is False
    assert to_text(doc) == text  # nothing changed: byte-for-byte
    # Rules see the decoded text; a rendering keeps the wrapper, so a reader still sees the exit code.
    tool_messages = [m for m in to_messages(view) if m["role"] == "tool"]
    assert [m["content"] for m in tool_messages] == [lines[7]["payload"]["output"], lines[9]["payload"]["output"]]
    edit(ok, "Success.")
    edit(failed, "Error: déjà")
    adapter.write(view)
    assert doc.records[9]["payload"]["output"] == (
        '{"output":"Success.","metadata":{"exit_code":0,"duration_seconds":0.1}}')
    assert doc.records[7]["payload"]["output"] == '{"output":"Error: d\\u00e9j\\u00e0","metadata":{"exit_code":2}}'
    assert doc.records[5] == lines[5]  # ghost_snapshot passes through


def test_codex_rtchess_outputs_decode_and_stay_json_after_the_default_pack() -> None:
    raw, _, [view] = corpus("codex_rollout", "rtchess__exported-session.jsonl")
    encoded = [p for p in view.parts if p.meta.get("encoded_output")]
    assert len(encoded) == 165
    assert all(not p.text.startswith('{"output"') for p in encoded)
    result = Sanitizer("default").sanitize_text(raw, "rtchess.jsonl")
    for line in result.dumps().splitlines():
        payload = json.loads(line).get("payload", {})
        if payload.get("type") == "custom_tool_call_output" and payload["output"].startswith("{"):
            assert isinstance(json.loads(payload["output"])["output"], str)


def test_codex_unparseable_arguments_and_encoded_outputs_survive_the_default_pack() -> None:
    lines = [{"timestamp": "t", "type": "session_meta", "payload": {"id": "s", "instructions": None}},
             {"timestamp": "t", "type": "response_item",
              "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Fix it"}]}}]
    for i in range(15):
        lines.append({"timestamp": "t", "type": "response_item", "payload": {
            "type": "function_call", "name": "shell", "call_id": f"c{i}",
            "arguments": '{"command": ["bash", "-lc", "cat [REDACTED]'}})  # a publisher cut it: not JSON
        output = json.dumps({"output": f"run {i}\n" + "line\n" * 3000, "metadata": {"exit_code": 1}},
                            separators=(",", ":"))
        lines.append({"timestamp": "t", "type": "response_item",
                      "payload": {"type": "function_call_output", "call_id": f"c{i}", "output": output}})
    text = "".join(json.dumps(r) + "\n" for r in lines)
    result = Sanitizer("default").sanitize_text(text, "rollout.jsonl")
    assert result.adapter.name == "codex"
    out = [json.loads(line) for line in result.dumps().splitlines()]
    assert len(out) == len(lines)
    sizes = []
    for old, new in zip(lines, out, strict=True):
        payload = new["payload"]
        if payload.get("type") == "function_call":
            assert payload["arguments"] == old["payload"]["arguments"]
        elif payload.get("type") == "function_call_output":
            decoded = json.loads(payload["output"])  # still the encoded wrapper, still JSON
            assert decoded["metadata"] == {"exit_code": 1}
            sizes.append(len(decoded["output"]))
    assert len(sizes) == 15 and sizes[0] < 1000 < sizes[-1]  # older outputs cut, the tail kept


@given(st.text(max_size=200), st.integers(-3, 300), st.booleans())
def test_codex_encoded_output_decodes_and_re_encodes_to_the_same_bytes(text: str, code: int, ascii_only: bool) -> None:
    from sanitizer.formats.responses import Responses, encoded_output

    raw = json.dumps({"output": text, "metadata": {"exit_code": code, "duration_seconds": 0.5}},
                     ensure_ascii=ascii_only, separators=(",", ":"))
    found = encoded_output(raw)
    assert found is not None
    inner, meta = found
    assert inner == text and meta["exit_code"] == code and meta["is_error"] is (code != 0)
    part = Part("tool_result", "tool", 0, 0, ("output",), inner, meta=meta)
    assert Responses().stored(part) == raw
