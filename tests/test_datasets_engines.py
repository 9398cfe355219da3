"""Datasets of conversations through Hugging Face `datasets` and Ray Data, in local mode.

The engines are optional extras: their tests skip with the install line when one is missing.
Caches and Ray's session files go to temporary folders, never the user's home.
"""

from __future__ import annotations

import atexit
import copy
import importlib.util
import io
import json
import os
import pickle
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

# Before `datasets` is imported anywhere: its caches go to a temporary folder, and it never calls the Hub.
_HF_HOME = tempfile.mkdtemp(prefix="sanitizer-hf-")
atexit.register(shutil.rmtree, _HF_HOME, ignore_errors=True)
os.environ.setdefault("HF_HOME", _HF_HOME)
os.environ.setdefault("HF_DATASETS_CACHE", os.path.join(_HF_HOME, "datasets"))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from conftest import CORPUS, ROOT, require_corpus  # noqa: E402
from strategies import FORMATS, conversations, property_settings  # noqa: E402

from sanitizer import Sanitizer  # noqa: E402
from sanitizer.cli.command import main  # noqa: E402
from sanitizer.datasets import SanitizeColumn  # noqa: E402
from sanitizer.run.dataset import sanitize_jsonl  # noqa: E402

_spec = importlib.util.spec_from_file_location("bench_gen", ROOT / "bench" / "gen.py")
gen = importlib.util.module_from_spec(_spec)
assert _spec.loader is not None
_spec.loader.exec_module(gen)

NEEDS_DATASETS = "HF datasets engine not installed: pip install 'sanitizer[datasets]'"
NEEDS_RAY = "Ray Data engine not installed: pip install 'sanitizer[ray]'"
# A chat message whose `tool_calls` is not a list makes the chat reader raise (the plain CLI stops
# on it); the engines write that row through unchanged and report it.
BROKEN = {"id": "broken", "messages": [{"role": "user", "content": "hi"},
                                       {"role": "assistant", "content": "x", "tool_calls": 5}]}


@pytest.fixture(scope="module")
def hf():
    return pytest.importorskip("datasets", reason=NEEDS_DATASETS)


@pytest.fixture(scope="module")
def ray_local():
    """One local Ray for every Ray test of the module (its start-up is slow), stopped after them."""
    ray = pytest.importorskip("ray", reason=NEEDS_RAY)
    pytest.importorskip("ray.data", reason=NEEDS_RAY)
    temp = tempfile.mkdtemp(prefix="r")  # short: Ray's socket paths must stay under 107 bytes
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="WARNING",
             _temp_dir=temp, address="local")
    ray.data.DataContext.get_current().enable_progress_bars = False
    yield ray
    ray.shutdown()
    shutil.rmtree(temp, ignore_errors=True)


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> Path:
    """A generated dataset JSONL with the lines that trip text loaders: CRLF, U+2028 and a form feed
    inside strings, a blank line, a damaged line, and no final newline."""
    path = tmp_path_factory.mktemp("ds") / "gen.jsonl"
    gen.dataset(path, 400_000)
    lines = path.read_bytes().split(b"\n")[:-1]
    odd = {"id": "odd", "messages": [{"role": "user", "content": "para\u2028graph\x0cfeed"},
                                     {"role": "assistant", "content": "ok"}]}
    extra = [json.dumps(odd, ensure_ascii=False).encode() + b"\r", b"", b'{"id": "damaged", "messages": [']
    path.write_bytes(b"\n".join(lines[:2] + extra + lines[2:]))
    return path


@pytest.fixture(scope="module")
def failing(generated) -> tuple[Path, bytes]:
    """`generated` with a row that fails after it; and the output the engines must write for it."""
    path = generated.with_name("failing.jsonl")
    broken = json.dumps(BROKEN).encode()
    path.write_bytes(generated.read_bytes() + b"\n" + broken)
    expected: list[bytes] = []
    sanitize_jsonl(Sanitizer(), generated, expected.append)
    return path, b"".join(expected) + b"\n" + broken


def cli_bytes(*args: str) -> tuple[bytes, str, int]:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result.stdout_bytes, result.stderr, result.exit_code


def ids_of(data: bytes) -> list[str | None]:
    out = []
    for line in data.split(b"\n"):
        try:
            out.append(json.loads(line).get("id"))
        except (ValueError, AttributeError):
            out.append(None)
    return out


