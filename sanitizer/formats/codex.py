"""Codex CLI rollout JSONL (`~/.codex/sessions/**/rollout-*.jsonl`).

Two layouts: the envelope (`{timestamp, type: session_meta|response_item|event_msg|turn_context,
payload}`) where `response_item` payloads are Responses items and tool output is ALSO stored in
`event_msg` payloads; and the legacy layout (a session-meta first line, then bare Responses items
and `{"record_type": "state"}` lines).  Meta, state and context lines pass through.

Versions and record kinds covered (codex-rs `protocol/src/models.rs`, `rollout/recorder.rs`;
files of CLI 0.1x–0.60): `response_item` payloads `message` (roles user / assistant /
`developer` → system; user messages that are only Codex's own `<environment_context>`,
`<user_instructions>`, AGENTS.md, `<skill>`, `<user_shell_command>`, `<turn_aborted>` or
`<subagent_notification>` blocks are marked injected: never a person's ask), `reasoning` (summary + encrypted
content: signed), `function_call` (`arguments` a JSON string, kept as text even when it is not
valid JSON, e.g. a redacted file; shell `command` may be an argv array), `function_call_output`
(plain text, or a JSON-encoded `{"output", "metadata": {"exit_code", "duration_seconds"}}`
string: decoded for rules and digests, exit code as `meta["is_error"]`, written back encoded the
same way), `custom_tool_call` (`input`, e.g. apply_patch) ↔ `custom_tool_call_output`,
`local_shell_call(_output)`; `ghost_snapshot`, `web_search_call` without a call id, and unknown
item types pass through.  `event_msg` (token_count, agent_reasoning, user_message,
agent_message, exec/patch events, turn_aborted …) and `turn_context` / `session_meta` /
`compacted` lines pass through; their long strings repeating an output or a message are copies.
A session may end with no assistant message.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

from sanitizer.formats.base import live_records, sample, string_leaves
from sanitizer.formats.responses import ITEM_TYPES, Responses, read_item
from sanitizer.model import Document, Message, Part, Path, View

ENVELOPE_TYPES = {"session_meta", "response_item", "event_msg", "turn_context", "compacted"}
PASS_ITEMS = {"ghost_snapshot", "compaction", "compaction_summary"}  # known items that are not messages
# User messages Codex writes itself: the environment block, AGENTS.md / user instructions.
INJECTED_PREFIXES = ("<environment_context>", "<user_instructions>", "# AGENTS.md instructions", "<skill>",
                     "<user_shell_command>", "<turn_aborted>", "<subagent_notification>")


def _enveloped(rec: Any) -> bool:
    return isinstance(rec, dict) and rec.get("type") == "response_item"


def _envelope(rec: Any, item: dict[str, Any]) -> Any:
    """`item` in the layout of `rec`: wrapped in a `response_item` envelope, or bare (legacy)."""
    if _enveloped(rec):
        return {"timestamp": rec.get("timestamp"), "type": "response_item", "payload": item}
    return item


class Codex(Responses):
    name = "codex"
    label = "Codex CLI rollout JSONL"

    def message_node(self, view: View, msg: Message) -> tuple[int, Path] | None:
        if self.nested(view):
            return super().message_node(view, msg)
        rec = view.doc.records[msg.records[0]]
        return msg.records[0], ("payload",) if _enveloped(rec) else ()

    def marker_node(self, view: View, text: str, near: int | None = None) -> Any:
        rec = view.doc.records[near] if near is not None and near < len(view.doc.records) else None
        return _envelope(rec, super().marker_node(view, text, near))

    def stub_result(self, view: View, call: Part) -> Any:
        return _envelope(view.doc.records[call.record], super().stub_result(view, call))

    def sniff(self, doc: Document) -> int:
        if doc.container == "json-object" and not isinstance(doc.records[0], dict):
            return 0
        recs = [r for r in sample(doc, 300) if isinstance(r, dict)]
        if not recs:
            return 0
        envelope = sum(1 for r in recs if r.get("type") in ENVELOPE_TYPES and "payload" in r)
        if envelope >= len(recs) * 0.8:
            return 96
        legacy = sum(1 for r in recs if r.get("type") in ITEM_TYPES or r.get("record_type") == "state")
        first = recs[0]
        meta_first = "instructions" in first or ("id" in first and "timestamp" in first and "type" not in first)
        return 94 if legacy >= (len(recs) - 1) * 0.8 and meta_first else 0

    def views(self, doc: Document) -> Iterator[View]:
        view = View(doc, self)
        outputs: dict[str, Part] = {}
        texts: dict[str, Part] = {}
        events: list[tuple[int, dict]] = []
        unknown: Counter[str] = Counter()
        for i, rec in live_records(doc):
            if not isinstance(rec, dict):
                continue
            if rec.get("type") == "response_item" and isinstance(rec.get("payload"), dict):
                item, base = rec["payload"], ("payload",)
                if item.get("type") not in ITEM_TYPES and item.get("type") not in PASS_ITEMS:
                    unknown[str(item.get("type"))] += 1
            elif rec.get("type") in ITEM_TYPES:
                item, base = rec, ()
            else:
                if rec.get("type") == "event_msg" and isinstance(rec.get("payload"), dict):
                    events.append((i, rec["payload"]))
                continue
            first, first_msg = len(view.parts), len(view.messages)
            read_item(view, i, base, item)
            if item.get("type") == "message" and item.get("role") == "user" and len(view.messages) > first_msg:
                texts_in = [p.text for p in view.parts[first:] if p.kind == "text"]
                if texts_in and all(t.lstrip().startswith(INJECTED_PREFIXES) for t in texts_in):
                    view.messages[first_msg].meta["injected"] = True
            for p in view.parts[first:]:
                if p.kind == "tool_result" and p.call_id:
                    outputs.setdefault(p.call_id, p)
                elif p.kind in ("text", "thinking") and len(p.text) >= 200:
                    texts.setdefault(p.text, p)
        # event_msg payloads repeat outputs and messages: link them as copies so they are trimmed too.
        for i, payload in events:
            owner = outputs.get(payload.get("call_id")) if payload.get("call_id") else None
            for path, text in string_leaves(payload, ("payload",)):
                target = owner or texts.get(text)
                if target is not None:
                    target.copies.append((i, path))
        if unknown:
            view.meta["unknown_kinds"] = dict(unknown)
        yield view
    where = '`~/.codex/sessions/**/rollout-*.jsonl`, envelope and legacy layouts; `event_msg` copies handled'
