"""Hermes Agent: the plugin folder `sanitize hermes-plugin` writes is found by Hermes' own plugin
discovery, and the engine it registers compresses a corpus session with a stub summary model."""

from __future__ import annotations

import copy
import json
import re
import types
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from conftest import CORPUS, ROOT, require_corpus
from hypothesis import given, settings
from hypothesis import strategies as st

from sanitizer.cli.command import main as cli
from sanitizer.integrations.hermes_plugin import plugin_files

NEEDS = "Hermes integration tests need the extra: pip install 'sanitizer[hermes]'"
SESSIONS = CORPUS / "hermes_session" / "hermes-agent__exprted.jsonl"


def _readme(lang: str) -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("### Hermes Agent\n", 1)[1].split("\n### ", 1)[0]
    return re.search(rf"```{lang}\n(.*?)```", section, re.S).group(1)


# -- the plugin folder (no Hermes needed) ---------------------------------------------------------

def test_plugin_folder_is_written_and_never_overwritten_silently(tmp_path: Path) -> None:
    runner = CliRunner()
    first = runner.invoke(cli, ["hermes-plugin", str(tmp_path)])
    assert first.exit_code == 0, first.output
    assert "engine: sanitizer" in first.stdout
    folder = tmp_path / "sanitizer"
    assert {p.name for p in folder.iterdir()} == {"plugin.yaml", "__init__.py"}
    assert runner.invoke(cli, ["hermes-plugin", str(tmp_path)]).exit_code == 0  # same files: fine
    (folder / "__init__.py").write_text("# mine\n", encoding="utf-8")
    refused = runner.invoke(cli, ["hermes-plugin", str(tmp_path)])
    assert refused.exit_code == 1 and "--force" in refused.stderr
    assert (folder / "__init__.py").read_text(encoding="utf-8") == "# mine\n"
    forced = runner.invoke(cli, ["hermes-plugin", str(tmp_path), "--force"])
    assert forced.exit_code == 0
    assert (folder / "__init__.py").read_text(encoding="utf-8") == plugin_files()["__init__.py"]


def test_plugin_verb_rejects_a_bad_name_or_pack(tmp_path: Path) -> None:
    runner = CliRunner()
    assert runner.invoke(cli, ["hermes-plugin", str(tmp_path), "--name", "../x"]).exit_code == 2
    bad = runner.invoke(cli, ["hermes-plugin", str(tmp_path), "--preset", "hermez"])
    assert bad.exit_code == 2 and "unknown preset" in bad.stderr
    assert not any(tmp_path.iterdir())


