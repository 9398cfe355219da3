"""`--jobs N` does the same work as `--jobs 1`: the same bytes out, the same JSON report.

Across files (a folder of sessions, to an `-o` folder and to stdout) and across the lines of one
dataset JSONL (batches in a process pool), with and without exact token counts, and `--strict`
still writes nothing for a file with problems.  No timing here: speed is measured by
`bench/run.py`.
"""

from __future__ import annotations

import importlib.util
import io
import itertools
import json
import multiprocessing
import os
import signal
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import EXAMPLE, ROOT

from sanitizer import Sanitizer
from sanitizer.cli.command import main
from sanitizer.pipeline import repair_result
from sanitizer.run import dataset as stream
from sanitizer.run import dataset_pool as stream_pool

_spec = importlib.util.spec_from_file_location("bench_gen", ROOT / "bench" / "gen.py")
gen = importlib.util.module_from_spec(_spec)
assert _spec.loader is not None
_spec.loader.exec_module(gen)

KB = 1024
_runs = itertools.count()


def _report(path: Path) -> dict:
    data = json.loads(path.read_text())
    data["totals"].pop("seconds")
    return data


def run_cli(tmp: Path, files: list[Path], *args: str, to_dir: bool = True, code: int = 0,
            ) -> tuple[dict[str, bytes] | bytes, dict | None, str]:
    """Run `sanitize`; (outputs by name, or stdout bytes), the JSON report (minus seconds), stderr."""
    tag = "-".join(a.strip("-") for a in args) + f"-{next(_runs)}"
    out, report = tmp / f"out-{tag}", tmp / f"report-{tag}.json"
    where = ["-o", str(out)] if to_dir else []
    result = CliRunner().invoke(main, [*map(str, files), "-q", "--report-file", str(report), *where, *args])
    assert result.exit_code == code, result.output + result.stderr
    outputs = ({p.name: p.read_bytes() for p in sorted(out.iterdir())} if out.is_dir() else {}) if to_dir \
        else result.stdout_bytes
    return outputs, (_report(report) if report.exists() else None), result.stderr


# --- across files -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sessions(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    folder = tmp_path_factory.mktemp("sessions")
    files = [gen.claude_session(folder / f"s{i}.jsonl", (60 + 90 * i) * KB, seed=i) for i in range(4)]
    files.append(gen.unclosed_tags(folder / "tags.jsonl", 300))
    files.append(gen.cjk_run(folder / "cjk.jsonl", 0.05))
    files.append(EXAMPLE)
    return files


@pytest.mark.parametrize("tokens", [[], ["--no-tokens"]], ids=["tokens", "no-tokens"])
@pytest.mark.parametrize("to_dir", [True, False], ids=["to-dir", "to-stdout"])
def test_jobs_across_files_give_the_same_bytes_and_report(sessions: list[Path], tmp_path: Path, tokens: list[str],
                                                          to_dir: bool) -> None:
    one, report_one, _ = run_cli(tmp_path, sessions, *tokens, "--jobs", "1", to_dir=to_dir)
    two, report_two, _ = run_cli(tmp_path, sessions, *tokens, "--jobs", "2", to_dir=to_dir)
    assert two == one
    assert report_two == report_one
    assert one and (len(one) == len(sessions) if to_dir else True)
    assert report_one is not None and report_one["totals"]["messages"] > 0
    assert (report_one["totals"]["tokens_before"] is None) == bool(tokens)


def test_jobs_and_no_tokens_give_the_same_bytes(sessions: list[Path], tmp_path: Path) -> None:
    plain = run_cli(tmp_path, sessions)[0]
    assert run_cli(tmp_path, sessions, "--no-tokens")[0] == plain
    assert run_cli(tmp_path, sessions, "--no-tokens", "--jobs", "3")[0] == plain


def test_outputs_come_in_input_order_whatever_the_sizes(sessions: list[Path], tmp_path: Path) -> None:
    """The biggest file is submitted first, yet stdout follows the order of the arguments."""
    files = sorted(sessions, key=lambda p: p.stat().st_size)  # smallest first, so the order differs
    two = run_cli(tmp_path, files, "--jobs", "2", to_dir=False)[0]
    assert two == b"".join(Sanitizer().sanitize_file(f).dumps().encode("utf-8", "surrogateescape") for f in files)


def test_dataset_files_among_sessions_stream_the_same_bytes(sessions: list[Path], tmp_path: Path) -> None:
    data = gen.dataset(tmp_path / "data.jsonl", 300 * KB)
    assert stream.is_dataset_jsonl(data)
    files = [sessions[0], data, sessions[1]]
    for to_dir in (True, False):
        one, report_one, _ = run_cli(tmp_path, files, "--jobs", "1", to_dir=to_dir)
        two, report_two, _ = run_cli(tmp_path, files, "--jobs", "2", to_dir=to_dir)
        assert two == one and report_two == report_one
        assert report_one is not None and "dataset" in report_one["format"]


