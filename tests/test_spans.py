"""Head+tail cuts: protected spans, markers, idempotence."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sanitizer.textkit import tags
from sanitizer.textkit.spans import MARKER_RE, cut_middle, has_marker, marker, marker_count


def cut(text: str, head: int, tail: int, **kw: object) -> str:
    result = cut_middle(text, head, tail, **kw)  # type: ignore[arg-type]
    assert result is not None
    return result[0]


def test_marker_format_and_recognition() -> None:
    assert marker(12345) == "…[trimmed 12,345 chars]…"
    assert has_marker("a …[trimmed 3 chars]… b")
    assert not has_marker("a [trimmed 3 chars] b")
    assert marker_count("ab" + marker(1000) + "cd") == 1004


def test_keeps_head_and_tail_and_counts_removed_chars() -> None:
    text = "H" * 10 + "m" * 100 + "T" * 10
    new, removed = cut_middle(text, 10, 10)  # type: ignore[misc]
    assert new == "H" * 10 + marker(100) + "T" * 10
    assert removed == "m" * 100


def test_returns_none_when_nothing_would_be_saved() -> None:
    assert cut_middle("x" * 30, 10, 10) is None  # the marker is longer than the middle
    assert cut_middle("short", 10, 10) is None


def test_second_cut_with_same_numbers_changes_nothing() -> None:
    text = "word " * 400
    once = cut(text, 400, 400)
    assert len(once) > 800  # longer than a max of 800: the marker must be recognised
    assert cut_middle(once, 400, 400) is None


def test_url_straddling_the_head_cut_is_kept_whole() -> None:
    text = "see https://example.com/a/b/c?x=1 " + "filler " * 30 + "end"
    new = cut(text, 20, 3)
    assert new.startswith("see https://example.com/a/b/c?x=1" + "…[trimmed")


def test_path_straddling_the_tail_cut_is_kept_whole() -> None:
    text = "start " + "filler " * 30 + "in /usr/lib/python3.11/site-packages/x.py"
    new = cut(text, 6, 20)
    assert new.endswith("…/usr/lib/python3.11/site-packages/x.py") or new.endswith("… /usr/lib/python3.11/site-packages/x.py")
    assert "/usr/lib/python3.11/site-packages/x.py" in new


def test_inline_code_and_flags_are_not_cut() -> None:
    text = "run `pytest -q --maxfail=1 tests/unit` now " + "blah " * 40 + "use --no-cache-dir please"
    new = cut(text, 10, 14)
    assert "`pytest -q --maxfail=1 tests/unit`" in new
    assert "--no-cache-dir please" in new


def test_error_line_in_the_middle_is_kept_with_its_line_breaks() -> None:
    text = "head\n" + "noise line\n" * 30 + "ValueError: bad input\n" + "noise line\n" * 30 + "tail"
    new = cut(text, 5, 4)
    assert "\nValueError: bad input\n" in new
    assert new.count("…[trimmed") == 2
    assert cut_middle(new, 5, 4) is None


def test_only_first_and_last_error_lines_of_a_long_middle_are_kept() -> None:
    text = "head\n" + "".join(f"FAILED test_{i}\nnoise noise noise\n" for i in range(20)) + "tail"
    new = cut(text, 3, 2, error_lines=4)
    kept = [i for i in range(20) if f"FAILED test_{i}\n" in new]
    assert kept == [0, 1, 18, 19]


def test_error_line_at_the_cut_point_is_kept_whole() -> None:
    text = "x" * 50 + "\nTraceback (most recent call last): boom\n" + "y" * 50
    new = cut(text, 60, 5)
    assert "\nTraceback (most recent call last): boom\n" in new


def test_very_long_error_line_is_not_protected() -> None:
    text = "Error " + "z" * 5000
    new = cut(text, 100, 100)
    assert len(new) < 300


def test_key_info_in_the_middle_survives_verbatim() -> None:
    info = "<key_info>deploy to prod-eu-2, never touch db-main\n  really</key_info>"
    text = "a" * 100 + info + "b" * 100
    new = cut(text, 10, 10)
    assert info in new
    assert new.startswith("a" * 10 + "…[trimmed 90 chars]…" + info)


def test_key_info_straddling_a_cut_moves_the_cut() -> None:
    info = "<key_info>" + "fact " * 10 + "</key_info>"
    text = "a" * 5 + info + "b" * 200
    new = cut(text, 20, 10)
    assert new.startswith("a" * 5 + info + "…[trimmed")


def test_unclosed_key_info_protects_to_the_end() -> None:
    text = "a" * 100 + "<key_info>" + "b" * 100
    new = cut(text, 10, 10)
    assert new.endswith("<key_info>" + "b" * 100)


def test_extra_protected_tags_are_kept() -> None:
    text = "a" * 100 + "<decision>use sqlite</decision>" + "b" * 100
    assert "<decision>use sqlite</decision>" not in cut(text, 10, 10)
    assert "<decision>use sqlite</decision>" in cut(text, 10, 10, protected_tags=("decision",))


def test_atomic_tags_are_kept_whole_at_the_cut_or_removed_whole() -> None:
    inner = "<thinking>" + "deep " * 10 + "</thinking>"
    text = "a" * 5 + inner + "b" * 200 + "<thinking>gone</thinking>" + "c" * 200
    new = cut(text, 20, 10, atomic_tags=("thinking",))
    assert new.startswith("a" * 5 + inner + "…[trimmed")
    assert "gone" not in new


@pytest.mark.parametrize(
    ("text", "head"),
    [
        ("ab\r\n" * 50, 3),  # \r\n at the cut
        ("中文字符" * 50, 7),  # CJK
        ("👨‍👩‍👧" * 40, 3),  # ZWJ sequence: 5 code points per cluster
        ("e\u0301" * 100, 1),  # combining accent
        ("🇫🇷🇩🇪" * 40, 1),  # regional-indicator flags
        ("x\ud83d\ude00" * 60, 2),  # a surrogate pair kept as two code points
    ],
)
def test_cut_points_never_split_a_cluster(text: str, head: int) -> None:
    new = cut(text, head, head)
    m = MARKER_RE.search(new)
    assert m is not None
    before, after = new[: m.start()], new[m.end():]
    assert text.startswith(before) and text.endswith(after)
    assert len(before) >= head and len(after) >= head
    # the kept head ends, and the kept tail starts, on a cluster boundary of the original
    unit = {"ab\r\n": 4}.get(text[:4], 0)
    if unit:
        assert len(before) % unit == 0
    assert not before.endswith(("\r", "\u200d", "\ud83d")) and not after.startswith(("\n", "\u0301", "\u200d", "\ude00"))
    if text.startswith("🇫"):
        assert len(before) % 2 == 0


def test_markers_inside_a_removed_middle_are_merged_and_counted() -> None:
    text = "a" * 50 + marker(1000) + "b" * 50
    new = cut(text, 10, 10)
    assert new == "a" * 10 + marker(40 + 1000 + 40) + "b" * 10
    assert marker_count(new) == marker_count(text)


def test_cut_point_inside_an_existing_marker_moves_out_of_it() -> None:
    text = "a" * 10 + marker(500) + "b" * 100
    new = cut(text, 15, 10)
    assert new.startswith("a" * 10 + marker(500))


def test_negative_numbers_are_rejected() -> None:
    with pytest.raises(ValueError, match="head and tail"):
        cut_middle("x" * 100, -1, 10)


# --- properties -------------------------------------------------------------------------------

TOKENS = [
    "a", "bb ", "word ", "\r\n", "中文", "😀", "👨‍👩‍👧", "e\u0301", "`code x`", "`", "/usr/bin/env ",
    "--flag=1 ", "https://x.io/p?q=1 ", "Error: boom", "FAILED t", "<key_info>", "</key_info>",
    "<key_info>fact</key_info>", "<thinking>", "</thinking>", marker(7), "…", "[trimmed 3 chars]",
]
texts = st.lists(st.sampled_from(TOKENS), max_size=80).map("".join)
numbers = st.integers(min_value=0, max_value=60)


@settings(max_examples=400, deadline=None)
@given(texts, numbers, numbers)
def test_cut_is_shorter_idempotent_and_keeps_head_tail_and_key_info(text: str, head: int, tail: int) -> None:
    result = cut_middle(text, head, tail)
    if result is None:
        return
    new, removed = result
    assert len(new) < len(text)
    assert new.startswith(text[:head]) and new.endswith(text[len(text) - tail:] if tail else "")
    assert cut_middle(new, head, tail) is None
    assert marker_count(new) == marker_count(text)
    for b in tags.find_blocks(text, ["key_info"]):
        assert text[b.start:b.end] in new
    # only \r\n line breaks are generated: none may be split
    assert new.count("\r") == new.count("\r\n") == new.count("\n")
    for m in MARKER_RE.finditer(new):
        assert not new[m.end():].startswith(("\u0301", "\u200d"))
        assert not new[: m.start()].endswith("\u200d")


@settings(max_examples=200, deadline=None)
@given(texts, numbers, numbers, st.sampled_from([(), ("thinking",)]))
def test_cut_is_deterministic_with_atomic_tags(text: str, head: int, tail: int, atomic: tuple[str, ...]) -> None:
    a = cut_middle(text, head, tail, atomic_tags=atomic)
    assert a == cut_middle(text, head, tail, atomic_tags=atomic)
    if a is not None:
        assert cut_middle(a[0], head, tail, atomic_tags=atomic) is None


# Whole spans separated by a space or a line break: a cut point may fall between them, never inside.
SPANS = ["https://example.com/a/b?x=1", "/usr/lib/python3/site.py", "src/app/main.py", "`make test`",
         "--max-count=3", "<result id=\"7\">", "<tool\n  name=\"grep\"\n  path=\"a/b\">", "C:\\Users\\me\\x.txt",
         "[REDACTED:jwt]", "[REDACTED:jwt:3f9a]"]
SEPS = [" ", "\n", "\r\n", " words here ", "\nplain line\n"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(SPANS), st.sampled_from(SEPS)), min_size=1, max_size=40),
       numbers, numbers)
def test_cut_points_fall_between_whole_spans(items: list[tuple[str, str]], head: int, tail: int) -> None:
    text = "".join(span + sep for span, sep in items)
    result = cut_middle(text, head, tail, error_lines=0, salient_lines=0)
    if result is None:
        return
    new = result[0]
    m = MARKER_RE.search(new)
    assert m is not None
    h, t = m.start(), len(text) - (len(new) - m.end())  # the cut points in `text`
    pos = 0
    for span, sep in items:
        end = pos + len(span)
        assert not pos < h < end and not pos < t < end, (span, h, t)
        pos = end + len(sep)
