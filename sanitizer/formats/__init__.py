"""Format adapters and content-based detection."""

from __future__ import annotations

from typing import Any

from sanitizer.document import loader
from sanitizer.errors import FormatError
from sanitizer.formats.anthropic import Anthropic
from sanitizer.formats.base import Adapter
from sanitizer.formats.claude_code import ClaudeCode
from sanitizer.formats.codex import Codex
from sanitizer.formats.dataset import Dataset
from sanitizer.formats.hermes import Hermes
from sanitizer.formats.mini_swe_agent import MiniSweAgent
from sanitizer.formats.openai_chat import OpenAIChat
from sanitizer.formats.openhands import OpenHands
from sanitizer.formats.pydantic_ai import PydanticAI
from sanitizer.formats.responses import Responses
from sanitizer.formats.swe_agent import SweAgent
from sanitizer.model import Document, View

# Order breaks ties in detection: the more specific layouts first.
ADAPTERS: tuple[Adapter, ...] = (
    ClaudeCode(), Codex(), SweAgent(), MiniSweAgent(), OpenHands(), Hermes(),
    Dataset(), Anthropic(), Responses(), OpenAIChat(),
    PydanticAI(),
)


def by_name(name: str) -> Adapter:
    for adapter in ADAPTERS:
        if adapter.name == name:
            return adapter
    names = ", ".join(a.name for a in ADAPTERS)
    raise FormatError(f"unknown format {name!r}; choose one of: {names}")


def detect(doc: Document) -> Adapter:
    """The adapter most sure of the document's content (ties go to the earlier adapter).

    When several adapters claim the document and another claimant reads more than twice as many
    messages as the surest one (which may read none), that claimant wins instead: a wrong reading
    is never silent.
    """
    return detect_views(doc)[0]


def detect_views(doc: Document) -> tuple[Adapter, list[View] | None]:
    """`detect`, and the views of the adapter chosen where telling the claimants apart read them
    (None where it did not, or where they could not be read): a caller about to read them takes these."""
    best, best_score = None, 0
    claimants = []
    for adapter in ADAPTERS:
        score = adapter.sniff(doc)
        if score > 0:
            claimants.append((adapter, score))
        if score > best_score:
            best, best_score = adapter, score
    if best is None:
        names = ", ".join(a.name for a in ADAPTERS)
        raise FormatError(f"{doc.source}: could not detect the conversation format; pass --format ({names})")
    if len(claimants) > 1 and doc.records:
        read = {best: _views(best, doc)}
        got = _messages(read[best])
        # A claimant whose bound is at most twice that count cannot win: it is not read.
        rivals = [(i, a, score) for i, (a, score) in enumerate(claimants) if a is not best
                  and ((bound := a.most_messages(doc)) is None or bound > 2 * got)]
        if not rivals:
            return best, read[best]
        read.update((a, _views(a, doc)) for _, a, _ in rivals)
        # the most messages; then the surest; then the earlier adapter
        most = max(((_messages(read[a]), score, -i, a) for i, a, score in rivals), key=lambda c: c[:3])
        winner = most[3] if most[0] > 2 * got else best
        return winner, read[winner]
    return best, None


def message_count(adapter: Adapter, doc: Document) -> int:
    """How many messages `adapter` reads from `doc` (0 when the shapes are not its own)."""
    return _messages(_views(adapter, doc))


def _views(adapter: Adapter, doc: Document) -> list[View] | None:
    """The views `adapter` reads from `doc`, or None when the shapes are not its own."""
    try:
        return list(adapter.views(doc))
    except (KeyError, TypeError, AttributeError, ValueError, IndexError):
        return None


def _messages(views: list[View] | None) -> int:
    return sum(len(view.messages) for view in views) if views is not None else 0


def read_views(obj: Any, format: str | None = None) -> list[View]:
    """The conversations of an input (a loaded `Document`, or messages in memory, copied first),
    read by `format` or the detected adapter, with no rule applied."""
    doc = obj if isinstance(obj, Document) else loader.from_object(obj)
    adapter = by_name(format) if format else detect(doc)
    return list(adapter.views(doc))
