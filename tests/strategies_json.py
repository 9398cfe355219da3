"""Hypothesis strategies, part two: scripts rendered as OpenAI chat, Anthropic and Responses JSON."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st
from strategies_script import (
    BOOL,
    TOOL_OUTPUT,
    USER_TEXT,
    Case,
    Script,
    Step,
    b64_image,
    data_uri,
    one_in,
    scripts,
)

# --- OpenAI chat ------------------------------------------------------------------------------


def chat_messages(draw: st.DrawFn, s: Script) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if s.system is not None:
        out.append({"role": draw(st.sampled_from(("system", "system", "developer"))), "content": s.system})
    for r in s.rounds:
        if r.user_image:
            out.append({"role": "user", "content": [{"type": "text", "text": r.user},
                                                    {"type": "image_url", "image_url": {"url": data_uri(r.user_image)}}]})
        else:
            out.append({"role": "user", "content": r.user})
        if r.orphan:
            out.append({"role": "tool", "tool_call_id": r.orphan[0], "content": r.orphan[1]})
        for step in r.steps:
            msg: dict[str, Any] = {"role": "assistant", "content": step.text}
            if step.text is not None and one_in(draw, 4):
                msg["content"] = [{"type": "text", "text": step.text}]
            if step.thinking is not None:
                msg["reasoning_content"] = step.thinking
            if step.calls:
                msg["tool_calls"] = [
                    {"id": c.id, "type": "function",
                     "function": {"name": c.name, "arguments": json.dumps(c.args, ensure_ascii=draw(BOOL))}}
                    for c in step.calls]
            out.append(msg)
            for c in step.calls:
                if c.output is None:
                    continue
                tool: dict[str, Any] = {"role": "tool", "tool_call_id": c.id, "content": c.output}
                if draw(BOOL):
                    tool["name"] = c.name
                if c.output == "" and draw(BOOL):
                    tool["content"] = None
                out.append(tool)
    if s.final_user is not None:
        out.append({"role": "user", "content": s.final_user})
    return out


@st.composite
def openai_chat(draw: st.DrawFn) -> Case:
    s = draw(scripts())
    return Case("openai_chat", chat_messages(draw, s), interrupted=s.interrupted)


# --- Anthropic --------------------------------------------------------------------------------


def anthropic_image(repeat: int) -> dict[str, Any]:
    return {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": b64_image(repeat)}}


def anthropic_result(draw: st.DrawFn, call_id: str, output: str, is_error: bool, image: int) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": call_id}
    if image or one_in(draw, 4):
        block["content"] = [{"type": "text", "text": output}] + ([anthropic_image(image)] if image else [])
    else:
        block["content"] = output
    if is_error:
        block["is_error"] = True
    return block


def anthropic_assistant_blocks(draw: st.DrawFn, step: Step, force_marker: bool) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    if step.thinking is not None or force_marker:
        kind = draw(st.sampled_from(("signed", "signed", "unsigned", "redacted")))
        if kind == "redacted":
            blocks.append({"type": "redacted_thinking", "data": "EmwKAhgBEgy" + "Qk1S" * 20})
        else:
            block = {"type": "thinking", "thinking": step.thinking or "short thought"}
            if kind == "signed":
                block["signature"] = "ErUBCkYIBBgCIkA" + "x9Kf" * 24
            blocks.append(block)
    if step.text is not None:
        blocks.append({"type": "text", "text": step.text})
    if one_in(draw, 8):
        blocks.append({"type": "mystery_block", "payload": {"n": 1, "items": ["a", "b"]}})
    blocks.extend({"type": "tool_use", "id": c.id, "name": c.name, "input": c.args} for c in step.calls)
    if not blocks:
        blocks.append({"type": "text", "text": "ok"})
    return blocks


def anthropic_messages(draw: st.DrawFn, s: Script, *, force_marker: bool) -> list[dict[str, Any]]:
    """Anthropic messages; `force_marker` guarantees a block that identifies the format."""
    out: list[dict[str, Any]] = []
    pending: list[dict[str, Any]] = []  # tool_result blocks waiting for the next user message
    marked = not force_marker
    for r in s.rounds:
        user_blocks: list[dict[str, Any]] = list(pending)
        pending = []
        if r.orphan:
            user_blocks.append({"type": "tool_result", "tool_use_id": r.orphan[0], "content": r.orphan[1]})
        if user_blocks or r.user_image or draw(BOOL):
            user_blocks.append({"type": "text", "text": r.user})
            if r.user_image:
                user_blocks.append(anthropic_image(r.user_image))
            out.append({"role": "user", "content": user_blocks})
        else:
            out.append({"role": "user", "content": r.user})
        for k, step in enumerate(r.steps):
            out.append({"role": "assistant", "content": anthropic_assistant_blocks(draw, step, not marked)})
            marked = True
            results = [anthropic_result(draw, c.id, c.output, c.is_error, c.image)
                       for c in step.calls if c.output is not None]
            if results and k < len(r.steps) - 1:
                out.append({"role": "user", "content": results})
            else:
                pending = results
    if pending or s.final_user is not None:
        blocks = pending + ([{"type": "text", "text": s.final_user}] if s.final_user is not None else [])
        out.append({"role": "user", "content": blocks})
    return out


def cline_exchange(draw: st.DrawFn) -> list[dict[str, Any]]:
    """A Cline-style call in the assistant's text and its result sent back as user text blocks
    (header, output, environment details); sometimes the result is a person's answer instead."""
    tool, target = draw(st.sampled_from((("execute_command", "npm test"), ("read_file", "src/app.ts"),
                                         ("ask_followup_question", "Keep the id?"))))
    output = draw(TOOL_OUTPUT)
    if tool == "ask_followup_question":
        output = f"<answer>\n{draw(USER_TEXT)}\n</answer>"
    env = "<environment_details>\n# Current Working Directory (/repo) Files\nsrc/app.ts\n</environment_details>"
    return [{"role": "assistant", "content": [{"type": "text", "text": f"<{tool}>\n<path>{target}</path>\n</{tool}>"}]},
            {"role": "user", "content": [{"type": "text", "text": f"[{tool} for '{target}'] Result:"},
                                         {"type": "text", "text": output}, {"type": "text", "text": env}]}]


