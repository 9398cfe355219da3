"""Salient lines in a cut middle: URL lines everywhere, constraint sentences in user text, bounded."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from sanitizer.textkit.salient import SALIENT_LINES
from sanitizer.textkit.spans import MARKER_RE, cut_middle

FILLER = "\n".join(f"filler line {k}: nothing to see here at all" for k in range(60))


def test_url_lines_in_the_middle_are_kept_verbatim() -> None:
    urls = [f"- source {k}: https://docs.example.org/guide/s{k}.html" for k in range(12)]
    text = FILLER + "\n" + "\n".join(urls) + "\n" + FILLER
    new, removed = cut_middle(text, 200, 200)
    assert all(u in new for u in urls)
    assert "filler line 30" in removed and len(new) < len(text)


def test_constraint_sentences_are_kept_only_when_asked() -> None:
    rule = "Make sure gitleaks is set to max strict before any commit."
    text = FILLER + "\n" + rule + "\n" + FILLER
    assert rule in cut_middle(text, 200, 200, cues=True)[0]
    assert rule not in cut_middle(text, 200, 200)[0]


def test_a_cue_inside_a_long_line_keeps_its_sentence() -> None:
    long_line = ("word " * 300) + "end. You must never push to main. " + ("more " * 300)
    text = FILLER + "\n" + long_line + "\n" + FILLER
    new = cut_middle(text, 200, 200, cues=True)[0]
    assert "You must never push to main." in new and len(new) < len(text) // 2


def test_kept_lines_are_bounded_per_cut() -> None:
    text = FILLER + "\n" + "\n".join(f"see https://x.example/{k}" for k in range(100)) + "\n" + FILLER
    new = cut_middle(text, 200, 200)[0]
    kept = [k for k in range(100) if f"https://x.example/{k}\n" in new]
    assert kept == list(range(SALIENT_LINES))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(["plain words here", "see https://a.example/p?q=1", "you must avoid that",
                                 "Never do X. Always do Y.", "", "x" * 90]), min_size=1, max_size=80),
       st.integers(0, 400), st.integers(0, 400), st.booleans())
def test_cuts_with_salient_lines_are_idempotent_and_smaller(lines: list[str], head: int, tail: int,
                                                            cues: bool) -> None:
    text = "\n".join(lines)
    result = cut_middle(text, head, tail, cues=cues)
    if result is None:
        return
    new = result[0]
    assert len(new) < len(text) and MARKER_RE.search(new)
    assert cut_middle(new, head, tail, cues=cues) is None
