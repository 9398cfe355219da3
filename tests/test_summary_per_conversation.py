"""`--summary` on a file of several conversations: one headed summary each, naming its conversation."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import CORPUS, EXAMPLE

TOKEN = "ghp_" + "Q7w8E9r0T1y2U3i4O5p6A7s8D9f0G1h2J3k4"


def sanitize(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sanitizer", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300)


def episode(ask: str) -> dict:
    return {"task_id": ask[:8], "messages": [
        {"role": "system", "content": "You are a helpful agent."},
        {"role": "user", "content": ask},
        {"role": "assistant", "content": "On it."}]}


def test_each_conversation_gets_its_own_headed_summary_with_its_own_ask(tmp_path: Path) -> None:
    asks = ["Fix the login bug in auth.py", "Rename the billing module", f"Rotate the key {TOKEN} today"]
    data = tmp_path / "episodes.jsonl"
    data.write_text("".join(json.dumps(episode(a)) + "\n" for a in asks), encoding="utf-8")
    ran = sanitize(str(data), "--summary", "--report", "json", cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    heads = [line for line in ran.stdout.splitlines() if line.startswith("# ")]
    assert heads == [f"# {data}: conversation {i} of 3 (record {i - 1}, line {i})" for i in (1, 2, 3)]
    sections = ran.stdout.split("\n# ")
    for ask, section in zip(asks[:2], sections, strict=False):
        assert ask in section.split("## Active Task", 1)[1].split("##", 1)[0]
    assert TOKEN[:12] not in ran.stdout and "[REDACTED:github-token:" in sections[2]
    report = json.loads(ran.stderr)
    assert [s["conversation"] for s in report["summaries"]] == [h.split(": ", 1)[1] for h in heads]


def test_a_single_conversation_keeps_one_summary_without_a_heading(tmp_path: Path) -> None:
    ran = sanitize(str(EXAMPLE), "--summary", cwd=tmp_path)
    assert ran.returncode == 0
    assert ran.stdout.startswith("## Active Task") or not ran.stdout.startswith("# ")
    assert ran.stdout.count("## Active Task") == 1


def test_a_corpus_dataset_is_summarized_per_episode(tmp_path: Path) -> None:
    path = CORPUS / "openai_chat" / "taubench__gpt-4o-airline.json"
    if not path.exists():
        pytest.skip(f"the shared corpus is not beside this clone ({CORPUS} not found)")
    ran = sanitize(str(path), "--summary", cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.count("## Active Task") == 200
    assert f"# {path}: conversation 200 of 200" in ran.stdout
