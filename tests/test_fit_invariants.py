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

import pytest
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
from sanitizer.api import Result
from sanitizer.fit import fit_document
from sanitizer.loader import from_object, from_text
from sanitizer.model import Document
from sanitizer.scope import is_user_ask
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
        once = fit_document(FIT, document(case), budget)
        twice = fit_document(FIT, document(case, once.dumps()), budget)
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
            want = [(p.kind, p.text) for p in vb.parts_of(latest)]
            kept = [m for m in va.messages if is_user_ask(va, m)]
            assert kept and [(p.kind, p.text) for p in va.parts_of(kept[-1])] == want

    check()


def test_reader_is_the_identity() -> None:
    """The helper the properties compare against reads the input without changing it."""
    case = Case("openai_chat", [{"role": "user", "content": "<key_info>a</key_info> go"}])
    assert protected_blocks(input_views(case)) == {"<key_info>a</key_info>"}
    assert run(READER, case).output == case.value
