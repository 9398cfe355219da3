"""Headless chromium for the report's screenshot and its browser tests (never needed at run time)."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

CHROMIUM = os.environ.get("SANITIZER_CHROMIUM", "/usr/bin/chromium")  # another build: set the variable
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars", "--mute-audio")


def available(binary: str = CHROMIUM) -> bool:
    """True when the chromium binary exists and is executable."""
    return os.access(binary, os.X_OK)


def run(page: Path, *args: str, binary: str = CHROMIUM, timeout: float = 120.0) -> str:
    """Run headless chromium on the local file `page` with `args`; return its stdout.

    The browser runs in its own process group with a throwaway profile, and the whole group is
    killed when it is done (or times out), so no helper process outlives the call.
    """
    profile = tempfile.mkdtemp(prefix="sanitizer-chromium-")
    cmd = [binary, *FLAGS, f"--user-data-dir={profile}", *args, page.resolve().as_uri()]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, start_new_session=True,
                            text=True, encoding="utf-8", errors="replace")
    try:
        out, _ = proc.communicate(timeout=timeout)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        shutil.rmtree(profile, ignore_errors=True)
    if proc.returncode not in (0, -signal.SIGKILL):
        raise RuntimeError(f"chromium exited with {proc.returncode} on {page}")
    return out


def screenshot(page: Path, png: Path, width: int = 1280, height: int = 900) -> Path:
    """A PNG screenshot of `page` at `width`×`height`."""
    run(page, f"--screenshot={png.resolve()}", f"--window-size={width},{height}")
    if not png.exists():
        raise RuntimeError(f"chromium wrote no screenshot of {page}")
    return png


def dump_dom(page: Path, budget_ms: int = 5000) -> str:
    """The DOM of `page` after its scripts ran, as HTML."""
    return run(page, f"--virtual-time-budget={budget_ms}", "--dump-dom")
