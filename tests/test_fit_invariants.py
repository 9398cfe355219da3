"""The guarantees that hold on every pass and every budget (DESIGN §0), on 500+ generated
conversations per property: a second pass changes nothing, `<key_info>` blocks come out whole in
every pass, and no change adds tokens (redaction excepted: its marker may be longer than the
credential it hides).  The same with `fit` at budgets from 5% to 150% of the input's size, plus:
the latest user ask stays verbatim, no pair is broken, and the report says whether the budget
was met and the smallest size reached.

The conversations come from `strategies` (every format), whose text puts `<key_info>` in tool
results, thinking, tool-call argument strings, nested, unclosed, inside and across edited tags.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from conftest import chat_session
from hypothesis import given
from hypothesis import strategies as st
from strategies import FORMATS, Case, conversations, property_settings
from test_properties import (
    DEFAULT,
    READER,
    answered_calls,
    input_views,
    output_doc,
    protected_blocks,
    readable,
    redaction_cost,
    rerun,
    run,
)

from sanitizer import Sanitizer, read_conversations
from sanitizer.document.loader import from_object, from_text
from sanitizer.model import Document
from sanitizer.pipeline import Result, fit
from sanitizer.scope import is_user_ask
from sanitizer.secrets.contract import redact_text
from sanitizer.validate import new_findings, validate_views

PER_FORMAT = 84  # 6 formats x 84 = 504 conversations per property and run
FRACTIONS = st.sampled_from((0.05, 0.2, 0.5, 1.5))
FIT = Sanitizer("default")
# Known adapter gap (formats/, not budget mode): a replaced Responses/Codex reasoning summary is
# written back with its `encrypted_content`, so it reads back as signed (also without a budget).
SIGNED_KEPT_ON_REPLACE = frozenset({"codex", "responses"})


def no_rule_adds_tokens(result: Result) -> None:
    report = result.report
    assert report.tokens_after <= report.tokens_before + redaction_cost(report)
    grew = {name: st.tokens_saved for name, st in report.rules.items()
            if st.tokens_saved < 0 and name != "redact-secrets"}
    assert not grew, f"rules that added tokens: {grew}"


def blocks_kept(blocks: set[str], result: Result, case: Case, label: str) -> None:
    out = readable(read_conversations(output_doc(case, result)))
    missing = sorted(b for b in blocks if b not in out)
    assert not missing, f"{label}: <key_info> blocks lost: {missing}"


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_pass_is_a_fixed_point_that_keeps_key_info_and_never_grows(fmt: str) -> None:
    @property_settings(PER_FORMAT)
    @given(conversations(fmt))
    def check(case: Case) -> None:
        blocks = protected_blocks(input_views(case))
        once = run(DEFAULT, case)
        twice = rerun(DEFAULT, case, once)
        assert twice.dumps() == once.dumps(), "a second pass changed the output"
        blocks_kept(blocks, once, case, "first pass")
        blocks_kept(blocks, twice, case, "second pass")
        no_rule_adds_tokens(once)
        assert not twice.report.cuts

    check()


def document(case: Case, text: str | None = None) -> Document:
    if text is not None or case.jsonl is not None:
        return from_text(text if text is not None else case.jsonl, case.source)  # type: ignore[arg-type]
    return from_object(case.value)


def budget_of(case: Case, fraction: float) -> int:
    size = run(Sanitizer("none"), case).report.tokens_before
    return max(1, int(size * fraction))


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_budget_keeps_key_info_and_the_ask_and_a_second_fit_changes_nothing(fmt: str) -> None:
    @property_settings(PER_FORMAT)
    @given(conversations(fmt), FRACTIONS)
    def check(case: Case, fraction: float) -> None:
        budget = budget_of(case, fraction)
        before = input_views(case)
        once = FIT.run(document(case), budget=budget)
        twice = FIT.run(document(case, once.dumps()), budget=budget)
        assert twice.dumps() == once.dumps(), "a second fit changed the output"
        blocks = protected_blocks(before)
        blocks_kept(blocks, once, case, "first fit")
        blocks_kept(blocks, twice, case, "second fit")
        no_rule_adds_tokens(once)
        info = once.report.extra["budget"]
        assert info["smallest_tokens"] == info["tokens_after"] == once.report.tokens_after
        assert info["met"] == (all(c["tokens_after"] <= budget for c in info["conversations"]))
        if not info["met"]:
            assert any("budget not met: the smallest size reached is" in n for n in once.report.notes)
        after = read_conversations(output_doc(case, once))
        # A dropped turn takes its calls and results along (warnings: a marker next to a user
        # message where the input did not alternate strictly already, see fit_cut).  Signed
        # thinking is compared by content below: the validator pairs records by index, which
        # dropped turns shift.
        new = [f for f in new_findings(validate_views(before), validate_views(after, before))
               if f.severity == "error" and f.code != "signed-thinking-edited"]
        assert not new, [str(f) for f in new[:5]]
        if case.format not in SIGNED_KEPT_ON_REPLACE:
            signed = {p.text for v in before for p in v.parts if p.signed}
            assert all(p.text in signed for v in after for p in v.parts if p.signed), "signed thinking edited"
        for was, now, view in zip(answered_calls(before), answered_calls(after), after, strict=True):
            calls = {p.call_id for p in view.parts if p.kind == "tool_call"}
            assert now == was & calls
        for vb, va in zip(before, after, strict=True):
            latest = next((m for m in reversed(vb.messages) if is_user_ask(vb, m)), None)
            if latest is None:
                continue
            # verbatim but for credentials, which become redaction markers
            want = [(p.kind, redact_text(p.text) if p.kind != "image" else p.text) for p in vb.parts_of(latest)]
            kept = [m for m in va.messages if is_user_ask(va, m)]
            assert kept and [(p.kind, p.text) for p in va.parts_of(kept[-1])] == want

    check()


def test_reader_is_the_identity() -> None:
    """The helper the properties compare against reads the input without changing it."""
    case = Case("openai_chat", [{"role": "user", "content": "<key_info>a</key_info> go"}])
    assert protected_blocks(input_views(case)) == {"<key_info>a</key_info>"}
    assert run(READER, case).output == case.value


# --- Regression tests: minimal examples of what the properties found -------------------------

KI = "<key_info>deploy target is prod-eu-2, never staging</key_info>"
FILLER = [{"role": r, "content": "step"} for r in ["user", "assistant"] * 6]


def bash_turn(call_id: str, output: str, command: str = "pytest -q") -> list[dict[str, Any]]:
    call = {"id": call_id, "type": "function", "function": {"name": "bash", "arguments": json.dumps({"cmd": command})}}
    return [{"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": call_id, "content": output}]


def test_a_placeholder_that_is_not_shorter_with_its_key_info_is_refused() -> None:
    thinking = "한국어 문장 <key_info>remember: the changed build value in ./tests/test_core.py (你好，世界。)</key_info>"
    msgs = [{"role": "user", "content": "hi"},
            {"role": "assistant", "content": "looking", "reasoning_content": thinking}, *FILLER]
    result = DEFAULT.sanitize(msgs)
    assert result.output[1]["reasoning_content"] == thinking  # "[thinking omitted …]" + block: 51 > 49 tokens
    assert all(st.tokens_saved >= 0 for st in result.report.rules.values())


def test_a_digest_never_quotes_part_of_a_key_info_block() -> None:
    body = "remember: the parser cache fails again in ~/.config/tool/settings.toml " + "日本語のテキストです " * 8
    output = "Exit code 1\n" + "\n".join(f"PASSED tests/test_core.py::test_case_{i}" for i in range(40))
    output += f"\nFAILED tests/test_core.py::test_parse - AssertionError: assert 1 == 2 <key_info>{body}</key_info>"
    msgs = [{"role": "user", "content": "hi"}, *bash_turn("c1", output), *FILLER]
    once = DEFAULT.sanitize(msgs)
    digest = once.output[2]["content"]
    first_line = digest.split("\n")[0]
    assert first_line.startswith("[bash] ran `pytest -q` -> exit 1") and "first error: FAILED" in first_line
    assert "<key_info" not in first_line  # no cut fragment: the next pass would digest the digest
    assert f"<key_info>{body}</key_info>" in digest
    assert DEFAULT.sanitize(once.output).output == once.output


def test_a_closed_key_info_inside_an_unclosed_one_survives_a_digest() -> None:
    output = "<key_info>notes start here\n" + "line of output\n" * 40 + KI
    msgs = [{"role": "user", "content": "hi"}, *bash_turn("c1", output, "ls"), *FILLER]
    once = DEFAULT.sanitize(msgs)
    assert once.output[2]["content"] != output and KI in once.output[2]["content"]
    assert DEFAULT.sanitize(once.output).output == once.output


def session_with_key_info() -> list[dict[str, Any]]:
    msgs = chat_session(turns=20)
    msgs[6] = {**msgs[6], "content": msgs[6]["content"] + "\n" + KI}  # a tool result of an old turn
    return msgs


def test_dropped_turns_keep_their_key_info_in_the_marker_and_a_second_fit_changes_nothing() -> None:
    once = fit(session_with_key_info(), 600, format="openai_chat")
    info = once.report.extra["budget"]
    assert info["conversations"][0]["stage"] == 3 and info["met"]
    marker = info["conversations"][0]["dropped"][0]["marker"]
    assert KI in marker.split("\n")
    assert fit(once.output, 600, format="openai_chat").output == once.output


def test_a_marker_after_the_latest_ask_does_not_become_the_ask() -> None:
    ask = "Now deploy it to the cluster named in the notes, " + "carefully " * 150
    msgs = [{"role": "system", "content": "You are a coding agent."}, {"role": "user", "content": "Make it green."},
            *bash_turn("a0", "output " + "word " * 30), {"role": "user", "content": ask},
            *[m for i in range(12) for m in bash_turn(f"b{i}", f"deploy {i} " + "word " * 300)],
            {"role": "assistant", "content": "Deployed."}]
    once = fit(msgs, 250, format="openai_chat")
    assert once.output[5]["content"].startswith("[… 22 earlier messages dropped")  # right after the ask
    again = fit(once.output, 250, format="openai_chat")
    views = read_conversations(again.output)
    asks = [m for m in views[0].messages if is_user_ask(views[0], m)]
    assert [p.text for p in views[0].parts_of(asks[-1])] == [ask]  # a second fit dropped it
    assert again.output == once.output


def test_the_last_stage_trims_protected_messages_but_not_the_ask_or_key_info() -> None:
    system = "You are a coding agent.\n" + "\n".join(f"Rule {i}: " + "always check the build " * 30 for i in range(40))
    msgs = [{"role": "system", "content": system + "\n" + KI}, {"role": "user", "content": "Make it green."},
            *bash_turn("c1", "ok"), {"role": "user", "content": "Status? " + KI}]
    once = fit(msgs, 1500, format="openai_chat")
    info = once.report.extra["budget"]
    conv = info["conversations"][0]
    assert conv["stage"] == 4 and conv["trimmed_protected"] >= 1
    assert info["met"] and info["smallest_tokens"] == info["tokens_after"] <= 1500
    out = once.output
    assert len(out[0]["content"]) < len(system) and KI in out[0]["content"]
    assert out[-1] == msgs[-1]  # the latest ask, verbatim
    assert any("trimmed 1 part(s) of protected messages" in n for n in once.report.notes)
    assert fit(out, 1500, format="openai_chat").output == out


def test_a_budget_that_cannot_be_met_reports_the_smallest_size_reached() -> None:
    ask = "Status? " + "please read all of this carefully " * 200
    msgs = [{"role": "system", "content": "You are a coding agent."}, {"role": "user", "content": ask}]
    once = fit(msgs, 50, format="openai_chat")
    info = once.report.extra["budget"]
    assert not info["met"] and info["smallest_tokens"] == info["tokens_after"] > 50
    assert any(f"the smallest size reached is {info['tokens_after']:,} tokens" in n for n in once.report.notes)
    assert once.output[1] == msgs[1]


def test_an_image_placeholder_is_not_counted_as_added_tokens_under_a_budget() -> None:
    uri = "data:image/png;base64," + "iVBORw0KGgo" + "AAAA" * 2000
    msgs = [{"role": "user", "content": [{"type": "text", "text": "look"}, {"type": "image_url", "image_url": {"url": uri}}]},
            {"role": "assistant", "content": "ok"}, {"role": "user", "content": "next"}]
    report = fit(msgs, 10_000, format="openai_chat").report
    assert report.tokens_after <= report.tokens_before
    assert all(st.tokens_saved >= 0 for st in report.rules.values())
