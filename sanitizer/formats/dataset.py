"""Files holding many conversations: JSONL with one conversation per line, or a JSON list of
episodes (`{..., "messages": [...]}` or `{..., "traj": [...]}`, e.g. τ-bench).

Each conversation is its own view, read by the chat or Anthropic reader, and sanitized
independently.  Covers τ-bench episode lists and one-conversation-per-line JSONL datasets
(`messages`, `traj`, `conversation`, `conversations` keys); rows that are not chat messages pass
through.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from sanitizer.formats.anthropic import (
    Anthropic,
    anthropic_score,
    append_text_block,
    looks_like_anthropic_message,
    read_blocks,
    remove_blocks,
    stub_in_next_user,
    stub_result_block,
    user_text_message,
)
from sanitizer.formats.base import BLOCKS, CHAT, Edit, live_records, sample
from sanitizer.formats.openai_chat import (
    ChatText,
    chat_score,
    chat_stub,
    looks_like_chat_message,
    read_chat_message,
    remove_chat_parts,
)
from sanitizer.model import Document, Message, Part, Path, View

CONVERSATION_KEYS = ("messages", "traj", "conversation", "conversations")


def conversation_of(rec: Any) -> tuple[tuple, list] | None:
    """(path, message list) of the conversation a record holds, if any."""
    if isinstance(rec, list):
        return (), rec
    if isinstance(rec, dict):
        for key in CONVERSATION_KEYS:
            if isinstance(rec.get(key), list) and rec[key] and isinstance(rec[key][0], dict):
                return (key,), rec[key]
    return None


class Dataset(ChatText):
    name = "dataset"
    label = "Dataset of conversations (JSONL / JSON list of episodes)"
    can_drop_turns = True

    def dialect(self, view: View) -> str:
        return BLOCKS if any(p.meta.get("dialect") == "anthropic" for p in view.parts) else CHAT

    def nested(self, view: View) -> bool:
        return True

    def marker_node(self, view: View, text: str, near: int | None = None) -> Any:
        return user_text_message(text) if self.dialect(view) == BLOCKS else {"role": "user", "content": text}

    def stub_result(self, view: View, call: Part) -> Any:
        if self.dialect(view) == BLOCKS:
            return {"role": "user", "content": [stub_result_block(call.call_id or "")]}
        return chat_stub(call.call_id or "", call.tool)

    def append_text(self, view: View, msg: Message, text: str) -> None:
        if self.dialect(view) != BLOCKS:
            super().append_text(view, msg, text)  # raises: chat episodes never merge a marker
            return
        append_text_block(view, msg, text)

    def stub_in_next(self, view: View, call: Part) -> Edit | None:
        return stub_in_next_user(view, call) if self.dialect(view) == BLOCKS else None

    def remove_parts(self, view: View, msg: Message, parts: list[Part], drop_records: set[int],
                     edits: list[Edit], stubbed: set[tuple[int, Path]]) -> None:
        if self.dialect(view) == BLOCKS:
            remove_blocks(view, parts, drop_records, edits, stubbed)
        else:
            remove_chat_parts(view, msg, parts, drop_records, edits)

    def sniff(self, doc: Document) -> int:
        if doc.container == "json-object":
            return 0
        recs = sample(doc, 50)
        convs = [conversation_of(r) for r in recs]
        if not recs or not all(convs):
            return 0
        msgs = [m for c in convs for m in c[1][:20]]
        return 93 if chat_score(msgs) or anthropic_score(msgs) else 0

    def text_node(self, part, text):  # noqa: ANN001 - same signature as Adapter
        if part.meta.get("dialect") == "anthropic":
            return Anthropic.text_node(self, part, text)
        return super().text_node(part, text)

    def views(self, doc: Document) -> Iterator[View]:
        for i, rec in live_records(doc):
            found = conversation_of(rec)
            if not found:
                continue
            prefix, messages = found
            view = View(doc, self, meta={"record": i})
            anthropic = anthropic_score(messages) > chat_score(messages)
            for j, m in enumerate(messages):
                base = prefix + (j,)
                if anthropic and looks_like_anthropic_message(m):
                    msg = view.new_message(m["role"], i)
                    first = len(view.parts)
                    read_blocks(view, msg, i, base + ("content",), m["content"])
                    for p in view.parts[first:]:
                        p.meta["dialect"] = "anthropic"
                elif looks_like_chat_message(m):
                    read_chat_message(view, i, base, m)
            yield view
    where = 'one conversation per JSONL line, or `[{..., "messages" or "traj": [...]}]` (e.g. τ-bench)'
