"""The shapes of the `[fast]` gate: a pattern whose shape a text lacks never matches it.

`shape_of` writes a head of a pattern that means the same on UTF-8 bytes; the gate skips a pattern
without literal anchors when one hyperscan scan finds its shape absent.  Whole runs with and without
the extra are compared in `test_fast_extra.py`.
"""

from __future__ import annotations

import pytest

pytest.importorskip("hyperscan", reason="the [fast] extra (hyperscan) is not installed: pip install -e '.[fast]'")

import regex  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from sanitizer.secrets import prefilter, shapes  # noqa: E402
from sanitizer.secrets import scan as secrets  # noqa: E402

TRUE = [e.text for k in secrets.KINDS for e in k.true]
FALSE = [t for k in secrets.KINDS for t in k.false]
FRAGMENTS = [*TRUE, *FALSE, " ", "\t", "\n", "\\n", "=", ":", "?", "&", ";", '"', "'", "/", ".", "-", "_", "0", "9",
             "é", "的", "🙂", "\ud83d", *shapes.FOLDS_TO_ASCII, "token", "TOKEN", "api_key", "password", "secret",
             "access", "Authorization", "aws_secret_access_key", "MTI", "N", "O"]


@pytest.fixture(autouse=True)
def _built(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(prefilter, "BUILD_CHARS", 0)
    monkeypatch.setattr(prefilter, "MIN_CHARS", 0)
    prefilter.gate("x", secrets.PATTERNS)


def shaped() -> list[int]:
    return [i for i, s in enumerate(prefilter._SHAPES) if s is not None]


def test_the_patterns_that_ran_on_every_text_have_shapes() -> None:
    kinds = {secrets.PATTERNS[i].kind for i in shaped()}
    assert {"discord-token", "asana-token", "query-credential", "aws-secret-key", "auth-header"} <= kinds
    assert all(not prefilter._CANDS[i] for i in shaped())  # a pattern with anchors is gated by them


def test_every_example_holds_its_shape() -> None:
    """Sound on each match of every example: the match itself holds the shape."""
    checked = 0
    for index in shaped():
        sp, (db, _) = secrets.PATTERNS[index], prefilter._SHAPES[index]
        for text in TRUE + FALSE:
            for m in sp.pattern.finditer(text):
                assert prefilter._scan(db, m.group().encode("utf-8", "surrogatepass")), (sp.kind, m.group())
                checked += 1
    assert checked >= 10


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(FRAGMENTS), min_size=1, max_size=40))
def test_an_absent_pattern_never_matches(pieces: list[str]) -> None:
    text = "".join(pieces)
    gate = prefilter.gate(text, secrets.PATTERNS)
    assert gate is not None
    for index, sp in enumerate(secrets.PATTERNS):
        if gate.absent(index):
            assert sp.pattern.search(text) is None, (sp.kind, text)


def test_a_caseless_shape_is_not_trusted_where_a_char_folds_to_ascii() -> None:
    index = next(i for i in shaped() if secrets.PATTERNS[i].kind == "query-credential")
    text = "https://example.net/a?pa\u017fsword=" + "hunter2hunter2x"  # `ſ` matches `s` under (?i)
    assert secrets.PATTERNS[index].pattern.search(text) is not None
    gate = prefilter.gate(text, secrets.PATTERNS)
    assert not gate.folds and not gate.absent(index)
    assert not prefilter._scan(prefilter._SHAPES[index][0], text.encode())  # what trusting it would lose


def test_folds_to_ascii_is_every_char_that_case_ignoring_matches_to_ascii() -> None:
    ascii_any = regex.compile(r"(?i)[\x00-\x7f]")
    folds = [chr(c) for c in range(0x80, 0x110000) if not 0xD800 <= c <= 0xDFFF and ascii_any.match(chr(c))]
    assert tuple(folds) == shapes.FOLDS_TO_ASCII


@pytest.mark.parametrize(("spec", "shape"), [
    # look-arounds and anchors dropped; a long bound lifted; a long repeat shortened
    (r"(?<![A-Z])ab[0-9]{2,5}(?=x)$", rb"\x61\x62(?:[\x30-\x39]){2,}"),
    (r"^ab?c{3}d{12}", rb"\x61(?:\x62){0,1}(?:\x63){3,3}(?:\x64){8,}"),
    # the head ends before an item that could match a non-ASCII char
    (r"key=\s*+\S+", rb"\x6b\x65\x79\x3d"),
    (r"token:[^\n]+", rb"\x74\x6f\x6b\x65\x6e\x3a"),
    (r"abcd.", rb"\x61\x62\x63\x64"),
    (r"abcd\d", rb"\x61\x62\x63\x64"),
    (r"abcdé", rb"\x61\x62\x63\x64"),
    (r"abcd(?i:e)", rb"\x61\x62\x63\x64"),
    (r"abcd(?:e|\w)", rb"\x61\x62\x63\x64"),
    # branches, groups, and a group name `regex` lets branches reuse
    (r"(?:(?<value>abcd)|x(?<value>efgh))", rb"(?:(?:\x61\x62\x63\x64)|\x78(?:\x65\x66\x67\x68))"),
])
def test_shape_of(spec: str, shape: bytes) -> None:
    assert shapes.shape_of(spec) == (shape, False)
    assert shapes.shape_of("(?i)" + spec) == (shape, True)


@pytest.mark.parametrize("spec", [r"\sabcd", r"abc", r"[^a]bcde", r"(?x)abcd", r"\p{L}abcd", r"(", r"(?:ab|\s)cd"])
def test_no_shape_where_none_is_safe_or_narrow(spec: str) -> None:
    assert shapes.shape_of(spec) is None


def test_a_shape_hyperscan_refuses_leaves_the_pattern_running(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(prefilter, "shape_of", lambda spec: (rb"(?<=a)b\1", False))  # not hyperscan syntax
    monkeypatch.setattr(prefilter, "_CANDS", [])
    gate = prefilter.gate("MTI" + "a" * 40, secrets.PATTERNS)
    assert gate is not None and not any(prefilter._SHAPES)
    assert secrets.redact(TRUE[0]) == secrets.redact(TRUE[0], fast=False)
