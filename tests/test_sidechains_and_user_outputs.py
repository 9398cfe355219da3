"""Sub-agent turns folded under their Task call (`fold-sidechain`), tool output that arrives as user
text (Cline results, SWE-agent and mini-swe-agent observations), and reasoning with no text.
Corpus files are read in place; each such test skips when `../shared/` is absent."""

from __future__ import annotations

import json

from shape_helpers import corpus

from sanitizer import Sanitizer
from sanitizer.document.loader import from_object, from_text
from sanitizer.formats import by_name, detect
from sanitizer.scope import is_user_ask
from sanitizer.tokens.counter import DEFAULT_ENCODING, TokenCounter
from sanitizer.transcript import to_text
from sanitizer.validate import validate_views

DEFAULT = Sanitizer("default")
PLAIN = Sanitizer("none", count_tokens=False)


# -- an inline sub-agent run (Claude Code 1.0.x writes it into the main file) -------------------

def _rec(kind: str, content: object, uuid: str, parent: str | None, side: bool = False) -> dict:
    rec = {"parentUuid": parent, "isSidechain": side, "sessionId": "s", "type": kind, "uuid": uuid,
           "message": {"role": kind, "content": content}}
    if side:
        rec["agentId"] = "a1b2"
    if kind == "assistant":
        rec["message"]["id"] = f"msg_{uuid}"
    return rec


def inline_session(steps: int = 12) -> str:
    """A main conversation whose one Task call ran a long sub-agent, written inline."""
    log = "\n".join(f"tests/test_{i}.py::test_case PASSED" for i in range(120))
    recs = [_rec("user", "Why does the import fail?", "u1", None),
            _rec("assistant", [{"type": "tool_use", "id": "toolu_T", "name": "Task",
                                "input": {"description": "Investigate", "prompt": "Find why `import app` fails."}}],
                 "a1", "u1"),
            _rec("user", [{"type": "text", "text": "Find why `import app` fails."}], "s0", None, side=True)]
    parent = "s0"
    for k in range(steps):
        failed = k == 3
        recs.append(_rec("assistant", [{"type": "text", "text": f"Step {k}: I run the suite again to compare. " * 4},
                                       {"type": "tool_use", "id": f"toolu_S{k}", "name": "Bash" if k % 3 else "Read",
                                        "input": {"command": f"pytest -q -k case{k}"}}], f"c{k}", parent, side=True))
        body = ("Exit code 1\n" if failed else "Exit code 0\n") + log + (
            "\nE   ModuleNotFoundError: No module named 'app.core'" if failed else "")
        recs.append(_rec("user", [{"type": "tool_result", "tool_use_id": f"toolu_S{k}", "content": body}],
                         f"r{k}", f"c{k}", side=True))
        parent = f"r{k}"
    recs.append(_rec("assistant", [{"type": "text", "text": "Report: app/core.py is missing."}], "s9", parent, side=True))
    recs.append(_rec("user", [{"type": "tool_result", "tool_use_id": "toolu_T",
                               "content": [{"type": "text", "text": "Report: app/core.py is missing."}]}], "u2", "a1"))
    recs += [_rec("assistant", [{"type": "text", "text": f"Noted {k}."}], f"m{k}", "u2") for k in range(10)]
    recs.append(_rec("user", "Create app/core.py.", "u3", "m9"))
    return "".join(json.dumps(r) + "\n" for r in recs)


