"""Cut markers: `…[trimmed 12,345 chars]…`, optionally carrying the id of their recoverable cut.

With `--cuts` (`Sanitizer(cut_ids=True)`) every marker and whole-part placeholder a run makes
names its cut: `…[trimmed 12,345 chars · c17]…`, `[image: image/png, 3 KB, sha256:… · c3]`, a
digest line ending in ` · c4`.  The recognisers here accept both forms, so a second run over an
output with ids changes nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

import regex

from sanitizer.textkit.lazy import lazy_pattern

# A marker may carry the id of its recoverable cut (`…[trimmed 12,345 chars · c17]…`, `--cuts`).
MARKER_RE = lazy_pattern(r"…\[trimmed ([0-9][0-9,]*) chars(?: · (c[0-9]+))?\]…")
_ID_TAIL_RE = lazy_pattern(r" · c[0-9]++(?=\]?\Z)")
# Digits of the largest cut id of the run under way (0: no ids).  Set only by `ids_of_width`,
# around one run, so a cut knows what its id will cost before it is made.
_ID_WIDTH: ContextVar[int] = ContextVar("cut_id_width", default=0)


@contextmanager
def ids_of_width(width: int) -> Iterator[None]:
    """Within this block, cuts are made as if each marker carried an id of `width` digits."""
    token = _ID_WIDTH.set(width)
    try:
        yield
    finally:
        _ID_WIDTH.reset(token)


def id_cost() -> int:
    """Chars the id adds to one marker in the run under way (` · c17`: 4 + digits), 0 without ids."""
    width = _ID_WIDTH.get()
    return 4 + width if width else 0


def marker(removed_chars: int) -> str:
    return f"…[trimmed {removed_chars:,} chars]…"


def tag_markers(text: str, cut_id: str, keep: dict[str, int] | None = None) -> tuple[str, int]:
    """`text` with `cut_id` added to each marker that has no id yet; (new text, markers tagged).

    `keep` counts markers (by their text) that were already in the original and stay as they
    were: a marker an earlier run left is not this cut's.
    """
    left = dict(keep or {})
    tagged = 0

    def add(m: regex.Match[str]) -> str:
        nonlocal tagged
        whole = m.group(0)
        if m.group(2) is not None:
            return whole
        if left.get(whole, 0) > 0:
            left[whole] -= 1
            return whole
        tagged += 1
        return f"{whole[:-2]} · {cut_id}]…"

    new = MARKER_RE.sub(add, text) if "…[trimmed " in text else text
    return new, tagged


def markers_in(text: str) -> dict[str, int]:
    """How often each marker without an id occurs in `text` (by its text)."""
    found: dict[str, int] = {}
    if "…[trimmed " in text:
        for m in MARKER_RE.finditer(text):
            if m.group(2) is None:
                found[m.group(0)] = found.get(m.group(0), 0) + 1
    return found


def with_cut_id(placeholder: str, cut_id: str) -> str:
    """A whole-part placeholder carrying its cut's id: `[image: … · c3]`, or `… · c3` at the end."""
    if placeholder.endswith("]"):
        return f"{placeholder[:-1]} · {cut_id}]"
    return f"{placeholder} · {cut_id}"


def without_cut_id(text: str) -> str:
    """`text` without the cut id `with_cut_id` added (what recognisers of placeholders compare)."""
    return _ID_TAIL_RE.sub("", text, count=1) if " · c" in text else text


def id_room(text: str, replace: bool = False) -> str:
    """Stand-in text for the ids a change to `text` will carry in the run under way ("" without
    ids): one per marker, or one for a whole-part placeholder (a replaced part, or a text opening
    with `[`, such as a digest, perhaps followed by kept `<key_info>` blocks).  A change must
    still shrink with them; one that gets no id (collapsed blank lines) needs no room."""
    width = _ID_WIDTH.get()
    if not width:
        return ""
    n = text.count("…[trimmed ")
    if not n and (replace or text.startswith("[")):
        n = 1
    return f" · c{'9' * width}" * n


def has_marker(text: str) -> bool:
    return MARKER_RE.search(text) is not None


def marker_count(text: str) -> int:
    """Original chars that `text` stands for: markers count as the chars they replaced."""
    total = len(text)
    for m in MARKER_RE.finditer(text):
        total += int(m.group(1).replace(",", "")) - (m.end() - m.start())
    return total
