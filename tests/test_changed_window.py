"""`Engine.shrinks` counts only the changed window of an edit: the window's counts differ by
exactly what the whole texts' counts differ by, on any edit (checked against plain tiktoken)."""

from __future__ import annotations

import re

import pytest
from conftest import CORPUS
from hypothesis import given, settings
from hypothesis import strategies as st

from sanitizer.config import load
from sanitizer.engine import Engine
from sanitizer.tokens.counter import TokenCounter, get_encoding
from sanitizer.tokens.pretokens import changed_window

PIECES = ["word", "x", "\n", " ", "\n\n", "é", "数据", "🙂", ".", "  ", "\t", "123", "\r\n", "'s", "A", "]", "…",
          "\u0301", "-", "'", "4", "\x1c", "/", "\x0b", "\n/"]
texts = st.lists(st.sampled_from(PIECES), max_size=60).map("".join)


def plain(text: str) -> int:
    return len(get_encoding().encode_ordinary(text))


@settings(max_examples=400, deadline=None)
@given(texts, texts, texts, texts, st.booleans())
def test_the_window_differs_by_what_the_texts_differ_by(head: str, old_mid: str, new_mid: str, tail: str,
                                                        words: bool) -> None:
    old, new = head + old_mid + tail, head + new_mid + tail
    start, old_end, new_end = changed_window(old, new, words)
    assert old[:start] == new[:start] and old[old_end:] == new[new_end:]
    assert 0 <= start <= min(old_end, new_end)
    assert plain(old) - plain(new) == plain(old[start:old_end]) - plain(new[start:new_end])


def test_a_cut_middle_leaves_a_small_window() -> None:
    head, tail = "line one of the output\n" * 200, "\nthe end of it: exit 1\n" * 60
    old = head + "removed words here\n" * 3000 + tail
    new = head + "…[trimmed 57,000 chars]…" + tail
    start, old_end, new_end = changed_window(old, new)
    assert new_end - start < 40  # the marker and a few chars around it
    assert old_end - start < len(old) - len(head) - len(tail) + 40


@settings(max_examples=600, deadline=None)
@given(texts)
def test_every_word_boundary_ends_a_pre_token_in_each_word_bound_pattern(text: str) -> None:
    """The places `changed_window` cuts at end a pre-token of cl100k's pattern and of GPT-2's
    (r50k, p50k): read from the patterns themselves, no vocabulary needed."""
    import regex
    from tiktoken_ext.openai_public import r50k_pat_str

    from sanitizer.tokens import pretokens, ranks

    for pattern in (ranks.PATTERN, r50k_pat_str):
        ends, at = set(), 0
        for piece in regex.findall(pattern, text):
            at += len(piece)
            ends.add(at)
        for m in regex.finditer(pretokens._WORD_BOUNDARY, text):
            assert m.start() in ends, (pattern[:20], text, m.start())


def test_an_edit_of_json_arguments_is_decided_on_what_it_removes() -> None:
    """A word's last letter ends its pre-token whatever follows: dropping a key of a tool call's
    arguments leaves the dropped key and the closing chars as the window, and no exact count."""
    old = '{"command": "whoami /priv", "description": "Check user privileges and tokens"}'
    new = '{"command": "whoami /priv"}'
    start, old_end, new_end = changed_window(old, new)
    assert (old[start:old_end], new[start:new_end]) == ('", "description": "Check user privileges and tokens"}', '"}')
    assert plain(old) - plain(new) == plain(old[start:old_end]) - plain(new[start:new_end])
    counter = TokenCounter(threads=1)
    counter.fewer = None  # an exact comparison would fail here: the bounds decide
    assert Engine(load("none"), counter).shrinks(old, new)


@settings(max_examples=200, deadline=None)
@given(texts, texts, texts, texts)
def test_shrinks_is_the_exact_comparison(head: str, old_mid: str, new_mid: str, tail: str) -> None:
    old, new = head + old_mid + tail, head + new_mid + tail
    engine = Engine(load("none"), TokenCounter(threads=1))
    assert engine.shrinks(old, new) == (len(new) < len(old) and plain(new) < plain(old))


ascii_texts = st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=127), max_size=200)
ASCII_PIECES = ["word", "x", "\n", " ", "'s", "'ll", "((", "(", ".", "12", "1234", "\x1c", "\t", "\x0b", "\r\n",
                "A", "-", "_", "'", "?!", "$", "a1", "1a"]


@settings(max_examples=500, deadline=None)
@given(st.one_of(ascii_texts, st.lists(st.sampled_from(ASCII_PIECES), max_size=80).map("".join)),
       st.text(max_size=20))
def test_the_ascii_floor_never_exceeds_the_count(text: str, rest: str) -> None:
    from sanitizer.tokens.bounds import ascii_pretoken_floor, lower_bound

    assert ascii_pretoken_floor(text) <= plain(text)
    assert ascii_pretoken_floor(text) <= plain(text + rest)  # a floor of a text's beginning holds too
    for enough in (None, 0, 5, 50, 10_000):
        assert lower_bound(text + rest, "cl100k_base", enough, fine=True) <= plain(text + rest)


# The pieces `ascii_pretoken_floor` counts, as one pattern (`\s` here is the six ASCII whitespace
# chars cl100k's pattern sees: not U+001C..U+001F).
ASCII_FLOOR_PIECES = re.compile(
    r"[A-Za-z]+|[0-9]{1,3}|[^\t\n\x0b\x0c\r A-Za-z0-9]{2,}|[^\t\n\x0b\x0c\r A-Za-z0-9](?![A-Za-z])")


@settings(max_examples=1500, deadline=None)
@given(st.one_of(ascii_texts, st.lists(st.sampled_from(ASCII_PIECES + ["0", "000", "0000", "..", "a"]),
                                       max_size=80).map("".join)))
def test_the_ascii_floor_counts_the_pieces_of_its_pattern(text: str) -> None:
    from sanitizer.tokens.bounds import ascii_pretoken_floor

    assert ascii_pretoken_floor(text) == len(ASCII_FLOOR_PIECES.findall(text))


def test_the_ascii_floor_counts_the_pieces_of_corpus_text() -> None:
    from sanitizer.tokens.bounds import ascii_pretoken_floor

    if not CORPUS.is_dir():
        pytest.skip(f"{CORPUS} not found: the corpus sits in ../shared/ beside the clone")
    lines = [line for path in sorted(CORPUS.glob("*/*")) if path.is_file()
             for line in path.read_text(encoding="utf-8", errors="replace").splitlines() if line.isascii()]
    assert len(lines) > 1000
    assert [ascii_pretoken_floor(t) for t in lines] == [len(ASCII_FLOOR_PIECES.findall(t)) for t in lines]
