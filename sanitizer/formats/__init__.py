"""Format adapters and content-based detection."""

from __future__ import annotations

from ..model import Document
from .anthropic import Anthropic
from .base import Adapter
from .claude_code import ClaudeCode
from .codex import Codex
from .dataset import Dataset
from .hermes import Hermes
from .mini_swe_agent import MiniSweAgent
from .openai_chat import OpenAIChat
from .openhands import OpenHands
from .pydantic_ai import PydanticAI
from .responses import Responses
from .swe_agent import SweAgent

# Order breaks ties in detection: the more specific layouts first.
ADAPTERS: tuple[Adapter, ...] = (
    ClaudeCode(), Codex(), SweAgent(), MiniSweAgent(), OpenHands(), Hermes(),
    Dataset(), Anthropic(), Responses(), OpenAIChat(),
    PydanticAI(),
)


class FormatError(ValueError):
    """The format cannot be detected, or the named format does not exist."""


def by_name(name: str) -> Adapter:
    for adapter in ADAPTERS:
        if adapter.name == name:
            return adapter
    names = ", ".join(a.name for a in ADAPTERS)
    raise FormatError(f"unknown format {name!r}; choose one of: {names}")


def detect(doc: Document) -> Adapter:
    """The adapter most sure of the document's content (ties go to the earlier adapter)."""
    best, best_score = None, 0
    for adapter in ADAPTERS:
        score = adapter.sniff(doc)
        if score > best_score:
            best, best_score = adapter, score
    if best is None:
        names = ", ".join(a.name for a in ADAPTERS)
        raise FormatError(f"{doc.source}: could not detect the conversation format; pass --format ({names})")
    return best
