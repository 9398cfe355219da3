"""Writing an output: atomically into a file, through a device in place, bytes that never fail to encode.

The reasons an output cannot be written are worded here once (`WriteError`), so that a worker
process and the parent report them the same way.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from sanitizer.document.writer import encode
from sanitizer.errors import WriteError

__all__ = ["WriteError", "atomic_output", "encode", "reason", "write_atomic", "write_failure", "write_in_place"]
from sanitizer import processes

_REASONS = {
    errno.ENOENT: "no such file",
    errno.EISDIR: "is a folder, not a file",
    errno.ELOOP: "symlink loop (too many levels of symbolic links)",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.EROFS: "read-only file system",
    errno.ENOSPC: "no space left on device",
    errno.EBADF: "not open (closed file descriptor)",
    errno.EPIPE: "the reader went away (broken pipe)",
}


def reason(exc: OSError) -> str:
    """A short lower-case reason for an OSError, without the file name."""
    return _REASONS.get(exc.errno or 0) or (exc.strerror or str(exc)).lower()


def write_failure(exc: OSError, target: str) -> WriteError:
    """The WriteError for `target` that `exc` stopped."""
    return WriteError(f"{target}: cannot write: {reason(exc)}")


def write_atomic(target: Path, data: bytes | Iterable[bytes]) -> None:
    """Write `data` (bytes, or pieces of them) via a temporary file in the same folder and rename
    (readers never see half a file); through a device, FIFO or `/dev/fd/N` in place
    (`atomic_output`).  A piece that fails to come (its input changed) leaves the target as it was."""
    try:
        with atomic_output(target) as write:
            for piece in [data] if isinstance(data, bytes) else data:
                write(piece)
    except OSError as exc:
        raise write_failure(exc, str(target)) from exc


_TEMP_FLAGS = (os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
               | getattr(os, "O_BINARY", 0))


def _mkstemp(folder: Path, prefix: str) -> tuple[int, str]:
    """`tempfile.mkstemp(prefix=prefix, dir=folder)`: a new file only this process opened (mode
    0600), named `prefix` and 12 random hex digits.  `tempfile` is not imported for it: with
    `shutil` and `random`, its import is 3 ms of every run that writes a file."""
    for _ in range(100):
        name = os.path.join(folder, prefix + os.urandom(6).hex())
        try:
            return os.open(name, _TEMP_FLAGS, 0o600), name
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no unused temporary file name", str(folder))


@contextmanager
def atomic_output(target: Path) -> Iterator[Callable[[bytes], object]]:
    """A `write` function for `target`: into a temporary file beside it, renamed onto it on success.

    Writing never destroys: a symlink is followed and its target is replaced (the link stays a
    link); anything that is not a regular file or a folder (a device, a FIFO, a socket,
    `/dev/stdout`, `/dev/fd/N`) is opened and written in place, never renamed over or unlinked.
    """
    place = write_in_place(target)
    if place:
        with open(target, "wb") as fh:
            yield fh.write
        return
    real = Path(os.path.realpath(target)) if target.is_symlink() else target
    real.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = _mkstemp(real.parent, f".{real.name}.")
    processes.track_temp(tmp)
    try:
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; a normal output file follows the umask
        with os.fdopen(fd, "wb", buffering=1024 * 1024) as fh:
            yield fh.write
        os.replace(tmp, real)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    finally:
        processes.untrack_temp(tmp)


def write_in_place(target: Path) -> bool:
    """True when `target` must be opened and written, not replaced: it exists (through its
    symlinks) and is not a regular file, or it names a file descriptor (`/dev/fd/N`, `/proc/…`)."""
    try:
        st = os.stat(target)
    except FileNotFoundError:
        return False
    if not stat.S_ISREG(st.st_mode):
        return True
    # `/dev/stdout` redirected to a file resolves to that file through /proc: the caller's shell
    # holds it open, so it is written through, as a redirection would be.
    real = os.path.realpath(target)
    return real.startswith(("/proc/", "/dev/")) or str(target).startswith(("/proc/", "/dev/"))


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
