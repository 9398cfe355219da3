"""The command line at its hard edges: each bad input or output gives one `sanitize: …` line, the
README's exit code, no traceback, no file touched but the output, and no process left behind.

Every run is a real `python -m sanitizer` process in its own session, so that its children (token
counting, `--jobs`) can be found by process group in /proc after it exits.  Devices, FIFOs,
sockets and symlinks are made in the test's temporary folder, never in the real /dev.
"""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import EXAMPLE, ROOT
from hypothesis import given
from hypothesis import strategies as st

_spec = importlib.util.spec_from_file_location("bench_gen", ROOT / "bench" / "gen.py")
gen = importlib.util.module_from_spec(_spec)
assert _spec.loader is not None
_spec.loader.exec_module(gen)

MB = 1024 * 1024
ROOT_ONLY = pytest.mark.skipif(os.geteuid() != 0, reason="making device nodes needs root (CAP_MKNOD)")


def group_members(pgid: int) -> list[int]:
    """Live (not zombie) processes of process group `pgid`, from /proc."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            st = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = st[st.rindex(")") + 2:].split()
        if int(fields[2]) == pgid and fields[0] != "Z":
            found.append(int(entry))
    return found


def snapshot(folder: Path) -> dict[str, tuple]:
    """Every entry under `folder` (not following links): kind, and content / target / device."""
    out: dict[str, tuple] = {}
    for path in sorted(folder.rglob("*")):
        st = path.lstat()
        name = str(path.relative_to(folder))
        if stat.S_ISLNK(st.st_mode):
            out[name] = ("link", os.readlink(path))
        elif stat.S_ISREG(st.st_mode):
            out[name] = ("file", path.read_bytes())
        elif stat.S_ISDIR(st.st_mode):
            out[name] = ("dir",)
        else:
            out[name] = (stat.S_IFMT(st.st_mode), st.st_rdev)
    return out


class Ran:
    def __init__(self, code: int, stdout: bytes, stderr: str) -> None:
        self.code, self.stdout, self.stderr = code, stdout, stderr


def sanitize(*args: str, cwd: Path, stdin: bytes | None = None, stdout: object = subprocess.PIPE,
             preexec: Callable[[], None] | None = None, pass_fds: tuple[int, ...] = ()) -> Ran:
    """Run the command to its end; assert it left no process and no traceback."""
    proc = subprocess.Popen([sys.executable, "-m", "sanitizer", *args], cwd=cwd, start_new_session=True,
                            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL, stdout=stdout,
                            stderr=subprocess.PIPE, preexec_fn=preexec, pass_fds=pass_fds)
    try:
        out, err = proc.communicate(stdin, timeout=300)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert_no_process_left(proc.pid)
    text = err.decode("utf-8", errors="replace")
    assert "Traceback" not in text and "Exception ignored" not in text, text
    return Ran(proc.returncode, out or b"", text)


def assert_no_process_left(pgid: int) -> None:
    # A worker killed with its parent may take a moment to be reaped by init: poll, bounded.
    for _ in range(200):
        if not group_members(pgid):
            return
        time.sleep(0.01)
    raise AssertionError(f"processes left in group {pgid}: {group_members(pgid)}")


def one_line(ran: Ran, code: int, *needles: str) -> str:
    """The run failed with `code` and said so in exactly one `sanitize: ` line holding `needles`."""
    lines = ran.stderr.splitlines()
    assert ran.code == code, ran.stderr
    assert len(lines) == 1 and lines[0].startswith("sanitize: "), ran.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


@pytest.fixture
def session(tmp_path: Path) -> Path:
    path = tmp_path / "session.jsonl"
    path.write_bytes(EXAMPLE.read_bytes())
    return path


@pytest.fixture(scope="module")
def big_inputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("big")
    return {"session": gen.claude_session(folder / "big.jsonl", 12 * MB, seed=1),
            "dataset": gen.dataset(folder / "data.jsonl", 12 * MB),
            **{f"s{i}": gen.claude_session(folder / f"s{i}.jsonl", 4 * MB, seed=i) for i in range(3)}}


def expected_copy(tmp_path: Path, *args: str) -> bytes:
    ran = sanitize(str(EXAMPLE), "-q", *args, cwd=tmp_path)
    assert ran.code == 0, ran.stderr
    return ran.stdout


# --- 1. output safety ---------------------------------------------------------------------------


@ROOT_ONLY
def test_output_to_a_char_device_is_written_through_not_replaced(tmp_path: Path, session: Path) -> None:
    null = tmp_path / "null"
    os.mknod(null, stat.S_IFCHR | 0o666, os.stat("/dev/null").st_rdev)
    before = snapshot(tmp_path)
    ran = sanitize(str(session), "-q", "-o", str(null), cwd=tmp_path)
    assert ran.code == 0 and ran.stderr == "" and ran.stdout == b""
    assert stat.S_ISCHR(null.lstat().st_mode) and null.lstat().st_rdev == os.stat("/dev/null").st_rdev
    assert snapshot(tmp_path) == before


@ROOT_ONLY
def test_a_full_disk_is_one_line_and_the_device_stays(tmp_path: Path, session: Path) -> None:
    full = tmp_path / "full"
    os.mknod(full, stat.S_IFCHR | 0o666, os.makedev(1, 7))
    before = snapshot(tmp_path)
    one_line(sanitize(str(session), "-o", str(full), cwd=tmp_path), 1, str(full), "no space left on device")
    assert stat.S_ISCHR(full.lstat().st_mode)
    assert snapshot(tmp_path) == before


def test_output_to_a_fifo_is_written_through(tmp_path: Path, session: Path) -> None:
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    before = snapshot(tmp_path)
    ran = sanitize(str(session), "-q", "-o", str(fifo), cwd=tmp_path)
    reader.join(timeout=120)
    assert ran.code == 0, ran.stderr
    assert got == [expected_copy(tmp_path)]
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert snapshot(tmp_path) == before


def test_output_to_a_socket_fails_in_one_line_and_the_socket_stays(tmp_path: Path, session: Path) -> None:
    path = tmp_path / "out.sock"
    sock = socket.socket(socket.AF_UNIX)
    try:
        sock.bind(str(path))
        before = snapshot(tmp_path)
        one_line(sanitize(str(session), "-o", str(path), cwd=tmp_path), 1, str(path), "cannot write")
        assert stat.S_ISSOCK(path.lstat().st_mode)
        assert snapshot(tmp_path) == before
    finally:
        sock.close()


def test_output_to_dev_stdout_writes_into_the_callers_file(tmp_path: Path, session: Path) -> None:
    target = tmp_path / "redirected.jsonl"
    with target.open("wb") as fh:
        inode = os.fstat(fh.fileno()).st_ino
        ran = sanitize(str(session), "-q", "-o", "/dev/stdout", cwd=tmp_path, stdout=fh)
    assert ran.code == 0, ran.stderr
    assert target.stat().st_ino == inode, "the caller's file was replaced, not written"
    assert target.read_bytes() == expected_copy(tmp_path)


def test_output_to_a_file_descriptor_path_like_process_substitution(tmp_path: Path, session: Path) -> None:
    read_end, write_end = os.pipe()
    got: list[bytes] = []

    def drain() -> None:
        with os.fdopen(read_end, "rb") as fh:
            got.append(fh.read())

    reader = threading.Thread(target=drain)
    reader.start()
    try:
        ran = sanitize(str(session), "-q", "-o", f"/dev/fd/{write_end}", cwd=tmp_path, pass_fds=(write_end,))
    finally:
        os.close(write_end)
    reader.join(timeout=120)
    assert ran.code == 0, ran.stderr
    assert got == [expected_copy(tmp_path)]


def test_a_symlink_output_replaces_its_target_and_stays_a_link(tmp_path: Path, session: Path) -> None:
    (tmp_path / "real").mkdir()
    real = tmp_path / "real" / "clean.jsonl"
    real.write_text("old\n")
    link = tmp_path / "link.jsonl"
    link.symlink_to(real)
    ran = sanitize(str(session), "-q", "-o", str(link), cwd=tmp_path)
    assert ran.code == 0, ran.stderr
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_bytes() == expected_copy(tmp_path)
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["clean.jsonl", "link.jsonl", "real", "session.jsonl"]


@pytest.mark.parametrize("how", ["symlink", "hardlink"])
def test_the_input_is_never_the_output(tmp_path: Path, session: Path, how: str) -> None:
    other = tmp_path / "other.jsonl"
    other.symlink_to(session) if how == "symlink" else os.link(session, other)
    before = snapshot(tmp_path)
    ran = sanitize(str(session), "-o", str(other), cwd=tmp_path)
    assert ran.code == 2 and "refusing to overwrite the input" in ran.stderr
    assert snapshot(tmp_path) == before


def test_a_read_only_output_folder_is_one_line(tmp_path: Path, session: Path) -> None:
    ro = tmp_path / "ro"
    ro.mkdir()
    if os.geteuid() == 0:  # root writes through permissions: /sys refuses new files to anyone
        target = Path("/sys/clean.jsonl")
        if not os.path.isdir("/sys") or os.path.exists(target):
            pytest.fail("/sys is needed to test a folder that refuses writing as root")
    else:
        target = ro / "clean.jsonl"
        ro.chmod(0o555)
    before = snapshot(tmp_path)
    try:
        one_line(sanitize(str(session), "-o", str(target), cwd=tmp_path), 1, str(target), "cannot write")
    finally:
        ro.chmod(0o755)
    assert snapshot(tmp_path) == before and not target.exists()


def test_an_output_folder_under_a_file_is_one_line(tmp_path: Path, session: Path) -> None:
    before = snapshot(tmp_path)
    one_line(sanitize(str(session), "-o", str(session / "x.jsonl"), cwd=tmp_path), 1, "cannot write: not a directory")
    assert snapshot(tmp_path) == before


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
            # Root reads through permissions, and an unprivileged process could not start this
            # interpreter: run in this process with the effective user dropped meanwhile.
            from click.testing import CliRunner

            from sanitizer.cli import main

            session.chmod(0o644)
            assert CliRunner().invoke(main, [str(session), "-q"]).exit_code == 0  # lazy imports done as root
            session.chmod(0o000)
            os.seteuid(65534)
            try:
                result = CliRunner().invoke(main, [str(session)])
            finally:
                os.seteuid(0)
            ran = Ran(result.exit_code, result.stdout_bytes, result.stderr)
            assert "Traceback" not in ran.stderr and result.exception is None or isinstance(result.exception,
                                                                                              SystemExit)
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


def deep(levels: int) -> str:
    return "[" * levels + "]" * levels


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


@pytest.mark.parametrize("kind", ["session", "dataset", "dataset-jobs", "files-jobs"])
def test_a_reader_that_goes_away_stops_the_run_in_one_line(tmp_path: Path, big_inputs: dict[str, Path],
                                                           kind: str) -> None:
    files = {"session": ["session"], "dataset": ["dataset"], "dataset-jobs": ["dataset"],
             "files-jobs": ["s0", "s1"]}[kind]
    args = [str(big_inputs[f]) for f in files] + (["--jobs", "2"] if kind.endswith("jobs") else [])
    before = snapshot(tmp_path)
    proc = subprocess.Popen([sys.executable, "-m", "sanitizer", *args, "-q"], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # like `| head -c 0`: the reader is gone before the first write
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=300) == 1
    assert_no_process_left(proc.pid)
    assert err.splitlines() == ["sanitize: <stdout>: cannot write: the reader went away (broken pipe)"], err
    assert snapshot(tmp_path) == before


SURROGATE = [{"role": "user", "content": "fix the parser \ud800 now"},
             {"role": "assistant", "content": "done \udfff"}]


@pytest.mark.parametrize("mode", [["--to", "text"], ["--to", "messages"], ["--summary"], []])
def test_lone_surrogates_are_written_back_as_escapes(tmp_path: Path, mode: list[str]) -> None:
    src = tmp_path / "chat.json"
    src.write_text(json.dumps(SURROGATE))  # ASCII with `\ud800` escapes
    before = snapshot(tmp_path)
    ran = sanitize(str(src), "-q", *mode, cwd=tmp_path)
    assert ran.code == 0 and ran.stderr == ""
    text = ran.stdout.decode("utf-8")  # valid UTF-8
    assert "\\ud800" in text
    if mode != ["--summary"]:
        assert "\\udfff" in text
    if mode in (["--to", "messages"], []):
        assert json.loads(text)[0]["content"] == "fix the parser \ud800 now"
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


# --- 2. the JSON report on stderr always parses ------------------------------------------------


def test_json_report_on_stderr_parses_on_every_run_of_a_big_input(tmp_path: Path) -> None:
    big = gen.claude_session(tmp_path / "big.jsonl", int(1.5 * MB), seed=7)
    lines = big.read_bytes().split(b"\n")
    lines[5] = lines[5][: len(lines[5]) // 2]  # a damaged line: its warning goes inside the report
    big.write_bytes(b"\n".join(lines))
    for _ in range(10):
        ran = sanitize(str(big), "--report", "json", cwd=tmp_path)
        assert ran.code == 0
        report = json.loads(ran.stderr)
        assert report["warnings"] == [f"{big}:6: " + report["problems"][0]["message"]]


def test_json_report_holds_the_failures_too(tmp_path: Path, session: Path) -> None:
    ran = sanitize(str(session), "missing.jsonl", "--report", "json", "-o", "out", cwd=tmp_path)
    assert ran.code == 1
    assert json.loads(ran.stderr)["warnings"] == ["sanitize: missing.jsonl: cannot read: no such file"]


# --- 2. SIGTERM and SIGINT mid-run ---------------------------------------------------------------


def _stop_mid_run(tmp_path: Path, args: list[str], signum: int) -> tuple[int, str]:
    proc = subprocess.Popen([sys.executable, "-m", "sanitizer", *args], cwd=tmp_path, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, start_new_session=True)
    try:
        # Workers are started early for a big input: wait for them (bounded), then signal.
        for _ in range(3000):
            if len(group_members(proc.pid)) >= 2 or proc.poll() is not None:
                break
            time.sleep(0.01)
        assert proc.poll() is None, "the run ended before its workers were seen"
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=120)  # returns: no process holds stderr open
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert_no_process_left(proc.pid)
    return proc.returncode, err.decode()


@pytest.mark.parametrize(("kind", "signum"), [("session", signal.SIGTERM), ("jobs", signal.SIGTERM),
                                              ("dataset", signal.SIGTERM), ("jobs", signal.SIGINT)])
def test_a_signal_mid_run_leaves_no_process_no_traceback_no_file(tmp_path: Path, big_inputs: dict[str, Path],
                                                                  kind: str, signum: int) -> None:
    if kind == "jobs":
        args = [str(big_inputs[f"s{i}"]) for i in range(3)] + ["--jobs", "2", "-o", "out"]
    else:
        args = [str(big_inputs[kind]), "-o", "out/clean.jsonl"] + (["--jobs", "2"] if kind == "dataset" else [])
    code, err = _stop_mid_run(tmp_path, args, signum)
    assert code == 128 + signum
    assert err.splitlines() == [f"sanitize: stopped by {signal.Signals(signum).name}"]
    leftovers = [p.name for p in tmp_path.rglob(".*")]
    assert leftovers == [], "temporary files left behind"


# --- 4. non-finite numbers are written back as they were read ---------------------------------

NONFINITE = ('{"role": "assistant", "content": "the key is AKIAIOSFODNN7EXAMPLE", "score": 1e999, "low": -1E+400, '
             '"m": -Infinity, "n": NaN, "p": Infinity, "ok": 2.5e10}')


@pytest.mark.parametrize("layout", ["jsonl", "json"])
def test_non_finite_numbers_in_a_changed_record_are_written_verbatim(tmp_path: Path, layout: str) -> None:
    src = tmp_path / f"chat.{layout}"
    ask, thanks = '{"role": "user", "content": "find the key"}', '{"role": "user", "content": "thanks"}'
    records = [ask, NONFINITE, thanks]
    src.write_text("".join(r + "\n" for r in records) if layout == "jsonl" else f"[{', '.join(records)}]\n")
    before = snapshot(tmp_path)
    ran = sanitize(str(src), "-q", cwd=tmp_path)
    assert ran.code == 0, ran.stderr
    out = ran.stdout.decode()
    assert "AKIAIOSFODNN7EXAMPLE" not in out, "the record was changed (redacted)"
    for literal in ('"score":1e999', '"low":-1E+400', '"m":-Infinity', '"n":NaN', '"p":Infinity', '"ok":25000000000.0'):
        assert literal in out.replace(" ", ""), literal
    assert "inf" not in out.replace("Infinity", "")
    assert snapshot(tmp_path) == before


def test_a_string_that_looks_like_a_number_marker_is_left_alone() -> None:
    from sanitizer import json_numbers, loader

    value = [json_numbers.decoder.decode('{"a": 1e999, "b": "NaN and Infinity in prose"}')]
    assert loader.dumps_value(value) == '[{"a": 1e999, "b": "NaN and Infinity in prose"}]'
    assert loader.dumps_value([{"b": "NaN"}]) == '[{"b": "NaN"}]'


# --- 7. progress that moves on a terminal, nothing otherwise ----------------------------------


def _with_pty_stderr(args: list[str], cwd: Path) -> tuple[int, str]:
    """Run with stderr on a pseudo-terminal; (exit code, everything drawn on it)."""
    import pty
    import select

    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "sanitizer", *args], cwd=cwd, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=slave, start_new_session=True,
                            env={**os.environ, "COLUMNS": "120", "TERM": "xterm"})
    os.close(slave)
    drawn = bytearray()
    try:
        while True:
            ready, _, _ = select.select([master], [], [], 1.0)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:  # EIO: every writer of the terminal closed it
                    break
                if not chunk:
                    break
                drawn += chunk
            elif proc.poll() is not None:
                break
        code = proc.wait(timeout=300)
    finally:
        os.close(master)
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert_no_process_left(proc.pid)
    return code, drawn.decode("utf-8", errors="replace")


def _percentages(drawn: str) -> list[int]:
    import re

    return [int(p) for p in re.findall(r"(\d{1,3})%", drawn)]


@pytest.mark.parametrize("kind", ["session", "dataset", "files", "files-jobs"])
def test_the_progress_bar_is_drawn_and_moves_on_a_terminal(tmp_path: Path, big_inputs: dict[str, Path],
                                                           kind: str) -> None:
    files = [str(big_inputs[f"s{i}"]) for i in range(3)] if kind.startswith("files") else [str(big_inputs[kind])]
    args = [*files, "-o", "out" if len(files) > 1 else "out/clean.jsonl", "--report", "none"]
    if kind == "files-jobs":
        args += ["--jobs", "2"]
    code, drawn = _with_pty_stderr(args, tmp_path)
    assert code == 0, drawn
    seen = _percentages(drawn)
    assert "Traceback" not in drawn
    assert len(set(seen)) >= 2 and min(seen) < 100, f"the bar did not move: {seen}"
    if kind == "dataset":
        assert "records" in drawn


def test_no_bar_when_quiet_on_a_terminal_or_when_stderr_is_not_one(tmp_path: Path, big_inputs: dict[str, Path]
                                                                  ) -> None:
    code, drawn = _with_pty_stderr([str(big_inputs["s0"]), "-o", "out.jsonl", "-q"], tmp_path)
    assert code == 0 and drawn == ""
    ran = sanitize(str(big_inputs["s0"]), "-o", "out2.jsonl", "--report", "none", cwd=tmp_path)
    assert ran.code == 0 and ran.stderr == ""


def test_detection_prefers_the_claimant_that_reads_the_messages() -> None:
    from sanitizer import formats, loader
    from sanitizer.formats.base import Adapter

    doc = loader.from_text('[{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yes"}]\n', "x")

    class Greedy(Adapter):  # claims everything with the top score and reads nothing
        name = "greedy"

        def sniff(self, doc: object) -> int:
            return 10**6

        def views(self, doc: object):  # noqa: ANN201
            return iter(())

    saved = formats.ADAPTERS
    try:
        formats.ADAPTERS = (Greedy(), *saved)
        assert formats.detect(doc).name == "openai_chat"
    finally:
        formats.ADAPTERS = saved
    assert formats.detect(doc).name == "openai_chat"


# --- invariants of the writer's two escapes ----------------------------------------------------

_LITERALS = st.sampled_from(["1e999", "-1e999", "1E+400", "NaN", "Infinity", "-Infinity", "2.5", "0", "-3e-7"])


@given(st.lists(st.tuples(st.text(max_size=8), _LITERALS), max_size=8), st.sampled_from([None, 2]))
def test_every_number_literal_survives_a_write(pairs: list[tuple[str, str]], indent: int | None) -> None:
    from sanitizer import json_numbers, loader

    text = "{" + ", ".join(f"{json.dumps(k)}: {v}" for k, v in dict(pairs).items()) + "}"
    value = json_numbers.decoder.decode(text)
    written = loader.dumps_value(value, indent=indent)
    again = json_numbers.decoder.decode(written)
    assert list(again) == list(value)
    for key, literal in dict(pairs).items():
        got = again[key]
        if isinstance(got, json_numbers.RawNumber):
            assert got.text == literal
        else:
            assert got == float(literal) or got == int(literal)


@given(st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0xFFFF), max_size=40))
def test_output_text_always_encodes_and_lone_surrogates_become_escapes(text: str) -> None:
    from sanitizer.cli_errors import encode

    data = encode(text)
    decoded = data.decode("utf-8", errors="surrogateescape")  # never raises: valid UTF-8 but smuggled bytes
    for ch in text:
        if 0xD800 <= ord(ch) <= 0xDFFF and not 0xDC80 <= ord(ch) <= 0xDCFF:
            assert f"\\u{ord(ch):04x}" in decoded
    if not any(0xD800 <= ord(ch) <= 0xDFFF for ch in text):
        assert decoded == text


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_an_undetectable_file_among_many_exits_2_and_the_others_are_written(tmp_path: Path, session: Path,
                                                                            jobs: str) -> None:
    (tmp_path / "unknown.json").write_text('{"foo": 1}\n')
    before = snapshot(tmp_path)
    ran = sanitize("unknown.json", str(session), "--jobs", jobs, "-q", "-o", "out", cwd=tmp_path)
    one_line(ran, 2, "unknown.json: could not detect the conversation format; pass --format")
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["session.jsonl"]
    assert {k: v for k, v in snapshot(tmp_path).items() if not k.startswith("out")} == before
