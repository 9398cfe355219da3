"""Claude Code session JSONL (`~/.claude/projects/**/*.jsonl`).

One event per line.  `user`/`assistant` lines carry an Anthropic `message`; one API message may be
split over several lines sharing `message.id` (they form one logical message here).  Tool output
is stored twice: in the `tool_result` block and in the top-level `toolUseResult`; long strings of
the latter are linked as copies of the result.  Every other line type (summary, system,
file-history-snapshot, progress, queue-operation …) passes through untouched.

Versions and record kinds covered (files of Claude Code 1.0.x–2.1.39):

* `user` / `assistant` records: Anthropic `message` blocks; the lines of one API message are one
  logical message even when the results of its first parallel calls were written between them;
  `isMeta`, `isCompactSummary`, `isVisibleInTranscriptOnly`, command wrappers, hook context,
  `<task-notification>` blocks and `[Request interrupted …]` markers are injected (never a
  person's ask); so are the user records of the compaction agent (`agentId: "acompact-…"`,
  Claude Code's own summarisation prompt) and inline sidechain user records of a main session
  (a sub-agent's prompt).  A sub-agent's own file keeps its prompt as its ask;
* thinking `signature`: a publisher's placeholder (`[REDACTED_SIGNATURE]`) signs nothing;
* pass-through (never messages, never rendered): `progress` (hook_progress, bash_progress,
  agent_progress, waiting_for_task …), `system` (compact_boundary, stop_hook_summary,
  turn_duration …), `summary`, `file-history-snapshot`, `queue-operation`, `attachment`,
  `last-prompt`, titles / tags / modes; other types pass through and are counted
  (`view.meta["unknown_kinds"]`).  Not read yet: a message typed mid-turn, which newer versions
  store only as a `queue-operation` enqueue plus a `queued_command` attachment;
* sub-agents: the `subagents/agent-<id>.jsonl` file of a session is read on its own
  (`view.meta["agent_id"]`); in the parent, `agent_progress` records (`data.agentId`,
  `parentToolUseID`) link the Task call to it; older inline `isSidechain: true` records are
  linked to the Task call open when they were written (`meta["parent_call"]`, and the record's
  `agentId` as `meta["agent_id"]`): the `fold-sidechain` rule folds them under that call.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

from sanitizer.formats.anthropic import read_blocks, remove_blocks, stub_result_block
from sanitizer.formats.base import (
    RECORD_BLOCKS,
    STUB_TEXT,
    Adapter,
    Edit,
    live_records,
    sample,
    string_leaves,
)
from sanitizer.model import Document, Message, Part, Path, View

_NS = "6f1c2a57-2d1e-4d8e-9a51-5a11f17b0d6e"  # the uuid5 namespace of added records
CONTEXT_KEYS = ("isSidechain", "userType", "cwd", "sessionId", "version", "gitBranch", "agentId", "slug")

INJECTED_PREFIXES = ("<command-name>", "<command-message>", "<local-command-stdout>", "<local-command-stderr>",
                     "<command-args>", "Caveat: The messages below were generated", "<system-reminder>",
                     "<user-prompt-submit-hook>", "<bash-input>", "<bash-stdout>", "<bash-stderr>",
                     "<task-notification>", "[Request interrupted")


def is_injected(rec: dict[str, Any]) -> bool:
    """Records the user did not type: meta lines, command wrappers, compaction summaries."""
    if rec.get("isMeta") or rec.get("isCompactSummary") or rec.get("isVisibleInTranscriptOnly"):
        return True
    if rec.get("type") == "user" and str(rec.get("agentId", "")).startswith("acompact"):
        return True  # the compaction agent's prompt and hook context are Claude Code's own text
    content = rec.get("message", {}).get("content")
    if isinstance(content, list):
        texts = [b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"]
        content = texts[0] if len(texts) == 1 and len(content) == 1 else None
    return isinstance(content, str) and content.lstrip().startswith(INJECTED_PREFIXES)


def _only_its_results_since(view: View, msg: Message) -> bool:
    """True when every message after `msg` answers one of its calls: Claude Code writes the
    results of a message's first parallel calls before the line that holds its next call."""
    calls = {p.call_id for p in view.parts_of(msg) if p.kind == "tool_call"}
    for n in range(msg.index + 1, len(view.messages)):  # no slice: it stops at the first other message
        later = view.messages[n]
        parts = list(view.parts_of(later))
        if later.role != "user" or not parts or any(p.kind != "tool_result" or p.call_id not in calls for p in parts):
            return False
    return True


