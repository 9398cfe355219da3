"""The neutral view every rule works on, and the document it points back into.

A `Document` holds the records of one input (a JSONL line, a JSON list element, or the one JSON
object of a file) as private copies.  An adapter reads a document into one `View` per
conversation: an ordered list of `Message`s made of `Part`s.  Each part knows where its value lives
(`record` index + `path` of keys inside that record), so edits made on parts are written back into
the document by the same adapter, and nothing else in the record changes.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

Path = tuple[Any, ...]

KINDS = ("text", "thinking", "tool_call", "tool_result", "image", "other")
ROLES = ("system", "user", "assistant", "tool")


@dataclass(slots=True)
class Damaged:
    """A physical line that is not a usable record; it is copied to the output unchanged."""

    line: int
    raw: str
    reason: str


@dataclass(slots=True)
class Problem:
    """Something wrong with the input, reported as `source:line: message`."""

    source: str
    line: int | None
    message: str
    severity: str = "warning"  # "warning" (damage we route around) or "error"

    def __str__(self) -> str:
        where = f"{self.source}:{self.line}" if self.line is not None else self.source
        return f"{where}: {self.message}"


@dataclass(slots=True)
class Document:
    """All records of one input, owned by the sanitizer (never the caller's objects).

    `container` says how the records were laid out: ``jsonl`` (one record per line),
    ``json-list`` (a JSON array whose elements are the records), ``json-object`` (one JSON value).
    `raw_lines[i]` keeps the original text of JSONL line i so untouched lines are written back
    byte for byte.
    """

    records: list[Any]
    container: str
    source: str = "<memory>"
    lines: list[int] = field(default_factory=list)  # 1-based line number of each record (jsonl)
    raw_lines: list[str] | None = None
    problems: list[Problem] = field(default_factory=list)
    dirty: set[int] = field(default_factory=set)
    trailing_newline: bool = True
    indent: int | None = None  # indent of a pretty-printed JSON input, kept on output
    raw_text: str | None = None  # a JSON input's text, written back as is when nothing changed

    def line_of(self, record: int) -> int | None:
        return self.lines[record] if record < len(self.lines) else None

    def get(self, record: int, path: Path) -> Any:
        return get_at(self.records[record], path)

    def set(self, record: int, path: Path, value: Any) -> None:
        """Replace the value at `path` inside record `record` and mark the record as edited."""
        self.records[record] = set_at(self.records[record], path, value)
        self.dirty.add(record)


def get_at(node: Any, path: Path) -> Any:
    for key in path:
        node = node[key]
    return node


def set_at(root: Any, path: Path, value: Any) -> Any:
    """Set `value` at `path` inside `root` (in place) and return the root (new root if path is empty)."""
    if not path:
        return value
    parent = get_at(root, path[:-1])
    parent[path[-1]] = value
    return root


@dataclass(slots=True)
class Part:
    """One piece of a message that a rule can select and change.

    kind: text | thinking | tool_call | tool_result | image | other.
    `path` leads to the value inside `record`: a string for text, thinking and tool_result; the
    arguments (JSON string or object) for tool_call; the block for image and other.
    `block` leads to the enclosing block where the part can be replaced as a whole (None where the
    value is a plain field, such as `reasoning_content`).
    `copies` are other (record, path) string leaves that hold the same output again (Claude Code's
    `toolUseResult`, Codex `event_msg`, SWE-agent `trajectory[]`): edits are carried over to them.
    """

    kind: str
    role: str
    message: int
    record: int
    path: Path
    text: str = ""
    block: Path | None = None
    tool: str | None = None
    call_id: str | None = None
    copies: list[tuple[int, Path]] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)
    # Working state, filled by the engine.
    original: str | None = None
    replaced: bool = False  # the whole part becomes a plain text placeholder
    dropped: bool = False

    @property
    def changed(self) -> bool:
        return self.replaced or self.dropped or (self.original is not None and self.original != self.text)

    @property
    def signed(self) -> bool:
        return bool(self.meta.get("signed"))


@dataclass(slots=True)
class Message:
    """A logical message: one API message even when the file splits it over several records."""

    index: int
    role: str
    records: list[int]
    parts: list[int] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)  # e.g. {"injected": True} for meta/system-reminders

    @property
    def injected(self) -> bool:
        return bool(self.meta.get("injected"))


@dataclass(slots=True)
class View:
    """One conversation of a document, as neutral messages and parts."""

    doc: Document
    adapter: Any
    messages: list[Message] = field(default_factory=list)
    parts: list[Part] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)

    def new_message(self, role: str, record: int, **meta: Any) -> Message:
        msg = Message(index=len(self.messages), role=role, records=[record], meta=dict(meta))
        self.messages.append(msg)
        return msg

    def add(self, msg: Message, part: Part) -> Part:
        part.message = msg.index
        msg.parts.append(len(self.parts))
        self.parts.append(part)
        return part

    def parts_of(self, msg: Message) -> Iterator[Part]:
        for i in msg.parts:
            yield self.parts[i]

    @property
    def records(self) -> set[int]:
        return {r for m in self.messages for r in m.records}
