"""The encoding is read when first needed, in a thread the command line starts, or by the one
counting worker a big file's run starts: the counts are the same every way, a fork never inherits
a half-made load, and a run decided from bounds never reads the file."""

from __future__ import annotations

import json
import multiprocessing
import subprocess
import sys
from pathlib import Path

import pytest
from cli_procs import gen
from conftest import ROOT

from sanitizer.pipeline import Sanitizer
from sanitizer.processes import default_threads
from sanitizer.tokens import encodings
from sanitizer.tokens.counter import SHORT_MAX_CHARS, EncodingError, TokenCounter


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


# --- a big file's token report: one worker reads the encoding, this process never does --------

# Runs the command in a fresh interpreter, then says which of this process and its workers built
# the encoder, and how many workers there were.
_RUN_AND_TELL = """
import multiprocessing, sys
from sanitizer.cli.command import main
from sanitizer.tokens import encodings
if sys.argv[1] == "preloaded":
    encodings.get_encoding("cl100k_base")
try:
    main(sys.argv[2:])
except SystemExit as exc:
    assert exc.code in (0, None), exc.code
print("PARENT", "LOADED" if encodings.requested("cl100k_base") else "NOT LOADED")
"""


def _run(tmp_path: Path, how: str, session: Path, out_name: str, *extra: str) -> tuple[str, Path]:
    report = tmp_path / f"{out_name}.json"
    done = subprocess.run([sys.executable, "-c", _RUN_AND_TELL, how, str(session), "-o", str(tmp_path / out_name),
                           "--report", "json", "--report-file", str(report), *extra],
                          capture_output=True, text=True, timeout=600, cwd=tmp_path,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    return done.stdout.split("PARENT ")[-1].strip(), report


@pytest.mark.parametrize("kind", ["session", "dataset"])
def test_a_big_files_counts_come_from_a_worker_that_read_the_encoding_itself(tmp_path: Path, kind: str) -> None:
    if default_threads() < 2:
        pytest.skip("one core: the counts are made in this process")
    make = gen.claude_session if kind == "session" else gen.dataset  # a dataset is streamed line by line
    session = make(tmp_path / "big.jsonl", 3 * SHORT_MAX_CHARS // 2, seed=11)
    ours, ours_report = _run(tmp_path, "fresh", session, "ours.jsonl")
    theirs, theirs_report = _run(tmp_path, "preloaded", session, "theirs.jsonl")
    assert (ours, theirs) == ("NOT LOADED", "LOADED")
    assert (tmp_path / "ours.jsonl").read_bytes() == (tmp_path / "theirs.jsonl").read_bytes()
    reports = [json.loads(r.read_text()) for r in (ours_report, theirs_report)]
    for report in reports:
        del report["totals"]["seconds"]
    assert reports[0] == reports[1]
    assert reports[0]["totals"]["tokens_before"] > reports[0]["totals"]["tokens_after"] > 0
    # A budget counts here, a text at a time: this process reads the encoding itself.
    assert _run(tmp_path, "fresh", session, "budget.jsonl", "--budget", "20000")[0] == "LOADED"


def test_a_worker_that_cannot_read_the_encoding_fails_the_count_with_its_error(
        monkeypatch: pytest.MonkeyPatch) -> None:
    if default_threads() < 2:
        pytest.skip("one core: no workers")
    encodings.get_encoding.cache_clear()
    counter = TokenCounter()

    def unreadable(name: str) -> None:
        raise EncodingError(f"cannot load tiktoken encoding {name!r} (a test)")

    monkeypatch.setattr(encodings, "_load", unreadable)  # the forked worker inherits it
    counter.start_workers(load=1)
    try:
        assert counter._pool is not None and "cl100k_base" not in encodings._slots
        with pytest.raises(EncodingError, match="a test"):
            counter.count_many(["hello world"] * 3)
    finally:
        counter.close()


def test_which_runs_start_workers_that_read_the_encoding(tmp_path: Path) -> None:
    from sanitizer.run.options import RunOptions
    from sanitizer.run.sizes import ONE_WORKER_BYTES, encoding_workers

    if default_threads() < 2:
        pytest.skip("one core: no workers")
    small, big, huge = tmp_path / "small.jsonl", tmp_path / "big.jsonl", tmp_path / "huge.jsonl"
    for path, size in ((small, SHORT_MAX_CHARS), (big, SHORT_MAX_CHARS + 1), (huge, ONE_WORKER_BYTES + 1)):
        with path.open("wb") as fh:
            fh.truncate(size)  # sparse: only the size is looked at
    tokens = RunOptions()
    assert encoding_workers([str(big)], tokens, 1) == 1
    assert encoding_workers([str(huge)], tokens, 1) == default_threads()
    assert encoding_workers([str(small)], tokens, 1) == 0  # counted by `short`, without the encoder
    assert encoding_workers(["-"], tokens, 1) == 0  # its size is unknown: the preload
    assert encoding_workers([str(big)], RunOptions(count_tokens=False), 1) == 0
    assert encoding_workers([str(big)], RunOptions(budget=1000), 1) == 0  # counts here, a text at a time
    assert encoding_workers([str(big)], tokens, 2) == 0  # --jobs: its processes inherit the preload
    assert encoding_workers([str(big)], RunOptions(mode="check"), 1) == 0