def test_a_file_named_like_the_verb_is_still_a_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("hermes-plugin").write_text(json.dumps([{"role": "user", "content": "hi"}]), encoding="utf-8")
    result = CliRunner().invoke(cli, ["hermes-plugin", "--no-tokens", "-q"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == [{"role": "user", "content": "hi"}]


# -- inside Hermes ---------------------------------------------------------------------------------

@pytest.fixture()
def hermes_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A Hermes home set up exactly as the README says: the plugin command, then config.yaml."""
    pytest.importorskip("hermes_cli.plugins", reason=NEEDS)
    home = tmp_path / "hermes-home"
    (home / "plugins").mkdir(parents=True)
    command = _readme("sh").strip().split()
    assert command[:2] == ["sanitize", "hermes-plugin"]
    result = CliRunner().invoke(cli, command[1:2] + [command[2].replace("~/.hermes", str(home))])
    assert result.exit_code == 0, result.output
    (home / "config.yaml").write_text(_readme("yaml"), encoding="utf-8")
    monkeypatch.setenv("HERMES_HOME", str(home))
    return home


def discovered_engine() -> Any:
    from hermes_cli.plugins import PluginManager

    manager = PluginManager()
    manager.discover_and_load()
    return manager._context_engine


def corpus_conversation() -> list[dict[str, Any]]:
    """The longest corpus session as the OpenAI-format messages Hermes keeps in memory."""
    require_corpus()
    sessions = [json.loads(line) for line in SESSIONS.read_text(encoding="utf-8").splitlines() if line.strip()]
    session = max(sessions, key=lambda s: len(s["messages"]))
    messages: list[dict[str, Any]] = [{"role": "system", "content": session["system_prompt"]}]
    for row in session["messages"]:
        if row["role"] not in ("user", "assistant", "tool"):
            continue
        m: dict[str, Any] = {"role": row["role"], "content": row["content"]}
        if row.get("tool_calls"):
            m["tool_calls"] = row["tool_calls"]
        if row.get("tool_call_id"):
            m["tool_call_id"] = row["tool_call_id"]
        if row.get("tool_name"):
            m["name"] = row["tool_name"]
        messages.append(m)
    return messages


def chars(messages: list[dict[str, Any]]) -> int:
    return len(json.dumps(messages, ensure_ascii=False))


def pairs_valid(messages: list[dict[str, Any]]) -> bool:
    called: set[str] = set()
    for m in messages:
        called.update(c["id"] for c in m.get("tool_calls") or ())
        if m["role"] == "tool" and m.get("tool_call_id") not in called:
            return False
    return True


class StubSummaryModel:
    """Stands in for Hermes' auxiliary LLM call: records the prompts, answers or fails."""

    def __init__(self, fail: bool = False) -> None:
        self.fail = fail
        self.prompts: list[str] = []

    def __call__(self, **kwargs: Any) -> Any:
        self.prompts.append("\n".join(str(m.get("content")) for m in kwargs["messages"]))
        if self.fail:
            raise RuntimeError("summary model unavailable")
        message = types.SimpleNamespace(content="## Goal\nReview the Hermes codebase (stub summary).")
        return types.SimpleNamespace(choices=[types.SimpleNamespace(message=message)])


def test_hermes_discovers_the_plugin_from_the_readme_setup(hermes_home: Path) -> None:
    engine = discovered_engine()
    from agent.context_engine import ContextEngine

    assert isinstance(engine, ContextEngine) and engine.name == "sanitizer"
    clone = copy.deepcopy(engine)  # Hermes deep-copies a plugin engine for each agent
    assert clone.name == "sanitizer" and clone.preset == "hermes"


def test_bundled_context_engine_folder_is_loaded_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    context_engines = pytest.importorskip("plugins.context_engine", reason=NEEDS)
    folder = tmp_path / "context_engine"
    assert CliRunner().invoke(cli, ["hermes-plugin", str(folder)]).exit_code == 0
    monkeypatch.setattr(context_engines, "_CONTEXT_ENGINE_PLUGINS_DIR", folder)
    monkeypatch.delitem(__import__("sys").modules, "plugins.context_engine.sanitizer", raising=False)
    assert [(name, ok) for name, _, ok in context_engines.discover_context_engines()] == [("sanitizer", True)]
    engine = context_engines.load_context_engine("sanitizer")
    assert engine is not None and engine.name == "sanitizer"


def test_compress_sends_the_sanitized_turns_to_the_summarizer(hermes_home: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    import agent.context_compressor as compressor

    stub = StubSummaryModel()
    monkeypatch.setattr(compressor, "call_llm", stub)
    engine = discovered_engine()
    engine.update_model(model="stub-model", context_length=200_000)
    messages = corpus_conversation()
    before = copy.deepcopy(messages)
    out = engine.compress(messages, current_tokens=190_000, force=True)
    assert messages == before  # Hermes' list is never edited in place
    assert chars(out) < chars(messages) / 2 and len(out) < len(messages)
    assert pairs_valid(out)
    assert any("stub summary" in str(m.get("content")) for m in out)
    [prompt] = stub.prompts
    assert "-> exit 0" in prompt  # the sanitizer's digests, not Hermes' placeholders
    assert engine.last_sanitized_chars is not None
    assert not engine._last_summary_fallback_used


def test_failed_summary_call_falls_back_to_the_deterministic_summary(hermes_home: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    import agent.context_compressor as compressor

    stub = StubSummaryModel(fail=True)
    monkeypatch.setattr(compressor, "call_llm", stub)
    engine = discovered_engine()
    engine.update_model(model="stub-model", context_length=200_000)
    messages = corpus_conversation()
    out = engine.compress(messages, current_tokens=190_000, force=True)
    assert stub.prompts and engine._last_summary_fallback_used
    [handoff] = [m for m in out if "Fallback summary (no LLM)" in str(m.get("content"))]
    text = str(handoff["content"])
    assert "summary model unavailable" in text and "## Completed Actions" in text
    assert pairs_valid(out) and len(out) < len(messages)


@settings(max_examples=50, deadline=None)
@given(sizes=st.lists(st.integers(min_value=0, max_value=5000), max_size=30),
       count=st.integers(min_value=0, max_value=40), tokens=st.none() | st.integers(min_value=0, max_value=4000))
def test_protected_tail_is_within_the_list_and_never_below_the_count(sizes: list[int], count: int,
                                                                     tokens: int | None) -> None:
    pytest.importorskip("agent.context_compressor", reason=NEEDS)
    from sanitizer.integrations.hermes import protected_tail

    messages = [{"role": "tool", "tool_call_id": f"c{i}", "content": "x" * n} for i, n in enumerate(sizes)]
    kept = protected_tail(messages, count, tokens)
    assert min(count, len(messages)) <= kept <= len(messages)
    if not tokens:
        assert kept == min(count, len(messages))
