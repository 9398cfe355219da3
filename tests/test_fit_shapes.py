"""Budget mode (`fit`) per format: turn-drop markers, pair repair, and properties over generated turns."""

from __future__ import annotations

import copy
import json
from typing import Any

from conftest import chat_session
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sanitizer.document import loader
from sanitizer.pipeline import Sanitizer, fit, repair_result
from sanitizer.validate import new_findings, validate


def test_anthropic_marker_keeps_alternation() -> None:
    msgs: list[dict[str, Any]] = [{"role": "user", "content": "Fix it."}]
    for i in range(20):
        msgs.append({"role": "assistant", "content": [
            {"type": "thinking", "thinking": f"plan {i}", "signature": f"sig{i}"},
            {"type": "tool_use", "id": f"t{i}a", "name": "Bash", "input": {"command": f"ls {i}"}},
            {"type": "tool_use", "id": f"t{i}b", "name": "Read", "input": {"path": f"f{i}"}}]})
        msgs.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"t{i}a", "content": "x " * 300},
            {"type": "tool_result", "tool_use_id": f"t{i}b", "content": "y " * 300}]})
    msgs += [{"role": "assistant", "content": [{"type": "text", "text": "Done."}]},
             {"role": "user", "content": "Thanks, anything else?"},
             {"role": "assistant", "content": [{"type": "text", "text": "No."}]}]
    result = fit(msgs, 2000, "none", format="anthropic")
    out = result.output
    roles = [m["role"] for m in out]
    assert roles[0] == "user" and all(x != y for x, y in zip(roles, roles[1:], strict=False))
    assert out[0]["content"][0] == {"type": "text", "text": "Fix it."}  # the first ask, verbatim
    assert "earlier messages dropped" in out[0]["content"][-1]["text"]
    assert result.report.extra["budget"]["met"]
    assert not new_findings(validate(msgs), validate(result, reference=msgs))


def claude_code_lines(n: int = 25) -> str:
    recs: list[dict[str, Any]] = []
    parent = None

    def add(rec: dict[str, Any]) -> None:
        nonlocal parent
        rec.update({"parentUuid": parent, "uuid": f"u{len(recs)}", "sessionId": "s1", "timestamp": f"t{len(recs)}"})
        parent = rec["uuid"]
        recs.append(rec)

    add({"type": "user", "message": {"role": "user", "content": "Refactor the parser."}})
    for i in range(n):
        add({"type": "assistant", "message": {"id": f"msg{i}", "role": "assistant", "content": [
            {"type": "tool_use", "id": f"tu{i}", "name": "Read", "input": {"file_path": f"/src/p{i}.py"}}]}})
        recs.append({"type": "progress", "data": {"i": i}, "toolUseID": f"tu{i}"})
        add({"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"tu{i}", "content": "line\n" * 400}]},
            "toolUseResult": {"stdout": "line\n" * 400}})
    add({"type": "user", "message": {"role": "user", "content": "Now run the tests."}})
    add({"type": "assistant", "message": {"id": "last", "role": "assistant", "content": [{"type": "text", "text": "Passing."}]}})
    return "".join(json.dumps(r) + "\n" for r in recs)


def test_claude_code_marker_record_and_parent_chain() -> None:
    text = claude_code_lines()
    san = Sanitizer("none")
    result = san.run(loader.from_text(text, "s.jsonl"), budget=3000)
    recs = [json.loads(line) for line in result.dumps().splitlines()]
    marker = next(r for r in recs if r.get("isCompactSummary"))
    assert marker["type"] == "user" and "earlier messages dropped" in marker["message"]["content"]
    assert marker["sessionId"] == "s1" and marker["parentUuid"] == "u0"
    uuids = {r.get("uuid") for r in recs}
    assert all(r.get("parentUuid") in uuids or r.get("parentUuid") is None for r in recs if "uuid" in r)
    drop = result.report.extra["budget"]["conversations"][0]["dropped"][0]
    assert drop["passthrough_records"] > 0  # the progress records of the dropped turns went with them
    assert result.report.extra["budget"]["met"]
    assert not validate(result)


def test_dataset_conversations_are_fitted_independently() -> None:
    small = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    episodes = [{"task_id": 1, "traj": chat_session(20)}, {"task_id": 2, "traj": small}]
    text = "".join(json.dumps(e) + "\n" for e in episodes)
    result = Sanitizer("none").run(loader.from_text(text, "d.jsonl"), budget=2000)
    convs = result.report.extra["budget"]["conversations"]
    assert result.adapter.name == "dataset"
    assert convs[0]["tokens_after"] <= 2000 and convs[0]["stage"] == 3
    assert convs[1]["stage"] == 0 and json.loads(result.dumps().splitlines()[1]) == episodes[1]


