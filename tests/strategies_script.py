"""Hypothesis strategies, part one: text fragments, neutral conversation scripts and `Case`.

A script (system, user asks, assistant steps with parallel tool calls and their results) is drawn
here without any format; `strategies_json.py` and `strategies.py` render it in each format.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

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
           "AKIA" + "Q3EGRTLP7VMZ2XKD", "Authorization: Bearer " + "eyJhbGciOiJIUzI1NiJ9" * 3)
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

_KEY_INFO_SHAPE = st.sampled_from(("closed", "nested", "unclosed", "in-tag", "crossed", "error-line",
                                   "error-inside", "long-body"))
_HOST_TAG = st.sampled_from(("thinking", "think", "tool_result", "history", "file_content"))


@st.composite
def protected_block(draw: st.DrawFn) -> str:
    """A `<key_info>` block in the shapes that broke protection: nested, unclosed, inside or
    crossing an edited tag, on an error line a digest quotes, holding an error line, or long."""
    body = draw(key_info_body)
    shape = draw(_KEY_INFO_SHAPE)
    if shape == "nested":
        return f"<key_info>outer {body} <key_info>inner {draw(words)}</key_info> tail</key_info>"
    if shape == "unclosed":
        return f"<key_info>{body}"
    if shape == "in-tag":
        tag = draw(_HOST_TAG)
        return f"<{tag}>{draw(LONG_OUTPUT)}\n<key_info>{body}</key_info>\n{draw(LONG_OUTPUT)}</{tag}>"
    if shape == "crossed":
        return f"<key_info>{body} <think>{draw(words)}</key_info> {draw(words)}</think>"
    if shape == "error-line":
        return f"{draw(_ERROR_LINE)} <key_info>{body}</key_info>"
    if shape == "error-inside":
        return f"<key_info>{body}\n{draw(_ERROR_LINE)}\n</key_info>"
    if shape == "long-body":
        return f"<key_info>{body}\n{draw(LONG_OUTPUT)}</key_info>"
    return f"<key_info>{body}</key_info>"


@st.composite
def buried_key_info(draw: st.DrawFn) -> str:
    """A long output with protected blocks between its lines (where cuts, digests and quotes fall)."""
    lines = draw(LONG_OUTPUT).split("\n")
    for _ in range(draw(st.integers(1, 3))):
        lines.insert(draw(st.integers(0, len(lines))), draw(protected_block()))
    return "\n".join(lines)

fragment = st.one_of(
    words, words, st.sampled_from(URLS), st.sampled_from(PATHS), st.sampled_from(ERROR_LINES),
    st.sampled_from(UNICODE), st.sampled_from(SECRETS), code_fence(), tagged(), key_info,
    st.integers(1, 40).map(data_uri), long_output(), st.just(""), st.just("\n\n\n\n"),
    protected_block(), buried_key_info(),
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
TOOL_OUTPUT = st.one_of(TEXT4, long_output(), st.just(""), short_text, buried_key_info())
USER_TEXT = st.one_of(short_text, TEXT3)
FINAL_USER = st.none() | short_text | TEXT3
CALL_COUNT = st.sampled_from((0, 0, 1, 1, 1, 2, 3))
ID_SUFFIX = st.sampled_from("abcXYZ")
RESULT_IMAGE = st.sampled_from((0, 0, 0, 0, 3))
USER_IMAGE = st.sampled_from((0, 0, 0, 5))
COMMANDS = st.sampled_from(("pytest -q", "ls -la", "git status", "npm test",
                            "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: src/a.py\n@@\n-x = 1\n+x = 2\n"
                            "*** End Patch\nEOF"))
PATH = st.sampled_from(PATHS)
URL = st.sampled_from(URLS)
LONG_OUTPUT = long_output()
LONG_OR_BURIED = st.one_of(LONG_OUTPUT, buried_key_info())

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


TOOLS = ("Bash", "Read", "Edit", "Grep", "shell", "web_fetch", "TodoWrite", "update_plan")
PLAN_STEPS = ("Read the code", "Fix the parser", "Add tests", "Update docs")
PLAN_STATUS = st.sampled_from(("pending", "in_progress", "completed"))
TOOL_NAME = st.sampled_from(TOOLS)


@st.composite
def tool_args(draw: st.DrawFn, name: str) -> dict[str, Any]:
    if name in ("TodoWrite", "update_plan"):  # whole todo/plan states (trim-call-args diffs them)
        steps = draw(st.lists(st.sampled_from(PLAN_STEPS), min_size=1, max_size=4, unique=True))
        if name == "TodoWrite":
            return {"todos": [{"content": s, "status": draw(PLAN_STATUS), "activeForm": s + "ing"} for s in steps]}
        return {"plan": [{"step": s, "status": draw(PLAN_STATUS)} for s in steps]}
    if name in ("Bash", "shell"):
        args: dict[str, Any] = {"command": draw(COMMANDS)}
        if draw(BOOL):
            args["description"] = draw(short_text)
            args["timeout"] = 120000
    elif name in ("Read", "Grep"):
        args = {"file_path": draw(PATH), "pattern": draw(words)}
    elif name == "Edit":
        args = {"file_path": draw(PATH), "old_string": draw(TEXT2), "new_string": draw(TEXT2)}
    else:
        args = {"url": draw(URL), "prompt": draw(short_text)}
    if one_in(draw, 6):
        args["content"] = draw(LONG_OR_BURIED)
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
