"""Every real transcript is detected, read, and written back unchanged with no rules."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from conftest import EXAMPLE, corpus_params, expected_format, records

from sanitizer import Sanitizer
from sanitizer.document.loader import from_text, to_text
from sanitizer.formats import detect
from sanitizer.model import Damaged


@pytest.fixture(scope="module")
def identity() -> Sanitizer:
    return Sanitizer("none", count_tokens=False)


@pytest.mark.parametrize("path", corpus_params())
def test_corpus_file_is_detected_as_its_format(path: Path) -> None:
    doc = from_text(path.read_text(encoding="utf-8"), str(path))
    assert detect(doc).name == expected_format(path)


@pytest.mark.parametrize("path", corpus_params())
def test_corpus_file_round_trips_unchanged_with_preset_none(path: Path, identity: Sanitizer) -> None:
    raw = path.read_bytes()
    out = identity.sanitize_file(path).dumps().encode("utf-8", errors="surrogateescape")
    assert records(out) == records(raw)
    assert out == raw  # nothing edited: JSONL lines and JSON text come back byte for byte


@pytest.mark.parametrize("path", corpus_params("claude_code_jsonl"))
def test_damaged_lines_are_reported_and_copied_byte_identical(path: Path, identity: Sanitizer) -> None:
    text = path.read_bytes().decode("utf-8")
    result = identity.sanitize_text(text, str(path))
    damaged = [r for r in result.doc.records if isinstance(r, Damaged) and r.reason != "blank line"]
    assert len(result.report.problems) == len(damaged)
    lines = text.split("\n")
    for rec, problem in zip(damaged, result.report.problems, strict=True):
        assert problem.line == rec.line
        assert lines[rec.line - 1] == rec.raw
        assert str(problem).startswith(f"{path}:{rec.line}: not valid JSON")


@pytest.mark.parametrize("path", corpus_params())
def test_views_pair_calls_and_results_as_the_file_does(path: Path, identity: Sanitizer) -> None:
    result = identity.sanitize_file(path)
    for view in result.views:
        calls = Counter(p.call_id for p in view.parts if p.kind == "tool_call" and p.call_id)
        results = {p.call_id for p in view.parts if p.role == "tool" and p.call_id}
        # Real files have unanswered calls (interrupted turns) but every result has its call.
        assert results <= set(calls) | {None}


def test_claude_code_split_message_is_one_logical_message() -> None:
    result = Sanitizer("none", count_tokens=False).sanitize_file(EXAMPLE)
    view = result.views[0]
    multi = [m for m in view.messages if len(m.records) > 1]
    assert multi, "the example splits one API message over several lines"
    for msg in multi:
        ids = {result.doc.records[r]["message"]["id"] for r in msg.records}
        assert len(ids) == 1


def test_claude_code_tool_use_result_is_linked_as_a_copy() -> None:
    view = Sanitizer("none", count_tokens=False).sanitize_file(EXAMPLE).views[0]
    linked = [p for p in view.parts if p.kind == "tool_result" and p.copies]
    assert linked
    for part in linked:
        for record, path in part.copies:
            assert path[0] == "toolUseResult"
            assert record == part.record


def test_unknown_block_types_pass_through() -> None:
    messages = [{"role": "user", "content": [{"type": "text", "text": "hi"},
                                             {"type": "future_block", "payload": {"x": 1}}]},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "Bash",
                                                   "input": {"command": "ls"}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "a\nb"}]}]
    result = Sanitizer("none", count_tokens=False).sanitize(messages)
    assert result.adapter.name == "anthropic"
    assert result.output == messages
    kinds = [p.kind for p in result.views[0].parts]
    assert kinds == ["text", "other", "tool_call", "tool_result"]


def test_write_back_touches_only_the_edited_record() -> None:
    text = EXAMPLE.read_text(encoding="utf-8")
    doc = from_text(text, "example.jsonl")
    adapter = detect(doc)
    view = next(iter(adapter.views(doc)))
    part = next(p for p in view.parts if p.kind == "tool_result" and len(p.text) > 1000)
    part.original, part.text = part.text, "short"
    adapter.write(view)
    out_lines = to_text(doc).split("\n")
    in_lines = text.split("\n")
    changed = [i for i, (a, b) in enumerate(zip(in_lines, out_lines, strict=True)) if a != b]
    assert changed == [part.record]


# -- --detect ----------------------------------------------------------------------------------

def test_detect_prints_every_adapter_score_and_the_choice(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from sanitizer.cli.command import main
    from sanitizer.formats import ADAPTERS

    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps([{"role": "user", "content": "hi"},
                                {"role": "assistant", "content": None, "tool_calls": [
                                    {"id": "c", "type": "function", "function": {"name": "ls", "arguments": "{}"}}]},
                                {"role": "tool", "tool_call_id": "c", "content": "a"}]))
    result = CliRunner().invoke(main, [str(chat), "--detect"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == f"{chat}:"
    scored = [line.split()[:2] for line in lines[1:-1]]
    assert sorted(name for name, _ in scored) == sorted(a.name for a in ADAPTERS)
    assert scored[0] == ["openai_chat", "90"]
    assert lines[-1].startswith("  -> openai_chat (")
    assert chat.read_text().startswith("[")  # nothing written


def test_detect_names_the_two_closest_and_what_they_miss(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from sanitizer.cli.command import main

    odd = tmp_path / "odd.jsonl"
    odd.write_text(json.dumps({"type": "user", "uuid": "u", "text": "hello"}) + "\n")
    result = CliRunner().invoke(main, [str(odd), "--detect"])
    assert result.exit_code == 1
    last = result.output.splitlines()[-1]
    assert last.startswith("  -> no adapter is sure; closest: claude_code (missing message, sessionId, parentUuid:")
    assert last.count(" (missing ") == 2
