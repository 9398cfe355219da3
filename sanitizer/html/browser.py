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


def dump_dom(page: Path, budget_ms: int = 5000, *args: str) -> str:
    """The DOM of `page` after its scripts ran, as HTML (`args`: more chromium flags)."""
    return run(page, *args, f"--virtual-time-budget={budget_ms}", "--dump-dom")


def through_proxy(port: int) -> tuple[str, ...]:
    """Flags that send every request the page makes, loopback included, to a proxy on `port` of
    127.0.0.1, and resolve no name: a test's proxy then sees any request that would leave the page."""
    return (f"--proxy-server=http://127.0.0.1:{port}", "--proxy-bypass-list=<-loopback>",
            "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1")
