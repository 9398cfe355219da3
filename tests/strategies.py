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

import base64
import json
import os
from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st


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

# ---------------------------------------------------------------------------------------------
# Text fragments


WORDS = ("the", "build", "fails", "after", "we", "changed", "config", "retry", "parser", "cache",
         "user", "wants", "tests", "green", "module", "install", "deploy", "value", "check", "again")
URLS = ("https://example.com/docs/api?page=2&lang=en#section", "http://localhost:8080/health",
        "https://github.com/acme/widget/pull/1234/files")
PATHS = ("/home/dev/project/src/widget/core.py", "src/app/models.py:42", "./tests/test_core.py",
         "C:\\Users\\dev\\notes.txt", "~/.config/tool/settings.toml")
ERROR_LINES = (
    'Traceback (most recent call last):\n  File "/app/main.py", line 12, in <module>\n    run()\n'
    "ValueError: invalid literal for int() with base 10: 'x'",
    "FAILED tests/test_core.py::test_parse - AssertionError: assert 1 == 2",
    "Error: ENOENT: no such file or directory, open 'package.json'",
    "process exited with exit code 127",
)
UNICODE = ("你好，世界。修复了解析器。", "日本語のテキストです", "한국어 문장", "emoji 🙂🚀✨ 👩‍💻", "naïve café — «ok»")
SECRETS = ("sk-" + "a1B2c3D4e5F6" * 4, "ghp_" + "Z9y8X7w6V5u4" * 3, "sk-ant-api03-" + "Qw3rTy" * 8,
           "AKIAIOSFODNN7EXAMPLE", "Authorization: Bearer " + "eyJhbGciOiJIUzI1NiJ9" * 3)
OUTPUT_LINES = ("PASSED tests/test_core.py::test_case_{i}", "{i:05d} INFO worker started job {i}",
                "drwxr-xr-x  2 dev dev 4096 Jan  1 00:00 dir_{i}", "  File \"/lib/mod_{i}.py\", line {i}",
                "compiling crate_{i} v0.{i}.0")
LANGS = ("python", "bash", "json", "", "rust")

PNG_BYTES = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(64))


def b64_image(repeat: int) -> str:
    return base64.b64encode(PNG_BYTES * repeat).decode("ascii")


def data_uri(repeat: int) -> str:
    return "data:image/png;base64," + b64_image(repeat)


words = st.lists(st.sampled_from(WORDS), min_size=1, max_size=12).map(" ".join)
_BOOL = st.booleans()
_OUTPUT_LINE, _OUTPUT_COUNT = st.sampled_from(OUTPUT_LINES), st.integers(20, 250)
_ERROR_LINE, _LANG, _CODE_LINES = st.sampled_from(ERROR_LINES), st.sampled_from(LANGS), st.integers(1, 40)
_TAG_NAME = st.sampled_from(("thinking", "think", "tool_result", "history", "file_content"))
_TAG_SHAPE = st.sampled_from(("closed", "nested", "unclosed", "stray-close", "crossed"))
_SEP = st.sampled_from((" ", "\n", "\r\n", "\n\n"))
_FRAGMENTS: dict[int, st.SearchStrategy[list[str]]] = {}


@st.composite
def long_output(draw: st.DrawFn) -> str:
    """A multi-KB tool output made by repeating a line template (cheap to build)."""
    template = draw(_OUTPUT_LINE)
    n = draw(_OUTPUT_COUNT)
    body = "\n".join(template.format(i=i) for i in range(n))
    if draw(_BOOL):
        body += "\n" + draw(_ERROR_LINE)
    return body


@st.composite
def code_fence(draw: st.DrawFn) -> str:
    lang = draw(_LANG)
    n = draw(_CODE_LINES)
    return f"```{lang}\n" + "\n".join(f"value_{i} = compute({i})  # step {i}" for i in range(n)) + "\n```"


_TAG_INNER = st.one_of(words, long_output())


@st.composite
def tagged(draw: st.DrawFn) -> str:
    """`<thinking>`, `<think>`, `<tool_result>` blocks: closed, nested, unclosed or stray."""
    name = draw(_TAG_NAME)
    inner = draw(_TAG_INNER)
    shape = draw(_TAG_SHAPE)
    if shape == "closed":
        return f"<{name}>{inner}</{name}>"
    if shape == "nested":
        return f"<{name}>outer {inner} <{name}>inner {inner[:300]}</{name}> tail</{name}>"
    if shape == "unclosed":
        return f"<{name}>{inner}"
    if shape == "stray-close":
        return f"{inner}</{name}>"
    return f"<{name}><think>{inner}</{name}></think>"


