"""Build the items of each summary section from an extracted `Session`.

Each builder returns items in the order they are shown.  Numbers (`(turn N)`, action `N.`) can be
offset so that a merged previous summary and the new part count on from each other.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from sanitizer.summary import layout as L
from sanitizer.summary.extract import Call, Session, turn_spans
from sanitizer.summary.paths import find_paths, looks_like_path, ordered_unique, paths_in_args
from sanitizer.summary.state import TEST_RE, collect_state, command_of
from sanitizer.summary.text import (
    asks_in,
    clip,
    first_sentence,
    is_constraint,
    is_decision,
    norm_key,
    sentences,
)

GOAL_CHARS = 500
SENTENCE_CHARS = 300
ASK_CHARS = 240
ANSWER_CHARS = 200
FOCUS_CHARS = 400
PHRASE_CHARS = 160
INTERRUPTED = "[Request interrupted"  # the user stopped the call: not an error to work around
MAX_ACTIONS = 50  # older actions are folded even when there is room
MAX_BLOCKED = 10
MAX_DECISIONS = 15
MAX_RESOLVED = 15
MAX_FILES = 40
MAX_FOCUS = 15
DONE_STATUSES = ("completed", "complete", "done", "cancelled", "canceled", "skipped")
CHECKBOX_RE = re.compile(r"^[ \t]*[-*+][ \t]+\[([ xX~])\][ \t]+(\S.*?)[ \t]*$", re.M)
TODO_LIST_KEYS = ("todos", "plan", "items", "tasks")
TODO_TEXT_KEYS = ("content", "step", "task", "title", "description", "subject", "text")


@dataclass(slots=True)
class Item:
    text: str
    number: int | None = None
    focus: bool = False

    def line(self) -> str:
        return f"{self.number}. {self.text}" if self.number is not None else self.text


@dataclass(slots=True)
class Built:
    """Items per section (layout order), items folded per section, and todo facts for merging."""

    items: dict[str, list[Item]] = field(default_factory=dict)
    folded: dict[str, int] = field(default_factory=dict)
    todo_seen: list[str] = field(default_factory=list)  # norm keys of every item of the latest list


def _turn(turn: int, offset: int) -> str:
    return f"(turn {turn + offset})" if turn else "(before the first ask)"


def _mentions(text: str, focus: str | None) -> bool:
    return bool(focus) and focus.casefold() in text.casefold()


def _unique(items: list[Item], key_of: Any = None) -> list[Item]:
    seen: dict[str, None] = {}
    out: list[Item] = []
    for item in items:
        key = key_of(item) if key_of else norm_key(item.text)
        if key not in seen:
            seen[key] = None
            out.append(item)
    return out


def _fold(built: Built, key: str, items: list[Item], keep: int, *, oldest_first: bool = True) -> list[Item]:
    if len(items) <= keep:
        return items
    built.folded[key] = built.folded.get(key, 0) + len(items) - keep
    return items[len(items) - keep:] if oldest_first else items[:keep]


def goal_items(session: Session, offset: int) -> list[Item]:
    asks = session.asks[:2]
    if len(asks) == 2 and len(asks[0].text) >= 120:
        asks = asks[:1]
    return [Item(f"{_turn(a.turn, offset)} {clip(a.text, GOAL_CHARS)}") for a in asks]


def constraint_items(session: Session, offset: int, focus: str | None) -> list[Item]:
    items = [Item(f"{_turn(a.turn, offset)} {clip(s, SENTENCE_CHARS)}", focus=_mentions(s, focus))
             for a in session.asks for s in sentences(a.text) if is_constraint(s)]
    return _unique(items, lambda i: norm_key(i.text.split(") ", 1)[-1]))


def action_text(call: Call) -> str:
    result = call.result if call.output is not None else "no result recorded"
    return f"{call.phrase} — {result} [tool: {call.name}]"


def action_items(session: Session, offset: int, focus: str | None) -> list[Item]:
    return [Item(action_text(c), number=c.number + offset, focus=_mentions(c.arguments, focus))
            for c in session.calls]


def _block_key(call: Call) -> str:
    cmd = command_of(call)
    if cmd and TEST_RE.search(cmd):
        return "test-run"
    return f"{call.verb} {call.target}"


def blocked_items(session: Session, offset: int, focus: str | None) -> list[Item]:
    """Failed calls with no later success on the same target (any later test run counts for tests)."""
    open_failures: dict[str, Call] = {}
    for call in session.calls:
        if call.output is None:
            continue
        key = _block_key(call)
        open_failures.pop(key, None)
        if call.failed and not (call.first_error or "").startswith(INTERRUPTED):
            open_failures[key] = call
    calls = sorted(open_failures.values(), key=lambda c: c.number)
    return [Item(f"(action {c.number + offset}) {clip(c.phrase, PHRASE_CHARS)} — {c.result}",
                 focus=_mentions(c.arguments, focus))
            for c in calls]


def decision_items(session: Session, offset: int, focus: str | None) -> list[Item]:
    items = [Item(f"{_turn(r.turn, offset)} {clip(s, SENTENCE_CHARS)}", focus=_mentions(s, focus))
             for r in session.replies for s in sentences(r.text) if is_decision(s)]
    return _unique(items, lambda i: norm_key(i.text.split(") ", 1)[-1]))


def _answer(session: Session, turn: int, span: tuple[int, int]) -> str | None:
    """The reply that closed a turn: the last assistant text of the turn, with no call after it."""
    start, end = span
    replies = [r for r in session.replies if start < r.index < end]
    if not replies:
        return None
    last = replies[-1]
    if any(last.index <= c.index < end for c in session.calls):  # a call in the same message comes after its text
        return None
    return first_sentence(last.text)


def question_items(session: Session, offset: int, focus: str | None) -> tuple[list[Item], list[Item]]:
    """(resolved, pending): the asks of each user turn, split by whether the turn got an answer."""
    spans = turn_spans(session)
    resolved: list[Item] = []
    pending: list[Item] = []
    latest = session.asks[-1].turn if session.asks else 0
    for ask in session.asks:
        asks = asks_in(ask.text)
        if not asks and ask.turn == latest:
            asks = [first_sentence(ask.text)]
        answer = _answer(session, ask.turn, spans[ask.turn])
        for q in asks:
            label = f"{_turn(ask.turn, offset)} {clip(q, ASK_CHARS)}"
            if answer is not None:
                resolved.append(Item(f"{label} → {clip(answer, ANSWER_CHARS)}", focus=_mentions(q, focus)))
            else:
                pending.append(Item(label, focus=_mentions(q, focus)))
    key = lambda i: norm_key(i.text.split(") ", 1)[-1])  # noqa: E731
    return _unique(resolved, key), _unique(pending, key)


def file_items(session: Session, focus: str | None) -> list[Item]:
    """Paths from tool arguments (most recent first), then from user and assistant text."""
    from_args: list[str] = []
    for call in session.calls:
        found = [p for p in call.paths if looks_like_path(p)]
        found += paths_in_args(call.args) if call.args is not None else find_paths(call.arguments)
        from_args.extend(found)
    texts = sorted([(a.index, a.text) for a in session.asks] + [(r.index, r.text) for r in session.replies])
    from_text = [p for _i, text in texts for p in find_paths(text, strict=True)]
    paths = ordered_unique(list(reversed(from_args)) + list(reversed(from_text)))
    return [Item(p, focus=_mentions(p, focus)) for p in paths]


def _todo_text(item: Any) -> tuple[str, str] | None:
    if isinstance(item, str):
        return item, "pending"
    if not isinstance(item, dict):
        return None
    for key in TODO_TEXT_KEYS:
        if isinstance(item.get(key), str) and item[key].strip():
            return item[key], str(item.get("status") or "pending")
    return None


def remaining_items(session: Session, built: Built) -> list[Item]:
    """Open items of the latest todo list (a todo tool call or a `- [ ]` checklist in a reply)."""
    latest: tuple[int, list[tuple[str, str]]] | None = None
    for call in session.calls:
        if call.verb != "updated todos" or not isinstance(call.args, dict):
            continue
        todo = next((call.args[k] for k in TODO_LIST_KEYS if isinstance(call.args.get(k), list)), None)
        if todo is None:
            continue
        entries = [e for e in (_todo_text(t) for t in todo) if e is not None]
        latest = (call.index, entries)
    for reply in session.replies:
        boxes = CHECKBOX_RE.findall(reply.text)
        if boxes and (latest is None or reply.index > latest[0]):
            latest = (reply.index, [(text, "pending" if mark == " " else "completed") for mark, text in boxes])
    if latest is None:
        return []
    built.todo_seen = [norm_key(text) for text, _status in latest[1]]
    items = [Item(f"{clip(text, SENTENCE_CHARS)} ({status.replace('_', ' ')})")
             for text, status in latest[1] if status.lower() not in DONE_STATUSES]
    return _unique(items)


def focus_items(session: Session, offset: int, focus: str) -> list[Item]:
    """Sentences and actions that mention the focus topic, in session order, longer excerpts."""
    events: list[tuple[int, int, Item]] = []
    for ask in session.asks:
        for s in sentences(ask.text):
            if _mentions(s, focus):
                events.append((ask.index, 0, Item(f"{_turn(ask.turn, offset)} user: {clip(s, FOCUS_CHARS)}", focus=True)))
    for reply in session.replies:
        for s in sentences(reply.text):
            if _mentions(s, focus):
                events.append((reply.index, 0, Item(f"{_turn(reply.turn, offset)} assistant: {clip(s, FOCUS_CHARS)}",
                                                    focus=True)))
    for call in session.calls:
        if _mentions(call.arguments, focus) or _mentions(call.output or "", focus):
            text = f"(action {call.number + offset}) {action_text(call)}"
            if call.failed and call.first_error:
                text += f" — error: {call.first_error}"
            events.append((call.index, call.number, Item(text, focus=True)))
    events.sort(key=lambda e: (e[0], e[1]))
    return _unique([e[2] for e in events])


def build(session: Session, *, focus: str | None = None, turn_offset: int = 0, action_offset: int = 0) -> Built:
    """All sections (layout order; Focus after Active Task when a topic is given)."""
    built = Built()
    items = built.items
    items[L.ACTIVE_TASK] = [Item(session.asks[-1].text)] if session.asks else []
    if focus:
        items[L.FOCUS] = _fold(built, L.FOCUS, focus_items(session, turn_offset, focus), MAX_FOCUS)
    items[L.GOAL] = goal_items(session, turn_offset)
    items[L.CONSTRAINTS] = constraint_items(session, turn_offset, focus)
    items[L.ACTIONS] = _fold(built, L.ACTIONS, action_items(session, action_offset, focus), MAX_ACTIONS)
    items[L.STATE] = [Item(s) for s in collect_state(session).items()]
    items[L.BLOCKED] = _fold(built, L.BLOCKED, blocked_items(session, action_offset, focus), MAX_BLOCKED)
    items[L.DECISIONS] = _fold(built, L.DECISIONS, decision_items(session, turn_offset, focus), MAX_DECISIONS)
    resolved, pending = question_items(session, turn_offset, focus)
    items[L.RESOLVED] = _fold(built, L.RESOLVED, resolved, MAX_RESOLVED)
    items[L.PENDING] = pending
    items[L.FILES] = _fold(built, L.FILES, file_items(session, focus), MAX_FILES, oldest_first=False)
    items[L.REMAINING] = remaining_items(session, built)
    return built
