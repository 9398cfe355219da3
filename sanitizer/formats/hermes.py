"""Hermes Agent (NousResearch) sessions.

* The JSON session snapshot (`~/.hermes/sessions/session_*.json`): `{session_id, model, platform,
  …, system_prompt?, messages}` with OpenAI-style messages (`reasoning` / `reasoning_content` on
  the assistant, tool messages with `name` and `tool_call_id`).  A top-level `system_prompt`
  string is read as the system message.
* A session export (JSONL or a JSON list, one session per record, as the session store writes
  its rows): `{id, source, user_id, model, model_config, system_prompt, parent_session_id,
  started_at, ended_at, end_reason, …, messages[]}` whose messages are flat DB rows `{id,
  session_id, role, content, tool_call_id, tool_calls, tool_name, timestamp, token_count}` (every
  key present, mostly null).  Each session is one view; `system_prompt` is its system message;
  `role: "session_meta"` rows (null content) and every session field pass through.
* The SQLite store `state.db`: `read_state_db(path, session_id)` returns one session's active
  messages as OpenAI-style messages, so the session can be sanitized like a JSON snapshot.  The
  database is opened read-only and never modified.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path as FilePath
from typing import TYPE_CHECKING, Any

from sanitizer.errors import StateDbError
from sanitizer.formats.base import live_records, message_list, sample
from sanitizer.formats.openai_chat import ChatMessages, chat_score, looks_like_chat_message, read_chat_message
from sanitizer.model import Document, Part, View

if TYPE_CHECKING:
    import sqlite3

CONTENT_JSON_PREFIX = "\x00json:"
SESSION_KEYS = ("session_id", "session_start", "platform", "last_updated")


class Hermes(ChatMessages):
    name = "hermes"
    label = "Hermes Agent session (JSON snapshot; state.db via --session)"
    where = 'JSON session snapshot, a session export JSONL, or `state.db` with `--session ID` (read-only)'

    def sniff(self, doc: Document) -> int:
        if doc.container != "json-object":
            recs = sample(doc, 50)
            rows = [m for r in recs if is_export_session(r) for m in r["messages"][:20]]
            sessions = all(is_export_session(r) for r in recs)
            return 96 if recs and sessions and rows and all(_is_row(m) for m in rows) else 0
        root = doc.records[0]
        if not isinstance(root, dict) or "session_id" not in root:
            return 0
        located = message_list(doc)
        if located is None:
            return 0
        messages = [m for _, _, m in located[:200]]
        return 95 if not messages or chat_score(messages) else 0

    def views(self, doc: Document) -> Iterator[View]:
        if doc.container != "json-object":
            for i, rec in live_records(doc):
                if is_export_session(rec):
                    located = [(i, ("messages", j), m) for j, m in enumerate(rec["messages"])]
                    yield self._view(doc, i, located, {"record": i, "session_id": rec.get("id")})
            return
        yield self._view(doc, 0, message_list(doc) or [], {"session_id": doc.records[0].get("session_id")})

    def _view(self, doc: Document, record: int, located: list, meta: dict[str, Any]) -> View:
        view = View(doc, self, meta=meta)
        prompt = doc.records[record].get("system_prompt")
        if isinstance(prompt, str) and prompt:
            msg = view.new_message("system", record)
            view.add(msg, Part("text", "system", 0, record, ("system_prompt",), prompt, meta={"field": True}))
        for rec, base, m in located:
            if looks_like_chat_message(m):
                read_chat_message(view, rec, base, m)
        return view


def is_export_session(rec: Any) -> bool:
    """A session of an export: `{id, system_prompt, messages: [...]}` (detection also checks the rows)."""
    return isinstance(rec, dict) and "id" in rec and "system_prompt" in rec and isinstance(rec.get("messages"), list)


def _is_row(m: Any) -> bool:
    return isinstance(m, dict) and "session_id" in m and "role" in m and "content" in m


def _decode_content(raw: Any) -> Any:
    if isinstance(raw, str) and raw.startswith(CONTENT_JSON_PREFIX):
        try:
            return json.loads(raw[len(CONTENT_JSON_PREFIX):])
        except json.JSONDecodeError:
            return raw
    return raw


def _decode_json(raw: Any) -> Any:
    if isinstance(raw, str) and raw.strip():
        try:
            return json.loads(raw)
        except json.JSONDecodeError:
            return raw
    return raw


def session_ids(conn: sqlite3.Connection) -> list[str]:
    ids = [r[0] for r in conn.execute("SELECT DISTINCT session_id FROM messages ORDER BY session_id")]
    return [str(i) for i in ids if i is not None]


def read_state_db(path: str | FilePath, session_id: str) -> list[dict[str, Any]]:
    """One session of a Hermes `state.db` as OpenAI-style chat messages (active rows, by `id`).

    `content` stored as `"\\x00json:" + JSON` becomes the decoded list; `tool_calls` (JSON text)
    becomes a list; `reasoning` / `reasoning_content` are kept on the message.  The file is opened
    read-only (`mode=ro`) and never written.
    """
    path = FilePath(path)
    if not path.is_file():
        raise StateDbError(f"{path}: no such database file")
    import sqlite3  # here: only a state.db needs it (~3 ms of every start otherwise)

    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise StateDbError(f"{path}: cannot open read-only: {exc}") from exc
    try:
        conn.row_factory = sqlite3.Row
        try:
            columns = {r["name"] for r in conn.execute("PRAGMA table_info(messages)")}
        except sqlite3.DatabaseError as exc:
            raise StateDbError(f"{path}: not a SQLite database: {exc}") from exc
        if not columns:
            raise StateDbError(f"{path}: no `messages` table; is this a Hermes state.db?")
        where = "session_id = ?" + (" AND active = 1" if "active" in columns else "")
        rows = conn.execute(f"SELECT * FROM messages WHERE {where} ORDER BY id", (session_id,)).fetchall()
        if not rows:
            known = session_ids(conn)
            listing = ", ".join(known[:50]) + (f" … ({len(known)} in all)" if len(known) > 50 else "")
            raise StateDbError(f"{path}: no session {session_id!r}; available sessions: {listing or 'none'}")
        return [_row_message(row, columns) for row in rows]
    finally:
        conn.close()


def _row_message(row: sqlite3.Row, columns: set[str]) -> dict[str, Any]:
    m: dict[str, Any] = {"role": row["role"], "content": _decode_content(row["content"])}
    tool_calls = _decode_json(row["tool_calls"]) if "tool_calls" in columns else None
    if tool_calls:
        m["tool_calls"] = tool_calls
    if "tool_call_id" in columns and row["tool_call_id"]:
        m["tool_call_id"] = row["tool_call_id"]
    for column in ("name", "tool_name"):
        if column in columns and row[column]:
            m["name"] = row[column]
            break
    for column in ("reasoning", "reasoning_content"):
        if column in columns and row[column]:
            m[column] = row[column]
    return m
