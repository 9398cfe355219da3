"""Helpers of the fallback-summary tests: conversations to summarize and where their facts come from."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import CORPUS

from sanitizer import digest, read_conversations
from sanitizer.document.loader import from_text
from sanitizer.summary.extract import content_text, user_ask_text
from sanitizer.transcript import to_messages


def call(call_id: str, name: str, **args: Any) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}


def corpus_files() -> list[Path]:
    return sorted(p for p in CORPUS.glob("*/*") if p.is_file() and p.name != "SOURCES.md") if CORPUS.is_dir() else []


def corpus_conversations(path: Path) -> list[list[dict[str, Any]]]:
    """Normalized messages (injected records left out) of the first and last conversation of a
    corpus file, read by the library's own readers."""
    views = read_conversations(from_text(path.read_bytes().decode("utf-8"), str(path)))
    chosen = views if len(views) <= 2 else [views[0], views[-1]]
    return [to_messages(v, skip_injected=True) for v in chosen]


def session_text(messages: list[dict[str, Any]]) -> str:
    """Everything a path may come from: contents, raw arguments and their decoded string leaves."""
    parts: list[str] = []

    def leaves(value: Any) -> None:
        if isinstance(value, str):
            parts.append(value)
        elif isinstance(value, dict):
            for v in value.values():
                leaves(v)
        elif isinstance(value, list):
            for v in value:
                leaves(v)

    for msg in messages:
        parts.append(content_text(msg.get("content")))
        for tc in msg.get("tool_calls") or []:
            arguments = tc["function"]["arguments"]
            parts.append(arguments)
            leaves(digest.parse_args(arguments))
    return "\n".join(parts)


def latest_ask(messages: list[dict[str, Any]]) -> str | None:
    asks = [user_ask_text(m.get("content")) for m in messages if m.get("role") == "user"]
    asks = [a for a in asks if a is not None]
    return asks[-1] if asks else None


def section_body(text: str, title: str) -> str:
    start = text.index(f"## {title}\n") + len(title) + 4
    end = text.find("\n## ", start)
    return text[start:] if end < 0 else text[start:end]
