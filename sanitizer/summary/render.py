"""Render sections to markdown within a hard size bound.

When the full text is longer than `max_chars`, items are left out in a fixed order of importance
(the least useful first, the oldest first within a section, items about the focus topic last) and
each section that lost items says so: `[… 12 earlier completed actions omitted to fit 8000 chars]`.
Then long items are shortened, then whole sections emptied, then the Active Task is cut head +
tail, and as a last resort the text itself is cut with a marker.  The result never exceeds
`max_chars` and is never empty.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from . import layout as L
from .sections import Item
from .text import clip

NOUNS = {
    L.ACTIVE_TASK: "chars of the active task",
    L.FOCUS: "focus excerpts",
    L.GOAL: "goal items",
    L.CONSTRAINTS: "constraints",
    L.ACTIONS: "completed actions",
    L.STATE: "state items",
    L.BLOCKED: "blocked items",
    L.DECISIONS: "decisions",
    L.RESOLVED: "resolved questions",
    L.PENDING: "pending asks",
    L.FILES: "relevant files",
    L.REMAINING: "remaining items",
}
# Sections whose first items are the oldest: dropping starts at the front and the marker says
# "earlier".  The others (files most recent first, todo lists, state) drop from the end.
OLDEST_FIRST = (L.FOCUS, L.CONSTRAINTS, L.ACTIONS, L.BLOCKED, L.DECISIONS, L.RESOLVED, L.PENDING, L.EARLIER)
KEEP_RECENT_ACTIONS = 20

# (section, items to keep) — applied in this order until the text fits.  `None` = any section not
# in the layout (kept from a previous summary).
DROP_PLAN: tuple[tuple[str | None, int], ...] = (
    (None, 3), (L.FILES, 10), (L.ACTIONS, KEEP_RECENT_ACTIONS), (L.EARLIER, 5), (L.RESOLVED, 3),
    (L.DECISIONS, 4), (L.FOCUS, 6), (L.GOAL, 1), (L.BLOCKED, 3), (L.CONSTRAINTS, 6), (L.PENDING, 3),
    (L.REMAINING, 6), (L.FILES, 3),
    (None, 0), (L.EARLIER, 0), (L.RESOLVED, 0), (L.DECISIONS, 0), (L.FILES, 0), (L.FOCUS, 0),
    (L.BLOCKED, 1), (L.CONSTRAINTS, 2), (L.PENDING, 1), (L.REMAINING, 2), (L.ACTIONS, 5), (L.GOAL, 0),
    (L.BLOCKED, 0), (L.CONSTRAINTS, 0), (L.PENDING, 0), (L.REMAINING, 0), (L.ACTIONS, 0), (L.STATE, 0),
)
CLIP_STEPS = (240, 160, 100, 60)


@dataclass(slots=True)
class Section:
    key: str
    title: str
    items: list[Item]
    folded: int = 0  # left out before rendering (count caps)
    dropped: int = 0  # left out to fit max_chars
    cut_chars: int = 0  # Active Task only: chars cut from the middle

    @property
    def oldest_first(self) -> bool:
        return self.key in OLDEST_FIRST

    def marker(self, max_chars: int) -> str:
        n = self.folded + self.dropped
        if not n:
            return ""
        noun = NOUNS.get(self.key, "items")
        where = "earlier " if self.oldest_first else "more "
        if self.dropped:
            return f"[… {n} {where}{noun} omitted to fit {max_chars} chars]"
        return f"[… {n} {where}{noun} folded]"

    def render(self, max_chars: int) -> str:
        head = f"## {self.title}"
        if self.key == L.ACTIVE_TASK:
            body = self.items[0].text if self.items else L.NONE_ITEM
            return f"{head}\n{body}"
        lines = [it.line() if it.number is not None else f"- {it.text}" for it in self.items]
        if not lines and not (self.folded or self.dropped):
            lines = [f"- {L.NONE_ITEM}"]
        marker = self.marker(max_chars)
        if marker:
            lines = [marker, *lines] if self.oldest_first else [*lines, marker]
        return "\n".join([head, *lines])


@dataclass(slots=True)
class Page:
    sections: list[Section]
    max_chars: int
    notes: list[str] = field(default_factory=list)

    def text(self) -> str:
        blocks = [*self.notes, *(s.render(self.max_chars) for s in self.sections)]
        return "\n\n".join(blocks) + "\n"


def _victims(section: Section) -> list[int]:
    """Indexes of items in the order they are dropped: least recent non-focus first, focus last."""
    order = list(range(len(section.items)))
    if not section.oldest_first:
        order.reverse()
    if section.key == L.ACTIONS:
        protected = set(order[-KEEP_RECENT_ACTIONS:]) if len(order) > KEEP_RECENT_ACTIONS else set(order)
        order = [i for i in order if i not in protected] + [i for i in order if i in protected]
    return [i for i in order if not section.items[i].focus] + [i for i in order if section.items[i].focus]


def _drop(page: Page, section: Section, keep: int) -> None:
    """Drop items of `section` (down to `keep`) until the page fits, a batch at a time."""
    while len(section.items) > keep:
        excess = len(page.text()) - page.max_chars
        if excess <= 0:
            return
        victims = _victims(section)[: len(section.items) - keep]
        chosen: list[int] = []
        freed = 0
        for i in victims:
            chosen.append(i)
            freed += len(section.items[i].line()) + 3
            if freed >= excess:
                break
        drop = set(chosen)
        section.items = [it for i, it in enumerate(section.items) if i not in drop]
        section.dropped += len(chosen)


def _clip_items(page: Page, limit: int, keys: tuple[str, ...] | None) -> None:
    for section in page.sections:
        if section.key == L.ACTIVE_TASK or (keys is not None and section.key not in keys):
            continue
        for item in section.items:
            if len(item.text) > limit:
                item.text = clip(item.text, limit)


def _cut_task(page: Page) -> None:
    task = next((s for s in page.sections if s.key == L.ACTIVE_TASK and s.items), None)
    if task is None:
        return
    excess = len(page.text()) - page.max_chars
    text = task.items[0].text
    if excess <= 0 or len(text) < 40:
        return
    for _ in range(3):  # the marker's own length changes with the count; settle it
        keep = max(len(text) - excess - 60, 20)
        head, tail = keep * 2 // 3, keep - keep * 2 // 3
        cut = len(text) - head - tail
        task.items[0] = Item(f"{text[:head]}\n[… {cut} chars of the active task omitted to fit "
                             f"{page.max_chars} chars]\n{text[len(text) - tail:] if tail else ''}".rstrip())
        task.cut_chars = cut
        excess = len(page.text()) - page.max_chars
        if excess <= 0:
            return


def _hard_cut(text: str, max_chars: int) -> str:
    marker = f"\n[… summary cut to fit {max_chars} chars]\n"
    if len(marker) + 1 > max_chars:
        return text[:max_chars]
    return text[: max_chars - len(marker)].rstrip() + marker


def fit(page: Page) -> str:
    """The page's text, reduced until it is at most `page.max_chars` chars."""
    text = page.text()
    if len(text) <= page.max_chars:
        return text
    by_key = {s.key: s for s in page.sections}
    known = set(NOUNS) | {L.EARLIER}
    for key, keep in DROP_PLAN[:13]:
        for section in _targets(page, by_key, known, key):
            _drop(page, section, keep)
    for limit in CLIP_STEPS:
        if len(page.text()) <= page.max_chars:
            break
        _clip_items(page, limit, None)
    for key, keep in DROP_PLAN[13:]:
        for section in _targets(page, by_key, known, key):
            _drop(page, section, keep)
    _cut_task(page)
    text = page.text()
    return text if len(text) <= page.max_chars else _hard_cut(text, page.max_chars)


def _targets(page: Page, by_key: dict[str, Section], known: set[str], key: str | None) -> list[Section]:
    if key is None:
        return [s for s in page.sections if s.key not in known]
    return [by_key[key]] if key in by_key else []
