"""Where any of a few literals occurs in a text, in one pass: the `[fast]` extra's hyperscan.

`Literals(words).starts(text)` gives the start of every occurrence of every word in `text`, in
order: one hyperscan scan of the text instead of a `str.find` per word (each a whole pass where
the word is absent).  It gives None wherever the caller must find them itself, with the same
result: hyperscan off (`SANITIZER_PLAIN`), not installed or busy (another thread scanning), a
text that is not ASCII (hyperscan counts bytes, not chars) or longer than `MAX_CHARS`.

The database is compiled (under a millisecond for a dozen words) on the first call after
hyperscan was imported by another part of the run (the credential scan's gate), or once the
texts offered reach `IMPORT_CHARS`: importing hyperscan costs about 5 ms, what a scan saves over
`str.find` on 1-2 M chars.
"""

from __future__ import annotations

import os
import sys
from typing import Any

__all__ = ["ENABLED", "Literals", "escape"]

ENABLED: bool = not os.environ.get("SANITIZER_PLAIN")
"""False when `SANITIZER_PLAIN` is set: every caller finds its words with `str.find`."""
IMPORT_CHARS = 1 << 21
# A longer text is left to the caller: its list of occurrences could hold a quarter of its chars
# (a 50 MB log of `error` lines), where `str.find` holds none.
MAX_CHARS = 1 << 20


def escape(literal: str) -> bytes:
    """A hyperscan expression matching exactly the UTF-8 bytes of `literal`."""
    return b"".join(b"\\x%02x" % b for b in literal.encode("utf-8"))


def _hyperscan_loaded() -> bool:
    """True once another part of the run has imported hyperscan (so its import is paid)."""
    return "hyperscan" in sys.modules


class Literals:
    """A fixed set of words, found in one scan of a text."""

    __slots__ = ("_db", "_failed", "_lengths", "_offered", "words")

    def __init__(self, words: tuple[str, ...]) -> None:
        self.words = words
        self._lengths = [len(w) for w in words]
        self._db: Any = None
        self._failed = False
        self._offered = 0

    def starts(self, text: str) -> list[int] | None:
        """Where each occurrence of each word starts in `text`, in order (overlapping ones too),
        or None where the caller is to find them itself."""
        if not ENABLED or self._failed or len(text) > MAX_CHARS or not text.isascii():
            return None
        db = self._db
        if db is None:
            self._offered += len(text)
            if not _hyperscan_loaded() and self._offered < IMPORT_CHARS:
                return None
            db = self._build()
            if db is None:
                return None
        found: list[int] = []
        lengths = self._lengths

        def hit(i: int, _start: int, end: int, _flags: int, _ctx: Any) -> int:
            found.append(end - lengths[i])
            return 0

        try:
            db.scan(text.encode(), match_event_handler=hit)
        except Exception:  # noqa: BLE001 - e.g. its scratch space in use by another thread: find them plainly
            return None
        found.sort()
        return found

    def _build(self) -> Any:
        try:
            import hyperscan

            db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
            expressions = [escape(w) for w in self.words]
            db.compile(expressions=expressions, ids=list(range(len(expressions))), elements=len(expressions),
                       flags=[0] * len(expressions))
        except Exception:  # noqa: BLE001 - not installed, or broken: the plain way from now on
            self._failed = True
            return None
        self._db = db
        return db
