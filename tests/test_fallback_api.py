"""`fallback_summary` and `summarize_with_fallback` on real inputs in any format."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import EXAMPLE, ROOT

from sanitizer import fallback_summary, summarize_with_fallback
from sanitizer.summary import SummaryFailed


def example_records() -> list[dict]:
    return [json.loads(line) for line in EXAMPLE.read_text(encoding="utf-8").splitlines()]


def test_fallback_summary_reads_any_format_and_skips_injected_records() -> None:
    records = example_records()
    summary = fallback_summary(records)
    assert summary.sections["Active Task"] == ["Great. Now fix the credit notes too and run the tests again."]
    assert any("never push to main" in c for c in summary.sections["Constraints & Preferences"])
    assert len(summary.text) <= 8000


def test_fallback_summary_is_byte_identical_across_processes() -> None:
    code = ("import json,sys; from sanitizer import fallback_summary; "
            f"recs=[json.loads(l) for l in open({str(EXAMPLE)!r}, encoding='utf-8')]; "
            "sys.stdout.write(fallback_summary(recs).text)")
    outs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT,
                           env={"PYTHONHASHSEED": seed, "PATH": ""}).stdout for seed in ("1", "2")}
    assert len(outs) == 1 and outs.pop() == fallback_summary(example_records()).text


class Overloaded(Exception):
    status_code = 529


def times_out(messages: list[dict]) -> str:
    raise TimeoutError("no answer in 60 s")


def server_error(messages: list[dict]) -> str:
    raise Overloaded("overloaded_error")


def empty(messages: list[dict]) -> str:
    return "  \n"


def succeeds(messages: list[dict]) -> str:
    assert not any("iVBORw0KGgo" in str(m.get("content")) for m in messages), "the LLM gets the sanitized copy"
    return "## Active Task\nFix the credit notes."


def test_chain_tries_each_summarizer_in_order_and_classifies_failures() -> None:
    records = example_records()
    snapshot = copy.deepcopy(records)
    result = summarize_with_fallback(records, [times_out, server_error, empty, succeeds])
    assert result.path == "llm" and result.summarizer_index == 3
    assert result.text == "## Active Task\nFix the credit notes."
    assert [kind for _, kind, _ in result.failures] == ["timeout", "server", "empty"]
    assert records == snapshot


def test_chain_falls_back_to_the_deterministic_summary_of_the_full_history() -> None:
    records = example_records()
    result = summarize_with_fallback(records, [times_out, empty])
    assert result.path == "fallback"
    assert "LLM summary failed: #0 timeout; #1 empty" in result.text
    assert result.summary.sections == fallback_summary(records).sections
    assert "exit 1" in result.text  # outcomes read from the full outputs, not the digests


def test_abort_on_failure_raises_and_keeps_the_input() -> None:
    records = example_records()
    snapshot = copy.deepcopy(records)
    with pytest.raises(SummaryFailed) as info:
        summarize_with_fallback(records, [times_out], abort_on_failure=True)
    assert info.value.failures[0][1] == "timeout"
    assert records == snapshot


def test_compaction_summary_in_a_claude_code_session_is_merged_as_previous(tmp_path: Path) -> None:
    records = example_records()
    compact = {"type": "user", "isCompactSummary": True, "sessionId": "s", "uuid": "u0",
               "message": {"role": "user", "content": "## Key Decisions\n- Use Decimal everywhere for money."}}
    summary = fallback_summary([records[0], compact, *records[1:]])
    assert any("Use Decimal everywhere for money." in d for d in summary.sections["Key Decisions"])
