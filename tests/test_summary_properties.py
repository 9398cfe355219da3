"""The deterministic fallback summary on generated and real conversations: bounded, non-empty,
deterministic, merging a previous summary (hypothesis), and its facts on every corpus session."""

from __future__ import annotations

import copy
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from summary_helpers import call, corpus_conversations, corpus_files, latest_ask, section_body, session_text

from sanitizer import digest
from sanitizer.summary import summarize_messages
from sanitizer.textkit.snippets import one_line

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures" / "summary"
CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
UPDATE = os.environ.get("SANITIZER_UPDATE") == "1"


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
    if ask is None:  # no person's ask (Claude Code's compaction agent): the section says so
        assert s["Active Task"] == []
        assert "## Active Task\n(none)" in text
    else:
        assert s["Active Task"] == [ask]
    calls = [(tc["function"]["name"], tc["function"]["arguments"]) for m in messages for tc in m.get("tool_calls") or []]
    actions = section_body(text, "Completed Actions")
    # The last 20 targets always fit unless the latest ask alone takes most of the budget (an
    # OpenHands task prompt of 5,652 chars in 8,000): it is kept verbatim first, then as many
    # of the most recent actions as fit.
    roomy = len(ask or "") <= summary.max_chars // 2
    for name, arguments in calls[-20 if roomy else -10:]:
        target = one_line(digest.describe_call(name, arguments).target)
        # ("clip", 60) shortens a whole item, its verb and backtick included
        target = target if roomy else target[:48]
        assert target in actions, f"{path.name}: target of a recent call missing: {target[:80]}"
    everything = session_text(messages)
    for file in s["Relevant Files"]:
        assert file in everything, f"{path.name}: {file!r} is not in the session"
    assert summary == summarize_messages(messages)