@st.composite
def anthropic(draw: st.DrawFn) -> Case:
    s = draw(scripts())
    body = s.system is not None and draw(BOOL)
    messages = anthropic_messages(draw, s, force_marker=not body)
    system: Any = s.system
    if body and draw(BOOL):
        system = [{"type": "text", "text": s.system, "cache_control": {"type": "ephemeral"}}]
    if one_in(draw, 3):  # drawn last, so the examples drawn before keep their values
        messages += cline_exchange(draw)
    if not body:
        return Case("anthropic", messages, interrupted=s.interrupted)
    value = {"model": "claude-sonnet-4-5", "max_tokens": 4096, "system": system, "messages": messages}
    return Case("anthropic", value, interrupted=s.interrupted, notes=["request body"])


# --- OpenAI Responses -------------------------------------------------------------------------


def responses_items(draw: st.DrawFn, s: Script) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    n = iter(range(10_000))
    if s.system is not None:
        out.append({"type": "message", "role": "developer", "content": [{"type": "input_text", "text": s.system}]})
    for r in s.rounds:
        content: Any = [{"type": "input_text", "text": r.user}]
        if r.user_image:
            content.append({"type": "input_image", "image_url": data_uri(r.user_image), "detail": "auto"})
        elif one_in(draw, 4):
            content = r.user
        out.append({"type": "message", "role": "user", "content": content})
        if r.orphan:
            out.append({"type": "function_call_output", "call_id": r.orphan[0], "output": r.orphan[1]})
        for step in r.steps:
            if step.thinking is not None:
                item: dict[str, Any] = {"type": "reasoning", "id": f"rs_{next(n)}",
                                        "summary": [{"type": "summary_text", "text": step.thinking}]}
                if draw(BOOL):
                    item["encrypted_content"] = "gAAAAAB" + "mK3v" * 30
                out.append(item)
            if step.text is not None:
                out.append({"type": "message", "role": "assistant", "id": f"msg_{next(n)}", "status": "completed",
                            "content": [{"type": "output_text", "text": step.text, "annotations": []}]})
            kinds = [draw(st.sampled_from(("function", "function", "custom"))) for _ in step.calls]
            for c, kind in zip(step.calls, kinds, strict=True):
                if kind == "function":
                    out.append({"type": "function_call", "id": f"fc_{next(n)}", "call_id": c.id, "name": c.name,
                                "arguments": json.dumps(c.args)})
                else:
                    patch = "*** Begin Patch\n*** Update File: src/app.py\n" + json.dumps(c.args) + "\n*** End Patch"
                    out.append({"type": "custom_tool_call", "id": f"ctc_{next(n)}", "call_id": c.id,
                                "name": "apply_patch", "input": patch})
            for c, kind in zip(step.calls, kinds, strict=True):
                if c.output is not None:
                    t = "function_call_output" if kind == "function" else "custom_tool_call_output"
                    out.append({"type": t, "call_id": c.id, "output": c.output})
    if s.final_user is not None:
        out.append({"type": "message", "role": "user", "content": [{"type": "input_text", "text": s.final_user}]})
    return out


@st.composite
def responses(draw: st.DrawFn) -> Case:
    s = draw(scripts())
    items = responses_items(draw, s)
    if one_in(draw, 4):
        return Case("responses", {"model": "gpt-5", "input": items}, interrupted=s.interrupted,
                    notes=["request body"])
    return Case("responses", items, interrupted=s.interrupted)