def corpus_lines(tmp_path: Path) -> Path:
    """τ-bench episodes and mini-swe-agent trajectories, one per line."""
    require_corpus()
    rows = json.loads((CORPUS / "openai_chat" / "taubench__gpt-4o-airline.json").read_text())
    rows += [json.loads(p.read_text()) for p in sorted((CORPUS / "mini_swe_agent").glob("*.json"))]
    path = tmp_path / "corpus.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    return path


def test_line_cells_are_the_streams_bytes_and_report_each_row(failing):
    path, expected = failing
    fn = SanitizeColumn("line", index_column="number", source=str(path))
    lines = path.read_bytes().split(b"\n")
    out = fn({"line": lines, "number": list(range(1, len(lines) + 1))})
    assert b"\n".join(out["line"]) == expected
    assert out["sanitizer_cuts"][0] > 0 and out["sanitizer_tokens_after"][0] < out["sanitizer_tokens_before"][0]
    damaged = lines.index(b'{"id": "damaged", "messages": [')
    assert out["sanitizer_problems"][damaged][0].startswith(f"{path}:{damaged + 1}: ")
    broken = len(lines) - 1
    assert out["line"][broken] == lines[broken]
    assert out["sanitizer_error"][broken].startswith(f"{path}:{broken + 1}: row failed, written through")
    assert [i for i, e in enumerate(out["sanitizer_error"]) if e] == [broken]


def test_object_cells_are_the_librarys_copy_and_a_failing_cell_is_kept():
    conv = [{"role": "user", "content": "fix it"}, {"role": "assistant", "content": "<thinking>x</thinking>ok"}]
    fn = SanitizeColumn("messages", tokens=False, source="train")
    out = fn({"messages": [conv, 42], "id": ["a", "b"]}, indices=[0, 1])
    assert out["messages"][0] == Sanitizer(count_tokens=False).sanitize(conv).output
    assert out["messages"][1] == 42
    assert out["sanitizer_error"][0] is None
    assert out["sanitizer_error"][1].startswith("train[1]: row failed, written through unchanged: InputError")
    assert out["sanitizer_tokens_before"] == [None, None]


LINE_FN = SanitizeColumn("line", tokens=False)
OBJECT_FN = SanitizeColumn("conv", tokens=False)
LIBRARY = Sanitizer(count_tokens=False, threads=1)


@property_settings(30)
@given(conversations("dataset"))
def test_every_line_comes_out_as_the_stream_writes_it_and_none_is_lost(case):
    text = "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in case.value)
    lines = text.encode().split(b"\n")[:-1]
    out = LINE_FN({"line": lines}, indices=range(len(lines)))
    expected: list[bytes] = []
    sanitize_jsonl(LIBRARY, io.BytesIO(text.encode()), expected.append)
    assert b"".join(line + b"\n" for line in out["line"]) == b"".join(expected)
    assert out["sanitizer_error"] == [None] * len(lines)
    assert LINE_FN({"line": out["line"]})["line"] == out["line"]  # a second pass changes nothing


@property_settings(30)
@given(st.sampled_from(FORMATS).flatmap(conversations))
def test_an_object_cell_becomes_the_librarys_copy_and_the_cell_is_untouched(case):
    before = copy.deepcopy(case.value)
    out = OBJECT_FN({"conv": [case.value]})
    assert case.value == before
    assert out["conv"][0] == LIBRARY.sanitize(before).output
    assert out["sanitizer_error"] == [None]


def test_the_callable_pickles_its_options_only():
    fn = SanitizeColumn("messages", preset="default", keep_recent=4)
    before = pickle.dumps(fn)
    fn({"messages": [[{"role": "user", "content": "hi"}]]})  # builds this process's Sanitizer
    assert pickle.dumps(fn) == before
    state = pickle.loads(before).__dict__
    assert set(state) == {"column", "output_column", "report_prefix", "index_column", "source", "repair_pairs",
                          "options", "_key"}
    assert state["options"]["keep_recent"] == 4


def test_fingerprint_is_the_same_across_constructions_uses_and_processes(hf):
    from datasets.fingerprint import Hasher

    make = "SanitizeColumn('messages', keep_recent=4, enable=['redact-secrets'])"
    first, second = eval(make), eval(make)
    fingerprint = Hasher.hash(first)
    second({"messages": [[{"role": "user", "content": "hi"}]]})
    assert Hasher.hash(second) == fingerprint
    assert Hasher.hash(SanitizeColumn("messages", keep_recent=5)) != fingerprint
    code = f"from datasets.fingerprint import Hasher; from sanitizer.datasets import SanitizeColumn; print(Hasher.hash({make}))"
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={**os.environ, "PYTHONHASHSEED": "123"})
    assert other.stdout.strip() == fingerprint


