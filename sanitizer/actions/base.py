"""What an action is: typed options plus one pure function that proposes a change to a part.

Actions never touch records: they return a `Change` and the engine applies it (to the part's
working text, its linked copies, and at the end to the document through the adapter).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from sanitizer.model import Part, View


@dataclass(frozen=True, slots=True)
class Change:
    """A proposed change to one part.

    text: the new text (for `replace`, the plain-text placeholder the whole part becomes).
    removed: the text that was cut (its sha256 goes into the report); empty means "the old text".
    replace: the whole part (image block, thinking block) becomes a text placeholder.
    drop: the part is removed (the adapter keeps the message valid, e.g. never leaves it empty).
    """

    text: str
    removed: str = ""
    replace: bool = False
    drop: bool = False


@dataclass(frozen=True, slots=True)
class Doc:
    """An action's documentation, shown by `sanitize --explain`."""

    what: str
    why: str
    loses: str
    before: str = ""
    after: str = ""


@dataclass(slots=True)
class Context:
    """What an action may look at besides its own part (read-only by convention)."""

    view: View
    calls: dict[str, Part] = field(default_factory=dict)
    results: dict[str, list[Part]] = field(default_factory=dict)
    protected_messages: frozenset[int] = frozenset()
    cache: dict[str, Any] = field(default_factory=dict)  # per-run scratch space keyed by action name

    def call_for(self, part: Part) -> Part | None:
        """The tool_call part a tool_result answers (None for an orphan result)."""
        return self.calls.get(part.call_id) if part.call_id is not None else None

    def results_for(self, part: Part) -> list[Part]:
        return self.results.get(part.call_id, []) if part.call_id is not None else []


PartFn = Callable[[Part, Any, Context], Change | None]
BatchFn = Callable[[list[Part], Any, Context], dict[int, Change]]


@dataclass(frozen=True, slots=True)
class Action:
    """A named action: `options` is a frozen dataclass whose fields are the rule's parameters.

    Exactly one of `run` (called once per selected part) or `run_batch` (called once with all
    selected parts, returns changes keyed by the part's index in that list) is set.
    `kinds` is the default part-kind selector of a rule using this action.
    `always`: the change applies even when the text does not get shorter in tokens (redaction:
    `[REDACTED:credential:3f9a]` may be longer than the password it hides, and must still win).
    `redacts`: the action is the redaction contract: it also reaches the latest user message, its
    changes skip `<key_info>` protection (they only replace values), and while a rule using it is
    active every other string of the records is redacted too (`sanitizer.redaction`).
    `protects`: the tag names a rule with these options protects from every other rule (the
    config resolves them before any rule runs: `Config.protected_tags`).
    """

    name: str
    options: type
    doc: Doc
    kinds: tuple[str, ...]
    run: PartFn | None = None
    run_batch: BatchFn | None = None
    always: bool = False
    redacts: bool = False
    protects: Callable[[Any], Iterable[str]] | None = None
