"""Head+tail cuts with self-describing markers (first version; protected spans to be added).

`cut_middle` is the one place where text is shortened in the middle: every action that trims
uses it, so the marker format and the idempotence rule live here.
"""

from __future__ import annotations

import regex

MARKER_RE = regex.compile(r"…\[trimmed [0-9,]+ chars\]…")


def marker(removed_chars: int) -> str:
    return f"…[trimmed {removed_chars:,} chars]…"


def has_marker(text: str) -> bool:
    return MARKER_RE.search(text) is not None


def cut_middle(text: str, head: int, tail: int) -> tuple[str, str] | None:
    """Keep `head` chars and `tail` chars, replace the middle by a marker.

    Returns (new_text, removed_text), or None when nothing would be saved.
    """
    if len(text) <= head + tail + len(marker(len(text))):
        return None
    removed = text[head : len(text) - tail]
    return text[:head] + marker(len(removed)) + text[len(text) - tail :], removed