def test_codex_envelope_marker_is_a_response_item() -> None:
    lines = [{"timestamp": "t0", "type": "session_meta", "payload": {"id": "x"}},
             {"timestamp": "t1", "type": "response_item", "payload": {"type": "message", "role": "user",
                                                                     "content": [{"type": "input_text", "text": "Go."}]}}]
    for i in range(15):
        lines.append({"timestamp": f"c{i}", "type": "response_item", "payload": {
            "type": "function_call", "name": "shell", "arguments": json.dumps({"cmd": ["ls", str(i)]}), "call_id": f"k{i}"}})
        lines.append({"timestamp": f"o{i}", "type": "response_item", "payload": {
            "type": "function_call_output", "call_id": f"k{i}", "output": "file " * 300}})
        lines.append({"timestamp": f"e{i}", "type": "event_msg", "payload": {"type": "exec_done", "call_id": f"k{i}"}})
    lines.append({"timestamp": "z", "type": "response_item", "payload": {"type": "message", "role": "assistant",
                                                                     "content": [{"type": "output_text", "text": "ok"}]}})
    text = "".join(json.dumps(r) + "\n" for r in lines)
    result = Sanitizer("none").run(loader.from_text(text, "rollout.jsonl"), budget=1500)
    recs = [json.loads(line) for line in result.dumps().splitlines()]
    marker = next(r for r in recs if "earlier messages dropped" in json.dumps(r))
    assert marker["type"] == "response_item" and marker["payload"]["type"] == "message"
    assert marker["payload"]["content"][0]["type"] == "input_text"
    assert result.report.extra["budget"]["met"] and not validate(result)


ORPHANS_CHAT = [
    {"role": "user", "content": "Run both."},
    {"role": "assistant", "content": None, "tool_calls": [
        {"id": "a", "type": "function", "function": {"name": "bash", "arguments": "{}"}},
        {"id": "b", "type": "function", "function": {"name": "bash", "arguments": "{}"}}]},
    {"role": "tool", "tool_call_id": "a", "name": "bash", "content": "ok"},
    {"role": "tool", "tool_call_id": "zzz", "name": "bash", "content": "lost"},
    {"role": "user", "content": "And?"},
]


def test_repair_stub_inserts_a_result_right_after_the_batch() -> None:
    result = fit(ORPHANS_CHAT, 10_000, "none", repair="stub", format="openai_chat")
    out = result.output
    assert out[3] == {"role": "tool", "tool_call_id": "b", "content": "[no result recorded]", "name": "bash"}
    assert all(m.get("tool_call_id") != "zzz" for m in out)
    assert not validate(result)


def test_repair_strip_removes_unanswered_calls_and_orphan_results() -> None:
    result = fit(ORPHANS_CHAT, 10_000, "none", repair="strip", format="openai_chat")
    out = result.output
    assert [c["id"] for c in out[1]["tool_calls"]] == ["a"] and len(out) == 4
    assert not validate(result)


def test_repair_result_on_an_anthropic_run() -> None:
    msgs = [{"role": "user", "content": "go"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}]},
            {"role": "user", "content": "interrupted"}]
    result = repair_result(Sanitizer("none").sanitize(msgs), "stub")
    assert result.output[2]["content"][0] == {"type": "tool_result", "tool_use_id": "t1",
                                              "content": "[no result recorded]", "is_error": True}
    assert result.output[2]["content"][1] == {"type": "text", "text": "interrupted"}
    assert not validate(result) and result.report.extra["repair"]["mode"] == "stub"


WORDS = st.text(alphabet="abcdefghij klmnop\n", min_size=0, max_size=400)