def test_map_with_the_same_callable_reuses_the_cache(hf, tmp_path):
    path = tmp_path / "d.jsonl"
    gen.dataset(path, 150_000)
    ds = hf.load_dataset("json", data_files=str(path), split="train", cache_dir=str(tmp_path / "c"))
    one = ds.map(SanitizeColumn("messages", tokens=False), batched=True)
    two = ds.map(SanitizeColumn("messages", tokens=False), batched=True)
    assert one._fingerprint == two._fingerprint
    assert two.cache_files == one.cache_files


def test_datasets_engine_writes_the_clis_bytes(hf, generated, failing):
    plain, _, _ = cli_bytes(str(generated))
    out, err, code = cli_bytes(str(generated), "--engine", "datasets", "--num-proc", "2")
    assert code == 0 and out == plain and ids_of(out) == ids_of(generated.read_bytes())
    assert f"{generated}:5: not valid JSON" in err and "records via datasets ×2" in err
    path, expected = failing
    report = path.with_name("report.json")
    out, err, code = cli_bytes(str(path), "--engine", "datasets", "--num-proc", "2", "--report-file", str(report))
    assert out == expected and ids_of(out) == ids_of(path.read_bytes())
    lines = len(path.read_bytes().split(b"\n"))
    assert code == 1 and f"{path}:{lines}: row failed, written through unchanged: TypeError" in err
    totals = json.loads(report.read_text())
    assert (totals["records"], totals["failed"], totals["engine"]) == (lines, 1, "datasets")
    assert totals["errors"][0].startswith(f"{path}:{lines}: row failed")


def test_datasets_engine_on_corpus_trajectories_matches_the_cli(hf, tmp_path):
    path = corpus_lines(tmp_path)
    plain, _, plain_code = cli_bytes(str(path), "--no-tokens", "-q")
    out, err, code = cli_bytes(str(path), "--engine", "datasets", "--num-proc", "2", "--no-tokens", "-q")
    assert (code, plain_code) == (0, 0) and err == ""
    assert out == plain and len(out.splitlines()) == 203


def test_datasets_object_column_on_corpus_trajectories(hf):
    require_corpus()
    files = sorted((CORPUS / "swe_agent_traj").glob("*.traj")) + sorted((CORPUS / "mini_swe_agent").glob("*.json"))
    trajs = [json.loads(p.read_text()) for p in files]
    features = hf.Features({"name": hf.Value("string"), "traj": hf.Json()})
    ds = hf.Dataset.from_dict({"name": [p.name for p in files], "traj": trajs}, features=features)
    out = ds.map(SanitizeColumn("traj", tokens=False), batched=True, batch_size=2, num_proc=2, with_indices=True)
    assert out["name"] == [p.name for p in files]
    library = Sanitizer(count_tokens=False)
    # Compared with the library on the cells as the dataset holds them: its Json feature rounds
    # some floats (0.238733730999229 comes back as 0.238733731), before any rule runs.
    for row, stored in zip(out, ds, strict=True):
        assert row["sanitizer_error"] is None
        assert row["traj"] == library.sanitize(stored["traj"]).output
    assert sum(out["sanitizer_cuts"]) > 0


def test_datasets_parquet_in_and_out_keeps_every_row(hf, tmp_path):
    convs = [[{"role": "user", "content": f"ask {i}"}, {"role": "assistant", "content": f"<thinking>{i}</thinking>done"}]
             for i in range(6)]
    src = hf.Dataset.from_dict({"id": [f"r{i}" for i in range(6)], "conversation": [json.dumps(c) for c in convs]})
    src.to_parquet(str(tmp_path / "in.parquet"))
    ds = hf.load_dataset("parquet", data_files=str(tmp_path / "in.parquet"), split="train",
                         cache_dir=str(tmp_path / "c"))
    ds = ds.map(SanitizeColumn("conversation", format="dataset", tokens=False), batched=True, num_proc=2)
    ds.to_parquet(str(tmp_path / "out.parquet"))
    back = hf.load_dataset("parquet", data_files=str(tmp_path / "out.parquet"), split="train",
                           cache_dir=str(tmp_path / "c"))
    assert back["id"] == [f"r{i}" for i in range(6)]
    library = Sanitizer(count_tokens=False)
    assert [json.loads(c) for c in back["conversation"]] == [library.sanitize(c).output for c in convs]


