"""trim-call-args over generated todo/plan histories and shell calls: the copy stays valid JSON,
the latest state stays whole, nothing grows, and a second run changes nothing."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from strategies import property_settings

from sanitizer import Sanitizer
from sanitizer.digest.plans import patch_outline, plan_diff

STEPS = ("Read the code", "Fix the parser", "Add tests", "Update docs", "Ship it")
STATUS = st.sampled_from(("pending", "in_progress", "completed"))
SAN = Sanitizer("none", config={"extends": "none", "rule": [{"use": "trim-call-args"}]}, keep_recent=0,
                count_tokens=False)


@st.composite
def call_args(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    kind = draw(st.sampled_from(("TodoWrite", "update_plan", "Bash", "shell")))
    if kind in ("TodoWrite", "update_plan"):
        steps = draw(st.lists(st.sampled_from(STEPS), min_size=1, max_size=5, unique=True))
        if kind == "TodoWrite":
            return kind, {"todos": [{"content": s, "status": draw(STATUS), "activeForm": s + "…"} for s in steps]}
        return kind, {"explanation": "next", "plan": [{"step": s, "status": draw(STATUS)} for s in steps]}
    args: dict[str, Any] = {"command": draw(st.sampled_from(("pytest -q", "ls -la 'C:\\Users\\dev'", "git status")))}
    if draw(st.booleans()):
        args["description"] = "Run it"
    if draw(st.booleans()):
        args["timeout_ms"] = 120000
    return kind, args


def conversation(calls: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    msgs: list[dict[str, Any]] = [{"role": "user", "content": "Do the work."}]
    for k, (name, args) in enumerate(calls):
        msgs.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": f"c{k}", "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}]})
        msgs.append({"role": "tool", "tool_call_id": f"c{k}", "content": "ok"})
    msgs.append({"role": "user", "content": "What is left?"})
    return msgs


def arguments(messages: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(c["function"]["name"], c["function"]["arguments"]) for m in messages for c in m.get("tool_calls") or []]


@given(st.lists(call_args(), min_size=1, max_size=8))
@property_settings(150)
def test_trim_call_args_keeps_json_valid_latest_state_whole_and_is_idempotent(calls: list) -> None:
    msgs = conversation(calls)
    result = SAN.sanitize(msgs)
    before, after = arguments(msgs), arguments(result.output)
    for (_, old), (_, new) in zip(before, after, strict=True):
        value = json.loads(new)
        assert isinstance(value, dict) and len(new) <= len(old)
        assert "command" not in json.loads(old) or value["command"] == json.loads(old)["command"]
        assert "description" not in value and "timeout_ms" not in value
    states = [k for k, (name, _) in enumerate(before) if name in ("TodoWrite", "update_plan")]
    if states:
        assert after[states[-1]] == before[states[-1]]
    assert SAN.sanitize(result.output).output == result.output


def test_plan_diff_names_each_change_once() -> None:
    before = [("Read the code", "completed"), ("Fix the parser", "in_progress"), ("Add tests", "pending")]
    after = [("Read the code", "completed"), ("Fix the parser", "completed"), ("Add tests", "in_progress"),
             ("Update docs", "pending")]
    assert plan_diff("todos", before, after) == \
        '[todos] done: "Fix the parser"; started: "Add tests"; added: "Update docs"'
    assert plan_diff("plan", after, after) == "[plan] unchanged"
    assert plan_diff("plan", before, before[:1]) == '[plan] removed: "Fix the parser", "Add tests"'


def test_patch_outline_is_idempotent_and_keeps_text_around_the_patch() -> None:
    text = "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: a.py\n@@\n-x\n+y\n+z\n*** End Patch\nEOF"
    out = patch_outline(text)
    assert out == "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: a.py\n[patch: +2 -1 lines]\n*** End Patch\nEOF"
    assert patch_outline(out) == out


def test_a_patch_quoted_inside_a_patch_line_does_not_end_the_block() -> None:
    quoted = json.dumps({"command": "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: a.py\n@@\n-x\n+y\n"
                                    "*** End Patch\nEOF"})  # one line: its newlines are escaped
    text = "*** Begin Patch\n*** Update File: src/app.py\n" + quoted + "\n+kept = 1\n*** End Patch"
    assert patch_outline(text) == "*** Begin Patch\n*** Update File: src/app.py\n[patch: +1 -0 lines]\n*** End Patch"


def test_a_patch_line_holding_a_cut_marker_keeps_it() -> None:
    text = "*** Begin Patch\n*** Update File: a.py\n{\"x\": \"ab…[trimmed 8,574 chars · c8]…yz\"}\n*** End Patch"
    assert patch_outline(text) == text


def test_a_long_quoted_patch_in_a_codex_patch_call_stays_put_on_a_second_run() -> None:
    """Found by the generated cuts test: the first run ended the block at the quoted END, trim-text then
    cut that END away, and the second run outlined up to the real one."""
    filler = "".join(f'  File "/lib/mod_{k}.py", line {k}\n' for k in range(300))
    body = json.dumps({"command": "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: src/a.py\n@@\n-x = 1\n"
                                  "+x = 2\n*** End Patch\nEOF", "content": filler})
    patch = "*** Begin Patch\n*** Update File: src/app.py\n" + body + "\n*** End Patch"
    lines = [
        {"timestamp": "2025-01-01T00:00:00.000Z", "type": "session_meta",
         "payload": {"id": "0199aaaa-bbbb-7ccc-8ddd-eeeeffff0000", "cwd": "/home/dev/p", "originator": "codex_cli_rs"}},
        {"timestamp": "2025-01-01T00:00:01.000Z", "type": "response_item",
         "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "fix it"}]}},
        {"timestamp": "2025-01-01T00:00:02.000Z", "type": "response_item",
         "payload": {"type": "custom_tool_call", "id": "ctc_1", "call_id": "call_1", "name": "apply_patch",
                     "input": patch}},
        {"timestamp": "2025-01-01T00:00:03.000Z", "type": "response_item",
         "payload": {"type": "custom_tool_call_output", "call_id": "call_1", "output": "Success."}},
        *({"timestamp": f"2025-01-01T00:00:{k:02d}.000Z", "type": "response_item",
           "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": f"step {k}"}]}}
          for k in range(4, 20)),
    ]
    text = "".join(json.dumps(line) + "\n" for line in lines)
    san = Sanitizer("default", cut_ids=True, count_tokens=False)
    first = san.sanitize_text(text, "rollout.jsonl")
    assert "+x = 2" not in first.dumps()
    assert san.sanitize_text(first.dumps(), "rollout.jsonl").dumps() == first.dumps()


_KEYS = ("command", "description", "timeout_ms", "timeout", "justification", "path", "a/b", 'say "hi"', "é")
_VALUES = ("pytest -q", "*** Begin Patch\n*** Update File: a.py\n@@\n-x\n+y\n*** End Patch", "C:\\dev", "line\nnext",
           "ok", 3, None, ["x"])


@st.composite
def raw_arguments(draw: st.DrawFn) -> str:
    """Arguments as agents write them: any keys, compact or spaced, escaped or not, or not JSON at all."""
    value = draw(st.dictionaries(st.sampled_from(_KEYS), st.sampled_from(_VALUES), max_size=5))
    text = json.dumps(value, ensure_ascii=draw(st.booleans()),
                      separators=(",", ":") if draw(st.booleans()) else None)
    escaped = text.replace('"description"', '"descr\\u0069ption"').replace('"timeout"', '"time\\u006fut"')
    return draw(st.sampled_from((text, text[:-1], "*** Begin Patch\n*** Add File: b\n+z\n*** End Patch", escaped)))


@given(st.lists(st.tuples(st.sampled_from(("Bash", "shell", "TodoWrite", "Read", "apply_patch")), raw_arguments()),
                min_size=1, max_size=6))
@property_settings(300)
def test_calls_skipped_unparsed_are_those_parsing_would_leave_alone(calls: list[tuple[str, str]]) -> None:
    """The check that skips a call without parsing it skips only calls whose arguments the parse
    would leave as they are."""
    import pytest

    from sanitizer.actions import calls as module

    def run() -> list[tuple[str, str]]:
        msgs: list[dict[str, Any]] = [{"role": "user", "content": "Do the work."}]
        for k, (name, args) in enumerate(calls):
            msgs.append({"role": "assistant", "content": None, "tool_calls": [
                {"id": f"c{k}", "type": "function", "function": {"name": name, "arguments": args}}]})
            msgs.append({"role": "tool", "tool_call_id": f"c{k}", "content": "ok"})
        msgs.append({"role": "user", "content": "What is left?"})
        return arguments(SAN.sanitize(msgs).output)

    quick = run()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(module, "_untouched", lambda text, drop, plan: False)
        assert run() == quick