key_info_body = st.tuples(words, st.sampled_from(PATHS), st.sampled_from(UNICODE)).map(
    lambda t: f"remember: {t[0]} in {t[1]} ({t[2]})")
key_info = key_info_body.map(lambda b: f"<key_info>{b}</key_info>")

fragment = st.one_of(
    words, words, st.sampled_from(URLS), st.sampled_from(PATHS), st.sampled_from(ERROR_LINES),
    st.sampled_from(UNICODE), st.sampled_from(SECRETS), code_fence(), tagged(), key_info,
    st.integers(1, 40).map(data_uri), long_output(), st.just(""), st.just("\n\n\n\n"),
)


@st.composite
def text(draw: st.DrawFn, max_fragments: int = 5) -> str:
    if max_fragments not in _FRAGMENTS:
        _FRAGMENTS[max_fragments] = st.lists(fragment, min_size=1, max_size=max_fragments)
    parts = draw(_FRAGMENTS[max_fragments])
    sep = draw(_SEP)
    return sep.join(parts)


short_text = st.one_of(words, st.sampled_from(UNICODE), key_info, st.sampled_from(PATHS).map("open {}".format))


# Strategy objects are built once: building them inside a draw loop costs more than drawing.
BOOL = st.booleans()
_ONE_IN = {k: st.integers(0, k - 1) for k in (3, 4, 5, 6, 8, 10)}


def one_in(draw: st.DrawFn, k: int) -> bool:
    """True with a chance of about 1/k."""
    return draw(_ONE_IN[k]) == 0


TEXT2, TEXT3, TEXT4 = text(2), text(3), text(4)
MAYBE_TEXT2, MAYBE_TEXT3 = st.none() | TEXT2, st.none() | TEXT3
TOOL_OUTPUT = st.one_of(TEXT4, long_output(), st.just(""), short_text)
USER_TEXT = st.one_of(short_text, TEXT3)
FINAL_USER = st.none() | short_text | TEXT3
CALL_COUNT = st.sampled_from((0, 0, 1, 1, 1, 2, 3))
ID_SUFFIX = st.sampled_from("abcXYZ")
RESULT_IMAGE = st.sampled_from((0, 0, 0, 0, 3))
USER_IMAGE = st.sampled_from((0, 0, 0, 5))
COMMANDS = st.sampled_from(("pytest -q", "ls -la", "git status", "npm test"))
PATH = st.sampled_from(PATHS)
URL = st.sampled_from(URLS)
LONG_OUTPUT = long_output()

# ---------------------------------------------------------------------------------------------
# The neutral script


@dataclass
class Call:
    id: str
    name: str
    args: dict[str, Any]
    output: str | None  # None: interrupted (the call has no result)
    is_error: bool = False
    image: int = 0  # > 0: the result also carries an image of this many repeats


@dataclass
class Step:
    """One assistant step: optional thinking and text, then parallel tool calls."""

    thinking: str | None
    text: str | None
    calls: list[Call]


@dataclass
class Round:
    user: str
    user_image: int  # > 0: the user message carries an image
    steps: list[Step]
    orphan: tuple[str, str] | None = None  # (call id, output) of a result whose call is missing


@dataclass
class Script:
    system: str | None
    rounds: list[Round]
    final_user: str | None  # a last user ask with nothing after it

    @property
    def interrupted(self) -> bool:
        return any(c.output is None for r in self.rounds for s in r.steps for c in s.calls) or any(
            r.orphan for r in self.rounds)


TOOLS = ("Bash", "Read", "Edit", "Grep", "shell", "web_fetch")
TOOL_NAME = st.sampled_from(TOOLS)


@st.composite
def tool_args(draw: st.DrawFn, name: str) -> dict[str, Any]:
    if name in ("Bash", "shell"):
        args: dict[str, Any] = {"command": draw(COMMANDS)}
    elif name in ("Read", "Grep"):
        args = {"file_path": draw(PATH), "pattern": draw(words)}
    elif name == "Edit":
        args = {"file_path": draw(PATH), "old_string": draw(TEXT2), "new_string": draw(TEXT2)}
    else:
        args = {"url": draw(URL), "prompt": draw(short_text)}
    if one_in(draw, 6):
        args["content"] = draw(LONG_OUTPUT)
    return args


