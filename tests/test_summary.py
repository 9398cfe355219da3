"""The deterministic fallback summary (`sanitizer.summary`, DESIGN §8).

Pinned outputs live in `fixtures/summary/<name>.json` (normalized chat messages written for the
project) + `<name>.md` (the expected summary).  After an intended change, rewrite them with

    SANITIZER_UPDATE=1 pytest tests/test_summary.py

and review the `.md` changes as a git diff.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from summary_helpers import call, section_body

from sanitizer.summary import TITLES, parse_summary, summarize_messages

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures" / "summary"
CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
UPDATE = os.environ.get("SANITIZER_UPDATE") == "1"


# ---------------------------------------------------------------------------------------------
# Helpers


def load_fixture(name: str) -> list[dict[str, Any]]:
    return json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))


PREVIOUS = """## Active Task
Compare the retry policies of both SDKs.

## Goal
- (turn 1) Make our API client survive rate limits and overloads.

## Constraints & Preferences
- (turn 1) Never retry a request that is not idempotent.

## Completed Actions
1. read `client/retry.py` — 80 lines [tool: Read]
2. searched `retry-after` in `client` — 3 lines [tool: Grep]

## Active State
- Working directory: /work/api-client

## Key Decisions
- (turn 2) I will use exponential backoff with jitter instead of fixed sleeps.

## Pending User Asks
- (turn 2) Does the SDK already honour retry-after?

