"""The summary layout: section titles, the `Summary` value, and reading a previous summary back.

The layout is the one an LLM summarizer is asked for (DESIGN §8), so a caller can swap one for the
other and a previous summary (from either) can be merged into a new one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

ACTIVE_TASK = "Active Task"
GOAL = "Goal"
CONSTRAINTS = "Constraints & Preferences"
ACTIONS = "Completed Actions"
STATE = "Active State"
BLOCKED = "Blocked"
DECISIONS = "Key Decisions"
RESOLVED = "Resolved Questions"
PENDING = "Pending User Asks"
FILES = "Relevant Files"
REMAINING = "Remaining Work"
FOCUS = "Focus"
EARLIER = "Earlier Context"  # prose of a previous summary that had no known headings

TITLES = (ACTIVE_TASK, GOAL, CONSTRAINTS, ACTIONS, STATE, BLOCKED, DECISIONS, RESOLVED, PENDING, FILES, REMAINING)

NONE_ITEM = "(none)"
HEADING_RE = re.compile(r"^##[ \t]+(\S.*?)[ \t]*$")
BULLET_RE = re.compile(r"^[-*+][ \t]+")
NUMBER_RE = re.compile(r"^(\d+)\.[ \t]+")
TURN_RE = re.compile(r"^\(turn (\d+)")
MARKER_RE = re.compile(r"^\[… .*\]$")


@dataclass(frozen=True, slots=True)
class Summary:
    """A fallback summary: the markdown `text` and the items of each section, in layout order.

    `sections` maps a section title (`Focus` for the `## Focus: <topic>` section) to the items shown
    in `text`, without their `- ` bullet (numbered actions keep their `N. `).  `omitted` counts the
    items of each section left out (folded or cut to fit `max_chars`).
    """

    text: str
    sections: dict[str, list[str]] = field(default_factory=dict)
    omitted: dict[str, int] = field(default_factory=dict)
    max_chars: int = 8000

    def __str__(self) -> str:
        return self.text

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "chars": len(self.text),
            "max_chars": self.max_chars,
            "sections": {k: list(v) for k, v in self.sections.items()},
            "omitted": dict(self.omitted),
        }


def section_key(title: str) -> str:
    """The section a heading names: a known title (case-insensitive), `Focus`, or the heading."""
    folded = title.casefold()
    for known in TITLES:
        if folded == known.casefold():
            return known
    if folded == FOCUS.casefold() or folded.startswith(FOCUS.casefold() + ":"):
        return FOCUS
    return title


def parse_summary(text: str) -> dict[str, list[str]]:
    """Sections of a summary in this layout (ours or an LLM's), as title -> items.

    Bullets are unwrapped, `(none)` and omission markers are skipped, numbered items keep their
    number.  Active Task keeps its whole body.  Prose before the first heading (a summary without
    headings) lands in `Earlier Context`, one item per line; `> ` note lines are skipped.
    """
    out: dict[str, list[str]] = {}
    current = EARLIER
    task_lines: list[str] = []
    for line in text.splitlines():
        m = HEADING_RE.match(line)
        if m:
            current = section_key(m.group(1))
            out.setdefault(current, [])
            continue
        if current == ACTIVE_TASK:
            task_lines.append(line)
            continue
        item = line.strip()
        if not item or (current == EARLIER and item.startswith(">")) or MARKER_RE.match(item):
            continue
        item = BULLET_RE.sub("", item)
        if item and item != NONE_ITEM:
            out.setdefault(current, []).append(item)
    task = "\n".join(task_lines).strip()
    if task and task != NONE_ITEM:
        out[ACTIVE_TASK] = [task]
    return {k: v for k, v in out.items() if v or k in TITLES}


def max_number(items: list[str]) -> int:
    """The highest `N.` of numbered items (0 when none)."""
    return max((int(m.group(1)) for i in items if (m := NUMBER_RE.match(i))), default=0)


def max_turn(sections: dict[str, list[str]]) -> int:
    """The highest `(turn N` mentioned in any item (0 when none)."""
    best = 0
    for items in sections.values():
        for item in items:
            m = TURN_RE.match(NUMBER_RE.sub("", item))
            if m:
                best = max(best, int(m.group(1)))
    return best