@st.composite
def scripts(draw: st.DrawFn, max_rounds: int = 5) -> Script:
    counter = iter(range(10_000))
    rounds = []
    for _ in range(draw(st.integers(1, max_rounds))):
        steps = []
        for _ in range(draw(st.integers(1, 3))):
            calls = []
            for _ in range(draw(CALL_COUNT)):
                name = draw(TOOL_NAME)
                output = draw(TOOL_OUTPUT)
                calls.append(Call(id=f"call_{next(counter):03d}_{draw(ID_SUFFIX)}", name=name,
                                  args=draw(tool_args(name)), output=output, is_error=draw(BOOL),
                                  image=draw(RESULT_IMAGE)))
            steps.append(Step(thinking=draw(MAYBE_TEXT3), text=draw(MAYBE_TEXT3), calls=calls))
        rounds.append(Round(user=draw(USER_TEXT), user_image=draw(USER_IMAGE),
                            steps=steps))
    # Interrupted turns: a call without its result, or a result without its call (rare).
    if one_in(draw, 4):
        calls = [c for r in rounds for s in r.steps for c in s.calls]
        if calls and draw(BOOL):
            draw(st.sampled_from(calls)).output = None
        else:
            draw(st.sampled_from(rounds)).orphan = (f"call_orphan_{next(counter)}", draw(TEXT2))
    return Script(system=draw(MAYBE_TEXT2), rounds=rounds, final_user=draw(FINAL_USER))


# ---------------------------------------------------------------------------------------------
# Cases


@dataclass
class Case:
    """One generated input. `value` is the Python object; `jsonl` the file text (JSONL formats).

    For JSONL formats `value` holds the parsed records (no damaged lines); `jsonl` may hold a
    damaged line on top, which is copied through unchanged.
    """

    format: str
    value: Any
    jsonl: str | None = None
    interrupted: bool = False
    notes: list[str] = field(default_factory=list)

    @property
    def source(self) -> str:
        return f"generated.{'jsonl' if self.jsonl is not None else 'json'}"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:  # what Hypothesis prints
        printer.text(repr(self))

    def __repr__(self) -> str:
        body = self.jsonl if self.jsonl is not None else json.dumps(self.value, ensure_ascii=False)
        shown = body if len(body) <= 3000 else body[:1500] + f" …[{len(body) - 3000:,} chars]… " + body[-1500:]
        return (f"Case(format={self.format!r}, interrupted={self.interrupted}, notes={self.notes}, "
                f"{'jsonl' if self.jsonl is not None else 'value'}={shown})")


def to_jsonl(records: list[Any], damaged: dict[int, str] | None = None, *, ascii_only: bool = False,
             crlf: bool = False) -> str:
    """JSONL text of `records`; `damaged` inserts raw non-JSON lines before the given indices."""
    damaged = damaged or {}
    lines = []
    for i, rec in enumerate(records):
        if i in damaged:
            lines.append(damaged[i])
        lines.append(json.dumps(rec, ensure_ascii=ascii_only, separators=(",", ":")))
    if len(records) in damaged:
        lines.append(damaged[len(records)])
    end = "\r\n" if crlf else "\n"
    return end.join(lines) + end


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


@st.composite
def anthropic(draw: st.DrawFn) -> Case:
    s = draw(scripts())
    body = s.system is not None and draw(BOOL)
    messages = anthropic_messages(draw, s, force_marker=not body)
    if not body:
        return Case("anthropic", messages, interrupted=s.interrupted)
    system: Any = s.system
    if draw(BOOL):
        system = [{"type": "text", "text": s.system, "cache_control": {"type": "ephemeral"}}]
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
    if s.final_user is not None:
        user_text(s.final_user)
    passthrough()
    damaged = {}
    if one_in(draw, 4):
        damaged[draw(st.integers(1, len(records)))] = draw(st.sampled_from(DAMAGED_LINES))
    text_ = to_jsonl(records, damaged, ascii_only=draw(BOOL))
    notes = ["damaged line"] if damaged else []
    return Case("claude_code", records, jsonl=text_, interrupted=s.interrupted, notes=notes)


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
