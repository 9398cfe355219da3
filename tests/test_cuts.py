"""Recoverable cuts (`Sanitizer(cut_ids=True)`, `--cuts`): each id in the output gives back, through
`Result.expand` and the sidecar, exactly the text the input held where the cut was made."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from conftest import EXAMPLE, corpus_params
from hypothesis import given
from hypothesis import strategies as st
from strategies import FORMATS, Case, conversations, property_settings
from strategies_script import SECRETS

from sanitizer import Sanitizer, read_conversations
from sanitizer.cuts import digest, parse
from sanitizer.document.loader import from_object, from_text
from sanitizer.pipeline import Result
from sanitizer.secrets.scan import redact
from sanitizer.textkit.markers import MARKER_RE

WITH_IDS = Sanitizer("default", cut_ids=True)
PLAIN = Sanitizer("default")
SECRET = "ghp_" + "Z7q9K2m4N6p8R1s3T5v7X9y2A4c6E8g0J3kL"
ID_RE = re.compile(r" · (c[0-9]+)")
# Rules whose changes leave no marker or placeholder to carry an id (README, "Where ids show").
MARKERLESS = {"collapse-blank-lines", "collapse-code", "strip-block", "trim-call-args"}


def run(san: Sanitizer, case: Case) -> Result:
    return san.sanitize_text(case.jsonl, case.source) if case.jsonl is not None else san.sanitize(case.value)


def rerun(san: Sanitizer, case: Case, result: Result) -> Result:
    return san.sanitize_text(result.dumps(), case.source) if case.jsonl is not None else san.sanitize(result.output)


def input_texts(result: Result, fresh_doc: Any) -> dict[tuple[int, tuple[Any, ...]], str]:
    """The text at each part's place in a fresh read of the input (an image: its block as JSON)."""
    texts: dict[tuple[int, tuple[Any, ...]], str] = {}
    for view in read_conversations(fresh_doc, format=result.report.format):
        for p in view.parts:
            value = fresh_doc.get(p.record, p.path)
            texts[(p.record, tuple(p.path))] = p.text if p.kind != "image" else json.dumps(value, ensure_ascii=False)
    return texts


def assert_restores_the_input(result: Result, fresh_doc: Any) -> None:
    """Every cut's text (with secrets) is the input's text at its place; the redacted one is that
    text with only the redaction applied; the sidecar says the same and its hashes hold."""
    texts = input_texts(result, fresh_doc)
    ids = [c.id for c in result.recoverable]
    assert ids == [f"c{i}" for i in range(1, len(ids) + 1)]  # short, in document order
    side = parse(result.cuts_sidecar(), "<sidecar>")
    raw = parse(result.cuts_sidecar(include_secrets=True), "<sidecar>")
    for cut in result.recoverable:
        where = (cut.record, tuple(cut.path))
        expected = fresh_doc.get(*where) if cut.copy else texts[where]
        assert result.expand(cut.id, include_secrets=True) == expected == raw.expand(cut.id)
        clean = result.expand(cut.id)
        assert clean == side.expand(cut.id)
        assert side.entries[cut.id]["sha256"] == digest(clean) and side.entries[cut.id]["redacted"] is True
        if cut.kind in ("text", "thinking"):  # a JSON tool text is scanned decoded: see the sidecar module
            assert clean == redact(expected)[0]


def assert_markers_carry_ids(result: Result, input_text: str) -> None:
    """Every marker the run made names its cut, and every id it names is a cut of the run."""
    out = result.dumps()
    plain_before = sum(1 for m in MARKER_RE.finditer(input_text) if m.group(2) is None)
    plain_after = sum(1 for m in MARKER_RE.finditer(out) if m.group(2) is None)
    assert plain_after <= plain_before
    known = {c.id for c in result.recoverable}
    assert {m.group(2) for m in MARKER_RE.finditer(out) if m.group(2)} <= known
    for m in MARKER_RE.finditer(out):  # no marker, id included, is longer than what it stands for
        if m.group(2) and m.group(2) in known:
            assert int(m.group(1).replace(",", "")) > len(m.group(0)), m.group(0)


