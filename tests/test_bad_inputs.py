"""Bad inputs at the command line: each gives one `sanitize: FILE[:LINE]: …` line, the README's exit
code, no traceback, no file touched but the outputs asked for, and no process left (see cli_procs).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from cli_procs import (
    Ran,
    big_files,
    deep,
    expected_copy,
    one_line,
    sanitize,
    session_file,
    snapshot,
)

session = pytest.fixture(session_file)
big_inputs = pytest.fixture(scope="module")(big_files)


# --- 3. inputs that cannot be read --------------------------------------------------------------


def test_a_missing_file(tmp_path: Path) -> None:
    before = snapshot(tmp_path)
    one_line(sanitize("nope.jsonl", cwd=tmp_path), 1, "nope.jsonl: cannot read: no such file")
    assert snapshot(tmp_path) == before


def test_a_folder_where_a_file_is_expected(tmp_path: Path) -> None:
    (tmp_path / "folder").mkdir()
    before = snapshot(tmp_path)
    one_line(sanitize("folder", cwd=tmp_path), 1, "folder: cannot read: is a folder, not a file")
    assert snapshot(tmp_path) == before


def test_a_symlink_loop(tmp_path: Path) -> None:
    (tmp_path / "a.jsonl").symlink_to(tmp_path / "b.jsonl")
    (tmp_path / "b.jsonl").symlink_to(tmp_path / "a.jsonl")
    before = snapshot(tmp_path)
    one_line(sanitize("a.jsonl", cwd=tmp_path), 1, "a.jsonl: cannot read: symlink loop")
    assert snapshot(tmp_path) == before


def test_an_unreadable_file(tmp_path: Path, session: Path) -> None:
    session.chmod(0o000)
    before = snapshot(tmp_path)
    try:
        if os.geteuid() == 0:
            # Root reads through permissions: run without the capabilities that let it (as any
            # other user runs), in a real process.
            proc = subprocess.run(["setpriv", "--bounding-set=-dac_override,-dac_read_search",
                                   "--inh-caps=-dac_override,-dac_read_search",
                                   sys.executable, "-m", "sanitizer", str(session)],
                                  cwd=tmp_path, capture_output=True, timeout=120)
            ran = Ran(proc.returncode, proc.stdout, proc.stderr.decode())
        else:
            ran = sanitize(str(session), cwd=tmp_path)
    finally:
        session.chmod(0o644)
    one_line(ran, 1, "session.jsonl: cannot read: permission denied")
    assert snapshot(tmp_path) == before


def test_a_socket_as_input_cannot_be_opened(tmp_path: Path) -> None:
    path = tmp_path / "in.sock"
    sock = socket.socket(socket.AF_UNIX)
    try:
        sock.bind(str(path))
        before = snapshot(tmp_path)
        one_line(sanitize(str(path), cwd=tmp_path), 1, "in.sock: cannot read: no such device or address")
        assert snapshot(tmp_path) == before
    finally:
        sock.close()


def test_json_nested_100000_deep_is_rejected(tmp_path: Path) -> None:
    (tmp_path / "deep.json").write_text(deep(100_000))
    before = snapshot(tmp_path)
    one_line(sanitize("deep.json", cwd=tmp_path), 1, "deep.json: JSON nested too deep", "1,000 levels")
    assert snapshot(tmp_path) == before


def test_a_jsonl_line_nested_100000_deep_is_a_damaged_line(tmp_path: Path, session: Path) -> None:
    lines = session.read_text().splitlines(keepends=True)
    lines.insert(2, deep(100_000) + "\n")
    session.write_text("".join(lines))
    before = snapshot(tmp_path)
    ran = sanitize(str(session), "-q", "--preset", "none", cwd=tmp_path)
    assert ran.code == 0
    assert ran.stderr.splitlines() == [f"{session}:3: JSON nested too deep to read (about 1,000 levels); "
                                       "copied through unchanged"]
    assert ran.stdout == session.read_bytes()
    ran = sanitize(str(session), "-q", "--strict", cwd=tmp_path)
    assert ran.code == 1 and ran.stdout == b""
    assert snapshot(tmp_path) == before


def test_deep_json_among_files_under_jobs_2(tmp_path: Path, session: Path) -> None:
    (tmp_path / "deep.json").write_text(deep(100_000))
    before = snapshot(tmp_path)
    ran = sanitize("deep.json", str(session), "--jobs", "2", "-q", "-o", "out", cwd=tmp_path)
    one_line(ran, 1, "deep.json: JSON nested too deep")
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["session.jsonl"]
    assert {k: v for k, v in snapshot(tmp_path).items() if not k.startswith("out")} == before


def test_closed_stdin(tmp_path: Path) -> None:
    one_line(sanitize("-", cwd=tmp_path, preexec=lambda: os.close(0)), 1, "-: cannot read: standard input is closed")
    assert snapshot(tmp_path) == {}


def test_closed_stdout(tmp_path: Path, session: Path) -> None:
    before = snapshot(tmp_path)
    ran = sanitize(str(session), "-q", cwd=tmp_path, preexec=lambda: os.close(1), stdout=None)
    one_line(ran, 1, "<stdout>: cannot write: standard output is closed")
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize(("body", "needle"), [
    ("", "empty input: no conversation to read"),
    ("  \n\n", "empty input: no conversation to read"),
    ("42\n", "expected a conversation (a JSON object or a list of messages), got int"),
    ('"hello"', "expected a conversation (a JSON object or a list of messages), got str"),
])
def test_empty_and_scalar_inputs_exit_1(tmp_path: Path, body: str, needle: str) -> None:
    (tmp_path / "in.json").write_text(body)
    before = snapshot(tmp_path)
    one_line(sanitize("in.json", cwd=tmp_path), 1, f"in.json: {needle}")
    one_line(sanitize("-", cwd=tmp_path, stdin=body.encode()), 1, f"-: {needle}")
    assert snapshot(tmp_path) == before


# --- 4. a wrong format is never silent; 5. a budget that cannot be met -----------------------


@pytest.mark.parametrize("fmt", ["openai_chat", "codex", "anthropic"])
def test_a_wrong_forced_format_stops_in_one_line(tmp_path: Path, session: Path, fmt: str) -> None:
    before = snapshot(tmp_path)
    ran = sanitize(str(session), "--format", fmt, cwd=tmp_path)
    one_line(ran, 1, f"--format {fmt} reads 0 messages where claude_code reads", "--format claude_code")
    assert ran.stdout == b""
    assert snapshot(tmp_path) == before


def test_a_forced_format_that_reads_nothing_from_an_unknown_shape(tmp_path: Path) -> None:
    (tmp_path / "rows.jsonl").write_text('{"a": 1}\n{"b": 2}\n')
    before = snapshot(tmp_path)
    one_line(sanitize("rows.jsonl", "--format", "openai_chat", cwd=tmp_path), 1,
             "--format openai_chat reads no messages from this input")
    assert snapshot(tmp_path) == before


def test_a_budget_that_cannot_be_met_warns_and_strict_exits_3(tmp_path: Path, session: Path) -> None:
    before = snapshot(tmp_path)
    ran = sanitize(str(session), "--budget", "10", "-q", cwd=tmp_path)
    line = one_line(ran, 0, f"{session}: warning: budget not met: the smallest size reached is", "10-token budget")
    reached = int(line.split("reached is ")[1].split(" tokens")[0].replace(",", ""))
    assert reached > 10 and ran.stdout
    strict = sanitize(str(session), "--budget", "10", "-q", "--strict", cwd=tmp_path)
    one_line(strict, 3, "error: budget not met", f"reached is {reached:,} tokens")
    assert strict.stdout == ran.stdout  # the smallest copy is still written
    assert snapshot(tmp_path) == before
    met = sanitize(str(session), "--budget", "100000", "-q", "--strict", cwd=tmp_path)
    assert met.code == 0 and met.stderr == ""


# --- many files: the same with and without --jobs ---------------------------------------------


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_one_bad_file_among_many_the_good_ones_are_written(tmp_path: Path, session: Path, jobs: str) -> None:
    second = tmp_path / "second.jsonl"
    second.write_bytes(session.read_bytes())
    (tmp_path / "deep.json").write_text(deep(100_000))
    before = snapshot(tmp_path)
    ran = sanitize(str(session), "missing.jsonl", "deep.json", str(second), "--jobs", jobs, "-q", "-o", "out",
                   cwd=tmp_path)
    assert ran.code == 1
    assert ran.stderr.splitlines() == ["sanitize: missing.jsonl: cannot read: no such file",
                                       "sanitize: deep.json: JSON nested too deep (the limit is about 1,000 levels)"]
    out = tmp_path / "out"
    assert sorted(p.name for p in out.iterdir()) == ["second.jsonl", "session.jsonl"]
    assert (out / "session.jsonl").read_bytes() == expected_copy(tmp_path)
    assert {k: v for k, v in snapshot(tmp_path).items() if not k.startswith("out")} == before


def _greedy() -> object:
    """An adapter that claims every input with the top score and reads nothing from it."""
    from sanitizer.formats.base import Adapter

    class Greedy(Adapter):
        name = "greedy"

        def sniff(self, doc: object) -> int:
            return 10**6

        def views(self, doc: object):  # noqa: ANN201
            return iter(())

    return Greedy()


def test_detection_prefers_the_claimant_that_reads_the_messages() -> None:
    from sanitizer import formats
    from sanitizer.document import loader

    doc = loader.from_text('[{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yes"}]\n', "x")

    saved = formats.ADAPTERS
    try:
        formats.ADAPTERS = (_greedy(), *saved)
        assert formats.detect(doc).name == "openai_chat"
    finally:
        formats.ADAPTERS = saved
    assert formats.detect(doc).name == "openai_chat"


def test_the_views_read_to_tell_claimants_apart_are_those_the_run_uses() -> None:
    """Telling two claimants apart reads their views; the run takes the winner's, not a second reading."""
    from sanitizer import Sanitizer, formats
    from sanitizer.formats.openai_chat import OpenAIChat

    reads: list[str] = []

    class Counted(OpenAIChat):
        def views(self, doc: object):  # noqa: ANN201
            reads.append(self.name)
            return super().views(doc)

    from sanitizer.secrets.kinds import AN, fake

    token = "gh" + "p_" + fake(AN, 36, 7)  # made up, split so no scanner takes this file for a leak
    messages = [{"role": "user", "content": f"push with {token}"}, {"role": "assistant", "content": "pushed"}]
    saved = formats.ADAPTERS
    try:
        formats.ADAPTERS = (_greedy(), *(Counted() if a.name == "openai_chat" else a for a in saved))
        detected = Sanitizer(count_tokens=False).sanitize(messages)
        assert reads == ["openai_chat"] and detected.report.format == "openai_chat"
    finally:
        formats.ADAPTERS = saved
    forced = Sanitizer(count_tokens=False, format="openai_chat").sanitize(messages)
    assert detected.output == forced.output and detected.output != messages


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_an_undetectable_file_among_many_exits_2_and_the_others_are_written(tmp_path: Path, session: Path,
                                                                            jobs: str) -> None:
    (tmp_path / "unknown.json").write_text('{"foo": 1}\n')
    before = snapshot(tmp_path)
    ran = sanitize("unknown.json", str(session), "--jobs", jobs, "-q", "-o", "out", cwd=tmp_path)
    one_line(ran, 2, "unknown.json: could not detect the conversation format; pass --format")
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["session.jsonl"]
    assert {k: v for k, v in snapshot(tmp_path).items() if not k.startswith("out")} == before
