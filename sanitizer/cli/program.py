"""The `sanitize` program (`python -m sanitizer` too): the command, then a quick exit.

When the command is done, the interpreter would free every object the run made before the
process ends (modules, compiled patterns, the parsed input): 15-20 ms that nobody waits for, a
tenth of a run on a small file.  So the program ends with `os._exit`, once what still matters
of the interpreter's exit is done: the `atexit` functions run (the pattern cache is saved
there, and multiprocessing's helpers stop there), and stdout and stderr are flushed.  Every
file the run writes is closed before the command returns.  Where another thread is still
alive, or this interpreter has no `atexit._run_exitfuncs`, the process exits the usual way.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import sys
import threading
from typing import NoReturn

from sanitizer.cli.command import flush_stdout, main


def run() -> NoReturn:
    """Run `sanitize` on `sys.argv` and end the process with its exit code."""
    try:
        main()  # standalone: it ends by raising SystemExit
        code: object = 0
    except SystemExit as exc:
        code = exc.code
    if code is None:
        code = 0
    elif not isinstance(code, int):  # a message, as the interpreter treats `sys.exit("...")`
        print(code, file=sys.stderr)
        code = 1
    run_exit_functions = getattr(atexit, "_run_exitfuncs", None)
    if threading.active_count() > 1 or run_exit_functions is None:
        sys.exit(code)
    run_exit_functions()
    flush_stdout()
    if sys.stderr is not None:
        with contextlib.suppress(OSError):
            sys.stderr.flush()
    os._exit(code)
