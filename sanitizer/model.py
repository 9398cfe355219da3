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
from typing import Any, TypedDict

Path = tuple[Any, ...]

KINDS = ("text", "thinking", "tool_call", "tool_result", "image", "other")
ROLES = ("system", "user", "assistant", "tool")


class PartMeta(TypedDict, total=False):
    """What a `Part` carries besides its fields: the contract between formats, rules and renderers.

    Formats set the reading keys; the engine sets the working keys.  Every key used anywhere is
    declared here (`tests/test_architecture.py` checks the source and the corpus against it).
    """

    # Set by formats while reading.
    signed: bool  # thinking with a real signature: never edited
    args_object: bool  # tool-call arguments stored as an object (written back as one), not a JSON string
    merge_args: bool  # OpenHands: changed arguments are merged into the action's own fields
    action: str  # OpenHands V0: the action name the arguments belong to
    is_error: bool | None  # the output's own failure flag, where the format records one
    exit_code: int  # the exit status the format recorded for the output
    empty: bool  # an output that was empty in the input
    field: bool  # the text is a plain record field (not a block): it is never replaced by a block
    text_type: str  # Responses / Codex: the content item's `type`
    type: str  # an `other` block's type, for reports and renderings
    node: str  # pydantic-ai: the node type the value sits in
    json: bool  # pydantic-ai: a tool return stored as JSON, not a string
    dialect: str  # dataset rows: `anthropic` when the row's messages use Anthropic blocks
    encoded_output: dict[str, Any]  # Codex: how a doubly encoded output is re-encoded byte for byte
    observation: str  # a tool observation carried as user text: the command it answers
    tool_output: dict[str, Any]  # tool output carried as user text (Cline, SWE-agent): {tool, args, is_error}
    agent_id: str  # Claude Code: the sub-agent a Task call started
    media_type: str | None  # image: its MIME type
    data: str | None  # image: its base64 data
    url: str | None  # image: its address
    label: str  # image: the label a reader sees instead of the data (made once)
    # Working state, set by the engine.
    image: bool  # the part was an image before a rule replaced it
    replaced_kind: str  # the kind the part had before a rule replaced it
    replaced_as: str  # the kind a replaced part takes (formats that need another than `text`)
    copy_texts: list[str]  # the texts of the part's linked copies, as last carried over
    copies_redacted: set[int]  # which linked copies redaction has already settled


class MessageMeta(TypedDict, total=False):
    """What a `Message` carries besides its fields (set by formats)."""

    injected: bool  # system reminders, meta records, a sub-agent's prompt: not a person's words
    sidechain: bool  # Claude Code: a sub-agent turn inside the main file
    parent_call: str  # the Task call a sidechain message belongs to
    agent_id: str  # Claude Code: the sub-agent an inline sidechain record belongs to
    compact_summary: bool  # Claude Code: a compaction summary stored in the session
    observation: bool  # a tool observation carried as a user message (SWE-agent, mini-swe-agent)
    command: str  # the command an observation answers
    exit: bool  # mini-swe-agent: the exit message (an assistant text, never a person's ask)
    instruction: bool  # OpenHands: the task read from the record's `instruction`


class ViewMeta(TypedDict, total=False):
    """What a `View` carries besides its fields (set by formats)."""

    record: int  # the record the conversation sits in (datasets, exports, resolver outputs)
    session_id: str
    agent_id: str  # Claude Code: a sub-agent file's own agent id
    subagents: dict[str, Any]  # Claude Code: sub-agent files linked to the main session, by agent id
    unknown_kinds: dict[str, int]  # record kinds passed through unchanged, with their counts


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
    meta: PartMeta = field(default_factory=PartMeta)
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
    meta: MessageMeta = field(default_factory=MessageMeta)

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
    meta: ViewMeta = field(default_factory=ViewMeta)

    def new_message(self, role: str, record: int, **meta: Any) -> Message:
        msg = Message(index=len(self.messages), role=role, records=[record], meta=MessageMeta(**meta))
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
