"""The adapter contract: detect a format, read it into views, write part edits back.

Adapters know formats and nothing about rules; rules know parts and nothing about formats.
What an adapter tells the rules beyond a part's kind and role goes into `Part.meta` /
`Message.meta` under documented keys; the ones set here for tool output:

- `Part.meta["tool_output"]`: `{"tool": str, "args": str | None, "is_error": bool | None}` on a
  `text` part that holds a tool's output carried as user text (Cline-style `[tool] Result:`
  blocks, SWE-agent and mini-swe-agent observations); `args` is the call's arguments as JSON
  text when the format knows them.  The output rules treat such a part as a tool result.
- `Message.meta["observation"]`: the message holds tool output, never a person's ask.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from sanitizer.model import Damaged, Document, Message, Part, Path, View, get_at

# A message located inside a document: (record index, path to the message inside it, the message).
Located = tuple[int, Path, Any]

# Strings at least this long in a duplicate store (toolUseResult, event_msg …) are linked as copies.
COPY_MIN_CHARS = 200

# Dialects: the message shapes budget mode, pair repair and `--check` reason about (`Adapter.dialect`).
CHAT = "chat"  # role/content messages, calls in `tool_calls`, each result a `tool` message
BLOCKS = "blocks"  # content blocks: `tool_use` in assistant messages, `tool_result` in user messages
RECORD_BLOCKS = "record-blocks"  # blocks, one record per API message part, records chained by id
ITEMS = "items"  # one item per message, call or call output
OTHER = "other"  # none of these: no marker, no stub, no repair

STUB_TEXT = "[no result recorded]"

# An edit planned inside a record: (record, path, op, value) with op "del", "ins" or "set".
Edit = tuple[int, Path, str, Any]


class Adapter:
    """Base class of format adapters.

    Subclasses set `name` and `label`, implement `sniff` (0–100: how sure the content is this
    format) and `views`, and override `text_node` when a replaced part needs a format-specific
    block (an Anthropic text block, a Responses `input_text` part …).

    Budget mode, pair repair and `--check` know no format: they call the hooks below
    (`dialect`, `can_drop_turns`, `nested`, `message_node`, `marker_node`, `append_text`,
    `stub_result`, `stub_in_next`, `remove_parts`, `binds_next`, `link_marker`, `link_stub`).
    The defaults fit a format whose turns cannot be dropped or stubbed.
    """

    name = ""
    label = ""
    where = ""  # where users have such files (README formats table)
    can_drop_turns = False  # budget mode may replace turns by a marker (needs `marker_node`)

    def sniff(self, doc: Document) -> int:
        raise NotImplementedError

    def views(self, doc: Document) -> Iterator[View]:
        raise NotImplementedError

    def most_messages(self, doc: Document) -> int | None:
        """At most how many messages `views(doc)` reads, where a bound costs far less than reading
        them (None: no such bound).  Detection does not read a claimant that cannot win."""
        return None

    def text_node(self, part: Part, text: str) -> Any:
        """The node that replaces `part.block` when the whole part becomes plain text."""
        return {"type": "text", "text": text}

    def stored(self, part: Part) -> Any:
        """The value written at `part.path` for the part's text (a format may re-encode it)."""
        return part.text

    # -- hooks for budget mode, pair repair and --check ----------------------------------------------

    def dialect(self, view: View) -> str:
        """The message shape of `view`: CHAT, BLOCKS, RECORD_BLOCKS, ITEMS or OTHER."""
        return OTHER

    def nested(self, view: View) -> bool:
        """True when messages are elements of a list inside a record rather than whole records."""
        if view.doc.container == "json-object" or "record" in view.meta:
            return True
        seen: set[int] = set()
        for m in view.messages:
            for r in set(m.records):
                if r in seen:
                    return True
                seen.add(r)
        return False

    def message_node(self, view: View, msg: Message) -> tuple[int, Path] | None:
        """(record, path) of the message object itself (the dict holding role/content)."""
        if self.nested(view):
            found = item_of(view, msg)
            return (found[0], found[1] + (found[2],)) if found else None
        return msg.records[0], ()

    def marker_node(self, view: View, text: str, near: int | None = None) -> Any:
        """A standalone user message (or record) carrying `text`; `near` is the record it replaces."""
        raise NotImplementedError(f"no marker message for format {self.name!r}")

    def append_text(self, view: View, msg: Message, text: str) -> None:
        """Append `text` to message `msg` (the BLOCKS dialect's marker joins the user message before
        the dropped turns, so user/assistant alternation holds)."""
        raise NotImplementedError(f"no text append for format {self.name!r}")

    def stub_result(self, view: View, call: Part) -> Any:
        """A standalone message (record, item) answering `call` with STUB_TEXT."""
        raise NotImplementedError(f"no stub result for format {self.name!r}")

    def stub_in_next(self, view: View, call: Part) -> Edit | None:
        """An edit putting a stub result for `call` into the message after it (None: a
        standalone `stub_result` is inserted instead)."""
        return None

    def remove_parts(self, view: View, msg: Message, parts: list[Part], drop_records: set[int],
                     edits: list[Edit], stubbed: set[tuple[int, Path]]) -> None:
        """Plan removing `parts` (tool calls or results of `msg`): records go to `drop_records`,
        in-record edits to `edits`; `stubbed` are content lists that get a stub block.  The
        default removes the whole message (one call or output per message)."""
        remove_message(view, msg, drop_records, edits)

    def binds_next(self, view: View, msg: Message) -> bool:
        """True when `msg` must stay next to the message after it (a Responses `reasoning` item)."""
        return False

    def link_marker(self, view: View, marker: Any, dropped: list[int], stop: int) -> None:
        """Fix links to the `dropped` records (before `stop`) after `marker` takes their place."""

    def link_stub(self, view: View, stub: Any, call_msg: Message) -> None:
        """Fix links after `stub` is inserted right after the records of `call_msg`."""

    def write(self, view: View) -> None:
        """Write every changed part of `view` back into its document."""
        doc = view.doc
        drops: list[Part] = []
        for part in view.parts:
            if not part.changed:
                continue
            if part.dropped:
                drops.append(part)
                continue
            if part.replaced and part.block is not None:
                doc.set(part.record, part.block, self.text_node(part, part.text))
            elif part.kind == "tool_call" and part.meta.get("args_object") and not part.replaced:
                doc.set(part.record, part.path, json.loads(part.text))
            else:
                doc.set(part.record, part.path, self.stored(part))
            for (record, path), text in zip(part.copies, part.meta.get("copy_texts", ()), strict=False):
                if text is not None:
                    doc.set(record, path, text)
        # Deleting shifts list indices: go from the last path to the first.
        for part in sorted(drops, key=lambda p: (p.record, path_sort_key(p.block or p.path)), reverse=True):
            self._drop(doc, part)

    def _drop(self, doc: Document, part: Part) -> None:
        where = part.block if part.block is not None else part.path
        parent = get_at(doc.records[part.record], where[:-1])
        if isinstance(parent, list) and len(parent) == 1:
            # Never leave an empty content list: a provider rejects it.
            parent[0] = self.text_node(part, part.text or "[removed]")
        else:
            del parent[where[-1]]
        doc.dirty.add(part.record)


