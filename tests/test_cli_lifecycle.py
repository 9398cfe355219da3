"""The command line's processes and stderr: a JSON report that always parses, signals mid-run that
leave no process or file behind, a progress bar that moves on a terminal and only there.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_procs import (
    MB,
    assert_no_process_left,
    big_files,
    gen,
    group_members,
    sanitize,
    session_file,
)

session = pytest.fixture(session_file)
big_inputs = pytest.fixture(scope="module")(big_files)


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


def test_pool_workers_die_with_their_parent_even_when_it_is_killed(tmp_path: Path) -> None:
    """A parent killed with SIGKILL runs no handler: its workers still go (the kernel's death signal)."""
    script = ("from sanitizer import processes\n"
              "pool = processes.new_pool(2)\n"
              "pool.submit(int).result()\n"
              "print('ready', flush=True)\n"
              "import time; time.sleep(600)\n")
    proc = subprocess.Popen([sys.executable, "-c", script], cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline() == b"ready\n"
        assert len(group_members(proc.pid)) == 3  # the parent and its two workers
        proc.kill()
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert_no_process_left(proc.pid)
