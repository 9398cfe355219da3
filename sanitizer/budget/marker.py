"""What a budget marker says: a count line for the dropped messages, their protected blocks, and
optionally a deterministic summary of them that fits the budget."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Collection
from typing import Any

from sanitizer.model import Message, Part, View
from sanitizer.summary import summarize_messages
from sanitizer.textkit.tags import find_blocks, outermost
from sanitizer.transcript import to_messages

SUMMARY_MAX_CHARS = 4000
SUMMARY_MIN_CHARS = 300


def count_line(view: View, msgs: list[Message], budget: int) -> str:
    """`[… k earlier messages dropped to fit a N-token budget: tool calls (…); roles …]`."""
    tools: Counter[str] = Counter()
    roles: Counter[str] = Counter()
    for m in msgs:
        roles[m.role] += 1
        for p in view.parts_of(m):
            if p.kind == "tool_call":
                tools[p.tool or "tool"] += 1
    k = len(msgs)
    bits = []
    if tools:
        top = ", ".join(f"{name}×{n}" for name, n in sorted(tools.items(), key=lambda t: (-t[1], t[0]))[:6])
        more = ", …" if len(tools) > 6 else ""
        bits.append(f"{sum(tools.values())} tool call{'s' * (sum(tools.values()) != 1)} ({top}{more})")
    for role in ("user", "assistant", "tool"):
        if roles[role]:
            bits.append(f"{roles[role]} {role}")
    detail = ": " + "; ".join(bits) if bits else ""
    return f"[… {k} earlier message{'s' * (k != 1)} dropped to fit a {budget:,}-token budget{detail} …]"


def summarized(view: View, msgs: list[Message], marker: str, max_chars: int, room: int,
               count: Callable[[str], int]) -> tuple[str, int] | None:
    """`marker` followed by a summary of `msgs` whose cost is at most `room` tokens, and that
    cost; the summary is halved until it fits (None when even the shortest does not)."""
    sub = View(view.doc, view.adapter, messages=msgs, parts=view.parts)
    messages = to_messages(sub)
    while max_chars >= SUMMARY_MIN_CHARS:
        text = summarize_messages(messages, max_chars=max_chars).text.strip()
        out = f"{marker}\n\nSummary of the dropped messages:\n\n{text}"
        cost = count(out)
        if cost <= room:
            return out, cost
        max_chars //= 2
    return None


def _leaves(node: Any) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, dict):
        return [s for v in node.values() for s in _leaves(v)]
    if isinstance(node, list):
        return [s for v in node for s in _leaves(v)]
    return []


def _readable(part: Part) -> list[str]:
    """A part's texts as a reader sees them: a tool call's JSON string values, decoded."""
    if part.kind == "tool_call":
        try:
            return _leaves(json.loads(part.text))
        except (ValueError, RecursionError):
            pass
    return [part.text]


def kept_blocks(parts: list[Part], names: Collection[str]) -> list[str]:
    """The closed protected blocks of `parts`, outermost only, in order and without repeats."""
    out: list[str] = []
    seen: set[str] = set()
    for p in parts:
        if p.dropped or p.kind in ("image", "other") or "<" not in p.text:
            continue
        for text in _readable(p):
            for b in outermost(b for b in find_blocks(text, names) if b.closed):
                block = text[b.start:b.end]
                if block not in seen:
                    seen.add(block)
                    out.append(block)
    return out
