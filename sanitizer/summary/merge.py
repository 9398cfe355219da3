"""Merge a previous summary (same layout) with the sections built from new messages.

Items of both are kept, previous first, deduplicated (ignoring `(turn N)` / `(action N)` labels,
case and trailing punctuation).  Single-valued facts are updated instead of listed twice: the
Active Task is the new latest ask when there is one, and Active State lines are replaced by label
(`Working directory: …`).  Remaining Work drops a previous item that the new todo list mentions
(done or re-listed).  Turn and action numbers of the new part continue after the previous ones.
"""

from __future__ import annotations

import re

from sanitizer.summary import layout as L
from sanitizer.summary.render import Section
from sanitizer.summary.sections import Built, Item
from sanitizer.summary.text import norm_key

LABEL_RE = re.compile(r"^\((?:turn|action) \d+[^)]*\)\s*")
STATUS_RE = re.compile(r"\s*\((?:pending|in progress|in_progress|todo|open|blocked|not started)\)$", re.I)


def _key(text: str) -> str:
    return norm_key(LABEL_RE.sub("", text))


def _numbered(line: str) -> Item:
    m = L.NUMBER_RE.match(line)
    if m:
        return Item(line[m.end():], number=int(m.group(1)))
    return Item(line)


def _union(prev: list[Item], new: list[Item]) -> list[Item]:
    seen: dict[str, None] = {}
    out: list[Item] = []
    for item in [*prev, *new]:
        key = _key(item.text)
        if key not in seen:
            seen[key] = None
            out.append(item)
    return out


def _state(prev: list[Item], new: list[Item]) -> list[Item]:
    label = lambda it: it.text.split(":", 1)[0].casefold()  # noqa: E731
    fresh = {label(it): it for it in new}
    out = [fresh.pop(label(it), it) for it in prev]
    return out + [it for it in new if label(it) in fresh]


def sections_of(built: Built, previous: dict[str, list[str]] | None, focus: str | None) -> list[Section]:
    """Sections in layout order (Focus after Active Task, Earlier Context after Goal, then any
    other sections a previous summary had)."""
    previous = previous or {}
    keys: list[str] = [L.ACTIVE_TASK]
    if focus or previous.get(L.FOCUS):
        keys.append(L.FOCUS)
    keys.append(L.GOAL)
    if previous.get(L.EARLIER):
        keys.append(L.EARLIER)
    keys += [t for t in L.TITLES if t not in keys]
    keys += [k for k in previous if k not in keys]
    out: list[Section] = []
    for key in keys:
        new = built.items.get(key, [])
        prev = [_numbered(x) if key == L.ACTIONS else Item(x) for x in previous.get(key, [])]
        for item in prev:
            item.focus = bool(focus) and focus.casefold() in item.text.casefold()
        if key == L.ACTIVE_TASK:
            items = new or prev[-1:]
        elif key == L.STATE:
            items = _state(prev, new)
        elif key == L.ACTIONS:
            items = prev + new
        elif key == L.REMAINING:
            seen = set(built.todo_seen)
            items = _union([p for p in prev if norm_key(STATUS_RE.sub("", p.text)) not in seen], new)
        else:
            items = _union(prev, new)
        title = f"{L.FOCUS}: {focus}" if key == L.FOCUS and focus else key
        out.append(Section(key, title, items, folded=built.folded.get(key, 0)))
    return out
