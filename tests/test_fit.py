"""Budget mode (`fit`): corpus budgets, GenericAgent failure fixtures, properties, markers, repair."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from conftest import chat_session

from sanitizer.budget.fit import measure
from sanitizer.document import loader
from sanitizer.pipeline import Sanitizer, fit
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
    largest = max(measure(v, san.counter) for v in inp_views)
    for pct in PERCENTS:
        budget = max(1, largest * pct // 100)
        result = san.run(loader.from_text(text, str(path)), budget=budget)
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


def test_rejects_bad_arguments() -> None:
    with pytest.raises(ValueError, match="max_tokens"):
        fit([{"role": "user", "content": "hi"}], 0)
    with pytest.raises(ValueError, match="repair"):
        fit([{"role": "user", "content": "hi"}], 10, repair="fix")


# -- repair -----------------------------------------------------------------------------------------

def test_cli_budget_writes_a_fitted_copy(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from sanitizer.cli.command import main

    src = tmp_path / "chat.json"
    src.write_text(json.dumps(chat_session()), encoding="utf-8")
    run = CliRunner().invoke(main, [str(src), "--budget", "2500", "--report", "json"])
    assert run.exit_code == 0, run.output
    out = json.loads(run.stdout)
    assert out[0]["role"] == "system"
    assert measure(views_of(out)[0], Sanitizer("none").counter) <= 2500


# -- properties -------------------------------------------------------------------------------------
