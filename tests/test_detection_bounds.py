"""Detection reads a second claimant only where it could win: an adapter's `most_messages` bound
must never be below what its views read, and skipping a claimant by it never changes the choice."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import CORPUS, EXAMPLE, corpus_params

from sanitizer import formats
from sanitizer.document import loader
from sanitizer.formats.responses import Responses

ALL_FOLDERS = tuple(sorted(p.name for p in CORPUS.iterdir() if p.is_dir())) if CORPUS.is_dir() else ()


def _doc(path: Path) -> loader.Document:
    return loader.from_text(path.read_text(encoding="utf-8", errors="surrogateescape"), path.name)


def _read_every_claimant(doc: loader.Document) -> tuple[str, int]:
    """Detection as it was before the bounds: every claimant read, the same tie-breaks."""
    claimants = [(a, a.sniff(doc)) for a in formats.ADAPTERS]
    claimants = [(a, s) for a, s in claimants if s > 0]
    best = max(claimants, key=lambda c: c[1])[0]  # max keeps the first of equal scores
    got = formats.message_count(best, doc)
    counts = [(formats.message_count(a, doc), s, -i, a) for i, (a, s) in enumerate(claimants) if a is not best]
    winner = best
    if counts and (most := max(counts, key=lambda c: c[:3]))[0] > 2 * got:
        winner = most[3]
    return winner.name, formats.message_count(winner, doc)


@pytest.mark.parametrize("path", [*corpus_params(*ALL_FOLDERS), pytest.param(EXAMPLE, id="example")])
def test_no_bound_is_below_what_the_views_read(path: Path) -> None:
    doc = _doc(path)
    for adapter in formats.ADAPTERS:
        bound = adapter.most_messages(doc)
        if bound is not None:
            assert bound >= formats.message_count(adapter, doc), adapter.name


@pytest.mark.parametrize("path", [*corpus_params(*ALL_FOLDERS), pytest.param(EXAMPLE, id="example")])
def test_the_bounds_never_change_the_choice(path: Path) -> None:
    doc = _doc(path)
    chosen, views = formats.detect_views(doc)
    expected = _read_every_claimant(doc)
    read = formats.message_count(chosen, doc) if views is None else sum(len(v.messages) for v in views)
    assert (chosen.name, read) == expected


@pytest.mark.parametrize("path", corpus_params("codex_rollout"))
def test_a_codex_rollout_is_not_read_a_second_time_as_responses_items(path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    doc = _doc(path)
    claims = {a.name for a in formats.ADAPTERS if a.sniff(doc) > 0}
    assert "codex" in claims and claims <= {"codex", "responses"}  # an exported session: Codex alone

    def unread(self: Responses, doc: object) -> None:
        raise AssertionError("the Responses items of a Codex rollout were read")

    monkeypatch.setattr(Responses, "views", unread)
    chosen, views = formats.detect_views(doc)
    assert chosen.name == "codex"
    # Read while telling the two apart, or (Codex alone) left for the run to read.
    assert views is not None if claims == {"codex", "responses"} else views is None
    assert sum(len(v.messages) for v in (views or chosen.views(doc))) > 0



def test_a_claimant_bounded_above_twice_the_surest_count_is_read_and_wins() -> None:
    """The surest claimant reads one message of five chat messages: the chat adapter's bound (5)
    is above twice that, so it is read, and it wins with all five."""
    from sanitizer.formats.openai_chat import OpenAIChat

    class OneOnly(OpenAIChat):
        name = "one-only"

        def sniff(self, doc: object) -> int:
            return 10**6

        def most_messages(self, doc: object) -> int | None:
            return None

        def views(self, doc: object):  # noqa: ANN201
            for view in super().views(doc):
                view.messages = view.messages[:1]
                yield view

    chat = [{"role": ("user", "assistant")[i % 2], "content": f"turn {i}"} for i in range(5)]
    doc = loader.from_object(chat)
    saved = formats.ADAPTERS
    try:
        formats.ADAPTERS = (OneOnly(), *saved)
        chosen, views = formats.detect_views(doc)
    finally:
        formats.ADAPTERS = saved
    assert chosen.name == "openai_chat" and views is not None and len(views[0].messages) == 5
