"""`sanitize expand SIDECAR ID`: print the text a cut stands for, byte-exact, from a --cuts file.

Exit codes: 0 the text is on stdout (nothing added, not even a newline); 1 the file cannot be read,
a line of it is not a valid cut (`FILE:LINE: what is wrong`), or it holds no cut of that id; 2 usage.
"""

from __future__ import annotations

from typing import IO, Any

from sanitizer.cuts import parse, to_bytes
from sanitizer.errors import InputError
from sanitizer.run.output import reason

USAGE = "usage: sanitize expand SIDECAR ID  (SIDECAR: a file written by --cuts; ID: a cut id such as c17)"


def main(argv: list[str], stdin: IO[str] | None, stdout: IO[str] | Any, stderr: IO[str] | Any) -> int:
    """Run the verb; the exit code."""
    if argv in (["-h"], ["--help"]):
        stdout.write(USAGE + "\n")
        return 0
    if len(argv) != 2:
        stderr.write(f"sanitize: expand: {USAGE}\n")
        return 2
    source, cut_id = argv
    try:
        with open(source, "rb") as fh:
            text = fh.read().decode("utf-8", errors="surrogateescape")
        found = parse(text, source).expand(cut_id)
    except OSError as exc:
        stderr.write(f"sanitize: {source}: cannot read: {reason(exc)}\n")
        return 1
    except InputError as exc:
        stderr.write(f"sanitize: {exc}\n")
        return 1
    except KeyError as exc:
        stderr.write(f"sanitize: {exc.args[0]}\n")
        return 1
    try:
        stdout.flush()
        stdout.buffer.write(to_bytes(found))
        stdout.buffer.flush()
    except OSError as exc:
        stderr.write(f"sanitize: <stdout>: cannot write: {reason(exc)}\n")
        return 1
    return 0
