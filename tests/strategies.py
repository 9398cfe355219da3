"""Hypothesis strategies: agent conversations in every supported format, as objects and JSONL text.

A conversation is first drawn as a neutral script (system, user asks, assistant steps with
parallel tool calls and their results), then rendered in one format with that format's own
details (Claude Code split messages and `toolUseResult`, Codex `event_msg` duplicates, signed
thinking, request bodies …).  Every format renderer is used by `conversations(fmt)`, which gives a
`Case`: the Python value, the JSONL text for JSONL formats, and flags a property may need
(`interrupted`: some call has no result or some result has no call, already in the input).

Text is built from a small set of fragments that exercise the rules: multi-KB tool outputs (built
by repetition, so generation stays cheap), code fences, nested and unclosed tags, `<key_info>`
blocks, URLs, paths, error lines, CJK and emoji, `\\r\\n`, base64 data URIs and fake secrets.
"""

from __future__ import annotations

import os
from typing import Any

from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from strategies_json import (
    anthropic,
    anthropic_assistant_blocks,
    anthropic_image,
    anthropic_messages,
    anthropic_result,
    chat_messages,
    openai_chat,
    responses,
    responses_items,
)
from strategies_script import BOOL, ID_SUFFIX, TEXT3, Case, one_in, scripts, short_text, to_jsonl, words


def property_settings(max_examples: int) -> settings:
    """Settings of every property test: fast, and the same examples on every run.

    Runs are derandomized so that a property marked `xfail(strict=True)` for a known library bug
    fails on every run (and turns into an XPASS failure once the bug is fixed).  Shrinking is off:
    these cases shrink slowly (minutes); the minimal examples of known bugs are written out as
    regression tests.  `SANITIZER_PROPERTIES=explore` draws fresh, more numerous examples instead.
    """
    explore = os.environ.get("SANITIZER_PROPERTIES") == "explore"
    return settings(max_examples=max_examples * 10 if explore else max_examples, deadline=None,
                    derandomize=not explore, database=None,
                    phases=[Phase.explicit, Phase.generate] + ([Phase.shrink] if explore else []),
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.large_base_example])


FORMATS = ("openai_chat", "anthropic", "responses", "claude_code", "codex", "dataset")
JSONL_FORMATS = frozenset({"claude_code", "codex"})



# --- Claude Code session JSONL ----------------------------------------------------------------


DAMAGED_LINES = ('{"type":"user","message":{"role":"user","content":"cut here',
                 "<<< redacted by publisher >>>", '{"type": "assistant", "message": ')


