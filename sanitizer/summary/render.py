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

from sanitizer.summary import layout as L
from sanitizer.summary.sections import Item
from sanitizer.summary.text import clip

NOUNS = {  # section -> (one, many)
    L.ACTIVE_TASK: ("char of the active task", "chars of the active task"),
    L.FOCUS: ("focus excerpt", "focus excerpts"),
    L.GOAL: ("goal item", "goal items"),
    L.EARLIER: ("earlier context line", "earlier context lines"),
    L.CONSTRAINTS: ("constraint", "constraints"),
    L.ACTIONS: ("completed action", "completed actions"),
    L.STATE: ("state item", "state items"),
    L.BLOCKED: ("blocked item", "blocked items"),
    L.DECISIONS: ("decision", "decisions"),
    L.RESOLVED: ("resolved question", "resolved questions"),
    L.PENDING: ("pending ask", "pending asks"),
    L.FILES: ("relevant file", "relevant files"),
    L.REMAINING: ("remaining item", "remaining items"),
}
# Sections whose first items are the oldest: dropping starts at the front and the marker says
# "earlier".  The others (files most recent first, todo lists, state) drop from the end.
OLDEST_FIRST = (L.FOCUS, L.CONSTRAINTS, L.ACTIONS, L.BLOCKED, L.DECISIONS, L.RESOLVED, L.PENDING, L.EARLIER)
KEEP_RECENT_ACTIONS = 20

ALL = None  # every section (in a clip step)
OTHER = "*"  # any section not in the layout (kept from a previous summary), in a drop step
# The reduction plan, applied in order until the text fits: ("drop", section, items to keep) leaves
# out whole items, least useful first; ("clip", limit, section or ALL) shortens long items.  The
# last 20 completed actions are the last items of their section to go; before any of them is cut
# or clipped, ("bare", ACTIONS) drops their outcomes so the targets stay whole.
PLAN: tuple[tuple[str, object, object], ...] = (
    ("drop", OTHER, 3), ("drop", L.FILES, 10), ("drop", L.ACTIONS, KEEP_RECENT_ACTIONS), ("drop", L.EARLIER, 5),
    ("drop", L.RESOLVED, 3), ("drop", L.DECISIONS, 4), ("drop", L.FOCUS, 6), ("drop", L.GOAL, 1),
    ("drop", L.BLOCKED, 3), ("drop", L.CONSTRAINTS, 6), ("drop", L.PENDING, 3), ("drop", L.REMAINING, 6),
    ("drop", L.FILES, 5),
    ("clip", 240, ALL), *(("clip", 160, k) for k in (L.GOAL, L.EARLIER, L.RESOLVED, L.DECISIONS, L.BLOCKED,
                                                      L.FOCUS, L.CONSTRAINTS, L.PENDING, L.FILES, L.REMAINING)),
    ("drop", OTHER, 0), ("drop", L.EARLIER, 2), ("drop", L.RESOLVED, 1), ("drop", L.DECISIONS, 2),
    ("drop", L.FILES, 3), ("drop", L.FOCUS, 3), ("drop", L.BLOCKED, 2), ("drop", L.CONSTRAINTS, 3),
    ("drop", L.PENDING, 2), ("drop", L.REMAINING, 3),
    ("bare", L.ACTIONS, None), ("clip", 160, L.ACTIONS), ("clip", 160, L.STATE), ("clip", 100, ALL),
    ("drop", L.EARLIER, 0), ("drop", L.RESOLVED, 0), ("drop", L.DECISIONS, 0), ("drop", L.FILES, 0),
    ("drop", L.FOCUS, 0), ("drop", L.BLOCKED, 1), ("drop", L.CONSTRAINTS, 2), ("drop", L.PENDING, 1),
    ("drop", L.REMAINING, 2),
    # Past this point the last 20 actions would go: first everything but the user's constraints.
    ("drop", L.GOAL, 0), ("drop", L.STATE, 2), ("drop", L.REMAINING, 1), ("drop", L.BLOCKED, 0),
    ("drop", L.STATE, 0), ("drop", L.REMAINING, 0), ("drop", L.PENDING, 0),
    ("drop", L.ACTIONS, 10),
    ("clip", 60, ALL),
    ("drop", L.ACTIONS, 3), ("drop", L.ACTIONS, 1), ("drop", L.CONSTRAINTS, 1), ("drop", L.ACTIONS, 0),
    ("drop", L.CONSTRAINTS, 0),
)


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
        noun = NOUNS.get(self.key, ("item", "items"))[n != 1]
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


def _clip_items(page: Page, limit: int, key: str | None) -> None:
    for section in page.sections:
        if section.key == L.ACTIVE_TASK or (key is not None and section.key != key):
            continue
        for item in section.items:
            if len(item.text) > limit:
                item.text = clip(item.text, limit)


def _bare_actions(page: Page) -> None:
    """`VERB target — outcome [tool: name]` → `VERB target [tool: name]`, except for the last
    three actions, whose outcomes say where the work stands."""
    for section in page.sections:
        if section.key != L.ACTIONS:
            continue
        for item in section.items[:-3]:
            tool = item.text.rfind(" [tool: ")
            dash = item.text.rfind(" — ", 0, tool if tool != -1 else len(item.text))
            if dash != -1:
                item.text = item.text[:dash] + (item.text[tool:] if tool != -1 else "")


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
    known = set(NOUNS)
    for step, arg, keep in PLAN:
        if len(page.text()) <= page.max_chars:
            return page.text()
        if step == "clip":
            _clip_items(page, int(arg), keep)  # type: ignore[arg-type]
            continue
        if step == "bare":
            _bare_actions(page)
            continue
        targets = [s for s in page.sections if (s.key not in known if arg == OTHER else s.key == arg)]
        for section in targets:
            _drop(page, section, int(keep))  # type: ignore[arg-type]
    _cut_task(page)
    text = page.text()
    return text if len(text) <= page.max_chars else _hard_cut(text, page.max_chars)
