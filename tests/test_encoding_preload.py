"""The encoding is read when first needed, or in a thread the command line starts: the counts are
the same either way, a fork never inherits a half-made load, and a run decided from bounds never
reads the file."""

from __future__ import annotations

import multiprocessing

import pytest

from sanitizer.pipeline import Sanitizer
from sanitizer.tokens import encodings
from sanitizer.tokens.counter import EncodingError, TokenCounter


def _count(text: str) -> int:
    return len(encodings.get_encoding().encode_ordinary(text))


def test_a_preloaded_encoding_is_the_one_later_calls_get() -> None:
    encodings.get_encoding.cache_clear()
    encodings.preload()
    enc = encodings.get_encoding()
    assert enc is encodings.get_encoding("cl100k_base")
    assert enc.encode_ordinary("hello world") == [15339, 1917]


def test_a_fork_while_the_encoding_loads_gets_a_working_child() -> None:
    encodings.get_encoding.cache_clear()
    encodings.preload()  # the fork below waits for this load (os.register_at_fork)
    with multiprocessing.get_context("fork").Pool(1) as pool:
        assert pool.apply(_count, ("hello world",)) == 2


def test_an_unknown_encoding_fails_when_the_counter_is_made() -> None:
    with pytest.raises(EncodingError, match="cannot load tiktoken encoding 'no_such_encoding'"):
        TokenCounter("no_such_encoding")


def test_a_run_decided_from_bounds_never_reads_the_encoding() -> None:
    encodings.get_encoding.cache_clear()
    long_output = "collecting tests from the suite\n" * 400 + "1 failed: AssertionError\n"
    messages = [{"role": "user", "content": "run the tests"},
                {"role": "assistant", "content": "", "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "bash", "arguments": '{"cmd": "pytest"}'}}]},
                {"role": "tool", "tool_call_id": "c1", "content": long_output}]
    messages += [{"role": "user", "content": f"next {i}"} for i in range(12)]
    result = Sanitizer(count_tokens=False).sanitize(messages)
    assert result.report.rules and sum(s.hits for s in result.report.rules.values()) > 0
    assert "cl100k_base" not in encodings._slots