@st.composite
def claude_code(draw: st.DrawFn) -> Case:
    s = draw(scripts(max_rounds=4))
    session = "5f0c6b1e-0000-4000-8000-00000000abcd"
    records: list[dict[str, Any]] = []
    n = iter(range(100_000))

    def envelope(kind: str, message: dict[str, Any], **extra: Any) -> dict[str, Any]:
        uid = f"00000000-0000-4000-8000-{next(n):012d}"
        parent = records[-1].get("uuid") if records else None
        rec = {"parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": "/home/dev/project",
               "sessionId": session, "version": "1.0.98", "gitBranch": "main", "type": kind,
               "message": message, "uuid": uid, "timestamp": f"2025-01-01T00:{next(n) % 60:02d}:00.000Z"}
        rec.update(extra)
        return rec

    def passthrough() -> None:
        kind = draw(st.sampled_from(("none", "none", "summary", "system", "progress", "snapshot")))
        if kind == "summary":
            records.append({"type": "summary", "summary": draw(words), "leafUuid": f"leaf-{next(n)}"})
        elif kind == "system":
            records.append({"type": "system", "subtype": "informational", "content": draw(short_text),
                            "level": "info", "sessionId": session, "uuid": f"sys-{next(n)}"})
        elif kind == "progress":
            records.append({"type": "progress", "data": {"type": "hook_progress", "message": draw(words)},
                            "sessionId": session, "uuid": f"prog-{next(n)}"})
        elif kind == "snapshot":
            records.append({"type": "file-history-snapshot", "messageId": f"m-{next(n)}",
                            "snapshot": {"trackedFileBackups": {}, "timestamp": "2025-01-01T00:00:00Z"}})

    def user_text(t: str, image: int = 0) -> None:
        content: Any = t
        if image:
            content = [{"type": "text", "text": t}, anthropic_image(image)]
        extra = {"isMeta": True} if one_in(draw, 10) else {}
        records.append(envelope("user", {"role": "user", "content": content}, **extra))

    for r in s.rounds:
        passthrough()
        if one_in(draw, 5):
            user_text("<system-reminder>" + draw(words) + "</system-reminder>")
        user_text(r.user, r.user_image)
        if r.orphan:
            block = {"type": "tool_result", "tool_use_id": r.orphan[0], "content": r.orphan[1]}
            records.append(envelope("user", {"role": "user", "content": [block]}, toolUseResult=r.orphan[1]))
        for step in r.steps:
            api_id = f"msg_01{next(n):08d}"
            blocks = anthropic_assistant_blocks(draw, step, force_marker=False)
            for b in blocks:  # one record per content block, sharing message.id (as Claude Code writes them)
                msg = {"id": api_id, "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                       "content": [b], "stop_reason": None, "usage": {"input_tokens": 10, "output_tokens": 5}}
                records.append(envelope("assistant", msg, requestId=f"req_{api_id}"))
            for c in step.calls:
                if c.output is None:
                    continue
                block = anthropic_result(draw, c.id, c.output, c.is_error, c.image)
                tur: Any
                if c.is_error and draw(BOOL):
                    tur = "Error: " + c.output
                else:
                    tur = {"stdout": c.output, "stderr": "", "interrupted": False, "isImage": False}
                records.append(envelope("user", {"role": "user", "content": [block]}, toolUseResult=tur))
    final_at = len(records)  # where a sub-agent's run goes: before the last ask
    if s.final_user is not None:
        user_text(s.final_user)
    passthrough()
    damaged = {}
    if one_in(draw, 4):
        damaged[draw(st.integers(1, len(records)))] = draw(st.sampled_from(DAMAGED_LINES))
    sub_interrupted = False
    if one_in(draw, 3):  # drawn last, so the examples drawn before keep their values
        sub, sub_interrupted = inline_sub_agent(draw, envelope, records[final_at - 1].get("uuid") if final_at else None)
        records[final_at:final_at] = sub
        if final_at + len(sub) < len(records) and s.final_user is not None:
            records[final_at + len(sub)]["parentUuid"] = sub[-1]["uuid"]  # the last ask follows the run
    text_ = to_jsonl(records, damaged, ascii_only=draw(BOOL))
    notes = ["damaged line"] if damaged else []
    return Case("claude_code", records, jsonl=text_, interrupted=s.interrupted or sub_interrupted, notes=notes)


def inline_sub_agent(draw: st.DrawFn, envelope: Any, parent: str | None) -> tuple[list[dict[str, Any]], bool]:
    """A Task call, its sub-agent's inline sidechain records (Claude Code 1.0.x), then the Task
    result in the main chain: what `fold-sidechain` folds.  Also: whether a call has no result."""
    sub = draw(scripts(max_rounds=1))
    for step in sub.rounds[0].steps:
        for c in step.calls:
            c.id = f"side_{c.id}"  # its own ids: a sub-agent's calls are not the main chain's
    task_id = f"toolu_task{draw(ID_SUFFIX)}"
    out: list[dict[str, Any]] = []

    def add(rec: dict[str, Any], side: bool) -> None:
        rec["parentUuid"] = out[-1]["uuid"] if out else parent
        rec["isSidechain"] = side
        if side:
            rec["agentId"] = "a1b2c3d"
        out.append(rec)

    add(envelope("assistant", {"id": f"msg_task_{task_id}", "role": "assistant", "content": [
        {"type": "tool_use", "id": task_id, "name": "Task", "input": {"description": "Look into it",
                                                                         "prompt": sub.rounds[0].user}}]}), False)
    add(envelope("user", {"role": "user", "content": [{"type": "text", "text": sub.rounds[0].user}]}), True)
    for step in sub.rounds[0].steps:
        blocks = anthropic_assistant_blocks(draw, step, force_marker=False)
        add(envelope("assistant", {"id": f"msg_side_{len(out)}", "role": "assistant", "content": blocks}), True)
        results = [anthropic_result(draw, c.id, c.output, c.is_error, c.image) for c in step.calls if c.output is not None]
        if results:
            add(envelope("user", {"role": "user", "content": results}), True)
    report = draw(TEXT3 | short_text)
    add(envelope("user", {"role": "user", "content": [{"type": "tool_result", "tool_use_id": task_id,
                                                      "content": [{"type": "text", "text": report}]}]}), False)
    return out, any(c.output is None for step in sub.rounds[0].steps for c in step.calls)


# --- Codex rollout JSONL ----------------------------------------------------------------------


@st.composite
def codex(draw: st.DrawFn) -> Case:
    s = draw(scripts(max_rounds=4))
    items = responses_items(draw, s)
    records: list[dict[str, Any]] = []
    n = iter(range(100_000))

    def ts() -> str:
        return f"2025-01-01T00:00:{next(n) % 60:02d}.000Z"

    records.append({"timestamp": ts(), "type": "session_meta",
                    "payload": {"id": "0199aaaa-bbbb-7ccc-8ddd-eeeeffff0000", "timestamp": ts(), "cwd": "/home/dev/p",
                                "originator": "codex_cli_rs", "cli_version": "0.46.0", "instructions": s.system}})
    records.append({"timestamp": ts(), "type": "turn_context",
                    "payload": {"cwd": "/home/dev/p", "approval_policy": "on-request", "model": "gpt-5-codex"}})
    calls = {c.id: c for r in s.rounds for st_ in r.steps for c in st_.calls}
    for it in items:
        if it.get("type") == "message" and it.get("role") == "developer":
            continue  # the system text lives in session_meta.instructions
        if it.get("type") == "function_call_output" and it["call_id"] in calls and draw(BOOL):
            c = calls[it["call_id"]]
            # The event is written before the response item, with the same output again.
            records.append({"timestamp": ts(), "type": "event_msg", "payload": {
                "type": "exec_command_end", "call_id": c.id, "stdout": c.output, "stderr": "",
                "aggregated_output": c.output, "exit_code": 1 if c.is_error else 0,
                "duration": {"secs": 0, "nanos": 1000}, "formatted_output": c.output}})
        records.append({"timestamp": ts(), "type": "response_item", "payload": it})
        if it.get("type") == "message" and it.get("role") == "user" and draw(BOOL):
            content = it["content"]
            msg = content if isinstance(content, str) else content[0]["text"]
            records.append({"timestamp": ts(), "type": "event_msg",
                            "payload": {"type": "user_message", "message": msg, "images": []}})
        if it.get("type") == "message" and it.get("role") == "assistant" and draw(BOOL):
            records.append({"timestamp": ts(), "type": "event_msg",
                            "payload": {"type": "agent_message", "message": it["content"][0]["text"]}})
    records.append({"timestamp": ts(), "type": "event_msg", "payload": {"type": "token_count", "info": None}})
    damaged = {}
    if one_in(draw, 5):
        damaged[draw(st.integers(1, len(records)))] = draw(st.sampled_from(DAMAGED_LINES))
    text_ = to_jsonl(records, damaged, ascii_only=draw(BOOL))
    return Case("codex", records, jsonl=text_, interrupted=s.interrupted,
                notes=["damaged line"] if damaged else [])


# --- Dataset ----------------------------------------------------------------------------------


@st.composite
def dataset(draw: st.DrawFn) -> Case:
    """A list of episodes `{"messages": [...]}` (or `traj`), as an object or as JSONL text."""
    dialect = draw(st.sampled_from(("chat", "chat", "anthropic")))
    episodes = []
    interrupted = False
    for i in range(draw(st.integers(1, 3))):
        s = draw(scripts(max_rounds=3))
        interrupted |= s.interrupted
        msgs = chat_messages(draw, s) if dialect == "chat" else anthropic_messages(draw, s, force_marker=True)
        key = draw(st.sampled_from(("messages", "messages", "traj")))
        episodes.append({"id": f"episode-{i}", key: msgs, "reward": draw(st.sampled_from((0.0, 1.0)))})
    as_text = draw(BOOL)
    return Case("dataset", episodes, jsonl=to_jsonl(episodes) if as_text else None, interrupted=interrupted,
                notes=[dialect])


BY_FORMAT = {"openai_chat": openai_chat, "anthropic": anthropic, "responses": responses,
             "claude_code": claude_code, "codex": codex, "dataset": dataset}


def conversations(fmt: str) -> st.SearchStrategy[Case]:
    """Generated cases of one format (see `FORMATS`)."""
    return BY_FORMAT[fmt]()


def any_conversation() -> st.SearchStrategy[Case]:
    return st.one_of(*(conversations(f) for f in FORMATS))
