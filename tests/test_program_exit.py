"""The `sanitize` program's quick exit: what the interpreter's exit does that matters is done
(exit functions, flushed streams, the exit code), the freeing of every object is not, and a
process with another live thread exits the usual way."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import EXAMPLE, ROOT

# A program run from a script that first registers an exit function and an object whose
# finalizer speaks only when the interpreter tears its modules down.
PRELUDE = """
import atexit, os, sys, threading, time
atexit.register(lambda: os.write(1, b"EXIT FUNCTION RAN\\n"))  # unbuffered: it flushes nothing

class Sentinel:
    def __del__(self, write=os.write):
        write(2, b"TORN DOWN\\n")

sentinel = Sentinel()
"""


def program(tmp_path: Path, *args: str, before: str = "") -> subprocess.CompletedProcess[bytes]:
    code = (PRELUDE + before + "from sanitizer.cli.program import run\n"
            f"sys.argv = ['sanitize', *{list(args)!r}]\nrun()\n")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=300, cwd=tmp_path,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})


def test_the_exit_functions_run_the_output_is_whole_and_the_teardown_is_skipped(tmp_path: Path) -> None:
    ran = program(tmp_path, str(EXAMPLE), "-o", "copy.jsonl", "--no-tokens")
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout == b"EXIT FUNCTION RAN\n"
    assert b"TORN DOWN" not in ran.stderr
    # To stdout: every byte arrives before the process ends, then what the exit function printed.
    ran = program(tmp_path, str(EXAMPLE), "--no-tokens")
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout == (tmp_path / "copy.jsonl").read_bytes() + b"EXIT FUNCTION RAN\n"


def test_a_live_thread_gets_the_usual_exit(tmp_path: Path) -> None:
    # The thread lives until the main thread has ended: the interpreter's exit waits for it.
    before = ("def until_the_main_thread_ends():\n"
              "    while threading.main_thread().is_alive():\n        time.sleep(0.01)\n"
              "    print('THREAD DONE', flush=True)\n"
              "threading.Thread(target=until_the_main_thread_ends).start()\n")
    ran = program(tmp_path, str(EXAMPLE), "-o", "copy.jsonl", "--no-tokens", before=before)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.splitlines() == [b"THREAD DONE", b"EXIT FUNCTION RAN"]
    assert b"TORN DOWN" in ran.stderr  # the interpreter's own exit, which the quick one skips


def test_exit_codes_are_the_commands(tmp_path: Path) -> None:
    assert program(tmp_path, "missing.jsonl").returncode == 1
    # A usage error ends the command before it flushes stdout: the program flushes it.
    ran = program(tmp_path, "--no-such-option", before="sys.stdout.write('WRITTEN BEFORE\\n')\n")
    assert ran.returncode == 2
    assert sorted(ran.stdout.splitlines()) == [b"EXIT FUNCTION RAN", b"WRITTEN BEFORE"]
    # `sys.exit("message")` as the interpreter treats it: the message on stderr, code 1.
    ran = program(tmp_path, before="import sanitizer.cli.program as p\n"
                                   "def boom():\n    raise SystemExit('a message')\np.main = boom\n")
    assert (ran.returncode, ran.stderr.splitlines()[0]) == (1, b"a message")
