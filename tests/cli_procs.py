"""Helpers of the command-line edge tests: run `python -m sanitizer` in its own session, find what
it left behind (processes by group in /proc, files in the folder), check its one-line message.

Every run is a real process, so that its children (token counting, `--jobs`) can be found by
process group after it exits.  Devices, FIFOs, sockets and symlinks are made in the test's
temporary folder, never in the real /dev.
"""

from __future__ import annotations

import importlib.util
import os
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import EXAMPLE, ROOT

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


def session_file(tmp_path: Path) -> Path:
    """A copy of the example session (fixture `session` of the test modules)."""
    path = tmp_path / "session.jsonl"
    path.write_bytes(EXAMPLE.read_bytes())
    return path


def big_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Big generated inputs, so that workers start (module fixture `big_inputs`)."""
    folder = tmp_path_factory.mktemp("big")
    return {"session": gen.claude_session(folder / "big.jsonl", 12 * MB, seed=1),
            "dataset": gen.dataset(folder / "data.jsonl", 12 * MB),
            **{f"s{i}": gen.claude_session(folder / f"s{i}.jsonl", 4 * MB, seed=i) for i in range(3)}}


def expected_copy(tmp_path: Path, *args: str) -> bytes:
    ran = sanitize(str(EXAMPLE), "-q", *args, cwd=tmp_path)
    assert ran.code == 0, ran.stderr
    return ran.stdout


def deep(levels: int) -> str:
    return "[" * levels + "]" * levels
