"""The default pack on every real transcript: the invariants of the rules issue, in place.

Run with `pytest -s tests/test_corpus_default_pack.py -k table` to print tokens before/after.
"""

from __future__ import annotations

import hashlib
import json
import re
from functools import cache
from pathlib import Path

import pytest
from conftest import CORPUS, corpus_params, records

from sanitizer import Result, Sanitizer, read_conversations
from sanitizer.digest import describe_call, outcome
from sanitizer.document.loader import from_text
from sanitizer.formats import detect
from sanitizer.scope import is_user_ask
from sanitizer.validate import validate_views

KEY_INFO = re.compile(r"<key_info>(.*?)</key_info>", re.S)
CONSTRAINT = re.compile(r"[^.!?\n]*\b(?:must|never|always|don't|do not)\b[^.!?\n]*[.!?]?", re.I)
VERBATIM_VERBS = ("ran", "read", "wrote", "edited", "searched", "fetched")
ALL_FOLDERS = ("claude_code_jsonl", "openai_chat", "anthropic_messages", "codex_rollout")


@cache
def sanitizer() -> Sanitizer:
    return Sanitizer("default")


@cache
def run(path: Path) -> tuple[bytes, Result, Result]:
    """(input bytes, input read with no rules, default-pack result) — computed once per file."""
    raw = path.read_bytes()
    text = raw.decode("utf-8")
    before = Sanitizer("none", count_tokens=False).sanitize_text(text, str(path))
    return raw, before, sanitizer().sanitize_text(text, str(path))


def texts(result: Result, *, kinds: tuple[str, ...] = ("text",), role: str | None = None) -> list[str]:
    return [p.original if p.original is not None else p.text for v in result.views for p in v.parts
            if p.kind in kinds and (role is None or p.role == role)]


PARAMS = corpus_params(*ALL_FOLDERS)


SPACES = re.compile(r"\s+")


@cache
def squeezed(text: str) -> str:
    return SPACES.sub(" ", text)


def present(needle: str, haystack: str) -> bool:
    """`needle` occurs as is or as it reads inside a JSON string (tool arguments, JSON outputs),
    with runs of white space compared as one space (digests fold them)."""
    variants = {needle, needle.replace("\\n", "\n")}
    variants |= {json.dumps(v, ensure_ascii=False)[1:-1] for v in variants}
    hay = squeezed(haystack)
    return any(v in haystack or squeezed(v) in hay for v in variants)


@pytest.mark.parametrize("path", PARAMS)
def test_output_is_valid_and_pairs_are_intact(path: Path) -> None:
    raw, before, after = run(path)
    out = after.dumps()
    doc = from_text(out, str(path))
    assert detect(doc).name == after.adapter.name
    assert len(records(out.encode("utf-8", "surrogateescape"))) == len(records(raw))
    old = {(f.code, f.message) for f in validate_views(before.views)}
    new = {(f.code, f.message) for f in validate_views(read_conversations(doc, after.adapter.name))}
    assert new <= old, f"new structural problems: {sorted(new - old)[:5]}"


@pytest.mark.parametrize("path", PARAMS)
def test_input_file_untouched_deterministic_and_idempotent(path: Path) -> None:
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    raw, _, after = run(path)
    second = sanitizer().sanitize_file(path)
    assert second.dumps() == after.dumps(), "two runs differ"
    assert hashlib.sha256(path.read_bytes()).hexdigest() == digest
    third = sanitizer().sanitize_text(after.dumps(), str(path))
    assert third.dumps() == after.dumps(), "a second pass changes its own output"


@pytest.mark.parametrize("path", PARAMS)
def test_never_more_tokens_and_tool_heavy_sessions_shrink(path: Path) -> None:
    _, _, after = run(path)
    r = after.report
    assert r.tokens_after <= r.tokens_before
    calls = sum(1 for v in after.views for p in v.parts if p.kind == "tool_call")
    # A tool-heavy session (one long conversation) must shrink by well over half; a dataset of
    # short episodes is mostly protected system prompts and first asks.
    if len(after.views) == 1 and calls >= 30 and r.tokens_before > 60_000:
        assert r.tokens_after < r.tokens_before * 0.5, f"{r.tokens_before} -> {r.tokens_after}"


@pytest.mark.parametrize("path", PARAMS)
def test_key_info_latest_user_ask_and_constraints_survive_verbatim(path: Path) -> None:
    _, before, after = run(path)
    out_text = after.text()
    for body in (m for t in texts(before, kinds=("text", "tool_result", "thinking")) for m in KEY_INFO.findall(t)):
        assert body in out_text
    for view in before.views:
        latest = next((m for m in reversed(view.messages) if is_user_ask(view, m)), None)
        if latest is not None:
            for p in view.parts_of(latest):
                if p.kind == "text":
                    assert p.text in out_text
    # A person's constraints: a compaction summary or a hook's text in a user record is not one.
    typed = [p.original if p.original is not None else p.text for v in before.views for p in v.parts
             if p.kind == "text" and p.role == "user" and not v.messages[p.message].meta.get("injected")]
    for t in typed:
        for sentence in CONSTRAINT.findall(t):
            sentence = sentence.strip()
            if 12 <= len(sentence) <= 300:
                assert sentence in out_text, f"user constraint lost: {sentence!r}"


@pytest.mark.parametrize("path", PARAMS)
def test_tool_names_targets_and_first_errors_survive(path: Path) -> None:
    _, before, after = run(path)
    out_text = after.text()
    for view in before.views:
        calls = {p.call_id: p for p in view.parts if p.kind == "tool_call"}
        for call in calls.values():
            assert f"{call.tool}(" in out_text or f"[{call.tool}]" in out_text, call.tool
            info = describe_call(call.tool, call.original if call.original is not None else call.text)
            if info.verb not in VERBATIM_VERBS:
                continue  # todo counts, generic `k=v` lists: described, not quoted from the call
            head = info.target[:60].strip().removesuffix("…").strip()  # the clip mark is the digest's own
            if head:
                assert present(head, out_text), f"{call.tool} target lost: {head!r}"
        for res in (p for p in view.parts if p.kind == "tool_result" and p.call_id in calls):
            call = calls[res.call_id]
            o = outcome(call.tool, call.text, res.text, res.meta.get("is_error"))
            if o.failed and o.first_error:
                assert present(o.first_error.removesuffix("…"), out_text), f"first error lost: {o.first_error!r}"


def test_table_of_tokens_before_and_after(capsys: pytest.CaptureFixture[str]) -> None:
    if not CORPUS.is_dir():
        pytest.skip(f"../shared/corpus not found at {CORPUS}")
    rows = []
    for param in PARAMS:
        path = param.values[0]
        r = run(path)[2].report
        rows.append(f"| {path.parent.name}/{path.name[:48]} | {r.format} | {r.tokens_before:,} | {r.tokens_after:,} | "
                    f"{100 * (1 - r.tokens_after / max(r.tokens_before, 1)):.1f}% |")
    with capsys.disabled():
        print("\n| file | format | tokens before | tokens after | saved |\n|---|---|---:|---:|---:|")
        print("\n".join(rows))
