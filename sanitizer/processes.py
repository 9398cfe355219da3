"""The lifecycle of the worker processes this package starts, on every exit path.

Every process pool (token counting, `--jobs` files, `--jobs` dataset lines) is made with
`new_pool` and closed with `close_pool`, so that:

- a worker never outlives its parent: on Linux it asks the kernel for SIGTERM when its parent
  dies (`PR_SET_PDEATHSIG`), so even a parent killed with SIGKILL leaves no process behind
  holding stderr open (for pools made by the main thread: the signal follows the forking thread);
- a worker ignores SIGINT (Ctrl-C reaches the whole process group; the parent alone decides,
  and a worker's traceback would land in the caller's stderr);
- a worker stopped by SIGTERM removes the temporary output files it was writing and exits at once;
- the command line, stopped by SIGINT or SIGTERM (`stop_on_signals`), terminates every worker,
  removes its temporary files, says so in one line and exits 128 + N, without unwinding.

The registries below are per process and hold only live resources (pools, temporary files).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

_pools: set[ProcessPoolExecutor] = set()
_temps: set[str] = set()
_message: str | None = None  # set while the command line runs: what `_on_term` says
_owner = os.getpid()  # the process whose pools and temporary files these are
_PR_SET_PDEATHSIG = 1
ABORT_WAIT = 2.0


def _die_with_parent() -> None:
    if sys.platform.startswith("linux"):
        import ctypes  # in the workers only: 4 ms of every start otherwise

        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


def _on_term(signum: int, frame: Any) -> None:  # noqa: ARG001 - a signal handler's signature
    """Stop now: workers terminated, temporary files removed, exit 128 + N.

    Nothing is unwound: the signal may arrive while a pool holds one of its locks, and an
    exception raised there could deadlock the pool's shutdown.
    """
    if os.getpid() != _owner:  # a worker forked with this handler, before its `child_init` ran
        os._exit(128 + signum)
    abort()
    for path in list(_temps):
        with contextlib.suppress(OSError):
            os.unlink(path)
    if _message is not None:
        with contextlib.suppress(OSError, ValueError):
            os.write(2, f"{_message}stopped by {signal.Signals(signum).name}\n".encode())
    os._exit(128 + signum)


@contextlib.contextmanager
def stop_on_signals(prefix: str) -> Iterator[None]:
    """While the block runs, SIGINT and SIGTERM stop the process at once, cleanly (`_on_term`),
    saying `{prefix}stopped by SIGTERM` on stderr. Only in the main thread; a no-op elsewhere."""
    global _message, _owner
    _owner = os.getpid()
    try:
        previous = {s: signal.signal(s, _on_term) for s in (signal.SIGINT, signal.SIGTERM)}
    except ValueError:  # not the main thread (an embedding caller): its handlers stay
        yield
        return
    _message = prefix
    try:
        yield
    finally:
        _message = None
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def child_init(parent: int, die_with_parent: bool, initializer: Any = None, *args: Any) -> None:
    """The first thing a pool worker runs (then `initializer(*args)` when given)."""
    global _message, _owner
    _pools.clear()  # the parent's pools and files are not this process's to close
    _temps.clear()
    _message = None
    _owner = os.getpid()
    if die_with_parent:
        _die_with_parent()
        if os.getppid() != parent:  # the parent died before the line above: no signal will come
            os._exit(128 + signal.SIGTERM)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _on_term)
    if initializer is not None:
        initializer(*args)


def fork_context():  # noqa: ANN201 - a multiprocessing context
    """Fork where the platform has it: workers inherit what this process loaded (an encoding)."""
    import multiprocessing

    return multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else None)


def in_daemon() -> bool:
    """True in a daemon process of multiprocessing (which can start no processes of its own)."""
    mp = sys.modules.get("multiprocessing")  # not imported: not a multiprocessing child either
    return mp is not None and mp.current_process().daemon


def default_threads() -> int:
    """Processes worth running for CPU work here: the usable cores, at most 4."""
    return max(1, min(4, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1))


def new_pool(workers: int, *, mp_context: Any = None, initializer: Any = None,
             initargs: tuple[Any, ...] = ()) -> ProcessPoolExecutor:
    """A ProcessPoolExecutor whose workers follow the rules above."""
    from concurrent.futures import ProcessPoolExecutor  # here: its import is 20 ms of every start

    pool = ProcessPoolExecutor(workers, mp_context=mp_context, initializer=child_init,
                               initargs=(os.getpid(), _in_main_thread(), initializer, *initargs))
    if not _pools_closed_at_exit:
        # Registered after concurrent.futures' own exit hook, so it runs before the modules are torn
        # down: a pool still open then would be collected with its module half gone (a warning).
        _pools_closed_at_exit.append(atexit.register(_close_all))
    _pools.add(pool)
    return pool


_pools_closed_at_exit: list[object] = []


def _close_all() -> None:
    for pool in list(_pools):
        with contextlib.suppress(Exception):
            close_pool(pool)


def _in_main_thread() -> bool:
    # The kernel's death signal follows the thread that forked the worker, not the process: a
    # pool made by another thread (an embedding server's) would lose its workers when that
    # thread ends, so only pools of the main thread ask for it.
    return threading.current_thread() is threading.main_thread()


def close_pool(pool: ProcessPoolExecutor) -> None:
    """Shut `pool` down (its running jobs finish, the queued ones are cancelled)."""
    _pools.discard(pool)
    pool.shutdown(wait=True, cancel_futures=True)


def abort() -> None:
    """The process is being interrupted: terminate every live pool's workers now (and kill
    those still there after `ABORT_WAIT` seconds: a worker deadlocked in C never runs its handler)."""
    procs = [p for pool in list(_pools) for p in list((getattr(pool, "_processes", None) or {}).values())]
    for proc in procs:
        with contextlib.suppress(OSError, AttributeError):
            proc.terminate()
    deadline = time.monotonic() + ABORT_WAIT
    for proc in procs:
        with contextlib.suppress(OSError, AttributeError, AssertionError, ValueError):
            proc.join(max(0.0, deadline - time.monotonic()))
            if proc.exitcode is None:
                proc.kill()


def track_temp(path: str) -> None:
    _temps.add(path)


def untrack_temp(path: str) -> None:
    _temps.discard(path)
