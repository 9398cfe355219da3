"""Hermes sessions: the JSON session file and the `state.db` SQLite store (read-only), via the
library and the CLI."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import pytest
from conftest import pairs

from sanitizer.document.loader import from_object, to_text
from sanitizer.formats import detect
from sanitizer.formats.hermes import StateDbError, read_state_db

# -- Hermes ------------------------------------------------------------------------------------

HERMES_MESSAGES = [
    {"role": "user", "content": "What is in /tmp?"},
    {"role": "assistant", "content": "", "reasoning": "I should list it.",
     "tool_calls": [{"id": "call_a", "type": "function",
                     "function": {"name": "terminal", "arguments": "{\"command\": \"ls /tmp\"}"}}]},
    {"role": "tool", "name": "terminal", "tool_call_id": "call_a", "content": "x.log\ny.log"},
    {"role": "assistant", "content": "Two log files."},
]


def test_hermes_json_session_is_detected_and_paired() -> None:
    session = {"session_id": "20250101_120000_abcd", "model": "hermes-4", "platform": "cli",
               "system_prompt": "You are Hermes.", "messages": HERMES_MESSAGES}
    doc = from_object(session)
    adapter = detect(doc)
    assert adapter.name == "hermes"
    [view] = adapter.views(doc)
    assert [m.role for m in view.messages] == ["system", "user", "assistant", "tool", "assistant"]
    assert pairs(view) == (1, 1, 1)
    assert any(p.kind == "thinking" and p.path == ("messages", 1, "reasoning") for p in view.parts)


SCHEMA = """
CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT, started_at REAL);
CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, role TEXT NOT NULL,
    content TEXT, tool_calls TEXT, tool_call_id TEXT, name TEXT, reasoning TEXT,
    active INTEGER DEFAULT 1, timestamp REAL NOT NULL);
"""


def build_state_db(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.executescript(SCHEMA)
    rows = [
        ("s1", "user", "\x00json:" + json.dumps([{"type": "text", "text": "What is in /tmp?"}]), None, None, None,
         None, 1, 3.0),
        ("s1", "assistant", "", json.dumps(HERMES_MESSAGES[1]["tool_calls"]), None, None, "I should list it.", 1, 1.0),
        ("s1", "assistant", "a superseded reply", None, None, None, None, 0, 1.5),
        ("s1", "tool", "x.log\ny.log", None, "call_a", "terminal", None, 1, 2.0),
        ("s2", "user", "other session", None, None, None, None, 1, 0.5),
        ("s1", "assistant", "Two log files.", None, None, None, None, 1, 2.5),
    ]
    conn.executemany("INSERT INTO messages (session_id, role, content, tool_calls, tool_call_id, name, reasoning,"
                     " active, timestamp) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
    conn.commit()
    conn.close()


def test_hermes_state_db_session_round_trips_and_db_is_unchanged(tmp_path: Path) -> None:
    db = tmp_path / "state.db"
    build_state_db(db)
    digest = hashlib.sha256(db.read_bytes()).hexdigest()
    messages = read_state_db(db, "s1")
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "assistant"]  # by id, active only
    assert messages[0]["content"] == [{"type": "text", "text": "What is in /tmp?"}]
    assert messages[1]["tool_calls"][0]["id"] == "call_a" and messages[1]["reasoning"] == "I should list it."
    assert messages[2] == {"role": "tool", "content": "x.log\ny.log", "tool_call_id": "call_a", "name": "terminal"}
    session = {"session_id": "s1", "messages": messages}
    doc = from_object(session)
    adapter = detect(doc)
    assert adapter.name == "hermes"
    [view] = adapter.views(doc)
    assert pairs(view) == (1, 1, 1)
    adapter.write(view)
    assert json.loads(to_text(doc)) == session
    assert hashlib.sha256(db.read_bytes()).hexdigest() == digest
    assert sorted(p.name for p in tmp_path.iterdir()) == ["state.db"]


def test_hermes_state_db_missing_session_lists_available_ids(tmp_path: Path) -> None:
    db = tmp_path / "state.db"
    build_state_db(db)
    with pytest.raises(StateDbError, match=r"no session 'nope'; available sessions: s1, s2"):
        read_state_db(db, "nope")
    with pytest.raises(StateDbError, match="no such database file"):
        read_state_db(tmp_path / "absent.db", "s1")


def test_cli_sanitizes_a_state_db_session_read_only(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from sanitizer.cli.command import main

    db = tmp_path / "state.db"
    build_state_db(db)
    digest = hashlib.sha256(db.read_bytes()).hexdigest()
    result = CliRunner().invoke(main, [str(db), "--session", "s1", "--quiet"])
    assert result.exit_code == 0, result.stderr
    session = json.loads(result.stdout)
    assert session["session_id"] == "s1"
    assert [m["role"] for m in session["messages"]] == ["user", "assistant", "tool", "assistant"]
    missing = CliRunner().invoke(main, [str(db), "--session", "nope"])
    assert missing.exit_code == 2 and "available sessions: s1, s2" in missing.stderr
    no_id = CliRunner().invoke(main, [str(db)])
    assert no_id.exit_code == 1 and "--session ID" in no_id.stderr
    assert hashlib.sha256(db.read_bytes()).hexdigest() == digest
