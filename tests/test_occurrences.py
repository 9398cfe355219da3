"""`textkit.occurrences` (the `[fast]` extra): one hyperscan scan gives every start `str.find`
gives, and error evidence found from those starts is the evidence `str.find` finds."""

from __future__ import annotations

import pytest

pytest.importorskip("hyperscan", reason="the [fast] extra (hyperscan) is not installed: pip install -e '.[fast]'")

from hypothesis import example, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from sanitizer.textkit import evidence, occurrences  # noqa: E402

WORDS = evidence._LITERALS
# The words, words inside words and overlapping themselves, and what is near them.
_PIECES = [*WORDS, "ERRORERROR", "exitexit", "** (** (", "ERR!ERROR", "Traceback (most recent call last)",
           "ValueError: v", "E   assert 1", "status: 1", "\n", "\r\n", " ", "x", "é", "中"]
_TEXTS = st.lists(st.sampled_from(_PIECES) | st.text(st.characters(max_codepoint=127), max_size=5), max_size=40).map(
    "".join)


def _starts_by_find(text: str) -> list[int]:
    """Every start of every word, overlapping ones too, the plain way."""
    out = []
    for word in WORDS:
        at = text.find(word)
        while at >= 0:
            out.append(at)
            at = text.find(word, at + 1)
    return sorted(out)


def _built() -> occurrences.Literals:
    found = occurrences.Literals(WORDS)
    assert found._build() is not None
    return found


@settings(max_examples=400, deadline=None)
@given(_TEXTS)
@example("ERRORERROR exitexit ** (** (")
def test_one_scan_gives_every_start_find_gives(text: str) -> None:
    starts = _built().starts(text)
    if text.isascii():
        assert starts == _starts_by_find(text)
    else:
        assert starts is None  # byte offsets are not char offsets: left to the caller


@settings(max_examples=400, deadline=None)
@given(_TEXTS, st.integers(1, 6))
@example("ok\nValueError: v\nE   assert 1\nValueError: v\nTraceback (most recent call last)\n", 1)
def test_evidence_from_one_scan_is_the_evidence_find_gives(text: str, limit: int) -> None:
    saved = evidence._OCCURRENCES, occurrences.ENABLED
    try:
        evidence._OCCURRENCES = _built()
        fast = evidence.find(text, limit)
        occurrences.ENABLED = False
        plain = evidence.find(text, limit)
    finally:
        evidence._OCCURRENCES, occurrences.ENABLED = saved
    assert fast == plain


def test_what_is_left_to_the_caller(monkeypatch: pytest.MonkeyPatch) -> None:
    found = _built()
    assert found.starts("an Error") == [3]
    assert found.starts("an Error é") is None  # not ASCII
    assert found.starts("Error " * (occurrences.MAX_CHARS // 6 + 1)) is None  # too long to list
    monkeypatch.setattr(occurrences, "ENABLED", False)
    assert found.starts("an Error") is None


def test_hyperscan_is_not_imported_for_a_few_texts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Until the run has imported hyperscan, or offered `IMPORT_CHARS`, the caller finds the words."""
    monkeypatch.setattr(occurrences, "_hyperscan_loaded", lambda: False)
    monkeypatch.setattr(occurrences, "IMPORT_CHARS", 100)
    found = occurrences.Literals(WORDS)
    assert found.starts("an Error " * 5) is None and found._db is None
    assert found.starts("an Error " * 10) == [3 + 9 * i for i in range(10)]  # past 100 chars offered: built


def test_a_database_that_fails_to_build_leaves_the_words_to_the_caller(monkeypatch: pytest.MonkeyPatch) -> None:
    import hyperscan

    class Broken:
        def __init__(self, *args: object, **kwargs: object) -> None:
            raise RuntimeError("no room for a database")

    monkeypatch.setattr(hyperscan, "Database", Broken)
    found = occurrences.Literals(WORDS)
    assert found.starts("an Error") is None and found._failed
    monkeypatch.setattr(evidence, "_OCCURRENCES", found)
    assert evidence.find("ValueError: v\n") == evidence.Evidence(("ValueError: v",), 1, False)


def test_starts_come_in_order_when_one_word_holds_another() -> None:
    """Hyperscan reports a match where it ends: a word inside a longer one ends first."""
    found = occurrences.Literals(("CategoryInfo", "gory", "o"))
    assert found._build() is not None
    text = "x CategoryInfo o"
    assert found.starts(text) == [2, 6, 7, 13, 15]