def test_fold_keeps_every_record_link_and_call_and_the_task_report() -> None:
    text = inline_session()
    result = DEFAULT.sanitize_text(text, "s.jsonl")
    before = [json.loads(x) for x in text.splitlines()]
    after = [json.loads(x) for x in result.dumps().splitlines()]
    assert [(r["uuid"], r["parentUuid"]) for r in after] == [(r["uuid"], r["parentUuid"]) for r in before]
    calls = lambda recs: [b["id"] for r in recs for b in r["message"]["content"]  # noqa: E731
                          if isinstance(b, dict) and b.get("type") == "tool_use"]
    assert calls(after) == calls(before)
    assert after[-12] == before[-12]  # the Task result, in the main chain, carries the report
    assert not validate_views(result.views) or {f.code for f in validate_views(result.views)} <= {
        f.code for f in validate_views(PLAIN.sanitize_text(text, "s.jsonl").views)}
    rendered = to_text(result.views[0])
    assert "[sub-agent a1b2: 12 tool calls (Bash ×8, Read ×4), 1 failed output; errors: " \
           "\"ModuleNotFoundError: No module named 'app.core'\"; its report is the result of Task call toolu_T]" in rendered
    assert "I run the suite again" not in rendered
    assert DEFAULT.sanitize_text(result.dumps(), "s.jsonl").dumps() == result.dumps()  # idempotent


def test_fold_cuts_most_of_the_tokens_a_sub_agent_adds() -> None:
    text = inline_session(steps=30)
    counter = TokenCounter(DEFAULT_ENCODING)
    with_fold = to_text(DEFAULT.sanitize_text(text, "s.jsonl").views[0])
    without = Sanitizer("default", config={"extends": "default", "disable": ["fold-sidechain"]}, count_tokens=False)
    unfolded = to_text(without.sanitize_text(text, "s.jsonl").views[0])
    plain = to_text(PLAIN.sanitize_text(text, "s.jsonl").views[0])
    n_plain, n_unfolded, n_fold = counter.count_many([plain, unfolded, with_fold])
    assert n_fold < n_unfolded < n_plain
    assert n_fold < n_plain * 0.25


def test_fold_changes_nothing_in_claude_code_2_1_files_where_sub_agents_have_their_own_file() -> None:
    """2.1 writes a sub-agent into `subagents/agent-<id>.jsonl`: the main view holds only the Task
    call and its result, and the sub-agent's own file is a conversation of its own."""
    only_fold = Sanitizer("none", config={"extends": "none", "rule": [{"use": "fold-sidechain"}]}, count_tokens=False)
    for name in ("spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl", "spotter__agent-a881341.jsonl",
                 "mclaude__agent-abc3cb6.jsonl"):
        raw, doc, _ = corpus("claude_code_jsonl", name)
        result = only_fold.sanitize_text(raw, name)
        assert result.dumps() == raw, name


# -- tool output as user text -------------------------------------------------------------------

ENV = "<environment_details>\n# Current Working Directory (/repo) Files\nsrc/app.ts\n</environment_details>"
LOG = "Command executed.\nOutput:\n" + "\n".join(f"  PASS src/m{i}.test.ts" for i in range(30)) + \
    "\n  FAIL src/app.test.ts\n    TypeError: Cannot read properties of undefined (reading 'id')"


def cline_history() -> list[dict]:
    return [
        {"role": "user", "content": [{"type": "text", "text": "<task>\nFix the failing test.\n</task>"},
                                     {"type": "text", "text": ENV}]},
        {"role": "assistant", "content": [{"type": "text", "text": "<execute_command>\n<command>npm test</command>\n"
                                                                   "</execute_command>"}]},
        {"role": "user", "content": [{"type": "text", "text": "[execute_command for 'npm test'] Result:"},
                                     {"type": "text", "text": LOG}, {"type": "text", "text": ENV}]},
        {"role": "assistant", "content": [{"type": "text", "text": "<ask_followup_question>\n<question>Keep the id?"
                                                                   "</question>\n</ask_followup_question>"}]},
        {"role": "user", "content": [{"type": "text", "text": "[ask_followup_question for 'Keep the id?'] Result:"},
                                     {"type": "text", "text": "<answer>\nYes, never drop it.\n</answer>"},
                                     {"type": "text", "text": ENV}]},
        {"role": "assistant", "content": [{"type": "text", "text": "<read_file>\n<path>src/app.ts</path>\n</read_file>"}]},
        {"role": "user", "content": [{"type": "text", "text": "[read_file for 'src/app.ts'] Result:"},
                                     {"type": "text", "text": "The tool execution failed with the following error:\n"
                                                              "<error>\nError reading file: ENOENT\n</error>"},
                                     {"type": "text", "text": ENV}]},
    ]