TASK_TOOLS = ("Task", "Agent")
BOOKKEEPING = {"summary", "system", "file-history-snapshot", "progress", "queue-operation", "attachment",
               "last-prompt", "custom-title", "ai-title", "agent-name", "agent-color", "tag", "mode",
               "permission-mode"}
KNOWN_TYPES = BOOKKEEPING | {"user", "assistant"}


def _link_sidechains(view: View, subagents: dict[str, str]) -> None:
    """Link sub-agents to the Task call that started them: a `subagents/agent-<id>.jsonl` file
    through the parent's `agent_progress` records (`view.meta["subagents"]`, the call's
    `meta["agent_id"]`), inline sidechain messages (`isSidechain: true`, older versions) to the
    Task call still open when they were written (`msg.meta["parent_call"]`)."""
    if subagents:
        view.meta["subagents"] = subagents
        by_call = {call: agent for agent, call in subagents.items()}
        for p in view.parts:
            if p.kind == "tool_call" and p.call_id in by_call:
                p.meta["agent_id"] = by_call[p.call_id]
    if not any(m.meta.get("sidechain") for m in view.messages):
        return
    if all(m.meta.get("sidechain") for m in view.messages):  # a sub-agent's own file: nothing to fold into
        agent = next((m.meta["agent_id"] for m in view.messages if m.meta.get("agent_id")), None)
        if agent is not None:
            view.meta["agent_id"] = agent
        return
    open_tasks: list[str] = []
    for msg in view.messages:
        parts = list(view.parts_of(msg))
        if msg.meta.get("sidechain"):
            if open_tasks:
                msg.meta["parent_call"] = open_tasks[-1]
            if msg.role == "user":
                msg.meta["injected"] = True  # the agent's prompt to its sub-agent, not a person's ask
            continue
        for p in parts:
            if p.kind == "tool_call" and p.tool in TASK_TOOLS and p.call_id:
                open_tasks.append(p.call_id)
            elif p.kind == "tool_result" and p.call_id in open_tasks:
                open_tasks.remove(p.call_id)


def _context_keys(rec: Any) -> dict[str, Any]:
    return {k: rec[k] for k in CONTEXT_KEYS if isinstance(rec, dict) and k in rec}


def cc_uuid(*seeds: Any) -> str:
    """A stable uuid for a record sanitizer adds (the same input gives the same output)."""
    import uuid  # here: uuid (with platform) costs ~2.5 ms of a start, and few runs add records

    return str(uuid.uuid5(uuid.UUID(_NS), "|".join(map(str, seeds))))