def test_ray_engine_writes_the_clis_bytes(ray_local, generated, failing):
    plain, _, _ = cli_bytes(str(generated))
    out, err, code = cli_bytes(str(generated), "--engine", "ray", "--num-proc", "2")
    assert code == 0 and out == plain and ids_of(out) == ids_of(generated.read_bytes())
    path, expected = failing
    out, err, code = cli_bytes(str(path), "--engine", "ray", "--num-proc", "2")
    assert out == expected and ids_of(out) == ids_of(path.read_bytes())
    lines = len(path.read_bytes().split(b"\n"))
    assert code == 1 and f"{path}:{lines}: row failed, written through unchanged: TypeError" in err
    assert ray_local.is_initialized()  # the CLI leaves a Ray it did not start running


def test_ray_keeps_the_order_of_many_blocks_over_two_actors(ray_local, generated):
    from sanitizer.datasets.ray_data import sanitize_file

    plain, _, _ = cli_bytes(str(generated), "--no-tokens")
    fn = SanitizeColumn("line", index_column="number", tokens=False, source=str(generated))
    rows = list(sanitize_file(generated, fn, concurrency=2, block_bytes=16 * 1024))
    assert b"\n".join(data for data, _ in rows) == plain
    assert len(rows) == len(generated.read_bytes().split(b"\n"))


def test_ray_engine_on_corpus_trajectories_matches_the_cli(ray_local, tmp_path):
    path = corpus_lines(tmp_path)
    plain, _, _ = cli_bytes(str(path), "--no-tokens", "-q")
    out, _, code = cli_bytes(str(path), "--engine", "ray", "--num-proc", "2", "--no-tokens", "-q")
    assert code == 0 and out == plain and len(out.splitlines()) == 203


def test_ray_json_in_parquet_out_keeps_every_row(ray_local, tmp_path):
    from sanitizer.datasets.ray_data import sanitize

    path = tmp_path / "d.jsonl"
    gen.dataset(path, 200_000)
    ids = ids_of(path.read_bytes().rstrip(b"\n"))
    lines = ray_local.data.read_text(str(path))  # lines as text: this file has no U+2028 or \r
    # One actor: Ray's text reader holds a CPU of the two while it reads.
    done = sanitize(lines, SanitizeColumn("text", format="dataset", tokens=False), concurrency=1)
    done.write_parquet(str(tmp_path / "out"))
    back = ray_local.data.read_parquet(str(tmp_path / "out")).to_pandas()
    assert [json.loads(t)["id"] for t in back["text"]] == ids
    assert back["sanitizer_error"].isna().all() and back["sanitizer_cuts"].sum() > 0


def test_ray_parquet_message_structs_in_and_out_keep_every_row(ray_local, tmp_path):
    import pyarrow.json
    import pyarrow.parquet

    from sanitizer.datasets.ray_data import sanitize

    path = tmp_path / "d.jsonl"
    gen.dataset(path, 200_000)
    (tmp_path / "in").mkdir()
    pyarrow.parquet.write_table(pyarrow.json.read_json(path), tmp_path / "in" / "part.parquet")
    done = sanitize(ray_local.data.read_parquet(str(tmp_path / "in")), SanitizeColumn("messages", tokens=False),
                    concurrency=1)
    done.write_parquet(str(tmp_path / "out"))
    back = ray_local.data.read_parquet(str(tmp_path / "out")).to_pandas()
    assert list(back["id"]) == ids_of(path.read_bytes().rstrip(b"\n"))
    assert back["sanitizer_error"].isna().all() and back["sanitizer_cuts"].sum() > 0


def test_engine_refuses_what_it_cannot_keep_byte_identical(tmp_path):
    path = tmp_path / "one.json"
    path.write_text(json.dumps([{"role": "user", "content": "hi"}]))
    _, err, code = cli_bytes(str(path), "--engine", "datasets")
    assert code == 2 and "needs a dataset JSONL" in err
    _, err, code = cli_bytes(str(path), "--engine", "ray", "--budget", "100")
    assert code == 2 and "makes the sanitized copy only" in err
    _, err, code = cli_bytes(str(path), "--engine", "datasets", "--jobs", "2")
    assert code == 2 and "use --num-proc N" in err
