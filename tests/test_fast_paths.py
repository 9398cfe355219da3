"""The fast paths do the same work as the plain path: same bytes out, same counts, same report.

Fast paths: line-by-line dataset streaming, `--no-tokens`, threaded batch counting,
chunked counting (newline splits and cuts inside long single-class runs).  No timing here: speed
is measured by `bench/run.py`.  `--jobs` has its own file: test_jobs.py.
"""

from __future__ import annotations

import importlib.util
import io
import json
import random
from pathlib import Path

import pytest
from conftest import CORPUS, EXAMPLE, ROOT, corpus_params
from hypothesis import given, settings
from hypothesis import strategies as st

from sanitizer import Sanitizer
from sanitizer.run import dataset as stream
from sanitizer.run import lines as stream_lines
from sanitizer.tokens import counter as tokens
from sanitizer.tokens.counter import TokenCounter, _runs_pattern, get_encoding, run_cuts, split_for_bpe

_spec = importlib.util.spec_from_file_location("bench_gen", ROOT / "bench" / "gen.py")
gen = importlib.util.module_from_spec(_spec)
assert _spec.loader is not None
_spec.loader.exec_module(gen)

CJK = "的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着去之过家学对"


def plain_tokens(text: str) -> int:
    return len(get_encoding().encode_ordinary(text))


def report_dict(report) -> dict:  # noqa: ANN001
    data = report.to_dict()
    data["totals"].pop("seconds")
    return data


# --- chunked and threaded counting ----------------------------------------------------------------

RUN_ALPHABET = ["的", "一", "数据", "a", "b", "aa", "é", "ß", "s", "ll", "'", " ", "\t", "\u3000", "\n", "\r",
                ".", "=", "-", "…", "1", "🙂", "x1"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(RUN_ALPHABET), min_size=1, max_size=4, unique=True),
       st.integers(min_value=20, max_value=600), st.integers(min_value=2, max_value=24),
       st.integers(min_value=0, max_value=40), st.randoms(use_true_random=False))
def test_run_cuts_count_exactly(alphabet: list[str], length: int, step: int, slack: int,
                                rnd: random.Random) -> None:
    """Cuts inside long runs (small sizes here) add up to the unsplit count, whatever the text."""
    import sanitizer.tokens.longruns as tokens

    text = "".join(rnd.choice(alphabet) for _ in range(length))
    cuts = run_cuts(text, step=step, min_run=8, runs=_runs_pattern(8))
    old = tokens.RUN_SLACK
    tokens.RUN_SLACK = slack
    try:
        got = TokenCounter(threads=1)._count_cut(text, cuts)
    finally:
        tokens.RUN_SLACK = old
    assert got == plain_tokens(text)


@pytest.mark.parametrize("text", [
    "".join(random.Random(1).choices(CJK, k=30_000)),
    "a" * 30_000, " " * 30_000, "\n" * 30_000, "=" * 30_000, "\r\n" * 15_000, "\t" * 30_000,
    "".join(random.Random(2).choices("ACGT", k=30_000)),
    "prefix: " + "x" * 20_000 + " then words\n" + "数据" * 9_000 + "。end",
], ids=["cjk", "a", "space", "newline", "equals", "crlf", "tab", "dna", "mixed"])
def test_long_runs_are_cut_and_counted_exactly(text: str) -> None:
    assert run_cuts(text), "a run this long is cut"
    assert TokenCounter(threads=2).count(text) == plain_tokens(text)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(["word", "x", "\n", " ", "\n\n", "é", "数据", "🙂", ".", "  ", "\t", "123", "\r\n"]),
                max_size=400), st.integers(min_value=8, max_value=64))
def test_newline_splits_are_exact(pieces: list[str], size: int) -> None:
    text = "".join(pieces)
    chunks = list(split_for_bpe(text, size))
    assert "".join(chunks) == text
    assert sum(map(plain_tokens, chunks)) == plain_tokens(text)


def test_threaded_batch_counting_equals_one_by_one() -> None:
    words = gen.Words(random.Random(5))
    texts = [words.prose(random.Random(i).randrange(1, 40_000)) for i in range(60)]
    texts += texts[:10] + ["", "数据" * 5000, "a" * 9000]
    want = [plain_tokens(t) for t in texts]
    assert TokenCounter(threads=2).count_many(texts) == want
    assert TokenCounter(threads=1).count_many(texts) == want


def test_memo_stays_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    import sanitizer.tokens.counter as tokens

    monkeypatch.setattr(tokens, "MEMO_MAX_CHARS", 1000)
    counter = TokenCounter(threads=1)
    texts = [f"text number {i} " * 20 for i in range(200)]
    assert counter.count_many(texts) == [plain_tokens(t) for t in texts]
    assert sum(map(len, counter._memo)) <= 1000 + max(map(len, texts))
    # texts remembered earlier are still answered when the memo is cleared during a call
    again = texts[-3:] + [f"fresh text {i} " * 20 for i in range(100)]
    assert counter.count_many(again) == [plain_tokens(t) for t in again]


# --- whole runs: streaming, --no-tokens ------------------------------------------------------------------