def test_strict_writes_nothing_for_a_file_with_problems(sessions: list[Path], tmp_path: Path) -> None:
    damaged = tmp_path / "damaged.jsonl"
    lines = sessions[1].read_bytes().split(b"\n")
    lines[3] = lines[3][: len(lines[3]) // 2]
    damaged.write_bytes(b"\n".join(lines))
    files = [sessions[0], damaged, sessions[2], sessions[3]]
    outs = {}
    for jobs in ("1", "2"):
        outs[jobs], report, err = run_cli(tmp_path, files, "--strict", "--jobs", jobs, code=1)
        assert "damaged.jsonl:4:" in err and "stopped (--strict)" in err
        assert report is None
    # as before: the files before the first one with problems are written, it and later ones not
    assert outs["2"] == outs["1"] and list(outs["1"]) == [sessions[0].name]
    out, _, _ = run_cli(tmp_path, [damaged, *sessions[:2]], "--strict", "--jobs", "2", code=1)
    assert out == {}
    assert run_cli(tmp_path, [damaged, *sessions[:2]], "--strict", "--jobs", "2", to_dir=False, code=1)[0] == b""


# --- across the lines of one dataset ----------------------------------------------------------------


@pytest.fixture(scope="module")
def dataset_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A generated dataset with damage in the middle: a broken line, a blank line, a CRLF line."""
    path = gen.dataset(tmp_path_factory.mktemp("ds") / "dataset.jsonl", 2 * 1024 * KB)
    lines = path.read_bytes().split(b"\n")
    mid = len(lines) // 2
    assert mid > 4
    lines[mid] = lines[mid][: len(lines[mid]) // 2]
    lines.insert(mid + 2, b"")
    lines[mid + 4] = lines[mid + 4] + b"\r"
    path.write_bytes(b"\n".join(lines).rstrip(b"\n"))  # and no newline at the end
    return path


@pytest.fixture
def small_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    """Batches of a few lines, so a small file still spreads over many batches and both workers."""
    monkeypatch.setattr(stream_pool, "BATCH_MIN", 16 * KB)


def _damaged_line(path: Path) -> int:
    for number, line in enumerate(path.read_bytes().split(b"\n"), start=1):
        if line.strip():
            try:
                json.loads(line)
            except ValueError:
                return number
    raise AssertionError("no damaged line")


@pytest.mark.parametrize("tokens", [[], ["--no-tokens"]], ids=["tokens", "no-tokens"])
def test_jobs_across_dataset_lines_give_the_same_bytes_and_report(dataset_file: Path, tmp_path: Path,
                                                                  tokens: list[str], small_batches: None) -> None:
    assert stream.is_dataset_jsonl(dataset_file)
    assert len(list(stream_pool.batches(io.BytesIO(dataset_file.read_bytes()), 16 * KB))) > 8
    results = {}
    for jobs in ("1", "2"):
        target = tmp_path / f"out-{jobs}.jsonl"
        report = tmp_path / f"report-{jobs}.json"
        result = CliRunner().invoke(main, [str(dataset_file), "-q", "-o", str(target), "--report-file", str(report),
                                           "--jobs", jobs, *tokens])
        assert result.exit_code == 0, result.output
        results[jobs] = (target.read_bytes(), _report(report), result.stderr)
    assert results["2"] == results["1"]
    data, report, stderr = results["1"]
    assert data == Sanitizer(count_tokens=not tokens).sanitize_file(dataset_file).dumps().encode("utf-8",
                                                                                                   "surrogateescape")
    line = _damaged_line(dataset_file)
    assert [p["line"] for p in report["problems"]] == [line]
    assert f"dataset.jsonl:{line}:" in stderr
    assert len({c["record"] for c in report["cuts"]}) > 1


def test_dataset_lines_to_stdout_match(dataset_file: Path, small_batches: None) -> None:
    outs = [CliRunner().invoke(main, [str(dataset_file), "-q", "--jobs", j]) for j in ("1", "2")]
    assert outs[0].exit_code == outs[1].exit_code == 0
    assert outs[1].stdout_bytes == outs[0].stdout_bytes and outs[1].stderr == outs[0].stderr


def _report_dict(report) -> dict:  # noqa: ANN001
    data = report.to_dict()
    data["totals"].pop("seconds")
    return data


@pytest.mark.parametrize("finish", [None, partial(repair_result, mode="stub")], ids=["plain", "stub"])
def test_sanitize_jsonl_with_jobs_equals_sequential(dataset_file: Path, finish,  # noqa: ANN001
                                                    small_batches: None) -> None:
    outs, reports = [], []
    for jobs in (1, 2):
        buf = io.BytesIO()
        reports.append(_report_dict(stream.sanitize_jsonl(Sanitizer(), dataset_file, buf.write, finish=finish,
                                                          jobs=jobs)))
        outs.append(buf.getvalue())
    assert outs[1] == outs[0]
    assert reports[1] == reports[0]


def test_lines_in_flight_stay_bounded(dataset_file: Path, small_batches: None) -> None:
    """When the first output is written, only about `2 × jobs` batches have been read."""
    jobs, size = 2, stream_pool.batch_size(dataset_file.stat().st_size, 2)
    sizes = [len(blob) for _, blob in stream_pool.batches(io.BytesIO(dataset_file.read_bytes()), size)]
    with dataset_file.open("rb") as fh:
        read_at_write: list[int] = []
        stream.sanitize_jsonl(Sanitizer(count_tokens=False), fh, lambda b: read_at_write.append(fh.tell()), jobs=jobs)
    assert len(read_at_write) == len(sizes) > 2 * stream_pool.IN_FLIGHT_PER_JOB * jobs
    assert read_at_write[0] <= sum(sizes[: stream_pool.IN_FLIGHT_PER_JOB * jobs + 1]) < sum(sizes)


def test_a_file_of_one_batch_needs_no_pool(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = gen.dataset(tmp_path / "small.jsonl", 100 * KB)

    def no_pool(*args: object, **kwargs: object) -> None:
        raise AssertionError("a pool was started for one batch")

    monkeypatch.setattr(stream_pool.processes, "new_pool", no_pool)
    buf = io.BytesIO()
    report = stream.sanitize_jsonl(Sanitizer(), path, buf.write, jobs=2)
    whole = Sanitizer().sanitize_file(path)
    assert buf.getvalue() == whole.dumps().encode()
    assert _report_dict(report) == _report_dict(whole.report)


# --- the spawn start method: workers build their own Sanitizer -----------------------------------------


@pytest.fixture
def spawn() -> Iterator[None]:
    old = multiprocessing.get_start_method(allow_none=True)
    multiprocessing.set_start_method("spawn", force=True)
    try:
        yield
    finally:
        multiprocessing.set_start_method(old, force=True)


def test_spawned_workers_give_the_same_bytes(sessions: list[Path], dataset_file: Path, tmp_path: Path,
                                             spawn: None, small_batches: None) -> None:
    files = sessions[:3]
    assert run_cli(tmp_path, files, "--jobs", "2")[:2] == run_cli(tmp_path, files, "--jobs", "1")[:2]
    buf = io.BytesIO()
    report = stream.sanitize_jsonl(Sanitizer(), dataset_file, buf.write, jobs=2,
                                   finish=partial(repair_result, mode="stub"))
    want = io.BytesIO()
    sequential = stream.sanitize_jsonl(Sanitizer(), dataset_file, want.write,
                                       finish=partial(repair_result, mode="stub"))
    assert buf.getvalue() == want.getvalue()
    assert _report_dict(report) == _report_dict(sequential)


# --- workers that count with their own pool of processes (more cores than jobs) -----------------------


def _nested_run(files: list[str], out: str, dataset: str, dataset_out: str) -> None:
    """In a forked child: 4 'cores', so each of 2 workers counts big batches with 2 processes."""
    import sanitizer.tokens.counter as tokens

    os.setpgid(0, 0)  # its own process group: all of it can be killed if it hangs
    import sanitizer.run.workers as workers

    workers.default_threads = lambda: 4
    tokens.PARALLEL_MIN_CHARS = 16 * KB
    stream_pool.BATCH_MIN = 16 * KB
    result = CliRunner().invoke(main, [*files, "-q", "--jobs", "2", "-o", out])
    assert result.exit_code == 0, result.output
    with open(dataset_out, "wb") as fh:
        stream.sanitize_jsonl(Sanitizer(), dataset, fh.write, jobs=2)


def test_workers_with_their_own_counting_pools_finish(sessions: list[Path], dataset_file: Path,
                                                      tmp_path: Path) -> None:
    """A worker closes its counter's pool before it exits (else its exit would wait forever)."""
    out, dataset_out = tmp_path / "nested", tmp_path / "nested.jsonl"
    child = multiprocessing.get_context("fork").Process(
        target=_nested_run, args=([str(f) for f in sessions], str(out), str(dataset_file), str(dataset_out)))
    child.start()
    child.join(90)
    if child.is_alive():
        os.killpg(child.pid, signal.SIGKILL)
        pytest.fail("a --jobs run whose workers count with their own pools did not finish")
    assert child.exitcode == 0
    want = {f.name: Sanitizer().sanitize_file(f).dumps().encode("utf-8", "surrogateescape") for f in sessions}
    assert {p.name: p.read_bytes() for p in out.iterdir()} == want
    assert dataset_out.read_bytes() == Sanitizer().sanitize_file(dataset_file).dumps().encode("utf-8",
                                                                                            "surrogateescape")
