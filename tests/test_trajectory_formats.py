"""Agent trajectory formats: SWE-agent `.traj`, mini-swe-agent, OpenHands events (Hermes: test_hermes_format.py).

Corpus files are read in place from `../shared/corpus/` and never copied into the project.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from conftest import pairs

from sanitizer.document.loader import from_object, from_text, to_text
from sanitizer.formats import detect
from sanitizer.model import Document, Part, View

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
FOLDERS = {"swe_agent_traj": "swe_agent", "mini_swe_agent": "mini_swe_agent", "openhands_events": "openhands",
           "hermes_session": "hermes"}


def corpus_files() -> list[pytest.param]:
    found = [pytest.param(path, name, id=path.name)
             for folder, name in FOLDERS.items() if (CORPUS / folder).is_dir()
             for path in sorted((CORPUS / folder).iterdir()) if path.is_file()]
    return found or [pytest.param(None, None, id="no-corpus")]


def need(path: Path | None) -> Path:
    if path is None:
        pytest.skip(f"../shared/corpus not found: {CORPUS}")
    return path


def load(path: Path) -> tuple[str, Document]:
    text = path.read_text(encoding="utf-8")
    return text, from_text(text, str(path))


def corpus_doc(folder: str, name: str) -> tuple[Document, list[View]]:
    path = CORPUS / folder / name
    if not path.is_file():
        pytest.skip(f"../shared/corpus not found: {path}")
    _, doc = load(path)
    return doc, list(detect(doc).views(doc))


def parsed(text: str, source: str) -> list:
    if source.endswith(".jsonl"):
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    return [json.loads(text)]


def edit(part: Part, text: str) -> None:
    """What the engine does for a cut: new text on the part and on each of its copies."""
    part.original = part.text
    part.text = text
    part.meta["copy_texts"] = [text] * len(part.copies)


# -- every corpus file: detected, read, written back unchanged --------------------------------

@pytest.mark.parametrize(("path", "expected"), corpus_files())
def test_corpus_file_is_detected_as_its_format(path: Path | None, expected: str) -> None:
    _, doc = load(need(path))
    assert detect(doc).name == expected


@pytest.mark.parametrize(("path", "expected"), corpus_files())
def test_corpus_file_round_trips_without_edits(path: Path | None, expected: str) -> None:
    text, doc = load(need(path))
    adapter = detect(doc)
    views = list(adapter.views(doc))
    assert views and all(v.messages for v in views)
    for view in views:
        adapter.write(view)
    assert not doc.dirty
    out = to_text(doc)
    assert parsed(out, str(path)) == parsed(text, str(path))


@pytest.mark.parametrize(("path", "expected"), corpus_files())
def test_corpus_copies_point_at_distinct_string_leaves(path: Path | None, expected: str) -> None:
    _, doc = load(need(path))
    seen: set[tuple] = set()
    for view in detect(doc).views(doc):
        for part in view.parts:
            for record, where in part.copies:
                assert isinstance(doc.get(record, where), str)
                assert (record, where) not in seen
                assert (record, where) != (part.record, part.path)
                seen.add((record, where))


@pytest.mark.parametrize(("path", "expected"), corpus_files())
def test_corpus_edit_of_every_part_writes_back_valid_json(path: Path | None, expected: str) -> None:
    text, doc = load(need(path))
    adapter = detect(doc)
    for view in adapter.views(doc):
        for part in view.parts:
            if part.kind in ("text", "tool_result", "thinking"):
                edit(part, "X")
            elif part.kind == "tool_call" and part.meta.get("args_object"):
                edit(part, json.dumps({k: "X" for k in json.loads(part.text)}))
        adapter.write(view)
    out = parsed(to_text(doc), str(path))
    assert len(out) == len(parsed(text, str(path)))
    assert path.read_text(encoding="utf-8") == text  # the input file is never touched


# -- SWE-agent ---------------------------------------------------------------------------------

def test_swe_agent_v0_observations_are_text_marked_as_observations() -> None:
    doc, [view] = corpus_doc("swe_agent_traj", "sweagent__pydicom__pydicom-1458.traj")
    assert pairs(view) == (0, 0, 0)
    observations = [m for m in view.messages if m.meta.get("observation")]
    assistants = [m for m in view.messages if m.role == "assistant"]
    assert len(assistants) == 12 and len(observations) == 11
    assert all(m.meta.get("command") for m in observations)
    assert all(p.kind == "text" for m in observations for p in view.parts_of(m))


def test_swe_agent_demo_message_is_injected() -> None:
    doc, [view] = corpus_doc("swe_agent_traj", "sweagent__pydicom__pydicom-1458.traj")
    demos = [m for m in view.messages if m.injected]
    assert len(demos) == 1
    [part] = view.parts_of(demos[0])
    assert part.path == ("history", 1, "content") and doc.records[0]["history"][1]["is_demo"] is True
    assert not any(m.injected for m in view.messages if m is not demos[0])


def test_swe_agent_function_calling_pairs_tool_call_ids_lists() -> None:
    _, [view] = corpus_doc("swe_agent_traj", "sweagent__marshmallow-1867__function_calling_replace.traj")
    assert pairs(view) == (11, 11, 11)
    assert next(p for p in view.parts if p.kind == "tool_result").call_id == "call_cyI71DYnRdoLHWwtZgIaW2wr"


@pytest.mark.parametrize("name", ["sweagent__pydicom__pydicom-1458.traj",
                                  "sweagent__marshmallow-1867__function_calling_replace.traj"])
def test_swe_agent_observation_edit_reaches_the_trajectory_copy(name: str) -> None:
    doc, [view] = corpus_doc("swe_agent_traj", name)
    root = doc.records[0]
    step = max(range(len(root["trajectory"])), key=lambda k: len(root["trajectory"][k]["observation"]))
    where = ("trajectory", step, "observation")
    owner = next(p for p in view.parts if (0, where) in p.copies)
    assert owner.kind in ("text", "tool_result") and root["trajectory"][step]["observation"] in owner.text
    edit(owner, "X")
    view.adapter.write(view)
    assert doc.get(owner.record, owner.path) == "X"
    assert root["trajectory"][step]["observation"] == "X"


def test_swe_agent_response_edit_reaches_trajectory_response() -> None:
    doc, [view] = corpus_doc("swe_agent_traj", "sweagent__ctf_crypto_katy.traj")
    root = doc.records[0]
    owner = next(p for p in view.parts if (0, ("trajectory", 0, "response")) in p.copies)
    assert owner.text == root["trajectory"][0]["response"]
    edit(owner, "X")
    view.adapter.write(view)
    assert root["trajectory"][0]["response"] == "X" and doc.get(0, owner.path) == "X"


# -- mini-swe-agent ----------------------------------------------------------------------------

def test_mini_swe_agent_observations_are_text_with_their_command() -> None:
    doc, [view] = corpus_doc("mini_swe_agent", "mini-swe-agent__github_issue.traj.json")
    assert pairs(view) == (0, 0, 0)
    observations = [m for m in view.messages if m.meta.get("observation")]
    returncodes = [r for r in doc.records if r["role"] == "user" and "<returncode>" in r["content"]]
    # Every `<returncode>` turn, and the submitted diff that answers the last command (no returncode).
    assert len(observations) == len(returncodes) + 1 and returncodes
    assert view.messages[-1].meta["observation"] and view.messages[-1].meta["command"].startswith("echo ")
    assert observations[0].meta["command"].startswith("cat ")


def test_mini_swe_agent_run_object_is_detected_and_links_extra() -> None:
    content = "THOUGHT: look around.\n\n```mswea_bash_command\nls -la\n```"
    run = {"info": {"exit_status": "Submitted"}, "trajectory_format": "mini-swe-agent-1",
           "messages": [{"role": "system", "content": "You are a helpful assistant."},
                        {"role": "user", "content": "Fix the bug."},
                        {"role": "assistant", "content": content,
                         "extra": {"response": {"choices": [{"message": {"content": content}}]}}},
                        {"role": "user", "content": "<returncode>0</returncode>\n<output>\na\n</output>"}]}
    doc = from_object(run)
    adapter = detect(doc)
    assert adapter.name == "mini_swe_agent"
    [view] = adapter.views(doc)
    part = next(p for p in view.parts if p.role == "assistant")
    assert part.copies == [(0, ("messages", 2, "extra", "response", "choices", 0, "message", "content"))]
    assert view.messages[3].meta == {"observation": True, "command": "ls -la"}
    edit(part, "X")
    adapter.write(view)
    assert doc.records[0]["messages"][2]["extra"]["response"]["choices"][0]["message"]["content"] == "X"
    assert run["messages"][2]["content"] == content  # the caller's object is untouched


def test_plain_chat_list_without_command_blocks_stays_openai_chat() -> None:
    doc = from_object([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}])
    assert detect(doc).name == "openai_chat"


# -- OpenHands ---------------------------------------------------------------------------------

@pytest.mark.parametrize(("name", "expected"), [
    ("openhands__multi_swe_bench_examples_output.jsonl", (101, 101, 101)),
    ("openhands__trajs_basic.json", (1, 1, 1)),
    ("openhands__trajs_basic_gui_mode.json", (4, 4, 4)),
])
def test_openhands_actions_pair_with_their_observations(name: str, expected: tuple[int, int, int]) -> None:
    _, views = corpus_doc("openhands_events", name)
    counts = [pairs(v) for v in views]
    assert tuple(sum(c[i] for c in counts) for i in range(3)) == expected


def test_openhands_eval_output_is_one_view_per_instance() -> None:
    doc, views = corpus_doc("openhands_events", "openhands__multi_swe_bench_examples_output.jsonl")
    assert [v.meta["record"] for v in views] == [0, 1, 2]
    roles = [m.role for m in views[0].messages[:2]]
    assert roles == ["system", "user"]
    assert sum(1 for v in views for p in v.parts if p.kind == "thinking") == 2  # the two `think` actions


def test_openhands_args_edit_merges_keys_and_reaches_model_response() -> None:
    doc, views = corpus_doc("openhands_events", "openhands__multi_swe_bench_examples_output.jsonl")
    view = views[0]
    call = next(p for p in view.parts if p.kind == "tool_call" and p.tool == "execute_bash")
    event = doc.get(call.record, call.path[:-1])
    before = dict(event["args"])
    assert json.loads(call.text) == {"command": before["command"]}
    assert len(call.copies) == 2  # arguments in the action's and the observation's model_response
    edit(call, json.dumps({"command": "X"}))
    view.adapter.write(view)
    assert event["args"] == {**before, "command": "X"}
    for record, where in call.copies:
        assert json.loads(doc.get(record, where)) == {"command": "X"}


def test_openhands_result_edit_writes_content_and_extras_copies() -> None:
    doc, [view] = corpus_doc("openhands_events", "openhands__trajs_basic.json")
    result = next(p for p in view.parts if p.kind == "tool_result")
    assert (result.record, result.path) == (2, ("content",)) and result.call_id == "toolu_017nBp7UfiGqyrA7j77HgtFP"
    assert (2, ("extras", "new_content")) in result.copies
    edit(result, "X")
    view.adapter.write(view)
    assert doc.records[2]["content"] == "X" and doc.records[2]["extras"]["new_content"] == "X"
    assert doc.records[2]["extras"]["path"] == "/workspace/game_2048.py"


V1_EVENTS = [
    {"kind": "SystemPromptEvent", "id": "e0", "source": "agent",
     "system_prompt": {"type": "text", "text": "You are OpenHands agent."}, "tools": []},
    {"kind": "MessageEvent", "id": "e1", "source": "user",
     "llm_message": {"role": "user", "content": [{"type": "text", "text": "List the files."}]}},
    {"kind": "ActionEvent", "id": "e2", "source": "agent",
     "thought": [{"type": "text", "text": "I will run ls."}], "reasoning_content": "The user wants a listing.",
     "action": {"kind": "ExecuteBashAction", "command": "ls -la"}, "tool_name": "execute_bash",
     "tool_call_id": "call_1", "llm_response_id": "r1",
     "tool_call": {"id": "call_1", "type": "function",
                   "function": {"name": "execute_bash", "arguments": "{\"command\": \"ls -la\"}"}}},
    {"kind": "ObservationEvent", "id": "e3", "source": "environment", "action_id": "e2",
     "tool_name": "execute_bash", "tool_call_id": "call_1",
     "observation": {"kind": "ExecuteBashObservation", "content": [{"type": "text", "text": "a.txt\nb.txt"}],
                     "command": "ls -la", "exit_code": 0}},
    {"kind": "ConversationStateUpdateEvent", "id": "e4", "source": "environment", "key": "agent_status",
     "value": "finished"},
]


def test_openhands_v1_sdk_events_are_read_and_paired() -> None:
    doc = from_object(V1_EVENTS)
    adapter = detect(doc)
    assert adapter.name == "openhands"
    [view] = adapter.views(doc)
    assert [m.role for m in view.messages] == ["system", "user", "assistant", "tool"]
    assert [p.kind for p in view.parts] == ["text", "text", "text", "thinking", "tool_call", "tool_result"]
    assert pairs(view) == (1, 1, 1)
    result = view.parts[-1]
    edit(result, "X")
    adapter.write(view)
    assert doc.records[3]["observation"]["content"] == [{"type": "text", "text": "X"}]
    assert doc.records[:3] == V1_EVENTS[:3] and doc.records[4] == V1_EVENTS[4]


# -- the default pack on every corpus trajectory -------------------------------------------------

@pytest.fixture(scope="module")
def default_sanitizer():  # noqa: ANN201 - the type lives in sanitizer.api
    api = pytest.importorskip("sanitizer.pipeline")
    try:
        return api.Sanitizer("default")
    except ImportError as exc:  # the built-in actions are still being written
        pytest.skip(f"default pack cannot load yet: {exc}")


@pytest.mark.parametrize(("path", "expected"), corpus_files())
def test_default_pack_keeps_pairs_and_json_and_leaves_input_alone(
        path: Path | None, expected: str, default_sanitizer) -> None:  # noqa: ANN001
    from sanitizer.pipeline import read_conversations
    from sanitizer.validate import pair_findings

    path = need(path)
    raw = path.read_bytes()
    digest = hashlib.sha256(raw).hexdigest()
    result = default_sanitizer.sanitize_file(path)
    assert result.adapter.name == expected
    out = result.dumps()
    assert len(parsed(out, str(path))) == len(parsed(raw.decode("utf-8"), str(path)))  # valid JSON / JSONL

    def findings(text: str) -> list[str]:
        views = read_conversations(from_text(text, str(path)), format=expected)
        return sorted(f"{f.code} {f.message}" for v in views for f in pair_findings(v))

    assert findings(out) == findings(raw.decode("utf-8"))  # no pair broken, none invented
    assert hashlib.sha256(path.read_bytes()).hexdigest() == digest
