"""digest.py (call/outcome/digest line), the tool actions, drop-thinking, and their fixture files.

Argument and output shapes below are tiny snippets modelled on real transcripts in
`../shared/corpus/` (Claude Code, Codex rollouts, OpenHands, SWE-agent, tau-bench).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sanitizer.actions import thinking, tools
from sanitizer.actions.base import Action, Context
from sanitizer.digest import (
    VERBS,
    decode_output,
    describe_call,
    digest_line,
    is_digest,
    outcome,
    parse_args,
)
from sanitizer.model import Part

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
FILES = ("digest-tool-result", "compact-tool-args", "dedupe-tool-results", "drop-thinking", "combo-tools")
ACTIONS: dict[str, Action] = {a.name: a for a in (*tools.ACTIONS, *thinking.ACTIONS)}

# ---------------------------------------------------------------------------------------------
# describe_call


@pytest.mark.parametrize(
    ("tool", "args", "verb", "target"),
    [
        ("Bash", {"command": "pytest -q", "description": "Run tests"}, "ran", "pytest -q"),
        ("shell", '{"command":["bash","-lc","sed -n \'1,200p\' docs/fs-scanner.md"]}', "ran",
         "sed -n '1,200p' docs/fs-scanner.md"),
        ("shell", '{"command":["rg","-n","TODO","src"],"timeout_ms":120000}', "ran", "rg -n TODO src"),
        ("local_shell_call", {"type": "exec", "command": ["ls", "-la"]}, "ran", "ls -la"),
        ("exec_command", {"cmd": "cargo test", "workdir": "/repo"}, "ran", "cargo test"),
        ("terminal", {"command": "pwd && ls -la", "security_risk": "LOW"}, "ran", "pwd && ls -la"),
        ("execute_bash", {"command": "python reproduce.py"}, "ran", "python reproduce.py"),
        ("Read", {"file_path": "/repo/src/app.py", "limit": 100, "offset": 200}, "read", "/repo/src/app.py"),
        ("open", {"path": "src/marshmallow/fields.py", "line_number": 1474}, "read", "src/marshmallow/fields.py"),
        ("Write", {"file_path": "C:\\Users\\me\\notes.md", "content": "x" * 500}, "wrote", "C:\\Users\\me\\notes.md"),
        ("Edit", {"file_path": "/repo/a.py", "old_string": "a", "new_string": "b"}, "edited", "/repo/a.py"),
        ("MultiEdit", {"file_path": "/repo/a.py", "edits": [{"old_string": "a", "new_string": "b"}]}, "edited",
         "/repo/a.py"),
        ("str_replace_editor", {"command": "view", "path": "/workspace/hello.py"}, "read", "/workspace/hello.py"),
        ("str_replace_editor", {"command": "create", "path": "/workspace/hello.py", "file_text": "x"}, "wrote",
         "/workspace/hello.py"),
        ("str_replace_editor", {"command": "str_replace", "path": "/w/a.py", "old_str": "a", "new_str": "b"},
         "edited", "/w/a.py"),
        ("Grep", {"pattern": "def main", "path": "src/", "output_mode": "content"}, "searched", "def main"),
        ("Glob", {"pattern": "**/*.py"}, "searched", "**/*.py"),
        ("find_file", {"file_name": "fields.py", "dir": "src"}, "searched", "fields.py"),
        ("WebFetch", {"url": "https://example.com/docs?a=1&b=2", "prompt": "summarize"}, "fetched",
         "https://example.com/docs?a=1&b=2"),
        ("WebSearch", {"query": "tiktoken offline encoding"}, "searched", "tiktoken offline encoding"),
        ("mcp__claude-in-chrome__navigate", {"url": "github.com/anthropics/claude-code", "tabId": 1}, "fetched",
         "github.com/anthropics/claude-code"),
        ("gitmcp__fetch_generic_url_content", '{"url":"https://developer.mozilla.org/en-US/docs/Web/API"}',
         "fetched", "https://developer.mozilla.org/en-US/docs/Web/API"),
        ("Task", {"description": "Explore codebase structure", "prompt": "Explore...", "subagent_type": "Explore"},
         "delegated", "Explore codebase structure"),
        ("get_reservation_details", '{"reservation_id":"ZFA04Y"}', "called", "reservation_id=ZFA04Y"),
        ("search_direct_flight", '{"origin":"JFK","destination":"SEA","date":"2024-05-20"}', "called",
         "origin=JFK, destination=SEA, date=2024-05-20"),
    ],
)
def test_describe_call_knows_tool_families(tool: str, args: Any, verb: str, target: str) -> None:
    info = describe_call(tool, args)
    assert (info.tool, info.verb, info.target) == (tool, verb, target)


def test_describe_call_grep_keeps_search_path() -> None:
    info = describe_call("Grep", {"pattern": "def main", "path": "src/"})
    assert info.where == "src/"
    assert info.phrase() == "searched `def main` in `src/`"


def test_describe_call_finds_files_of_a_codex_apply_patch() -> None:
    patch = ("*** Begin Patch\n*** Update File: src/App.tsx\n@@\n-a\n+b\n*** Add File: src/new.ts\n+x\n"
             "*** Delete File: old.ts\n*** End Patch")
    for args in ({"command": ["apply_patch", patch]},
                 {"command": ["bash", "-lc", f"apply_patch << 'PATCH'\n{patch}\nPATCH"]}):
        info = describe_call("shell", args)
        assert info.verb == "edited"
        assert info.paths == ("src/App.tsx", "src/new.ts", "old.ts")
        assert info.target == "src/App.tsx, src/new.ts, old.ts"
    raw = describe_call("apply_patch", patch)  # Responses custom tool: the input is the patch text
    assert raw.paths == ("src/App.tsx", "src/new.ts", "old.ts")


def test_describe_call_counts_todos() -> None:
    todos = [{"content": "a", "status": "completed", "activeForm": "A"},
             {"content": "b", "status": "in_progress", "activeForm": "B"},
             {"content": "c", "status": "pending", "activeForm": "C"}]
    info = describe_call("TodoWrite", {"todos": todos})
    assert info.verb == "updated todos"
    assert info.target == "3 items (1 completed, 1 in progress, 1 pending)"
    plan = describe_call("update_plan", {"plan": [{"status": "completed", "step": "x"}]})
    assert plan.target == "1 item (1 completed)"


def test_describe_call_handles_missing_and_broken_arguments() -> None:
    assert describe_call("Bash", None).verb == "ran"
    assert describe_call(None, None).tool == "tool"
    info = describe_call("mystery", "not json at all")
    assert (info.verb, info.target) == ("called", "not json at all")


def test_long_command_is_cut_between_words_and_paths_stay_whole() -> None:
    path = "/very/long/path/" + "d" * 60 + "/file.py"
    command = " && ".join(f"python {path} --flag={i}" for i in range(10))
    info = describe_call("Bash", {"command": command})
    assert len(info.target) < 260 and info.target.endswith(" …")
    kept = info.target[:-2]
    assert command.startswith(kept)
    assert command[len(kept)] == " "  # cut at a word boundary, never inside a path


def test_parse_args() -> None:
    assert parse_args('{"a": 1}') == {"a": 1}
    assert parse_args({"a": 1}) == {"a": 1}
    assert parse_args("[1, 2]") is None
    assert parse_args("ls -la") is None
    assert parse_args(None) is None


# ---------------------------------------------------------------------------------------------
# outcome and decode_output


@pytest.mark.parametrize(
    ("output", "code"),
    [
        ("Exit code 1\nFAILED tests/test_a.py::test_x", 1),
        ("Exit code: 0\nWall time: 0.4 seconds\nOutput:\nok", 0),
        ("Hello\n[The command completed with exit code 2.]\n[Current working directory: /w]", 2),
        ("<returncode>1</returncode>\n<output>\nboom\n</output>", 1),
        ('{"output":"rg: error\\n","metadata":{"exit_code":2,"duration_seconds":0.0}}', 2),
        ("failed in sandbox LinuxSeccomp with execution error: sandbox denied exec error, exit code: 1, stdout: ", 1),
        ("plain output without any code", None),
    ],
)
def test_outcome_reads_exit_codes(output: str, code: int | None) -> None:
    assert outcome("Bash", {"command": "x"}, output).exit_code == code


_EXIT_PIECES = ["exit code 2", "EXIT STATUS 3", "exited with code 4", "returncode=5", "Return Code: 6", "ExIt CoDe 7",
                "exİt code 8", "exıt status 9", "return code `10`", "retur", "n code 11", "exi", "t code 12", "ſ", "é",
                "\n", " ", "x", "code 13", "status", "-1", "process exited with code -2"]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(_EXIT_PIECES) | st.text(max_size=8), max_size=12).map("".join), st.integers(0, 600))
def test_loose_exit_phrases_are_read_as_the_whole_search_reads_them(body: str, pad: int) -> None:
    """A chunk holding neither `exit` nor `return` (in any case) is not searched: the code read is
    what searching both ends of the text, as before, gives."""
    from sanitizer.digest import outputs

    for text in (body, "x" * pad + body, body + "y" * pad):
        reference = None
        for chunk in (text[:300], text[-300:]):
            m = outputs._EXIT_LOOSE.search(chunk)
            if m:
                reference = int(m.group(1))
                break
        if all(p.search(text) is None for p in outputs._EXIT_PATTERNS):
            assert outputs.exit_code_of(text) == reference


def test_outcome_counts_lines_of_decoded_codex_output() -> None:
    text = "\n".join(f"line {i}" for i in range(30)) + "\n"
    wrapped = json.dumps({"output": text, "metadata": {"exit_code": 0, "duration_seconds": 0.1}})
    assert wrapped.count("\n") == 0
    res = outcome("shell", {"command": ["bash", "-lc", "ls"]}, wrapped)
    assert (res.lines, res.exit_code, res.failed) == (30, 0, False)


def test_decode_output_unwraps_json_strings_and_text_items() -> None:
    assert decode_output(json.dumps("a\nb\nc")).text == "a\nb\nc"
    items = json.dumps([{"type": "text", "text": "one\ntwo"}, {"type": "text", "text": "three"}])
    assert decode_output(items).text == "one\ntwo\nthree"
    mcp = json.dumps({"content": [{"type": "text", "text": "nope"}], "isError": True})
    assert decode_output(mcp).is_error is True
    data = '{"reservation_id": "ZFA04Y", "status": "ok"}'  # JSON data stays as it is
    assert decode_output(data).text == data


def test_first_error_of_pytest_run_skips_the_exit_line() -> None:
    out = ("Exit code 1\n....F\n=================================== FAILURES ====\n"
           "    def test_total():\n>       assert total() == 3\nE       AssertionError: expected 3\n\n"
           "FAILED tests/test_app.py::test_total - AssertionError: expected 3\n1 failed, 4 passed in 0.1s")
    res = outcome("Bash", {"command": "pytest -q"}, out)
    assert res.failed and res.first_error == "AssertionError: expected 3"


def test_first_error_of_traceback_is_the_exception_line() -> None:
    out = ('Traceback (most recent call last):\n  File "x.py", line 3, in <module>\n    main()\n'
           "ValueError: bad input\n")
    res = outcome("Bash", {"command": "python x.py"}, out)
    assert res.failed and res.first_error == "ValueError: bad input"


def test_first_error_falls_back_to_first_line_and_strips_noise() -> None:
    assert outcome("Read", {}, "<tool_use_error>File does not exist.</tool_use_error>").first_error == \
        "File does not exist."
    assert outcome("Bash", {}, "Exit code 1\nbfg not found").first_error == "bfg not found"
    ansi = "Exit code 1\n\x1b[31mError:\x1b[0m   something   broke\n"
    assert outcome("Bash", {}, ansi).first_error == "Error: something broke"
    long = "Exit code 1\nerror: " + "x" * 500
    assert len(outcome("Bash", {}, long).first_error or "") <= 160


def test_success_never_reports_an_error_line() -> None:
    res = outcome("Grep", {"pattern": "Error"}, "src/a.py:3: raise ValueError('x')\n", is_error=False)
    assert not res.failed and res.first_error is None


# ---------------------------------------------------------------------------------------------
# digest_line


def test_digest_line_examples() -> None:
    out = "Exit code 1\n" + "\n".join(["."] * 44) + "\nE   AssertionError: expected 3\nFAILED x"
    assert digest_line("Bash", '{"command": "pytest -q"}', out) == \
        "[Bash] ran `pytest -q` -> exit 1, 47 lines; 2 error lines: AssertionError: expected 3 | FAILED x"
    assert digest_line("Read", {"file_path": "src/app.py"}, "x\n" * 120) == "[Read] read `src/app.py` -> 120 lines"
    assert digest_line("Grep", {"pattern": "def main", "path": "src/"}, "a\nb\nc") == \
        "[Grep] searched `def main` in `src/` -> 3 lines"
    assert digest_line("Bash", {"command": "true"}, "") == "[Bash] ran `true` -> no output"


def test_digest_line_is_one_line_and_recognised() -> None:
    line = digest_line("Bash", {"command": "cat <<EOF > a.txt\nhello\nEOF"}, "Exit code 2\nboom\nmore")
    assert "\n" not in line and is_digest(line)
    assert "a.txt" in line
    assert not is_digest("[Bash] something else")
    assert not is_digest("a normal\nmulti-line output -> with arrow")


def test_digest_line_quotes_targets_holding_backticks() -> None:
    line = digest_line("Bash", {"command": "echo `date`"}, "Mon")
    assert "`` echo `date` ``" in line


# ---------------------------------------------------------------------------------------------
# Actions called directly


def result_part(text: str, tool: str | None = "Bash", call_id: str | None = "c1", **meta: Any) -> Part:
    return Part(kind="tool_result", role="tool", message=3, record=3, path=(), text=text, tool=tool,
                call_id=call_id, meta=dict(meta))


def call_part(args: str, tool: str = "Bash", call_id: str = "c1") -> Part:
    return Part(kind="tool_call", role="assistant", message=2, record=2, path=(), text=args, tool=tool,
                call_id=call_id)


def test_digest_action_uses_the_call_and_is_idempotent() -> None:
    call = call_part('{"command": "pytest -q"}')
    part = result_part("Exit code 1\n" + "x\n" * 150 + "AssertionError: boom", tool=None)
    ctx = Context(view=None, calls={"c1": call})  # type: ignore[arg-type]
    opts = tools.DigestOptions()
    change = tools.digest_tool_result(part, opts, ctx)
    assert change is not None and change.text.startswith("[Bash] ran `pytest -q` -> exit 1, 152 lines")
    part.text = change.text
    assert tools.digest_tool_result(part, opts, ctx) is None


def test_digest_action_without_call_uses_part_tool_and_is_error() -> None:
    part = result_part("Something went wrong here\n" * 20, tool="Read", call_id="gone", is_error=True)
    change = tools.digest_tool_result(part, tools.DigestOptions(), Context(view=None))  # type: ignore[arg-type]
    assert change is not None
    assert change.text == "[Read] read -> error, 20 lines; first error: Something went wrong here"


def test_compact_keeps_key_order_and_object_type() -> None:
    args = {"file_path": "/r/a.py", "content": "x" * 1000, "n": 3, "flag": True, "nested": {"s": "y" * 300}}
    part = call_part(json.dumps(args), tool="Write")
    change = tools.compact_tool_args(part, tools.CompactOptions(), Context(view=None))  # type: ignore[arg-type]
    assert change is not None
    value = json.loads(change.text)
    assert list(value) == list(args) and value["n"] == 3 and value["flag"] is True
    assert value["file_path"] == "/r/a.py" and "trimmed" in value["content"] and "trimmed" in value["nested"]["s"]


def test_options_reject_bad_values() -> None:
    with pytest.raises(ValueError, match="mode"):
        thinking.DropThinkingOptions(mode="delete")
    with pytest.raises(ValueError, match="placeholder"):
        thinking.DropThinkingOptions(placeholder="[{size}]")
    with pytest.raises(ValueError, match="min-chars"):
        tools.DigestOptions(min_chars=-1)


def test_drop_thinking_replaces_signed_block_whole() -> None:
    part = Part(kind="thinking", role="assistant", message=1, record=1, path=(), text="t" * 1234,
                meta={"signed": True})
    change = thinking.drop_thinking(part, thinking.DropThinkingOptions(), Context(view=None))  # type: ignore[arg-type]
    assert change is not None and change.replace and change.text == "[thinking omitted: 1,234 chars]"
    remove = thinking.drop_thinking(part, thinking.DropThinkingOptions(mode="remove"), Context(view=None))  # type: ignore[arg-type]
    assert remove is not None and remove.drop


def test_every_action_has_doc_and_default_kinds() -> None:
    assert [a.name for a in tools.ACTIONS] == ["dedupe-tool-results", "digest-tool-result", "compact-tool-args"]
    assert [a.name for a in thinking.ACTIONS] == ["drop-thinking"]
    for action in ACTIONS.values():
        assert action.doc.what and action.doc.why and action.doc.loses and action.kinds
        action.options()  # defaults are valid


# ---------------------------------------------------------------------------------------------
# Properties

TOOLS = st.sampled_from(["Bash", "Read", "Write", "Edit", "Grep", "Glob", "WebFetch", "WebSearch", "Task",
                         "TodoWrite", "shell", "apply_patch", "str_replace_editor", "terminal", "mystery",
                         "mcp__x__navigate", None])
JSON_LEAF = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=400))
JSON_VALUE = st.recursive(JSON_LEAF, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)), max_leaves=12)
ARGS = st.one_of(st.none(), st.text(max_size=300), st.dictionaries(st.sampled_from(
    ["command", "file_path", "path", "pattern", "url", "query", "description", "todos", "x"]), JSON_VALUE, max_size=4))


@settings(max_examples=200, deadline=None)
@given(tool=TOOLS, args=ARGS, output=st.text(max_size=600), is_error=st.sampled_from([None, True, False]))
def test_digest_is_deterministic_one_line_and_recognised(tool, args, output, is_error) -> None:
    line = digest_line(tool, args, output, is_error)
    assert line == digest_line(tool, args, output, is_error)
    assert "\n" not in line and is_digest(line)
    assert describe_call(tool, args).verb in VERBS


@settings(max_examples=200, deadline=None)
@given(tool=TOOLS, args=ARGS, output=st.text(min_size=0, max_size=2000), min_chars=st.integers(0, 400))
def test_digest_action_never_grows_and_is_idempotent(tool, args, output, min_chars) -> None:
    call = call_part(json.dumps(args) if not isinstance(args, str) else args, tool=tool or "tool")
    ctx = Context(view=None, calls={"c1": call})  # type: ignore[arg-type]
    part = result_part(output, tool=tool)
    opts = tools.DigestOptions(min_chars=min_chars)
    change = tools.digest_tool_result(part, opts, ctx)
    if change is not None:
        assert len(change.text) < len(output)
        part.text = change.text
        assert tools.digest_tool_result(part, opts, ctx) is None


@settings(max_examples=200, deadline=None)
@given(value=JSON_VALUE, leaf=st.integers(0, 300), total=st.integers(0, 600), head=st.integers(0, 150),
       tail=st.integers(0, 150), compact=st.booleans())
def test_compact_args_always_valid_json_of_same_shape(value, leaf, total, head, tail, compact) -> None:
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":") if compact else None)
    opts = tools.CompactOptions(leaf_chars=leaf, min_chars=total, head=head, tail=tail)
    part = call_part(text)
    change = tools.compact_tool_args(part, opts, Context(view=None))  # type: ignore[arg-type]
    if change is None:
        return
    new = json.loads(change.text)
    assert type(new) is type(value) and len(change.text) < len(text)
    if isinstance(value, dict):
        assert list(new) == list(value)
    part.text = change.text
    assert tools.compact_tool_args(part, opts, Context(view=None)) is None  # type: ignore[arg-type]
