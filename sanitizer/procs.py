"""The lifecycle of the worker processes this package starts, on every exit path.

Every process pool (token counting, `--jobs` files, `--jobs` dataset lines) is made with
`new_pool` and closed with `close_pool`, so that:

- a worker never outlives its parent: on Linux it asks the kernel for SIGTERM when its parent
  dies (`PR_SET_PDEATHSIG`), so even a parent killed with SIGKILL leaves no process behind
  holding stderr open;
- a worker ignores SIGINT (Ctrl-C reaches the whole process group; the parent alone decides,
  and a worker's traceback would land in the caller's stderr);
- a worker stopped by SIGTERM removes the temporary output files it was writing and exits at once;
- after `abort()` (the parent was interrupted), closing a pool terminates its workers instead of
  waiting for their current job.

The registries below are per process and hold only live resources (pools, temporary files).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
from concurrent.futures import ProcessPoolExecutor
from typing import Any

_pools: set[ProcessPoolExecutor] = set()
_temps: set[str] = set()
_aborting = False
_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


def _on_term(signum: int, frame: Any) -> None:  # noqa: ARG001 - a signal handler's signature
    for path in list(_temps):
        with contextlib.suppress(OSError):
            os.unlink(path)
    os._exit(128 + signum)


def child_init(initializer: Any = None, *args: Any) -> None:
    """The first thing a pool worker runs (then `initializer(*args)` when given)."""
    global _aborting
    _pools.clear()  # the parent's pools and files are not this process's to close
    _temps.clear()
    _aborting = False
    _die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _on_term)
    if initializer is not None:
        initializer(*args)


def new_pool(workers: int, *, mp_context: Any = None, initializer: Any = None,
             initargs: tuple[Any, ...] = ()) -> ProcessPoolExecutor:
    """A ProcessPoolExecutor whose workers follow the rules above."""
    pool = ProcessPoolExecutor(workers, mp_context=mp_context, initializer=child_init,
                               initargs=(initializer, *initargs))
    _pools.add(pool)
    return pool


def close_pool(pool: ProcessPoolExecutor) -> None:
    """Shut `pool` down: wait for its jobs normally, terminate its workers after `abort()`."""
    _pools.discard(pool)
    if _aborting:
        _terminate(pool)
    pool.shutdown(wait=True, cancel_futures=True)


def abort() -> None:
    """The process is being interrupted: terminate every live pool's workers now."""
    global _aborting
    _aborting = True
    for pool in list(_pools):
        _terminate(pool)


def _terminate(pool: ProcessPoolExecutor) -> None:
    for proc in list((getattr(pool, "_processes", None) or {}).values()):
        with contextlib.suppress(OSError, AttributeError):
            proc.terminate()


def close_all() -> None:
    """Close every pool still open in this process (the command line's last step)."""
    for pool in list(_pools):
        close_pool(pool)


def track_temp(path: str) -> None:
    _temps.add(path)


def untrack_temp(path: str) -> None:
    _temps.discard(path)