@st.composite
def turns(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Neutral turns: assistant text/thinking/parallel calls, results (some missing, reordered),
    orphan results, interleaved user asks."""
    out = []
    for i in range(draw(st.integers(1, 9))):
        ncalls = draw(st.integers(0, 3))
        calls = [{"id": f"c{i}_{k}", "tool": draw(st.sampled_from(["Bash", "Read"])), "args": draw(WORDS)}
                 for k in range(ncalls)]
        answered = [c for c in calls if not draw(st.booleans()) or not draw(st.booleans())]  # ~25% interrupted
        results = [{"id": c["id"], "text": draw(WORDS)} for c in draw(st.permutations(answered))]
        if draw(st.integers(0, 5)) == 0:
            results.append({"id": f"orphan{i}", "text": draw(WORDS)})
        out.append({"text": draw(WORDS), "thinking": draw(st.one_of(st.none(), WORDS)), "calls": calls,
                    "results": results, "user": draw(st.one_of(st.none(), WORDS.filter(str.strip)))})
    return out


def to_chat(ts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    msgs: list[dict[str, Any]] = [{"role": "system", "content": "sys"}, {"role": "user", "content": "Start."}]
    for t in ts:
        m: dict[str, Any] = {"role": "assistant", "content": t["text"] or None}
        if t["thinking"]:
            m["reasoning_content"] = t["thinking"]
        if t["calls"]:
            m["tool_calls"] = [{"id": c["id"], "type": "function", "function": {"name": c["tool"], "arguments": json.dumps(c["args"])}}
                               for c in t["calls"]]
        if m["content"] is None and "tool_calls" not in m:
            m["content"] = "…"
        msgs.append(m)
        msgs += [{"role": "tool", "tool_call_id": r["id"], "content": r["text"]} for r in t["results"]]
        if t["user"]:
            msgs.append({"role": "user", "content": t["user"]})
    msgs.append({"role": "user", "content": "Last ask."})
    return msgs


def to_anthropic(ts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    msgs: list[dict[str, Any]] = [{"role": "user", "content": "Start."}]
    for n, t in enumerate(ts):
        blocks: list[dict[str, Any]] = []
        if t["thinking"]:
            blocks.append({"type": "thinking", "thinking": t["thinking"], "signature": f"sig{n}"})
        if t["text"]:
            blocks.append({"type": "text", "text": t["text"]})
        blocks += [{"type": "tool_use", "id": c["id"], "name": c["tool"], "input": {"a": c["args"]}} for c in t["calls"]]
        msgs.append({"role": "assistant", "content": blocks or [{"type": "text", "text": "…"}]})
        user = [{"type": "tool_result", "tool_use_id": r["id"], "content": r["text"]} for r in t["results"]]
        if t["user"] or not user:
            user.append({"type": "text", "text": t["user"] or "go on"})
        msgs.append({"role": "user", "content": user})
    msgs[-1]["content"].append({"type": "text", "text": "Last ask."})
    return msgs


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ts=turns(), shape=st.sampled_from(["chat", "anthropic"]), budget=st.integers(20, 3000),
       preset=st.sampled_from(["default", "none"]), repair=st.sampled_from(["report", "strip", "stub"]))
def test_fit_never_adds_a_validator_finding(ts, shape, budget, preset, repair) -> None:
    inp = to_chat(ts) if shape == "chat" else to_anthropic(ts)
    fmt = "openai_chat" if shape == "chat" else "anthropic"
    keep = copy.deepcopy(inp)
    result = fit(inp, budget, preset, repair=repair, format=fmt)
    assert inp == keep
    after = validate(result, reference=inp, format=fmt)
    assert not new_findings(validate(inp, format=fmt), after), [str(f) for f in after]
    if repair != "report":
        assert not [f for f in after if f.code in ("unanswered-call", "orphan-result")]
    out = result.output
    assert out  # never emptied
    if shape == "chat":
        assert out[0] == inp[0] and out[1] == inp[1]  # system and first user message verbatim
    else:  # the first ask stays verbatim; a marker may be appended to it as its own text block
        first = out[0]["content"]
        assert first == inp[0]["content"] or first[0] == {"type": "text", "text": inp[0]["content"]}
    info = result.report.extra["budget"]
    if not info["met"]:
        assert any("budget not met" in n for n in result.report.notes)


def test_dropping_a_blank_only_block_never_grows_the_copy() -> None:
    """A reasoning item whose one summary is blank lines: dropping it must not write a longer
    `[removed]` note in its place (found by the budget invariants)."""
    value = [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "emoji 🙂🚀✨ 👩‍💻"}]},
             {"type": "function_call_output", "call_id": "call_orphan_0", "output": "<thinking>tests module user fails"},
             {"type": "reasoning", "id": "rs_0", "summary": [{"type": "summary_text", "text": "\n\n\n\n"}],
              "encrypted_content": "gAAAAABmK3vm" * 10},
             {"type": "message", "role": "assistant", "id": "msg_1", "status": "completed",
              "content": [{"type": "output_text", "text": "install again parser build\n/home/dev/src/core.py",
                           "annotations": []}]}]
    result = fit(value, 2, "default")
    report = result.report
    assert report.tokens_after is not None and report.tokens_before is not None
    assert report.tokens_after <= report.tokens_before
    assert "[removed]" not in result.dumps() and "\"summary\": []" in result.dumps()
    assert fit(result.output, 2, "default").dumps() == result.dumps()
