"""Small text helpers for one-line digests: newlines as `\\n`, word-boundary clips, backticks."""

from __future__ import annotations

COMMAND_CHARS = 200  # a longer command is cut at a word boundary near this length


def one_line(s: str) -> str:
    """Newlines written as `\\n` so the digest stays on one line."""
    return s.replace("\r\n", "\\n").replace("\n", "\\n").replace("\r", "\\r")


def clip(s: str, limit: int = COMMAND_CHARS, words: bool = True) -> str:
    """Cut `s` near `limit` chars, at whitespace so a path or URL is never split, and add ` …`."""
    s = one_line(s)
    if len(s) <= limit:
        return s
    if not words:
        return s[: limit - 1].rstrip() + "…"
    cut = max(s.rfind(" ", 0, limit + 1), s.rfind("\t", 0, limit + 1))
    if cut <= 0:
        nxt = s.find(" ", limit)
        cut = nxt if 0 < nxt <= limit * 2 else min(len(s), limit * 2)
    head = s[:cut].rstrip()
    return head + " …" if len(head) < len(s) else head


def code(s: str) -> str:
    """Inline code, with a longer fence when the text itself holds a backtick."""
    if "`" not in s:
        return f"`{s}`"
    return f"`` {s} ``"


def plural(n: int, word: str) -> str:
    return f"{n:,} {word}" if n == 1 else f"{n:,} {word}s"