class ClaudeCode(Adapter):
    name = "claude_code"
    label = "Claude Code session JSONL"
    can_drop_turns = True

    def dialect(self, view: View) -> str:
        return RECORD_BLOCKS

    def message_node(self, view: View, msg: Message) -> tuple[int, Path] | None:
        if self.nested(view):
            return super().message_node(view, msg)
        return msg.records[0], ("message",)

    def marker_node(self, view: View, text: str, near: int | None = None) -> Any:
        rec = view.doc.records[near] if near is not None and near < len(view.doc.records) else None
        out: dict[str, Any] = {"parentUuid": rec.get("parentUuid") if isinstance(rec, dict) else None}
        out.update(_context_keys(rec))
        out.update({"type": "user", "message": {"role": "user", "content": text}, "isCompactSummary": True,
                    "uuid": cc_uuid("marker", text), "timestamp": rec.get("timestamp") if isinstance(rec, dict) else None})
        return out

    def stub_result(self, view: View, call: Part) -> Any:
        call_rec = view.doc.records[call.record]
        call_id = call.call_id or ""
        out: dict[str, Any] = {"parentUuid": call_rec.get("uuid") if isinstance(call_rec, dict) else None}
        out.update(_context_keys(call_rec))
        out.update({"type": "user", "message": {"role": "user", "content": [stub_result_block(call_id)]},
                    "uuid": cc_uuid("stub", call_id),
                    "timestamp": call_rec.get("timestamp") if isinstance(call_rec, dict) else None,
                    "toolUseResult": STUB_TEXT})
        return out

    def remove_parts(self, view: View, msg: Message, parts: list[Part], drop_records: set[int],
                     edits: list[Edit], stubbed: set[tuple[int, Path]]) -> None:
        """Blocks go; a record left without blocks goes too (each result is its own record)."""
        remove_blocks(view, parts, drop_records, edits, stubbed, drop_emptied_records=True)

    def link_marker(self, view: View, marker: Any, dropped: list[int], stop: int) -> None:
        """Keep the parentUuid chain whole: the marker takes the dropped records' place."""
        doc = view.doc
        gone = {doc.records[r].get("uuid") for r in dropped if isinstance(doc.records[r], dict)} - {None}
        marker["uuid"] = cc_uuid("marker", *sorted(gone))
        for r in range(stop, len(doc.records)):
            rec = doc.records[r]
            if isinstance(rec, dict) and rec.get("parentUuid") in gone:
                rec["parentUuid"] = marker["uuid"]
                doc.dirty.add(r)

    def link_stub(self, view: View, stub: Any, call_msg: Message) -> None:
        """The stub hangs under the call's last record; the record that did takes the stub as parent."""
        doc = view.doc
        last = max(call_msg.records)
        stub["parentUuid"] = doc.records[last].get("uuid") if isinstance(doc.records[last], dict) else None
        for r in range(last + 1, len(doc.records)):
            rec = doc.records[r]
            if isinstance(rec, dict) and rec.get("parentUuid") == stub["parentUuid"] and stub["parentUuid"]:
                rec["parentUuid"] = stub["uuid"]
                doc.dirty.add(r)
                break

    def sniff(self, doc: Document) -> int:
        if doc.container == "json-object" and not isinstance(doc.records[0], dict):
            return 0
        recs = [r for r in sample(doc, 300) if isinstance(r, dict)]
        hits = sum(1 for r in recs if r.get("type") in ("user", "assistant") and isinstance(r.get("message"), dict)
                   and ("sessionId" in r or "uuid" in r or "parentUuid" in r))
        # Bookkeeping lines, and lines of types added later (they still carry the session's ids).
        known = sum(1 for r in recs if r.get("type") in BOOKKEEPING
                    or (isinstance(r.get("type"), str) and "sessionId" in r and "uuid" in r
                        and r.get("type") not in ("user", "assistant")))
        return 97 if hits and hits + known >= len(recs) * 0.8 else 0

    def views(self, doc: Document) -> Iterator[View]:
        view = View(doc, self)
        by_api_id: dict[str, Message] = {}
        last: Message | None = None
        subagents: dict[str, str] = {}  # agent id -> the Task call that started it
        unknown: Counter[str] = Counter()
        for i, rec in live_records(doc):
            if isinstance(rec, dict) and rec.get("type") == "progress":
                data = rec.get("data") if isinstance(rec.get("data"), dict) else {}
                if data.get("type") == "agent_progress" and data.get("agentId") and rec.get("parentToolUseID"):
                    subagents.setdefault(str(data["agentId"]), str(rec["parentToolUseID"]))
            if isinstance(rec, dict) and rec.get("type") not in KNOWN_TYPES:
                unknown[str(rec.get("type"))] += 1
            if not isinstance(rec, dict) or rec.get("type") not in ("user", "assistant"):
                continue
            m = rec.get("message")
            if not isinstance(m, dict):
                continue
            role = m.get("role") or rec["type"]
            api_id = m.get("id") if role == "assistant" else None
            msg = by_api_id.get(api_id) if api_id else None
            if msg is not None and (msg is last or _only_its_results_since(view, msg)):
                msg.records.append(i)
            else:
                msg = view.new_message(role, i, injected=is_injected(rec), sidechain=bool(rec.get("isSidechain")),
                                       compact_summary=bool(rec.get("isCompactSummary")))
                if api_id:
                    by_api_id[api_id] = msg
            last = msg
            first_part = len(view.parts)
            read_blocks(view, msg, i, ("message", "content"), m.get("content"))
            self._link_tool_use_result(view, i, rec, first_part)
            if rec.get("agentId") and rec.get("isSidechain") and "agent_id" not in msg.meta:
                msg.meta["agent_id"] = str(rec["agentId"])
        _link_sidechains(view, subagents)
        if unknown:
            view.meta["unknown_kinds"] = dict(unknown)
        yield view

    @staticmethod
    def _link_tool_use_result(view: View, record: int, rec: dict[str, Any], first_part: int) -> None:
        tur = rec.get("toolUseResult")
        if tur is None:
            return
        results = [p for p in view.parts[first_part:] if p.kind == "tool_result"]
        if len(results) != 1:
            return  # ambiguous: only link when the record holds exactly one result
        results[0].copies.extend((record, path) for path, _ in string_leaves(tur, ("toolUseResult",)))
    where = '`~/.claude/projects/**/*.jsonl`; split assistant lines and `toolUseResult` copies handled'