def path_sort_key(path: Path) -> tuple:
    """Orders paths so list indices compare as numbers (edits go from the last path to the first)."""
    return tuple((0, k) if isinstance(k, int) else (1, str(k)) for k in path)


def item_of(view: View, msg: Message) -> tuple[int, Path, int] | None:
    """(record, path of the list, index) of a nested message, found through its parts' paths."""
    for i in msg.parts:
        p = view.parts[i]
        path = p.block if p.block is not None else p.path
        node = view.doc.records[p.record]
        for k, key in enumerate(path):
            if isinstance(node, list) and isinstance(key, int):
                return p.record, tuple(path[:k]), key
            try:
                node = node[key]
            except (KeyError, IndexError, TypeError):
                break
    return None


def remove_message(view: View, msg: Message, drop_records: set[int], edits: list[Edit]) -> None:
    """Plan removing a whole message: its list item when nested, else its records."""
    if view.adapter.nested(view):
        found = item_of(view, msg)
        if found is not None:
            edits.append((found[0], found[1] + (found[2],), "del", None))
    else:
        drop_records.update(msg.records)


def live_records(doc: Document) -> Iterator[tuple[int, Any]]:
    for i, rec in enumerate(doc.records):
        if not isinstance(rec, Damaged):
            yield i, rec


def sample(doc: Document, limit: int = 200) -> list[Any]:
    """The first `limit` usable records (what detection looks at)."""
    out = []
    for _, rec in live_records(doc):
        out.append(rec)
        if len(out) >= limit:
            break
    return out


def message_list(doc: Document, keys: tuple[str, ...] = ("messages",)) -> list[Located] | None:
    """Locate a plain message list: a JSON list or JSONL of messages, or `{"messages": [...]}`."""
    if doc.container == "json-object":
        root = doc.records[0]
        if isinstance(root, dict):
            for key in keys:
                if isinstance(root.get(key), list):
                    return [(0, (key, j), m) for j, m in enumerate(root[key])]
        return None
    return [(i, (), rec) for i, rec in live_records(doc)]


def string_leaves(node: Any, path: Path = (), min_chars: int = COPY_MIN_CHARS) -> Iterator[tuple[Path, str]]:
    """Every string at least `min_chars` long inside `node`, with its path."""
    stack: list[tuple[Path, Any]] = [(path, node)]
    while stack:
        p, n = stack.pop()
        if isinstance(n, str):
            if len(n) >= min_chars:
                yield p, n
        elif isinstance(n, dict):
            stack.extend((p + (k,), v) for k, v in reversed(list(n.items())))
        elif isinstance(n, list):
            stack.extend((p + (i,), v) for i, v in reversed(list(enumerate(n))))


def is_real_signature(sig: Any) -> bool:
    """A thinking signature that signs something: not empty, not a publisher's placeholder such
    as `[REDACTED_SIGNATURE]` (a sanitized export keeps the key but the value signs nothing)."""
    if not isinstance(sig, str) or not sig.strip():
        return False
    s = sig.strip()
    return not (s.startswith("[") and s.endswith("]"))


def data_uri_meta(url: str) -> dict[str, Any]:
    """Image metadata from an image URL: media type and base64 payload for `data:` URIs."""
    if url.startswith("data:"):
        head, _, data = url.partition(",")
        media = head[5:].split(";", 1)[0] or "application/octet-stream"
        return {"media_type": media, "data": data if ";base64" in head else None, "url": None}
    return {"media_type": None, "data": None, "url": url}


def mark_output(view: View, msg: Message, command: str | None, tool: str = "bash") -> None:
    """Mark the text parts of `msg` as the output of `command` (`Part.meta["tool_output"]`)."""
    args = json.dumps({"command": command}, ensure_ascii=False) if command else None
    for part in view.parts_of(msg):
        if part.kind == "text":
            part.meta["tool_output"] = {"tool": tool, "args": args, "is_error": None}
