"""Record kinds of current Claude Code (2.1.x) and Hermes exports, and every corpus file whatever its
folder.  Corpus files are read in place; each skips when `../shared/` is absent."""

from __future__ import annotations

import json

import pytest
from conftest import CORPUS, pairs
from hypothesis import given
from hypothesis import strategies as st
from shape_helpers import corpus

from sanitizer import Sanitizer
from sanitizer.document.loader import from_text, to_text
from sanitizer.formats import detect
from sanitizer.transcript import to_messages

# -- Claude Code 2.1.x -------------------------------------------------------------------------

SPOTTER = "spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl"


def test_claude_code_placeholder_signatures_are_not_signatures() -> None:
    _, doc, [view] = corpus("claude_code_jsonl", SPOTTER)
    thinking = [p for p in view.parts if p.kind == "thinking"]
    assert len(thinking) == 19 and not any(p.signed for p in thinking)
    line = {"type": "assistant", "uuid": "u", "sessionId": "s", "message": {
        "id": "m", "role": "assistant", "content": [{"type": "thinking", "thinking": "hm", "signature": "EqQBCkgIBRAB"}]}}
    doc = from_text(json.dumps(line) + "\n", "s.jsonl")
    [view] = detect(doc).views(doc)
    assert view.parts[0].signed


def test_claude_code_split_message_with_early_results_stays_one_message() -> None:
    _, _, [view] = corpus("claude_code_jsonl", SPOTTER)
    msg = next(m for m in view.messages if 556 in m.records)  # lines 557, 562 and 570 (0-based 556 …)
    assert msg.records == [556, 561, 569]
    assert [p.call_id for p in view.parts_of(msg)] == [
        "toolu_01CBevthT8P1Xo9f9tfV53RS", "toolu_017RojS4MxMsfVkFtTmifv6N", "toolu_012w5qBPfp5aDXt8TFhjv8w5"]
    calls, results, answered = pairs(view)
    assert calls == 186 and results == answered


def test_claude_code_progress_records_pass_through_and_are_never_rendered() -> None:
    raw, doc, [view] = corpus("claude_code_jsonl", SPOTTER)
    progress = {i for i, r in enumerate(doc.records) if isinstance(r, dict) and r.get("type") == "progress"}
    assert len(progress) == 1333
    assert not progress & {r for m in view.messages for r in m.records}
    assert to_text(doc) == raw


def test_claude_code_compaction_agent_prompt_is_not_a_persons_ask() -> None:
    _, _, [view] = corpus("claude_code_jsonl", "spotter__agent-acompact-fffbd0.jsonl")
    users = [m for m in view.messages if m.role == "user"]
    assert len(users) == 3 and all(m.meta["injected"] and m.meta["sidechain"] for m in users)


# -- Hermes session export -----------------------------------------------------------------------

def test_hermes_export_is_one_view_per_session_with_its_system_prompt() -> None:
    raw, doc, views = corpus("hermes_session", "hermes-agent__exprted.jsonl")
    assert views[0].adapter.name == "hermes" and len(views) == 19
    assert sum(pairs(v)[0] for v in views) == 125 and sum(pairs(v)[2] for v in views) == 125
    with_prompt = [v for v in views if v.messages and v.messages[0].role == "system"]
    assert len(with_prompt) == 17  # two sessions have an empty system_prompt
    roles = {m.role for v in views for m in v.messages}
    assert roles == {"system", "user", "assistant", "tool"}  # session_meta rows pass through
    assert to_text(doc) == raw
    result = Sanitizer("default").sanitize_text(raw, "export.jsonl")
    assert len(result.dumps().splitlines()) == 19


def test_claude_code_subagent_files_are_linked_to_their_task_call() -> None:
    _, _, [view] = corpus("claude_code_jsonl", SPOTTER)
    assert view.meta["subagents"] == {"a881341": "toolu_01VmaERAwhb19LGUwu9GenaK"}
    [task] = [p for p in view.parts if p.kind == "tool_call" and p.tool == "Task"]
    assert task.call_id == "toolu_01VmaERAwhb19LGUwu9GenaK" and task.meta["agent_id"] == "a881341"
    _, _, [sub] = corpus("claude_code_jsonl", "spotter__agent-a881341.jsonl")
    assert sub.meta["agent_id"] == "a881341"


def test_claude_code_inline_sidechain_is_linked_to_the_open_task_call() -> None:
    def line(kind: str, content: list, side: bool = False) -> str:
        return json.dumps({"type": kind, "uuid": kind, "sessionId": "s", "isSidechain": side,
                           "message": {"role": kind, "content": content}})
    text = "\n".join([
        line("user", [{"type": "text", "text": "Research the hooks."}]),
        line("assistant", [{"type": "tool_use", "id": "t1", "name": "Task", "input": {"prompt": "Read the docs."}}]),
        line("user", [{"type": "text", "text": "Read the docs."}], side=True),
        line("assistant", [{"type": "text", "text": "The docs say X."}], side=True),
        line("user", [{"type": "tool_result", "tool_use_id": "t1", "content": "X"}]),
        line("assistant", [{"type": "text", "text": "Done."}]),
    ]) + "\n"
    doc = from_text(text, "s.jsonl")
    [view] = detect(doc).views(doc)
    linked = [m.meta.get("parent_call") for m in view.messages]
    assert linked == [None, None, "t1", "t1", None, None]


