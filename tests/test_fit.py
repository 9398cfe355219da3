"""Budget mode (`fit`): corpus budgets, GenericAgent failure fixtures, properties, markers, repair."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sanitizer import loader
from sanitizer.api import Sanitizer
from sanitizer.fit import fit, fit_document, measure, repair_result
from sanitizer.validate import new_findings, pair_findings, validate, validate_views, views_of

ROOT = Path(__file__).resolve().parents[1]
CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
FIXTURES = ROOT / "fixtures" / "fit"
PERCENTS = (10, 30, 50, 90)


@pytest.fixture(scope="module")
def san() -> Sanitizer:
    return Sanitizer("default")


# -- the real corpus --------------------------------------------------------------------------------

def corpus_files() -> list:
    if not CORPUS.is_dir():
        return [pytest.param(None, marks=pytest.mark.skip(reason=f"shared corpus not found at {CORPUS}"))]
    files = sorted(p for p in CORPUS.rglob("*") if p.is_file() and p.name != "SOURCES.md")
    return [pytest.param(p, id=f"{p.parent.name}/{p.name}") for p in files]


@pytest.fixture(scope="module")
def budget_table():
    rows: list[tuple[str, ...]] = []
    yield rows
    if rows:
        head = ("file", "format", "budget", "%", "before", "after", "met", "protected", "stage")
        widths = [max(len(str(r[i])) for r in [head, *rows]) for i in range(len(head))]
        print("\n\nbudget vs achieved (exact cl100k_base tokens; per conversation for datasets: the largest)")
        for r in [head, *rows]:
            print("  ".join(str(c).rjust(w) if i else str(c).ljust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True))))


@pytest.mark.parametrize("path", corpus_files())
def test_corpus_budgets(path: Path, san: Sanitizer, budget_table: list) -> None:
    raw = path.read_bytes()
    text = raw.decode("utf-8", errors="surrogateescape")
    doc = loader.from_text(text, str(path))
    adapter = san.adapter_for(doc)
    inp_views = list(adapter.views(doc))
    inp_findings = validate_views(inp_views)
    largest = max(measure(v, san) for v in inp_views)
    for pct in PERCENTS:
        budget = max(1, largest * pct // 100)
        result = fit_document(san, loader.from_text(text, str(path)), budget)
        info = result.report.extra["budget"]
        out_views = views_of(result)
        new = new_findings(inp_findings, validate_views(out_views, inp_views))
        assert not new, [str(f) for f in new[:5]]
        for view in out_views:  # pairs intact: only the input's own orphans remain
            assert {f.key for f in pair_findings(view)} <= {f.key for f in inp_findings}
        for conv in info["conversations"]:
            fits = conv["tokens_before"] <= budget or conv.get("protected_tokens", 0) <= budget
            if fits and conv.get("why") is None and path.parent.name != "openhands_events":
                assert conv["tokens_after"] <= budget, conv
            if not conv["met"]:
                assert any("budget not met" in n for n in result.report.notes)
        worst = max(info["conversations"], key=lambda c: c["tokens_before"])
        budget_table.append((path.name[:44], result.adapter.name, f"{budget:,}", pct, f"{worst['tokens_before']:,}",
                             f"{worst['tokens_after']:,}", "yes" if worst["met"] else "NO",
                             f"{worst.get('protected_tokens', 0):,}", worst["stage"]))
    assert path.read_bytes() == raw  # read in place, never written


def test_fit_leaves_the_callers_object_untouched_on_real_data(san: Sanitizer) -> None:
    path = CORPUS / "claude_code_jsonl" / "mclaude__343e3472-b9b6-4561-ade0-21d1a4730c11.jsonl"
    if not path.is_file():
        pytest.skip(f"shared corpus not found at {CORPUS}")
    obj = loader.to_object(loader.from_text(path.read_text(encoding="utf-8"), str(path)))
    before = json.dumps(obj, sort_keys=True)
    result = fit(obj, 2000, format="claude_code")
    assert json.dumps(obj, sort_keys=True) == before
    assert result.report.extra["budget"]["met"]
    result.output.clear()  # the result shares nothing with the input
    assert json.dumps(obj, sort_keys=True) == before


# -- GenericAgent failure fixtures ------------------------------------------------------------------

def expand(node: Any) -> Any:
    """Fixture shorthand: {"repeat": TEXT, "times": N} is TEXT repeated N times."""
    if isinstance(node, dict):
        if set(node) == {"repeat", "times"}:
            return node["repeat"] * node["times"]
        return {k: expand(v) for k, v in node.items()}
    if isinstance(node, list):
        return [expand(v) for v in node]
    return node


def fixture_cases() -> list:
    return [pytest.param(p, id=p.stem) for p in sorted(FIXTURES.glob("*.json"))]


@pytest.mark.parametrize("path", fixture_cases())
def test_fit_fixture(path: Path) -> None:
    case = json.loads(path.read_text(encoding="utf-8"))
    inp = expand(case["input"])
    keep = copy.deepcopy(inp)
    result = fit(inp, case["budget"], case.get("preset", "default"), repair=case.get("repair", "report"),
                 format=case.get("format"))
    assert inp == keep
    out = result.output
    text = json.dumps(out, ensure_ascii=False)
    info = result.report.extra["budget"]
    expect = case["expect"]
    assert out, "the list is never emptied"
    if expect.get("within_budget"):
        assert info["tokens_after"] <= case["budget"], result.report.notes
    for i in expect.get("keeps_verbatim", []):
        assert inp[i] in out, f"message {i} not kept verbatim"
    if "first_roles" in expect:
        assert [m["role"] for m in out[: len(expect["first_roles"])]] == expect["first_roles"]
    if "last_role" in expect:
        assert out[-1]["role"] == expect["last_role"]
    if "stage" in expect:  # 1-2: rules only (nothing dropped), 3: turns dropped
        assert info["conversations"][0]["stage"] == expect["stage"]
    for s in expect.get("contains", []):
        assert s in text
    for s in expect.get("absent", []):
        assert s not in text
    for call_id in expect.get("keeps_call_ids", []):
        assert text.count(call_id) >= 2, f"{call_id}: call and result must both stay"
    if expect.get("no_new_findings"):
        assert not new_findings(validate(inp, format=case.get("format")), validate(result, reference=inp))


def test_huge_recent_message_is_trimmed_while_kept() -> None:
    case = json.loads((FIXTURES / "ga_huge_message_in_last_nine.json").read_text(encoding="utf-8"))
    inp = expand(case["input"])
    result = fit(inp, case["budget"], format="openai_chat")
    kept = [m for m in result.output if m.get("tool_call_id") == "call_log"]
    assert len(kept) == 1 and len(kept[0]["content"]) < len(inp[5]["content"]) // 4
    assert result.report.extra["budget"]["conversations"][0]["stage"] == 2  # trimmed, nothing dropped


# -- stages, markers, reports -----------------------------------------------------------------------

def chat_session(turns: int = 30, size: int = 400) -> list[dict[str, Any]]:
    msgs: list[dict[str, Any]] = [{"role": "system", "content": "You are a coding agent."},
                                  {"role": "user", "content": "Make the build green."}]
    for i in range(turns):
        calls = [{"id": f"c{i}_{k}", "type": "function",
                  "function": {"name": ["bash", "read"][k % 2], "arguments": json.dumps({"n": i, "k": k})}}
                 for k in range(2)]
        msgs.append({"role": "assistant", "content": None, "tool_calls": calls})
        msgs += [{"role": "tool", "tool_call_id": c["id"], "name": c["function"]["name"],
                  "content": f"output {i} " + "word " * size} for c in calls]
    msgs += [{"role": "user", "content": "Status?"}, {"role": "assistant", "content": "All green."}]
    return msgs


def test_drops_oldest_turns_behind_one_marker_and_reports_them() -> None:
    inp = chat_session()
    result = fit(inp, 3000, "none", format="openai_chat")
    out = result.output
    info = result.report.extra["budget"]
    assert info["met"] and info["tokens_after"] <= 3000
    assert out[:2] == inp[:2] and out[-2:] == inp[-2:]
    markers = [m for m in out if isinstance(m.get("content"), str) and "earlier messages dropped" in m["content"]]
    assert len(markers) == 1 and out[2] is markers[0] and markers[0]["role"] == "user"
    assert "tool calls (bash×" in markers[0]["content"]
    drop = info["conversations"][0]["dropped"][0]
    assert drop["messages"] > 0 and drop["records"] and drop["first_message"] == 2
    assert any(n.startswith("dropped ") for n in result.report.notes)
    assert not validate(result)


def test_fit_is_deterministic_and_idempotent_in_size() -> None:
    inp = chat_session()
    a, b = fit(inp, 2500, format="openai_chat"), fit(inp, 2500, format="openai_chat")
    assert a.dumps() == b.dumps()
    again = fit(a.output, 2500, format="openai_chat")
    assert again.report.extra["budget"]["tokens_after"] <= 2500


def test_protected_set_over_budget_is_explained() -> None:
    inp = [{"role": "system", "content": "rules " * 3000}, {"role": "user", "content": "go"},
           {"role": "assistant", "content": "ok"}]
    result = fit(inp, 100, "none", format="openai_chat")
    assert result.output == inp
    note = result.report.notes[-1]
    assert "budget not met" in note and "protected set alone" in note and "over the 100 budget" in note


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
    result = fit_document(san, loader.from_text(text, "s.jsonl"), 3000)
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
    result = fit_document(Sanitizer("none"), loader.from_text(text, "d.jsonl"), 2000)
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
    result = fit_document(Sanitizer("none"), loader.from_text(text, "rollout.jsonl"), 1500)
    recs = [json.loads(line) for line in result.dumps().splitlines()]
    marker = next(r for r in recs if "earlier messages dropped" in json.dumps(r))
    assert marker["type"] == "response_item" and marker["payload"]["type"] == "message"
    assert marker["payload"]["content"][0]["type"] == "input_text"
    assert result.report.extra["budget"]["met"] and not validate(result)


def test_rejects_bad_arguments() -> None:
    with pytest.raises(ValueError, match="max_tokens"):
        fit([{"role": "user", "content": "hi"}], 0)
    with pytest.raises(ValueError, match="repair"):
        fit([{"role": "user", "content": "hi"}], 10, repair="fix")


# -- repair -----------------------------------------------------------------------------------------

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


def test_cli_budget_writes_a_fitted_copy(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from sanitizer.cli import main

    src = tmp_path / "chat.json"
    src.write_text(json.dumps(chat_session()), encoding="utf-8")
    run = CliRunner().invoke(main, [str(src), "--budget", "2500", "--report", "json"])
    assert run.exit_code == 0, run.output
    out = json.loads(run.stdout)
    assert out[0]["role"] == "system"
    assert measure(views_of(out)[0], Sanitizer("none")) <= 2500


# -- properties -------------------------------------------------------------------------------------

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
