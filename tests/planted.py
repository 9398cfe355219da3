"""Fake credentials of every supported kind, and conversations in seven formats that hold them.

`EXAMPLES` comes from `sanitizer.secrets.KINDS` (every kind's true examples) when the module has
that table, else from a local list of the kinds detected before it.  A planted value is what
`secrets.redact` removes from its example alone, so checks do not depend on the marker text.
`build(fmt, plants, older)` renders one case: `plants` maps a placement to the text planted
there; `older` puts the planted messages among the older ones (cut by the rules) instead of the
tail.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from sanitizer.secrets import scan as secrets

# Fake credentials of the kinds detected before the kind table existed (none is live).
LOCAL_EXAMPLES: tuple[tuple[str, str], ...] = (
    ("openai-key", "sk-proj-Q7wE9rT2yU4iO6pA8sD0fG3hJ5kLz"),
    ("anthropic-key", "sk-ant-api03-Xy7Zq2Wv9Ut4Rs6Po1Nm3Lk5Ji8Hg"),
    ("github-token", "ghp_R4nD0mT0k3nV4lu3F0rT3st1ngPurp0s3s0K"),
    ("github-token", "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz"),
    ("slack-token", "xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOpQrStUvWx"),
    ("aws-access-key-id", "AKIAQ4W8E2R6T0Y3U7I1"),
    ("aws-secret-key", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq9TLv3Ws2"),
    ("google-api-key", "AIzaSyD4f6G8h0J2k4L6z8X0c2V4b6N8m0Q2w4E"),
    ("jwt", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"),
    ("auth-header", "Authorization: Bearer q8Zr2Lm5Nx7Vb4Ck1Jh9Gf6Ds3Aa0Pp"),
    ("url-credentials", "postgres://admin:Pa55w0rdXyZq@db.internal:5432/app"),
    ("query-credential", "https://api.example.org/v1/items?api_key=Zk3m9Qx7Lp2Rt5Vw8"),
    ("credential", "DB_PASSWORD=Tr0ub4dor3xK9q"),
    ("private-key", "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEAx1z9Q2w3E4r5T6y7U8i9O0pAsDfGhJkL\n"
                    "ZxCvBnM1q2W3e4R5t6Y7u8I9o0PaSdFgHjKlZxCvBnM=\n-----END RSA PRIVATE KEY-----"),
)

WINDOW = 12
MARKER = re.compile(r"\[REDACTED:[^\]]*\]")


def _examples_of(entry: Any) -> list[str]:
    """The true examples of one entry of `secrets.KINDS`, whatever its exact shape."""
    for name in ("true", "true_examples", "examples", "positives", "samples"):
        value = entry.get(name) if isinstance(entry, dict) else getattr(entry, name, None)
        if isinstance(value, str):
            return [value]
        if isinstance(value, Iterable):
            return [v for v in value if isinstance(v, str)]
    return []


def credential_examples() -> list[tuple[str, str]]:
    """(kind, example text) of every supported kind: the kind table when it exists, else the local list."""
    table = getattr(secrets, "KINDS", None)
    if not table:
        return list(LOCAL_EXAMPLES)
    items = table.items() if isinstance(table, dict) else (
        (getattr(e, "kind", None) or getattr(e, "name", None) or str(e), e) for e in table)
    out = [(str(kind), ex) for kind, entry in items for ex in _examples_of(entry)]
    return out or list(LOCAL_EXAMPLES)


def planted(example: str) -> list[str]:
    """The values `secrets.redact` removes from the example alone: what must never come out."""
    return [v for v in secrets.redact(example)[1] if v.strip()]


EXAMPLES = [(kind, ex) for kind, ex in credential_examples() if planted(ex)]


def windows(value: str) -> set[str]:
    if len(value) <= WINDOW:
        return {value}
    return {value[i:i + WINDOW] for i in range(len(value) - WINDOW + 1)}


def leaks(output: str, values: Iterable[str]) -> list[str]:
    """The windows of `values` found in `output` (JSON-escaped forms included)."""
    found = []
    for v in values:
        for w in windows(v):
            escaped = json.dumps(w)[1:-1]
            if w in output or escaped in output:
                found.append(w)
                break
    return found


# --- building a conversation with credentials in chosen places --------------------------------

PLACEMENTS = ("user", "assistant", "tool_output", "tool_args", "thinking", "key_info", "latest_user", "cut_point",
              "metadata", "damaged_line", "duplicate_key", "tool_use_result", "event_msg", "trajectory")
# Where each format can hold a placement (a placement it cannot hold is simply not drawn).
HOLDS = {
    "openai_chat": {"user", "assistant", "tool_output", "tool_args", "thinking", "key_info", "latest_user",
                    "cut_point", "metadata"},
    "anthropic": {"user", "assistant", "tool_output", "tool_args", "thinking", "key_info", "latest_user",
                  "cut_point", "metadata"},
    "responses": {"user", "assistant", "tool_output", "tool_args", "thinking", "key_info", "latest_user",
                  "cut_point", "metadata"},
    "dataset": {"user", "assistant", "tool_output", "tool_args", "key_info", "latest_user", "cut_point",
                "metadata", "damaged_line", "duplicate_key"},
    "swe_agent": {"user", "assistant", "tool_output", "tool_args", "key_info", "latest_user", "cut_point",
                  "metadata", "trajectory"},
    "claude_code": set(PLACEMENTS) - {"event_msg", "trajectory"},
    "codex": set(PLACEMENTS) - {"tool_use_result", "trajectory"},
}
FILLER = "Checked the build output and the failing step again; nothing else changed here."
LONG = "\n".join(f"line {i}: compiling module_{i} ok" for i in range(700))


def _at(plants: dict[str, str], where: str, default: str) -> str:
    return plants.get(where, default)


def _cut_text(plants: dict[str, str]) -> str:
    """A long output with the credential where a head+tail cut lands (near its middle)."""
    secret = plants.get("cut_point")
    if secret is None:
        return LONG
    half = len(LONG) // 2
    return LONG[:half] + " " + secret + " " + LONG[half:]


def _turns(plants: dict[str, str], older: bool) -> list[tuple[str, str]]:
    """(role, text) of the filler turns that put the planted messages among the older ones or in the tail."""
    n = 12 if older else 0
    return [("user" if i % 2 == 0 else "assistant", f"{FILLER} ({i})") for i in range(n)]


def chat_messages(plants: dict[str, str], older: bool) -> list[dict[str, Any]]:
    msgs: list[dict[str, Any]] = [
        {"role": "system", "content": "You are a coding agent."},
        {"role": "user", "content": "Please fix the build. " + _at(plants, "user", "")},
        {"role": "assistant", "content": "Looking. " + _at(plants, "assistant", ""),
         "reasoning_content": "Plan the fix. " + _at(plants, "thinking", ""),
         "tool_calls": [{"id": "call_1", "type": "function", "function": {
             "name": "bash", "arguments": json.dumps({"command": "run " + _at(plants, "tool_args", "make")})}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": _cut_text(plants) + "\n" + _at(plants, "tool_output", "")},
        {"role": "assistant", "content": "Noted: <key_info>" + _at(plants, "key_info", "keep this") + "</key_info>"},
    ]
    msgs += [{"role": r, "content": t} for r, t in _turns(plants, older)]
    msgs.append({"role": "user", "content": "Now finish it. " + _at(plants, "latest_user", "")})
    if "metadata" in plants:
        msgs[1]["name"] = "dev"
        msgs[1]["metadata"] = {"note": "env " + plants["metadata"]}
    return msgs


def anthropic_body(plants: dict[str, str], older: bool) -> dict[str, Any]:
    msgs: list[dict[str, Any]] = [
        {"role": "user", "content": [{"type": "text", "text": "Please fix the build. " + _at(plants, "user", "")}]},
        {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "Plan the fix. " + _at(plants, "thinking", ""), "signature": "c2lnbmF0dXJl"},
            {"type": "text", "text": "Looking. " + _at(plants, "assistant", "")},
            {"type": "tool_use", "id": "toolu_1", "name": "bash",
             "input": {"command": "run " + _at(plants, "tool_args", "make")}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1",
                                      "content": _cut_text(plants) + "\n" + _at(plants, "tool_output", "")}]},
        {"role": "assistant", "content": [{"type": "text", "text": "Noted: <key_info>"
                                           + _at(plants, "key_info", "keep this") + "</key_info>"}]},
    ]
    msgs += [{"role": r, "content": [{"type": "text", "text": t}]} for r, t in _turns(plants, older)]
    msgs.append({"role": "user", "content": [{"type": "text", "text": "Now finish it. " + _at(plants, "latest_user", "")}]})
    body: dict[str, Any] = {"model": "claude-sonnet-4-5", "system": "You are a coding agent.", "messages": msgs}
    if "metadata" in plants:
        body["metadata"] = {"user_id": "dev " + plants["metadata"]}
    return body


def responses_items(plants: dict[str, str], older: bool) -> list[dict[str, Any]]:
    def msg(role: str, text: str) -> dict[str, Any]:
        kind = "output_text" if role == "assistant" else "input_text"
        return {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}

    items = [
        msg("user", "Please fix the build. " + _at(plants, "user", "")),
        {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text",
                                                         "text": "Plan the fix. " + _at(plants, "thinking", "")}]},
        msg("assistant", "Looking. " + _at(plants, "assistant", "")),
        {"type": "function_call", "name": "shell", "call_id": "call_1",
         "arguments": json.dumps({"command": ["bash", "-lc", "run " + _at(plants, "tool_args", "make")]})},
        {"type": "function_call_output", "call_id": "call_1",
         "output": _cut_text(plants) + "\n" + _at(plants, "tool_output", "")},
        msg("assistant", "Noted: <key_info>" + _at(plants, "key_info", "keep this") + "</key_info>"),
    ]
    items += [msg(r, t) for r, t in _turns(plants, older)]
    items.append(msg("user", "Now finish it. " + _at(plants, "latest_user", "")))
    if "metadata" in plants:
        items[0]["id"] = "msg_1"
        items[0]["status"] = "completed " + plants["metadata"]
    return items


def jsonl(records: list[Any], plants: dict[str, str], line: str, dup: tuple[int, str, str]) -> str:
    """Records as JSONL, with a damaged line and a duplicate key where those placements are drawn.

    `dup`: where the record with a duplicate key goes, and its text before and after the two
    `"note"` members (json keeps the last one: the first value must not survive either).
    """
    lines = [json.dumps(r) for r in records]
    if "duplicate_key" in plants:
        at, head, tail = dup
        lines.insert(at, head + '"note": ' + json.dumps("dup " + plants["duplicate_key"]) + ', "note": "kept"' + tail)
    if "damaged_line" in plants:
        lines.insert(1, line + json.dumps(plants["damaged_line"])[:-1])  # cut inside the string
    return "\n".join(lines) + "\n"


def claude_code(plants: dict[str, str], older: bool) -> str:
    body = anthropic_body(plants, older)
    recs: list[dict[str, Any]] = []
    for i, m in enumerate(body["messages"]):
        rec: dict[str, Any] = {"parentUuid": f"u{i - 1}" if i else None, "isSidechain": False, "userType": "external",
                               "cwd": "/home/dev/project", "sessionId": "5f0c6b1e-0000-4000-8000-00000000abcd",
                               "type": m["role"], "message": m, "uuid": f"u{i}",
                               "timestamp": "2025-01-01T00:00:00.000Z"}
        if m["role"] == "assistant":
            m["id"] = f"msg_{i}"
        if m["content"][0]["type"] == "tool_result":
            out = m["content"][0]["content"]
            rec["toolUseResult"] = {"stdout": out + "\n" + _at(plants, "tool_use_result", ""), "stderr": "",
                                    "interrupted": False, "isImage": False}
        if i == 0 and "metadata" in plants:
            rec["gitBranch"] = "main " + plants["metadata"]
        recs.append(rec)
    return jsonl(recs, plants, '{"type":"user","message":{"role":"user","content":',
                 (2, '{"type": "system", "uuid": "dup-1", ', "}"))


def codex(plants: dict[str, str], older: bool) -> str:
    recs: list[dict[str, Any]] = [{"timestamp": "2025-01-01T00:00:00.000Z", "type": "session_meta", "payload": {
        "id": "0199aaaa-bbbb-7ccc-8ddd-eeeeffff0000", "cwd": "/home/dev/p", "originator": "codex_cli_rs",
        "instructions": "You are a coding agent. " + _at(plants, "metadata", "")}}]
    for it in responses_items({k: v for k, v in plants.items() if k != "metadata"}, older):
        if it["type"] == "function_call_output":
            recs.append({"timestamp": "2025-01-01T00:00:01.000Z", "type": "event_msg", "payload": {
                "type": "exec_command_end", "call_id": it["call_id"], "stdout": it["output"],
                "aggregated_output": it["output"] + "\n" + _at(plants, "event_msg", ""), "exit_code": 0}})
        recs.append({"timestamp": "2025-01-01T00:00:02.000Z", "type": "response_item", "payload": it})
    if "event_msg" in plants:
        recs.append({"timestamp": "2025-01-01T00:00:03.000Z", "type": "event_msg",
                     "payload": {"type": "agent_message", "message": "Done: " + plants["event_msg"]}})
    return jsonl(recs, plants, '{"timestamp":"2025-01-01T00:00:09.000Z","type":"event_msg","payload":{"message":',
                 (3, '{"timestamp": "2025-01-01T00:00:04.000Z", "type": "event_msg", "payload": {"type": "note", ',
                  "}}"))


def dataset(plants: dict[str, str], older: bool) -> str:
    episodes = [{"id": "episode-0", "messages": chat_messages(plants, older), "reward": 1.0,
                 "notes": "run by " + _at(plants, "metadata", "ci")},
                {"id": "episode-1", "messages": chat_messages({}, older), "reward": 0.0}]
    return jsonl(episodes, plants, '{"id": "episode-x", "messages": [{"role": "user", "content": ',
                 (1, '{"id": "episode-d", "messages": [{"role": "user", "content": "hi"}], ', "}"))


def swe_agent(plants: dict[str, str], older: bool) -> dict[str, Any]:
    """A SWE-agent 1.x trajectory: `history` (chat messages, `tool_call_ids` lists) and the
    `trajectory[]` steps that store the same texts again (the observation wrapped, so it differs)."""
    history = chat_messages({k: v for k, v in plants.items() if k != "metadata"}, older)
    for m in history:
        m.pop("reasoning_content", None)
        if m["role"] == "tool":
            m["tool_call_ids"] = [m.pop("tool_call_id")]
    call = history[2]
    step = {"response": call["content"], "thought": call["content"], "action": "run make",
            "observation": "(Open file: n/a)\n" + history[3]["content"] + "\n" + _at(plants, "trajectory", ""),
            "execution_time": 0.5}
    return {"environment": "swe_main", "history": history, "trajectory": [step],
            "info": {"exit_status": "submitted " + _at(plants, "metadata", "")}}


def build(fmt: str, plants: dict[str, str], older: bool) -> tuple[str, str]:
    """(file name, text) of one case."""
    if fmt == "openai_chat":
        return "case.json", json.dumps(chat_messages(plants, older), indent=2)
    if fmt == "anthropic":
        return "case.json", json.dumps(anthropic_body(plants, older))
    if fmt == "responses":
        return "case.json", json.dumps(responses_items(plants, older))
    if fmt == "swe_agent":
        return "case.traj", json.dumps(swe_agent(plants, older), indent=2)
    return "case.jsonl", {"claude_code": claude_code, "codex": codex, "dataset": dataset}[fmt](plants, older)