def first_difference(a: str, b: str) -> str:
    """Where two texts first differ, with some context (a readable assertion message)."""
    i = next((k for k, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    return f"at {i}: {a[max(0, i - 200):i + 100]!r}\n  vs {b[max(0, i - 200):i + 100]!r}"


def input_of(case: Case) -> Any:
    return from_text(case.jsonl, case.source) if case.jsonl is not None else from_object(case.value)


# --- the bundled example --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def example() -> Result:
    return WITH_IDS.sanitize_file(EXAMPLE)


def test_each_cut_of_the_example_restores_the_input(example: Result) -> None:
    assert len(example.recoverable) >= 5
    assert {"drop-thinking", "digest-tool-result", "image-placeholder"} <= {r for c in example.recoverable
                                                                             for r in c.rules}
    text = EXAMPLE.read_text(encoding="utf-8")
    assert_restores_the_input(example, from_text(text, str(EXAMPLE)))
    assert_markers_carry_ids(example, text)


def test_every_cut_that_leaves_a_placeholder_names_it(example: Result) -> None:
    out = example.dumps()
    marked = [cut for cut in example.recoverable if not set(cut.rules) <= MARKERLESS]
    assert marked
    for cut in marked:
        assert f" · {cut.id}" in out  # digests, thinking placeholders, the image label, linked copies
    thinking = next(p.text for v in example.views for p in v.parts if p.meta.get("replaced_kind") == "thinking")
    assert re.fullmatch(r"\[thinking omitted: [0-9,]+ chars · c[0-9]+\]", thinking)
    image = next(p.text for v in example.views for p in v.parts if p.meta.get("image"))
    assert re.fullmatch(r"\[image: [^\]]+ · c[0-9]+\]", image)


def test_ids_are_the_only_difference_from_a_run_without_them(example: Result) -> None:
    plain = PLAIN.sanitize_file(EXAMPLE)
    assert ID_RE.sub("", example.dumps()) == plain.dumps()
    assert not plain.recoverable and ID_RE.search(plain.dumps()) is None


def test_a_second_run_over_an_output_with_ids_changes_nothing(example: Result) -> None:
    out = example.dumps()
    again = WITH_IDS.sanitize_text(out, str(EXAMPLE))
    assert again.dumps() == out and again.recoverable == []
    assert PLAIN.sanitize_text(out, str(EXAMPLE)).dumps() == out


def test_expand_without_ids_says_how_to_get_them() -> None:
    result = PLAIN.sanitize_file(EXAMPLE)
    with pytest.raises(KeyError, match="cut_ids=True"):
        result.expand("c1")


# --- trimmed text: the marker's id leads to the whole text ----------------------------------------


def long_chat(secret: str = "") -> list[dict[str, Any]]:
    body = "\n".join(f"build step {k}: compiling module_{k}.c" for k in range(600))
    msgs: list[dict[str, Any]] = [{"role": "system", "content": "You are a coding agent."},
                                  {"role": "user", "content": "Fix the build."},
                                  {"role": "assistant", "content": "Send me the log."},
                                  {"role": "user", "content": f"Here. {body}\nexport GITHUB_TOKEN={secret}\n{body}"}]
    for i in range(12):
        msgs += [{"role": "assistant", "content": f"step {i}"}, {"role": "user", "content": f"go on {i}"}]
    msgs.append({"role": "user", "content": "Now tell me what failed."})
    return msgs


def test_a_trimmed_marker_names_the_cut_that_gives_its_middle_back() -> None:
    result = WITH_IDS.sanitize(long_chat("none"))
    text = result.output[3]["content"]
    found = MARKER_RE.search(text)
    assert found is not None and found.group(2) == "c1"
    original = result.expand("c1")
    head, tail = text[:found.start()], text.split("]…")[-1]
    assert original.startswith(head) and original.endswith(tail)
    assert original == long_chat("none")[3]["content"]


def test_the_sidecar_is_redacted_unless_secrets_are_asked_for() -> None:
    msgs = long_chat(SECRET)
    result = WITH_IDS.sanitize(msgs)
    assert SECRET not in result.dumps()
    assert SECRET not in result.cuts_sidecar() and SECRET not in result.expand("c1")
    assert "[REDACTED:" in result.expand("c1")
    assert SECRET in result.cuts_sidecar(include_secrets=True)
    assert result.expand("c1", include_secrets=True) == msgs[3]["content"]
    assert '"redacted": false' in result.cuts_sidecar(include_secrets=True)


def test_ids_are_deterministic() -> None:
    first = WITH_IDS.sanitize_file(EXAMPLE)
    second = Sanitizer("default", cut_ids=True).sanitize_file(EXAMPLE)
    assert first.cuts_sidecar() == second.cuts_sidecar() and first.dumps() == second.dumps()


def test_a_cut_that_would_not_shrink_with_its_id_is_not_made() -> None:
    # Greek letters and digits: about one token per two chars, so the placeholder's length decides.
    def session(chars: int) -> list[dict[str, Any]]:
        thinking = "".join(f"{chr(0x3B1 + k % 20)}{k % 7} " for k in range(100))[:chars]
        msgs = [{"role": "user", "content": "start"},
                {"role": "assistant", "content": [{"type": "thinking", "thinking": thinking, "signature": "s"},
                                                  {"type": "text", "text": "ok"}]}]
        for i in range(12):
            msgs += [{"role": "user", "content": f"more {i}"}, {"role": "assistant", "content": f"done {i}"}]
        return msgs

    placeholder = len("[thinking omitted: 30 chars]")  # 28 chars; ` · c9` adds 5
    msgs = session(placeholder + 2)
    plain, ids = PLAIN.sanitize(msgs), WITH_IDS.sanitize(msgs)
    assert plain.report.rules["drop-thinking"].hits == 1  # saved 2 chars: made without ids ...
    assert ids.recoverable == [] and ids.output == msgs  # ... not with them: the id would cost more
    roomy = WITH_IDS.sanitize(session(80))
    assert [c.rules for c in roomy.recoverable] == [["drop-thinking"]]
    assert len(roomy.dumps()) < len(json.dumps(session(80), ensure_ascii=False))


# --- generated conversations in every format ------------------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
@property_settings(12)
@given(data=st.data())
def test_generated_cuts_restore_their_input_and_stay_put(fmt: str, data: Any) -> None:
    case = data.draw(conversations(fmt))
    result = run(WITH_IDS, case)
    assert_restores_the_input(result, input_of(case))
    assert_markers_carry_ids(result, case.jsonl if case.jsonl is not None else json.dumps(case.value))
    for secret in SECRETS:
        assert secret not in result.cuts_sidecar()
    again = rerun(WITH_IDS, case, result)  # idempotent with ids
    assert again.dumps() == result.dumps(), first_difference(result.dumps(), again.dumps())
    assert again.recoverable == []
    report = result.report  # never more tokens than the input, but for what redaction adds ...
    grown = max(0, -report.rules["redact-secrets"].tokens_saved) if "redact-secrets" in report.rules else 0
    # ... and the id in an image's label (an image counts as its label before and after)
    grown += sum(PLAIN.counter.count(f" · {c.id}") for c in result.recoverable if c.kind == "image")
    assert (report.tokens_after or 0) <= (report.tokens_before or 0) + grown


# --- the real corpus ------------------------------------------------------------------------------

CORPUS_RUN = Sanitizer("default", cut_ids=True, count_tokens=False)


ALL_FOLDERS = ("claude_code_jsonl", "anthropic_messages", "codex_rollout", "openai_chat", "hermes_session",
               "mini_swe_agent", "openhands_events", "swe_agent_traj")


@pytest.mark.parametrize("path", corpus_params(*ALL_FOLDERS))
def test_corpus_cuts_restore_the_input_byte_exact(path: Path) -> None:
    text = path.read_bytes().decode("utf-8", errors="surrogateescape")
    result = CORPUS_RUN.sanitize_text(text, str(path))
    if any(c.rule != "redact-secrets" for c in result.report.cuts):
        assert result.recoverable
    assert_restores_the_input(result, from_text(text, str(path)))
    assert_markers_carry_ids(result, text)


def test_a_digest_keeps_its_key_info_after_the_id() -> None:
    output = "\n".join(f"line {k} of output" for k in range(50)) + "\n<key_info>deploy to eu-2</key_info>"
    msgs: list[dict[str, Any]] = [
        {"role": "system", "content": "agent"}, {"role": "user", "content": "go"},
        {"role": "assistant", "content": None,
         "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "bash", "arguments": '{"cmd": "make"}'}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": output}]
    for i in range(12):
        msgs += [{"role": "user", "content": f"u{i}"}, {"role": "assistant", "content": f"a{i}"}]
    result = WITH_IDS.sanitize(msgs)
    assert result.output[3]["content"] == "[bash] ran `make` -> 51 lines · c1\n<key_info>deploy to eu-2</key_info>"
    assert result.expand("c1") == output
    assert WITH_IDS.sanitize(result.output).output == result.output