@pytest.fixture(scope="module")
def dataset_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = gen.dataset(tmp_path_factory.mktemp("ds") / "dataset.jsonl", 600_000)
    lines = path.read_bytes().split(b"\n")
    # damage: a broken line, a blank line, a CRLF line, and no newline at the end
    lines[2] = lines[2][: len(lines[2]) // 2]
    lines.insert(4, b"")
    lines[5] = lines[5] + b"\r"
    path.write_bytes(b"\n".join(lines).rstrip(b"\n"))
    return path


# Token figures are counted per batch of lines, while the next batch is sanitized: one big batch,
# batches of a few lines, and batches encoded by the counter's worker processes all give the same.
@pytest.mark.parametrize("batch_chars, parallel_chars", [(4 << 20, 1 << 20), (20_000, 1 << 20), (50_000, 10_000)])
def test_streaming_a_dataset_gives_the_plain_bytes_and_report(dataset_file: Path, batch_chars: int,
                                                              parallel_chars: int,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    san = Sanitizer()
    whole = san.sanitize_file(dataset_file)
    assert whole.report.format == "dataset"
    assert stream.is_dataset_jsonl(dataset_file)
    monkeypatch.setattr(stream_lines, "COUNT_BATCH_CHARS", batch_chars)
    monkeypatch.setattr(tokens, "PARALLEL_MIN_CHARS", parallel_chars)
    out = io.BytesIO()
    streaming = Sanitizer()
    report = stream.sanitize_jsonl(streaming, dataset_file, out.write)
    assert (streaming.counter._pool is not None) == (parallel_chars < 50_000)
    streaming.counter.close()
    assert out.getvalue() == whole.dumps().encode("utf-8", "surrogateescape")
    assert report_dict(report) == report_dict(whole.report)


def test_streaming_without_tokens_matches_too(dataset_file: Path, tmp_path: Path) -> None:
    whole = Sanitizer(count_tokens=False).sanitize_file(dataset_file)
    target = tmp_path / "out.jsonl"
    with stream.atomic_output(target) as write:
        report = stream.sanitize_jsonl(Sanitizer(count_tokens=False), dataset_file, write)
    assert target.read_bytes() == whole.dumps().encode("utf-8", "surrogateescape")
    assert report_dict(report) == report_dict(whole.report)


def whole_file_reads_a_dataset(path: Path) -> bool:
    doc = Sanitizer().sanitize_file(path).doc
    return doc.container == "jsonl" and Sanitizer().adapter_for(doc).name == "dataset"


CONV = json.dumps({"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}]})
EDGE_FILES = {
    "pretty.json": json.dumps(json.loads(CONV), indent=2),
    "one-line.jsonl": CONV + "\n",
    "then-blank.jsonl": CONV + "\n\n",
    "then-blank.json": CONV + "\n  \n",
    "two.json": CONV + "\n" + CONV,
    "two-crlf.jsonl": CONV + "\r\n" + CONV + "\r\n",
    "blank-first.jsonl": "\n" + CONV + "\n" + CONV + "\n",
    "damaged-second.jsonl": CONV + "\n{broken\n" + CONV + "\n",
    "damaged-first.jsonl": "{broken\n" + CONV + "\n" + CONV + "\n",
    "not-a-conversation-first.jsonl": '{"a": 1}\n' + CONV + "\n",
    "list-first.jsonl": "[1, 2]\n" + CONV + "\n",
}


@pytest.mark.parametrize("name", sorted(EDGE_FILES))
def test_a_streamed_file_is_one_the_whole_file_path_reads_as_a_dataset(name: str, tmp_path: Path) -> None:
    # Streaming is only a faster way to the same bytes: it may decline a dataset, never take another format.
    path = tmp_path / name
    path.write_text(EDGE_FILES[name], encoding="utf-8")
    if stream.is_dataset_jsonl(path):
        assert whole_file_reads_a_dataset(path)
        out = io.BytesIO()
        stream.sanitize_jsonl(Sanitizer(), path, out.write)
        assert out.getvalue() == Sanitizer().sanitize_file(path).dumps().encode("utf-8", "surrogateescape")
    else:
        assert name in {"pretty.json", "one-line.jsonl", "then-blank.jsonl", "then-blank.json", "damaged-first.jsonl",
                        "not-a-conversation-first.jsonl", "list-first.jsonl"}


@pytest.mark.parametrize("path", corpus_params())
def test_corpus_files_stream_exactly_when_they_are_datasets(path: Path) -> None:
    assert stream.is_dataset_jsonl(path) == whole_file_reads_a_dataset(path)


def test_only_dataset_jsonl_is_streamed() -> None:
    assert not stream.is_dataset_jsonl(EXAMPLE)


@pytest.mark.parametrize("make", [
    lambda p: gen.claude_session(p, 400_000, seed=9),
    lambda p: gen.big_tool_result(p, 0.3),
    lambda p: gen.short_messages(p, 2000),
    lambda p: gen.cjk_run(p, 0.2),
], ids=["session", "tool-result", "short-messages", "cjk"])
def test_generated_inputs_count_like_plain_tiktoken(make, tmp_path: Path) -> None:  # noqa: ANN001
    """The report's token totals are the unsplit, unthreaded tiktoken counts of the same texts."""
    result = Sanitizer("none").sanitize_file(make(tmp_path / "in.jsonl"))
    texts = [p.text for v in result.views for p in v.parts if p.kind not in ("image", "other")]
    assert result.report.tokens_before == sum(map(plain_tokens, texts))


@pytest.mark.parametrize("path", corpus_params())
def test_corpus_no_tokens_and_threads_change_no_byte(path: Path | None) -> None:
    assert path is not None and CORPUS.is_dir()
    with_tokens = Sanitizer(threads=2).sanitize_file(path)
    single = Sanitizer(threads=1).sanitize_file(path)
    without = Sanitizer(count_tokens=False).sanitize_file(path)
    assert with_tokens.dumps() == single.dumps() == without.dumps()
    assert with_tokens.report.tokens_before == single.report.tokens_before
    assert with_tokens.report.tokens_after == single.report.tokens_after
