"""`sanitize hook claude-code`: a Claude Code hook that keeps a deterministic summary across compaction.

Claude Code runs the command with the hook's JSON on stdin (`hook_event_name`, `session_id`,
`transcript_path`, `cwd`, and `trigger` for PreCompact or `source` for SessionStart):

* `PreCompact` (manual or auto): reads `transcript_path` (never writes it) and writes the
  deterministic fallback summary to `<cwd>/.claude/sanitizer/<session_id>.summary.md`, plus, with
  `--transcript`, the sanitized copy `<session_id>.sanitized.jsonl`.  Prints nothing: Claude Code
  accepts no hook-specific output for PreCompact, and a hook cannot replace its summary.
* `SessionStart` with `source: "compact"`: prints `{"hookSpecificOutput": {"hookEventName":
  "SessionStart", "additionalContext": <summary>}}`, so the summary enters the fresh context.

Any other event or source does nothing.  Errors exit 1 with a message on stderr (a non-blocking
hook error: compaction and the session go on); a bad command line exits 2.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any, TextIO

from sanitizer import Sanitizer, fallback_summary
from sanitizer.errors import HookError

FOLDER = Path(".claude") / "sanitizer"
POINTER = "last-compact.json"
SAFE_ID = re.compile(r"[^A-Za-z0-9._-]")
HEADER = ("Deterministic summary of this session before compaction (written by the sanitizer from the "
          "transcript; complements the compaction summary above):\n\n")


def _session_file(session_id: str, suffix: str) -> str:
    safe = SAFE_ID.sub("_", session_id).lstrip(".") or "session"
    return safe[:128] + suffix


def _folder(event: dict[str, Any], override: Path | None) -> Path:
    if override is not None:
        return override
    cwd = event.get("cwd")
    if not isinstance(cwd, str) or not cwd:
        raise HookError("hook input has no cwd")
    return Path(cwd) / FOLDER


def _write(path: Path, text: str) -> None:
    # Plain write (no rename): a symlinked file is written through, never replaced.
    with path.open("w", encoding="utf-8", errors="surrogateescape", newline="") as fh:
        fh.write(text)


def pre_compact(event: dict[str, Any], folder: Path, *, transcript: bool = False, max_chars: int = 8000) -> Path:
    """Write the summary (and optionally the sanitized transcript); return the summary's path."""
    session_id, source = event.get("session_id"), event.get("transcript_path")
    if not isinstance(session_id, str) or not session_id:
        raise HookError("hook input has no session_id")
    if not isinstance(source, str) or not Path(source).is_file():
        raise HookError(f"transcript_path is not a readable file: {source!r}")
    read = Sanitizer("none", format="claude_code", count_tokens=False).sanitize_file(source)
    reason = f"Claude Code {event.get('trigger') or 'manual'} compaction"
    summary = fallback_summary(read.doc, reason=reason, max_chars=max_chars, format="claude_code")
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / _session_file(session_id, ".summary.md")
    _write(target, summary.text if summary.text.endswith("\n") else summary.text + "\n")
    if transcript:
        clean = Sanitizer("default", format="claude_code", count_tokens=False).sanitize_file(source)
        _write(folder / _session_file(session_id, ".sanitized.jsonl"), clean.dumps())
    _write(folder / POINTER, json.dumps({"session_id": session_id, "summary": target.name}) + "\n")
    return target


def session_start(event: dict[str, Any], folder: Path) -> str | None:
    """The summary to inject after a compaction of this session (None when there is none)."""
    session_id = event.get("session_id")
    candidates = []
    if isinstance(session_id, str) and session_id:
        candidates.append(folder / _session_file(session_id, ".summary.md"))
    try:  # the session written last, in case the new session id differs from the compacted one
        pointer = json.loads((folder / POINTER).read_text(encoding="utf-8"))
        candidates.append(folder / Path(str(pointer.get("summary", ""))).name)
    except (OSError, ValueError, AttributeError):
        pass
    for path in candidates:
        if path.name and path.is_file():
            return path.read_text(encoding="utf-8", errors="replace")
    return None


def handle(event: dict[str, Any], stdout: TextIO, *, folder: Path | None = None, transcript: bool = False,
           max_chars: int = 8000) -> None:
    """Act on one hook event (see the module docstring)."""
    name = event.get("hook_event_name")
    if name == "PreCompact":
        pre_compact(event, _folder(event, folder), transcript=transcript, max_chars=max_chars)
    elif name == "SessionStart" and event.get("source") == "compact":
        text = session_start(event, _folder(event, folder))
        if text:
            out = {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": HEADER + text}}
            stdout.write(json.dumps(out, ensure_ascii=False) + "\n")


def main(argv: list[str], stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    """`hook claude-code [--transcript] [--dir DIR] [--max-chars N]`, the hook JSON on stdin
    (the command line passes its own streams in)."""
    err = stderr
    parser = argparse.ArgumentParser(prog="sanitize hook", description="Run as a Claude Code hook command.")
    parser.add_argument("agent", choices=["claude-code"], help="the agent whose hook JSON arrives on stdin")
    parser.add_argument("--transcript", action="store_true",
                        help="on PreCompact, also write the sanitized transcript beside the summary")
    parser.add_argument("--dir", type=Path, help="folder for the files (default: <cwd>/.claude/sanitizer)")
    parser.add_argument("--max-chars", type=int, default=8000, help="summary size limit (default: 8000)")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return 0 if exc.code == 0 else 2
    try:
        event = json.loads(stdin.read() or "null")
        if not isinstance(event, dict):
            raise HookError("stdin is not a hook JSON object")
        handle(event, stdout, folder=args.dir, transcript=args.transcript, max_chars=args.max_chars)
    except (HookError, ValueError, OSError) as exc:
        err.write(f"sanitize: hook claude-code: {exc}\n")
        return 1
    return 0