def test_claude_code_ansi_escapes_are_stripped_in_renderings_only() -> None:
    from sanitizer.transcript import to_text as render
    raw, doc, [view] = corpus("claude_code_jsonl", SPOTTER)
    assert "\x1b[" in "".join(p.text for p in view.parts)
    assert "\x1b" not in render(view)
    assert "\x1b" not in json.dumps(to_messages(view), ensure_ascii=False)
    assert to_text(doc) == raw  # the same-format copy keeps the bytes


def test_claude_code_notifications_interruptions_and_subagent_prompts_are_not_asks() -> None:
    from sanitizer.scope import is_user_ask

    def line(kind: str, content: object, side: bool = False) -> str:
        return json.dumps({"type": kind, "uuid": kind, "sessionId": "s", "isSidechain": side,
                           "message": {"role": kind, "content": content}})
    text = "\n".join([
        line("user", "Find the flaky test."),
        line("assistant", [{"type": "tool_use", "id": "t1", "name": "Task", "input": {"prompt": "Scan tests/."}}]),
        line("user", [{"type": "text", "text": "Scan tests/."}], side=True),
        line("user", [{"type": "tool_result", "tool_use_id": "t1", "content": "test_b is flaky"}]),
        line("user", "<task-notification>\n<task-id>b1</task-id>\n<status>completed</status>\n</task-notification>"),
        line("user", [{"type": "text", "text": "[Request interrupted by user]"}]),
    ]) + "\n"
    doc = from_text(text, "s.jsonl")
    [view] = detect(doc).views(doc)
    asks = [m.index for m in view.messages if is_user_ask(view, m)]
    assert asks == [0]
    from sanitizer.summary import summarize_messages
    summary = summarize_messages(to_messages(view, skip_injected=True))
    assert summary.sections["Active Task"] == ["Find the flaky test."]


def test_claude_code_unknown_record_types_pass_through_and_are_noted() -> None:
    lines = [{"type": "user", "uuid": "a", "sessionId": "s", "message": {"role": "user", "content": "Hi"}},
             {"type": "worktree-state", "uuid": "b", "sessionId": "s", "state": {"x": 1}},
             {"type": "assistant", "uuid": "c", "sessionId": "s",
              "message": {"id": "m", "role": "assistant", "content": [{"type": "text", "text": "Hello"}]}}]
    text = "".join(json.dumps(r) + "\n" for r in lines)
    result = Sanitizer("default", count_tokens=False).sanitize_text(text, "s.jsonl")
    assert result.dumps() == text
    assert any(n.endswith("worktree-state ×1") for n in result.report.notes)


# -- every corpus file, whatever its folder --------------------------------------------------------

ALL_FILES = sorted(p for p in CORPUS.rglob("*") if p.is_file() and p.name != "SOURCES.md") if CORPUS.is_dir() else []


@pytest.mark.parametrize("path", ALL_FILES or [pytest.param(None, marks=pytest.mark.skip(
    reason=f"../shared/corpus not found at {CORPUS}"))], ids=lambda p: p.name if p else "no-corpus")
def test_every_corpus_file_round_trips_and_renders_its_user_turns(path) -> None:  # noqa: ANN001
    from sanitizer.transcript import to_text as render
    from sanitizer.validate import pair_findings

    raw = path.read_bytes().decode("utf-8", errors="surrogateescape")
    result = Sanitizer("none", count_tokens=False).sanitize_text(raw, str(path))
    assert result.dumps() == raw  # byte-for-byte with no rule
    for view in result.views:
        users = [m for m in view.messages if m.role == "user" and any(p.text for p in view.parts_of(m))]
        assert users, f"{path.name}: a conversation without a user turn"
        assert "[USER]: " in render(view)
    before = {f.key for v in result.views for f in pair_findings(v)}
    sanitized = Sanitizer("default", count_tokens=False).sanitize_text(raw, str(path))
    assert {f.key for v in sanitized.views for f in pair_findings(v)} <= before  # pairs intact


@given(st.lists(st.tuples(st.text(alphabet=st.characters(blacklist_characters="\x1b"), max_size=20),
                          st.sampled_from(["\x1b[1m", "\x1b[22m", "\x1b[38;5;208m", "\x1b[2K", "\x1b[?25l",
                                           "\x1b]8;;http://x\x07", "\x1b]0;title\x1b\\", "\x1bM", ""])), max_size=8))
def test_strip_ansi_removes_escapes_and_keeps_every_other_character(pieces: list[tuple[str, str]]) -> None:
    from sanitizer.transcript import strip_ansi

    text = "".join(t + esc for t, esc in pieces)
    plain = "".join(t for t, _ in pieces)
    assert strip_ansi(text) == plain
    assert strip_ansi(plain) == plain