## Relevant Files
- client/retry.py
"""

# name of the pinned .md -> (fixture json, keyword arguments of summarize_messages)
PINNED: dict[str, tuple[str, dict[str, Any]]] = {
    "bugfix_session": ("bugfix_session", {}),
    "refactor_session": ("refactor_session", {}),
    "research_session": ("research_session", {}),
    "research_session.merged_focus": ("research_session", {
        "previous_summary": PREVIOUS, "focus": "retry-after",
        "reason": "summarizer #0 timed out after 60 s", "max_chars": 2500}),
    "bugfix_session.budget_900": ("bugfix_session", {"max_chars": 900}),
}


# ---------------------------------------------------------------------------------------------
# Pinned outputs


@pytest.mark.parametrize("name", sorted(PINNED))
def test_pinned_summary_matches_fixture(name: str) -> None:
    fixture, kwargs = PINNED[name]
    text = summarize_messages(load_fixture(fixture), **kwargs).text
    expected_path = FIXTURES / f"{name}.md"
    if UPDATE:
        expected_path.write_text(text, encoding="utf-8")
    assert expected_path.exists(), f"{expected_path} missing: run SANITIZER_UPDATE=1 pytest tests/test_summary.py"
    assert text == expected_path.read_text(encoding="utf-8"), (
        f"{name}: summary changed; if intended, run SANITIZER_UPDATE=1 pytest tests/test_summary.py and review the diff")


def test_bugfix_session_facts() -> None:
    summary = summarize_messages(load_fixture("bugfix_session"))
    s = summary.sections
    assert s["Active Task"] == ["ok, run the whole suite, push the branch and open a PR."]
    assert "(turn 1) Never push to main; work on a branch." in s["Constraints & Preferences"]
    assert any(x.startswith("2. ran `python -m pytest tests/test_invoice.py -q` — exit 1") for x in s["Completed Actions"])
    assert "Git branch: fix/discount-rounding" in s["Active State"]
    assert "Last test run: `python -m pytest -q` — passed: 20 passed in 0.48s" in s["Active State"]
    # the failing test run was followed by a passing one: only the PR failure is still blocking
    assert len(s["Blocked"]) == 1 and "gh pr create" in s["Blocked"][0]
    assert s["Pending User Asks"] == ["(turn 3) ok, run the whole suite, push the branch and open a PR."]


def test_refactor_session_facts() -> None:
    s = summarize_messages(load_fixture("refactor_session")).sections
    assert s["Remaining Work"] == [
        "Create payments/providers/paypal.py (in progress)",
        "Keep payments/gateway.py as a thin facade with the old names (pending)",
        "Run tests/payments (pending)",
    ]
    assert any("deprecated alias" in x for x in s["Pending User Asks"])
    assert "Working directory: /srv/shop-api" in s["Active State"]
    assert any("instead of a base class" in x for x in s["Key Decisions"])


# ---------------------------------------------------------------------------------------------
# Determinism and the input contract


def test_same_output_twice_in_one_process() -> None:
    for fixture, kwargs in PINNED.values():
        messages = load_fixture(fixture)
        assert summarize_messages(messages, **kwargs) == summarize_messages(messages, **kwargs)


SUBPROCESS_SCRIPT = """
import json, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from test_summary import PINNED, load_fixture
from sanitizer.summary import summarize_messages
out = {name: summarize_messages(load_fixture(f), **kw).text for name, (f, kw) in sorted(PINNED.items())}
sys.stdout.write(json.dumps(out, sort_keys=True))
"""


def test_same_output_across_processes_with_different_hash_seeds() -> None:
    outputs = []
    for seed in ("1", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run([sys.executable, "-c", SUBPROCESS_SCRIPT, str(Path(__file__).parent)],
                              capture_output=True, text=True, env=env, cwd=ROOT, check=True)
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1]
    here = {name: summarize_messages(load_fixture(f), **kw).text for name, (f, kw) in sorted(PINNED.items())}
    assert json.loads(outputs[0]) == here


def test_input_messages_are_not_changed() -> None:
    for fixture, kwargs in PINNED.values():
        messages = load_fixture(fixture)
        before = copy.deepcopy(messages)
        summarize_messages(messages, **kwargs)
        assert messages == before


def test_empty_conversation_says_there_is_nothing_to_summarize() -> None:
    for messages in ([], [{"role": "system", "content": "You are helpful."}],
                     [{"role": "user", "content": "<system-reminder>ctx</system-reminder>"}]):
        summary = summarize_messages(messages)
        assert summary.text.startswith("> Nothing to summarize")
        assert all(f"## {t}" in summary.text for t in TITLES)


def test_reason_is_one_short_note_line_at_the_top() -> None:
    summary = summarize_messages(load_fixture("bugfix_session"), reason="timeout\nafter " + "x" * 500)
    first = summary.text.split("\n", 1)[0]
    assert first.startswith("> Fallback summary (no LLM): timeout after") and len(first) < 260


def test_max_chars_must_be_positive() -> None:
    with pytest.raises(ValueError, match="max_chars"):
        summarize_messages([], max_chars=0)


# ---------------------------------------------------------------------------------------------
# Extraction details


def test_injected_user_text_is_never_the_active_task() -> None:
    messages = [
        {"role": "user", "content": "Rename utils.py to helpers.py.\n<system-reminder>You have 3 todos.</system-reminder>"},
        {"role": "assistant", "content": "Renaming."},
        {"role": "user", "content": "<system-reminder>The user opened src/a.py</system-reminder>"},
        {"role": "user", "content": "<command-name>/cost</command-name>\n<command-message>cost</command-message>"},
        {"role": "user", "content": "Caveat: The messages below were generated by the user while running local commands."},
        {"role": "user", "content": [{"type": "text", "text": "[Request interrupted by user]"}]},
    ]
    s = summarize_messages(messages).sections
    assert s["Active Task"] == ["Rename utils.py to helpers.py."]
    assert s["Goal"] == ["(turn 1) Rename utils.py to helpers.py."]


def test_relevant_files_are_real_paths_only() -> None:
    messages = [
        {"role": "user", "content": "<think>plan</think> See https://example.com/docs/a.py and //example.com/x, "
                                    "then fix src/app.py:12:5 and tests/test_app.py. Also and/or TCP/IP, Node.js."},
        {"role": "assistant", "content": None, "tool_calls": [call("c1", "Read", file_path="/repo/src/app.py")]},
        {"role": "tool", "tool_call_id": "c1", "content": "1\tprint('hi')"},
    ]
    files = summarize_messages(messages).sections["Relevant Files"]
    assert files == ["/repo/src/app.py", "tests/test_app.py", "src/app.py"]


def test_previous_summary_is_merged_not_overwritten() -> None:
    summary = summarize_messages(load_fixture("research_session"), previous_summary=PREVIOUS)
    s = summary.sections
    assert s["Goal"][0] == "(turn 1) Make our API client survive rate limits and overloads."
    assert s["Goal"][1].startswith("(turn 3) Find out how the OpenAI")  # new turns count on from the previous ones
    assert s["Constraints & Preferences"][0] == "(turn 1) Never retry a request that is not idempotent."
    assert s["Completed Actions"][:3] == ["1. read `client/retry.py` — 80 lines [tool: Read]",
                                         "2. searched `retry-after` in `client` — 3 lines [tool: Grep]",
                                         "3. searched `Anthropic API rate limit response headers` — 3 lines [tool: WebSearch]"]
    assert s["Active State"][0] == "Working directory: /work/api-client"
    assert s["Relevant Files"] == ["client/retry.py", "notes/rate-limits.md"]
    assert s["Active Task"] == ["Write the findings to notes/rate-limits.md as a table, one row per provider."]
    # merging the result again adds nothing new
    again = summarize_messages([], previous_summary=summary.text).sections
    assert again["Constraints & Preferences"] == s["Constraints & Preferences"]
    assert again["Completed Actions"] == s["Completed Actions"]


def test_previous_summary_round_trips_through_parse() -> None:
    text = summarize_messages(load_fixture("refactor_session")).text
    parsed = parse_summary(text)
    assert list(parsed) == list(TITLES)
    assert parsed["Remaining Work"] == summarize_messages(load_fixture("refactor_session")).sections["Remaining Work"]


def test_focus_topic_gets_its_own_section() -> None:
    s = summarize_messages(load_fixture("research_session"), focus="retry-after").sections
    assert list(s)[:2] == ["Active Task", "Focus"]
    assert any("retry-after header as the primary backoff signal" in x for x in s["Focus"])


def test_long_session_keeps_the_last_20_actions_and_says_what_was_folded() -> None:
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Clean up every module."}]
    for i in range(300):
        messages.append({"role": "assistant", "content": None,
                         "tool_calls": [call(f"c{i}", "Bash", command=f"ruff check --fix pkg/module_{i:03d}.py")]})
        messages.append({"role": "tool", "tool_call_id": f"c{i}", "content": "All checks passed!"})
    summary = summarize_messages(messages)
    assert len(summary.text) <= 8000
    actions = section_body(summary.text, "Completed Actions")
    assert "earlier completed actions" in actions.split("\n", 1)[0]
    for i in range(280, 300):
        assert f"pkg/module_{i:03d}.py" in actions
    assert summary.omitted["Completed Actions"] + len(summary.sections["Completed Actions"]) == 300


@pytest.mark.parametrize("max_chars", [1, 10, 60, 200, 900, 3000])
def test_tiny_budgets_are_kept_and_never_empty(max_chars: int) -> None:
    for fixture, _ in PINNED.values():
        text = summarize_messages(load_fixture(fixture), max_chars=max_chars).text
        assert 0 < len(text) <= max_chars


def test_a_huge_active_task_is_cut_head_and_tail_with_a_marker() -> None:
    ask = "Please look at this log:\n" + "line of log output\n" * 2000 + "What failed?"
    text = summarize_messages([{"role": "user", "content": ask}], max_chars=4000).text
    assert len(text) <= 4000
    task = section_body(text, "Active Task")
    assert task.startswith("Please look at this log:") and task.rstrip().endswith("What failed?")
    assert "chars of the active task omitted to fit 4000 chars" in task
