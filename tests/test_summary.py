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
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sanitizer import digest, read_conversations
from sanitizer.loader import from_text
from sanitizer.summary import (
    TITLES,
    parse_summary,
    summarize_messages,
)
from sanitizer.summary.extract import content_text, user_ask_text
from sanitizer.transcript import to_messages

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures" / "summary"
CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
UPDATE = os.environ.get("SANITIZER_UPDATE") == "1"


# ---------------------------------------------------------------------------------------------
# Helpers


def call(call_id: str, name: str, **args: Any) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}


def corpus_files() -> list[Path]:
    return sorted(p for p in CORPUS.glob("*/*") if p.is_file() and p.name != "SOURCES.md") if CORPUS.is_dir() else []


def corpus_conversations(path: Path) -> list[list[dict[str, Any]]]:
    """Normalized messages (injected records left out) of the first and last conversation of a
    corpus file, read by the library's own readers."""
    views = read_conversations(from_text(path.read_bytes().decode("utf-8"), str(path)))
    chosen = views if len(views) <= 2 else [views[0], views[-1]]
    return [to_messages(v, skip_injected=True) for v in chosen]


def load_fixture(name: str) -> list[dict[str, Any]]:
    return json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))


def session_text(messages: list[dict[str, Any]]) -> str:
    """Everything a path may come from: contents, raw arguments and their decoded string leaves."""
    parts: list[str] = []

    def leaves(value: Any) -> None:
        if isinstance(value, str):
            parts.append(value)
        elif isinstance(value, dict):
            for v in value.values():
                leaves(v)
        elif isinstance(value, list):
            for v in value:
                leaves(v)

    for msg in messages:
        parts.append(content_text(msg.get("content")))
        for tc in msg.get("tool_calls") or []:
            arguments = tc["function"]["arguments"]
            parts.append(arguments)
            leaves(digest.parse_args(arguments))
    return "\n".join(parts)


def latest_ask(messages: list[dict[str, Any]]) -> str | None:
    asks = [user_ask_text(m.get("content")) for m in messages if m.get("role") == "user"]
    asks = [a for a in asks if a is not None]
    return asks[-1] if asks else None


def section_body(text: str, title: str) -> str:
    start = text.index(f"## {title}\n") + len(title) + 4
    end = text.find("\n## ", start)
    return text[start:] if end < 0 else text[start:end]


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


# ---------------------------------------------------------------------------------------------
# Properties over generated conversations

WORDS = st.sampled_from(["fix", "the", "bug", "in", "src/app.py", "never", "push", "must", "always", "prefer",
                         "tests", "why", "Please", "run", "pytest", "</think>", "http://x.io/a/b", "ok", "ünï",
                         "`code`", "\n", "- [ ] todo", "I'll use", "instead of", "?", ".", "/tmp/x.log:12"])
TEXT = st.lists(WORDS, min_size=1, max_size=40).map(" ".join)


@st.composite
def conversations(draw: st.DrawFn) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    if draw(st.booleans()):
        messages.append({"role": "system", "content": draw(TEXT)})
    for turn in range(draw(st.integers(0, 6))):
        messages.append({"role": "user", "content": draw(TEXT)})
        for step in range(draw(st.integers(0, 4))):
            kind = draw(st.sampled_from(["text", "bash", "read", "todo"]))
            if kind == "text":
                messages.append({"role": "assistant", "content": draw(TEXT)})
                continue
            cid = f"call_{turn}_{step}"
            if kind == "bash":
                tc = call(cid, "Bash", command=draw(TEXT))
            elif kind == "read":
                tc = call(cid, "Read", file_path=draw(st.sampled_from(["src/app.py", "/etc/hosts", "README.md"])))
            else:
                tc = call(cid, "TodoWrite", todos=[{"content": draw(TEXT), "status": draw(
                    st.sampled_from(["pending", "in_progress", "completed"]))}])
            messages.append({"role": "assistant", "content": draw(st.none() | TEXT), "tool_calls": [tc]})
            if draw(st.booleans()):
                messages.append({"role": "tool", "tool_call_id": cid,
                                 "content": draw(st.sampled_from(["ok", "Exit code 1\nError: boom", "", "3 passed"]))})
    return messages


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(messages=conversations(), max_chars=st.integers(1, 6000), focus=st.none() | st.sampled_from(["bug", "pytest"]))
def test_property_bounded_nonempty_deterministic(messages: list[dict[str, Any]], max_chars: int, focus: str | None) -> None:
    before = copy.deepcopy(messages)
    first = summarize_messages(messages, focus=focus, max_chars=max_chars)
    assert 0 < len(first.text) <= max_chars
    assert first == summarize_messages(messages, focus=focus, max_chars=max_chars)
    assert messages == before
    ask = latest_ask(messages)
    if ask is not None and max_chars >= len(ask) + 1500:
        assert first.sections["Active Task"] == [ask]
        assert f"## Active Task\n{ask}\n" in first.text


@settings(max_examples=50, deadline=None)
@given(messages=conversations(), previous=conversations())
def test_property_merging_a_previous_summary_keeps_its_items(messages: list[dict[str, Any]],
                                                            previous: list[dict[str, Any]]) -> None:
    prev = summarize_messages(previous, max_chars=100_000)
    merged = summarize_messages(messages, previous_summary=prev.text, max_chars=100_000)
    for key in ("Constraints & Preferences", "Completed Actions", "Key Decisions", "Relevant Files"):
        for item in prev.sections.get(key, []):
            assert item in merged.sections[key]


# ---------------------------------------------------------------------------------------------
# Real sessions (read in place from ../shared/corpus; skipped where it is absent)


def corpus_params() -> list[Any]:
    files = corpus_files()
    if not files:
        reason = f"../shared/corpus not found: {CORPUS} (real-session tests need ../shared beside the clone)"
        return [pytest.param(None, marks=pytest.mark.skip(reason=reason), id="no-corpus")]
    return [pytest.param(p, id=p.name) for p in files]


@pytest.mark.parametrize("path", corpus_params())
def test_corpus_session_summary_properties(path: Path) -> None:
    for messages in corpus_conversations(path):
        check_corpus_summary(path, messages)


def check_corpus_summary(path: Path, messages: list[dict[str, Any]]) -> None:
    summary = summarize_messages(messages)
    text, s = summary.text, summary.sections
    assert 0 < len(text) <= 8000
    ask = latest_ask(messages)
    assert ask is not None and s["Active Task"] == [ask]
    calls = [(tc["function"]["name"], tc["function"]["arguments"]) for m in messages for tc in m.get("tool_calls") or []]
    actions = section_body(text, "Completed Actions")
    # The last 20 targets always fit unless the latest ask alone takes most of the budget (an
    # OpenHands task prompt of 5,652 chars in 8,000): it is kept verbatim first, then as many
    # of the most recent actions as fit.
    roomy = len(ask) <= summary.max_chars // 2
    for name, arguments in calls[-20 if roomy else -10:]:
        target = digest.one_line(digest.describe_call(name, arguments).target)
        target = target if roomy else target[:60]
        assert target in actions, f"{path.name}: target of a recent call missing: {target[:80]}"
    everything = session_text(messages)
    for file in s["Relevant Files"]:
        assert file in everything, f"{path.name}: {file!r} is not in the session"
    assert summary == summarize_messages(messages)