def test_cline_results_are_marked_as_tool_output_by_either_reader() -> None:
    for fmt in ("anthropic", "openai_chat"):
        doc = from_object(cline_history())
        [view] = by_name(fmt).views(doc)
        marked = [(p.message, p.meta["tool_output"]) for p in view.parts if "tool_output" in p.meta]
        assert marked == [
            (2, {"tool": "execute_command", "args": '{"command": "npm test"}', "is_error": None}),
            (6, {"tool": "read_file", "args": '{"path": "src/app.ts"}', "is_error": True}),
        ], fmt
        asks = [m.index for m in view.messages if is_user_ask(view, m)]
        assert asks == [0, 4], fmt  # the task and the person's answer; never a tool's output


def test_the_latest_cline_output_is_never_taken_for_the_latest_ask() -> None:
    history = cline_history()
    result = Sanitizer("default", keep_recent=0, count_tokens=False).sanitize(history)
    out = result.output
    assert out[4] == history[4]  # the answer to the follow-up question is the latest ask: verbatim
    assert out[2]["content"][1]["text"] == ("[execute_command] ran `npm test` -> error, 34 lines; first error: "
                                            "TypeError: Cannot read properties of undefined (reading 'id')")
    assert out[2]["content"][0] == history[2]["content"][0]
    # The environment block repeats message 0's: dedupe-boilerplate keeps the first copy only.
    assert out[0]["content"][1]["text"] == ENV and out[2]["content"][2]["text"] == "<environment_details>[same as message 0]</environment_details>"
    again = Sanitizer("default", keep_recent=0, count_tokens=False).sanitize(out)
    assert again.output == out


def test_swe_agent_and_mini_swe_agent_observations_are_tool_output() -> None:
    for folder, name in (("swe_agent_traj", "sweagent__pydicom__pydicom-1458.traj"),
                         ("mini_swe_agent", "mini-swe-agent__github_issue.traj.json")):
        _, _, [view] = corpus(folder, name)
        observations = [m for m in view.messages if m.meta.get("observation")]
        assert observations, name
        for msg in observations:
            for p in view.parts_of(msg):
                if p.kind == "text":
                    assert p.meta["tool_output"]["tool"] == "bash", name


def test_digested_observations_stay_observations_on_a_second_run() -> None:
    raw, _, _ = corpus("mini_swe_agent", "mini-swe-agent__github_issue.traj.json")
    first = DEFAULT.sanitize_text(raw, "t.traj.json")
    doc = from_text(first.dumps(), "t.traj.json")
    [view] = detect(doc).views(doc)
    [before] = PLAIN.sanitize_text(raw, "t.traj.json").views
    assert [m.meta.get("observation", False) for m in view.messages] == \
        [m.meta.get("observation", False) for m in before.messages]
    assert DEFAULT.sanitize_text(first.dumps(), "t.traj.json").dumps() == first.dumps()


# -- reasoning with no text -----------------------------------------------------------------------

def test_encrypted_reasoning_gets_no_placeholder_in_the_copy_or_the_text() -> None:
    raw, _, _ = corpus("codex_rollout", "codex-session-viewer__example.jsonl")
    result = DEFAULT.sanitize_text(raw, "rollout.jsonl")
    empty_before = [i for i, line in enumerate(raw.splitlines())
                    if '"type": "reasoning"' in line.replace('":"', '": "') and not _summary(line)]
    assert empty_before  # the file has reasoning that is only encrypted
    out_lines = result.dumps().splitlines()
    assert all(not _summary(out_lines[i]) for i in empty_before)
    text = to_text(result.views[0])
    placeholders = text.count("[thinking omitted")
    with_text = sum(1 for p in PLAIN.sanitize_text(raw, "rollout.jsonl").views[0].parts
                    if p.kind == "thinking" and p.text.strip())
    assert placeholders <= with_text


def _summary(line: str) -> list:
    rec = json.loads(line)
    payload = rec.get("payload", rec) if isinstance(rec, dict) else {}
    return payload.get("summary") or [] if isinstance(payload, dict) else []
