"""Claude Code: `sanitize hook claude-code` on corpus sessions with the documented hook JSON shapes
(PreCompact, then SessionStart with source `compact`), in a temporary project folder."""

from __future__ import annotations

import hashlib
import json
import re
import shlex
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from conftest import ROOT, corpus_params

from sanitizer.cli.command import main as cli

CORPUS = corpus_params("claude_code_jsonl")
PICKED = [p for p in CORPUS if p.values[0] is None
          or p.values[0].name.startswith(("mclaude__343e", "spotter__agent-acompact", "mclaude__agent-abc"))]


def settings_commands() -> dict[str, list[tuple[str | None, str]]]:
    """The README's settings.json: event -> [(matcher, command)]."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("### Claude Code\n", 1)[1].split("\n## ", 1)[0]
    settings = json.loads(re.search(r"```json\n(.*?)```", section, re.S).group(1))
    return {event: [(group.get("matcher"), hook["command"]) for group in groups for hook in group["hooks"]]
            for event, groups in settings["hooks"].items()}


def run_hook(command: str, event: dict[str, Any]) -> Any:
    """Run a settings.json command line as Claude Code would, the hook JSON on stdin."""
    argv = shlex.split(command)
    assert argv[0] == "sanitize"
    return CliRunner().invoke(cli, argv[1:], input=json.dumps(event))


def base_event(name: str, transcript: Path, project: Path, session: str = "0b1c2d3e-session") -> dict[str, Any]:
    return {"hook_event_name": name, "session_id": session, "transcript_path": str(transcript),
            "cwd": str(project), "permission_mode": "default"}


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("path", PICKED)
def test_readme_hooks_write_then_reinject_the_summary(path: Path, tmp_path: Path) -> None:
    commands = settings_commands()
    assert set(commands) == {"PreCompact", "SessionStart"}
    [(pre_matcher, pre_command)] = commands["PreCompact"]
    [(start_matcher, start_command)] = commands["SessionStart"]
    assert pre_matcher is None and start_matcher == "compact"
    project = tmp_path / "project"
    project.mkdir()
    before = digest(path)

    event = {**base_event("PreCompact", path, project), "trigger": "auto", "custom_instructions": None}
    pre = run_hook(pre_command, event)
    assert pre.exit_code == 0, pre.output
    assert pre.stdout == ""  # PreCompact accepts no hook-specific output
    summary_file = project / ".claude" / "sanitizer" / "0b1c2d3e-session.summary.md"
    summary = summary_file.read_text(encoding="utf-8")
    assert summary.startswith("> Fallback summary (no LLM): Claude Code auto compaction")
    assert "## Active Task" in summary and len(summary) < path.stat().st_size
    assert digest(path) == before  # the transcript is never edited

    start = run_hook(start_command, {**base_event("SessionStart", path, project), "source": "compact"})
    assert start.exit_code == 0, start.output
    out = json.loads(start.stdout)
    assert out["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert out["hookSpecificOutput"]["additionalContext"].endswith(summary)
    assert digest(path) == before


@pytest.mark.parametrize("path", PICKED[:1])
def test_transcript_option_writes_a_smaller_sanitized_copy(path: Path, tmp_path: Path) -> None:
    event = {**base_event("PreCompact", path, tmp_path), "trigger": "manual", "custom_instructions": "keep tests"}
    result = run_hook("sanitize hook claude-code --transcript", event)
    assert result.exit_code == 0, result.output
    copy = tmp_path / ".claude" / "sanitizer" / "0b1c2d3e-session.sanitized.jsonl"
    assert 0 < copy.stat().st_size < path.stat().st_size
    assert all(json.loads(line) for line in copy.read_text(encoding="utf-8").splitlines() if line.strip())


@pytest.mark.parametrize("source", ["startup", "resume", "clear"])
def test_session_start_other_than_compact_prints_nothing(source: str, tmp_path: Path) -> None:
    folder = tmp_path / ".claude" / "sanitizer"
    folder.mkdir(parents=True)
    (folder / "s1.summary.md").write_text("old summary\n", encoding="utf-8")
    event = {**base_event("SessionStart", tmp_path / "t.jsonl", tmp_path, "s1"), "source": source}
    result = run_hook("sanitize hook claude-code", event)
    assert result.exit_code == 0 and result.stdout == ""


def test_compact_start_of_a_new_session_id_uses_the_last_compacted_session(tmp_path: Path) -> None:
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(json.dumps({"type": "user", "uuid": "u1", "sessionId": "old",
                                      "message": {"role": "user", "content": "Fix the parser in src/parse.py"}}) + "\n",
                          encoding="utf-8")
    assert run_hook("sanitize hook claude-code", base_event("PreCompact", transcript, tmp_path, "old")).exit_code == 0
    result = run_hook("sanitize hook claude-code",
                      {**base_event("SessionStart", transcript, tmp_path, "new"), "source": "compact"})
    assert "src/parse.py" in json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]


def test_compact_start_without_a_summary_prints_nothing(tmp_path: Path) -> None:
    result = run_hook("sanitize hook claude-code",
                      {**base_event("SessionStart", tmp_path / "t.jsonl", tmp_path), "source": "compact"})
    assert result.exit_code == 0 and result.stdout == ""


@pytest.mark.parametrize("stdin", ["not json", "[1, 2]", json.dumps({"hook_event_name": "PreCompact"}),
                                   json.dumps({"hook_event_name": "PreCompact", "session_id": "s", "cwd": "/x",
                                               "transcript_path": "/nonexistent/t.jsonl"})])
def test_unusable_input_is_a_non_blocking_error(stdin: str, tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["hook", "claude-code", "--dir", str(tmp_path / "out")], input=stdin)
    assert result.exit_code == 1
    assert result.stderr.startswith("sanitize: hook claude-code:") and result.stdout == ""
    assert not (tmp_path / "out").exists()


def test_session_id_never_escapes_the_folder(tmp_path: Path) -> None:
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(json.dumps({"type": "user", "message": {"role": "user", "content": "hi"}}) + "\n",
                          encoding="utf-8")
    project = tmp_path / "p"
    result = run_hook("sanitize hook claude-code", base_event("PreCompact", transcript, project, "../../evil"))
    assert result.exit_code == 0, result.output
    written = sorted(p.name for p in (project / ".claude" / "sanitizer").iterdir())
    assert written == ["_.._evil.summary.md", "last-compact.json"]
    assert not (tmp_path / "evil.summary.md").exists()


def test_a_symlinked_summary_is_written_through(tmp_path: Path) -> None:
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(json.dumps({"type": "user", "message": {"role": "user", "content": "hi"}}) + "\n",
                          encoding="utf-8")
    folder = tmp_path / ".claude" / "sanitizer"
    folder.mkdir(parents=True)
    real = tmp_path / "kept.md"
    real.write_text("", encoding="utf-8")
    (folder / "s.summary.md").symlink_to(real)
    assert run_hook("sanitize hook claude-code", base_event("PreCompact", transcript, tmp_path, "s")).exit_code == 0
    assert (folder / "s.summary.md").is_symlink() and "Fallback summary" in real.read_text(encoding="utf-8")


def test_bad_command_line_is_a_usage_error() -> None:
    assert CliRunner().invoke(cli, ["hook", "codex"], input="{}").exit_code == 2
