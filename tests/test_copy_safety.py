"""The library call never mutates its input and the result shares no mutable object with it.

For every format and for presets `none` and `default`: the input equals a deep snapshot taken
before the call; no dict or list of the result `is` a dict or list of the input; mutating every
container of the result leaves the input equal to the snapshot.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given
from strategies import FORMATS, JSONL_FORMATS, Case, conversations, property_settings

from sanitizer import Sanitizer

PRESETS = ("none", "default")

_SANITIZERS: dict[tuple[str, str | None], Sanitizer] = {}


def sanitizer_for(preset: str, fmt: str) -> Sanitizer:
    """A shared sanitizer; JSONL formats given as in-memory records name their format."""
    fmt_opt = fmt if fmt in JSONL_FORMATS else None
    key = (preset, fmt_opt)
    if key not in _SANITIZERS:
        _SANITIZERS[key] = Sanitizer(preset, format=fmt_opt)
    return _SANITIZERS[key]


def containers(node: Any) -> list[Any]:
    """Every dict and list inside `node` (itself included), iteratively."""
    out: list[Any] = []
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, dict):
            out.append(n)
            stack.extend(n.values())
        elif isinstance(n, list):
            out.append(n)
            stack.extend(n)
    return out


def mutate_everything(node: Any) -> int:
    """Change every container of `node` in place (strings replaced, keys and items added)."""
    found = containers(node)
    for c in found:
        if isinstance(c, dict):
            for k, v in list(c.items()):
                if isinstance(v, str | int | float | bool) or v is None:
                    c[k] = "MUTATED"
            c["__mutated__"] = True
        else:
            for i, v in enumerate(c):
                if not isinstance(v, dict | list):
                    c[i] = "MUTATED"
            c.append("MUTATED")
    return len(found)


def assert_copy_safe(san: Sanitizer, value: Any) -> None:
    snapshot = copy.deepcopy(value)
    input_ids = {id(c) for c in containers(value)}
    result = san.sanitize(value)
    assert value == snapshot, "sanitize() mutated its input"
    output = result.output
    shared = [c for c in containers(output) if id(c) in input_ids]
    assert not shared, f"the result shares {len(shared)} containers with the input, e.g. {str(shared[0])[:200]}"
    for conv in result.conversations():
        assert not [c for c in containers(conv) if id(c) in input_ids]
    expected = copy.deepcopy(output)
    assert mutate_everything(output) > 0
    assert value == snapshot, "mutating the result changed the input"
    # A second call on the same input (same, reused Sanitizer) is unaffected by the mutated result.
    again = san.sanitize(value)
    assert value == snapshot
    assert again.output == expected


# --- Hand-written inputs, one per format -------------------------------------------------------

LONG = "\n".join(f"line {i}: PASSED tests/test_mod.py::test_{i}" for i in range(400)) + "\nFAILED tests/x.py - Error: boom"
SECRET = "sk-" + "a1B2c3D4e5F6" * 4
IMAGE = "iVBORw0KGgo" + "AAAA" * 500
THINK = "<thinking>" + "considering options " * 200 + "</thinking> <key_info>keep /etc/app.conf</key_info>"


def chat_example() -> list[dict[str, Any]]:
    msgs: list[dict[str, Any]] = [
        {"role": "system", "content": "You are a coding agent."},
        {"role": "user", "content": [{"type": "text", "text": "fix the build " + SECRET},
                                     {"type": "image_url", "image_url": {"url": "data:image/png;base64," + IMAGE}}]},
    ]
    for i in range(8):
        msgs.append({"role": "assistant", "content": None, "reasoning_content": THINK,
                     "tool_calls": [{"id": f"c{i}", "type": "function",
                                     "function": {"name": "bash", "arguments": json.dumps({"cmd": "pytest", "x": LONG})}}]})
        msgs.append({"role": "tool", "tool_call_id": f"c{i}", "name": "bash", "content": LONG})
    msgs.append({"role": "user", "content": "thanks, now ship it"})
    return msgs


def anthropic_example() -> dict[str, Any]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": "fix the build"}]
    for i in range(8):
        messages.append({"role": "assistant", "content": [
            {"type": "thinking", "thinking": THINK, "signature": "sig" * 30},
            {"type": "redacted_thinking", "data": "opaque"},
            {"type": "text", "text": THINK},
            {"type": "tool_use", "id": f"t{i}", "name": "Bash", "input": {"command": "pytest", "env": {"A": [LONG]}}},
            {"type": "mystery", "payload": {"nested": [1, {"x": 2}]}}]})
        messages.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"t{i}",
             "content": [{"type": "text", "text": LONG},
                         {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": IMAGE}}]}]})
    messages.append({"role": "user", "content": "and the docs?"})
    return {"model": "claude", "system": [{"type": "text", "text": "be brief"}], "messages": messages}


def responses_example() -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]}]
    for i in range(8):
        items += [
            {"type": "reasoning", "id": f"rs{i}", "summary": [{"type": "summary_text", "text": THINK}],
             "encrypted_content": "gAAA" * 50},
            {"type": "function_call", "call_id": f"f{i}", "name": "shell", "arguments": json.dumps({"cmd": LONG})},
            {"type": "function_call_output", "call_id": f"f{i}", "output": LONG},
            {"type": "custom_tool_call", "call_id": f"p{i}", "name": "apply_patch", "input": LONG},
            {"type": "custom_tool_call_output", "call_id": f"p{i}", "output": LONG},
        ]
    items.append({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "done?"}]})
    return items


def claude_code_example() -> list[dict[str, Any]]:
    recs: list[dict[str, Any]] = [{"type": "summary", "summary": "s", "leafUuid": "l"}]
    base = {"sessionId": "s1", "parentUuid": None, "cwd": "/p"}
    recs.append({**base, "type": "user", "uuid": "u0", "message": {"role": "user", "content": "fix it"}})
    for i in range(8):
        for j, block in enumerate([{"type": "thinking", "thinking": THINK, "signature": "s" * 40},
                                   {"type": "tool_use", "id": f"tu{i}", "name": "Bash", "input": {"command": LONG}}]):
            recs.append({**base, "type": "assistant", "uuid": f"a{i}{j}",
                         "message": {"id": f"msg{i}", "role": "assistant", "content": [block]}})
        recs.append({**base, "type": "user", "uuid": f"r{i}",
                     "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"tu{i}", "content": LONG}]},
                     "toolUseResult": {"stdout": LONG, "stderr": "", "interrupted": False}})
    recs.append({"type": "progress", "data": {"k": [1, 2]}, "sessionId": "s1"})
    recs.append({**base, "type": "user", "uuid": "last", "message": {"role": "user", "content": "ship"}})
    return recs


def codex_example() -> list[dict[str, Any]]:
    recs: list[dict[str, Any]] = [{"timestamp": "t", "type": "session_meta", "payload": {"id": "x", "cwd": "/p"}}]
    items = responses_example()
    for it in items:
        if it["type"] == "function_call_output":
            recs.append({"timestamp": "t", "type": "event_msg",
                         "payload": {"type": "exec_command_end", "call_id": it["call_id"], "stdout": LONG,
                                     "aggregated_output": LONG, "exit_code": 1}})
        recs.append({"timestamp": "t", "type": "response_item", "payload": it})
    return recs


def dataset_example() -> list[dict[str, Any]]:
    return [{"id": i, "messages": chat_example(), "meta": {"tags": ["a", "b"]}} for i in range(3)]


EXAMPLES = {"openai_chat": chat_example, "anthropic": anthropic_example, "responses": responses_example,
            "claude_code": claude_code_example, "codex": codex_example, "dataset": dataset_example}


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("fmt", FORMATS)
def test_handwritten_input_is_not_mutated_nor_shared(fmt: str, preset: str) -> None:
    san = sanitizer_for(preset, fmt)
    value = EXAMPLES[fmt]()
    assert san.sanitize(value).report.format == fmt
    assert_copy_safe(san, value)


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("fmt", FORMATS)
def test_generated_input_is_not_mutated_nor_shared(fmt: str, preset: str) -> None:
    san = sanitizer_for(preset, fmt)

    @property_settings(8)
    @given(conversations(fmt))
    def check(case: Case) -> None:
        assert_copy_safe(san, case.value)

    check()


def test_default_pack_changes_the_handwritten_inputs() -> None:
    """Guard: the copy-safety tests above really exercise edits, not only the identity copy."""
    for fmt in FORMATS:
        value = EXAMPLES[fmt]()
        result = sanitizer_for("default", fmt).sanitize(value)
        assert result.output != value, fmt
        assert result.report.tokens_after < result.report.tokens_before, fmt


def test_tuple_input_is_copied_not_shared() -> None:
    """A tuple of messages (immutable outside, mutable inside) is also never shared."""
    msgs = tuple(chat_example())
    snapshot = copy.deepcopy(msgs)
    ids = {id(c) for m in msgs for c in containers(m)}
    result = Sanitizer("default").sanitize(msgs)
    assert not [c for c in containers(result.output) if id(c) in ids]
    mutate_everything(result.output)
    assert msgs == snapshot
