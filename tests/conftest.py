"""Shared test helpers: the real-transcript corpus beside the clone (read in place, never copied)."""

from __future__ import annotations

import atexit
import json
import os
import random
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import settings

if TYPE_CHECKING:
    from collections.abc import Iterator

    from sanitizer.model import View

# CI runs the same examples every time (a red CI must mean a regression, not a lucky draw);
# locally hypothesis explores new examples on every run.
settings.register_profile("ci", derandomize=True, deadline=None)
if os.environ.get("CI"):
    settings.load_profile("ci")

# The compiled-pattern cache of the test processes (and of the runs they start with this
# environment) lives in a folder of this session, never in the user's cache folder.
_CACHE = tempfile.mkdtemp(prefix="sanitizer-test-cache-")
atexit.register(shutil.rmtree, _CACHE, ignore_errors=True)
os.environ["SANITIZER_CACHE_DIR"] = _CACHE

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"
EXAMPLE = ROOT / "examples" / "claude_code_session.jsonl"

# The corpus folders this project reads, and the format each file must be detected as.
CORPUS_FORMATS = {
    "claude_code_jsonl": "claude_code",
    "anthropic_messages": "anthropic",
    "codex_rollout": "codex",
    "openai_chat": None,  # chat messages, a LiteLLM log, or a dataset of episodes: see EXPECTED_FORMAT
}
EXPECTED_FORMAT = {
    "taubench__gpt-4o-airline.json": "dataset",
    "openhands-sdk__fncall-llm-message.json": "openai_chat",
    "openhands-sdk__litellm-log-claude-sonnet-4-1757015046.707.json": "openai_chat",
}


def corpus_files(*folders: str) -> list[Path]:
    """Files of the given corpus folders (all four core folders when none is named)."""
    if not CORPUS.is_dir():
        return []
    names = folders or tuple(CORPUS_FORMATS)
    return sorted(p for name in names for p in (CORPUS / name).glob("*") if p.is_file())


def require_corpus() -> None:
    if not CORPUS.is_dir():
        pytest.skip(f"../shared/corpus not found at {CORPUS}: real-transcript tests need it beside the clone")


def corpus_params(*folders: str) -> list:
    """pytest params over corpus files, or one skipped param that says why when it is absent."""
    files = corpus_files(*folders)
    if not files:
        reason = f"../shared/corpus not found at {CORPUS}: real-transcript tests need it beside the clone"
        return [pytest.param(None, marks=pytest.mark.skip(reason=reason), id="no-corpus")]
    return [pytest.param(p, id=f"{p.parent.name}/{p.name}") for p in files]


def corpus_slices(path: Path, count: int, lengths: tuple[int, ...]) -> Iterator[tuple[int, str]]:
    """`count` (start, slice) pairs of a corpus file's raw text, each of one of `lengths` chars (or
    to the end), at places fixed by the file's name."""
    text = path.read_text(encoding="utf-8", errors="replace")
    rng = random.Random(path.name)
    for _ in range(count):
        start = rng.randrange(len(text))
        yield start, text[start:start + rng.choice(lengths)]


def expected_format(path: Path) -> str:
    return CORPUS_FORMATS.get(path.parent.name) or EXPECTED_FORMAT[path.name]


def records(raw: bytes) -> list:
    """Records of a JSON or JSONL file; unparseable lines are kept as their raw text."""
    text = raw.decode("utf-8", errors="surrogateescape")
    try:
        return [json.loads(text)]
    except json.JSONDecodeError:
        pass
    out: list = []
    for line in text.splitlines():
        if line.strip():
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:
                out.append(line)
    return out


def check_chat_messages(messages: list[dict]) -> tuple[set[str], set[str]]:
    """Assert normalized OpenAI chat ordering (a tool message answers an open call of the
    assistant message just before it); return (call ids, answered ids)."""
    calls: set[str] = set()
    answered: set[str] = set()
    open_calls: set[str] = set()
    for m in messages:
        assert m["role"] in ("system", "user", "assistant", "tool")
        if m["role"] == "tool":
            assert m["tool_call_id"] in open_calls, "a tool message must follow its call"
            answered.add(m["tool_call_id"])
            continue
        open_calls = set()
        for call in m.get("tool_calls", []):
            assert isinstance(call["function"]["arguments"], str)
            calls.add(call["id"])
            open_calls.add(call["id"])
    return calls, answered


def chat_session(turns: int = 30, size: int = 400) -> list[dict[str, Any]]:
    """An OpenAI chat session of `turns` rounds of two parallel tool calls with long outputs."""
    msgs: list[dict[str, Any]] = [{"role": "system", "content": "You are a coding agent."},
                                  {"role": "user", "content": "Make the build green."}]
    for i in range(turns):
        calls = [{"id": f"c{i}_{k}", "type": "function",
                  "function": {"name": ["bash", "read"][k % 2], "arguments": json.dumps({"n": i, "k": k})}}
                 for k in range(2)]
        msgs.append({"role": "assistant", "content": None, "tool_calls": calls})
        msgs += [{"role": "tool", "tool_call_id": c["id"], "name": c["function"]["name"],
                  "content": f"output {i} " + "word " * size} for c in calls]
    msgs += [{"role": "user", "content": "Status?"}, {"role": "assistant", "content": "All green."}]
    return msgs


def pairs(view: View) -> tuple[int, int, int]:
    """(calls, results, results whose call is in the view)."""
    from sanitizer.pairs import Pairs

    calls = Pairs(view).first_calls()
    results = [p for p in view.parts if p.kind == "tool_result"]
    return len([p for p in view.parts if p.kind == "tool_call"]), len(results), sum(p.call_id in calls for p in results)
