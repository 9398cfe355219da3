"""A linear scanner for `<name attr=…>…</name>` blocks (a stack, never a backtracking regex).

Only the tag names asked for take part; every other `<…>` is plain text.  Names match
case-insensitively (`<Thinking>` opens a `thinking` block).  How damaged markup is treated:

* nesting: `<a><a></a></a>` gives two blocks; the inner one closes first.
* crossed tags: a close tag pops the stack down to the nearest open tag of its name; the open
  tags above it are left *unclosed* (`<a><b></a></b>`: `a` is closed, `b` is unclosed and the
  stray `</b>` is ignored), as an HTML parser would.
* unclosed tags: an open tag without its close is reported with ``closed=False`` and
  ``inner_end == end == len(text)`` (it "extends to the end of the text").  Callers decide:
  the editing actions leave unclosed blocks alone (we do not know where their content ends),
  while protection (`<key_info>`) treats an unclosed block as reaching the end of the text.
* stray close tags and self-closing tags (`<a/>`) are ignored.
* a tag must end with `>` within `MAX_TAG_CHARS` chars (quoted attribute values may contain
  `>`); otherwise it is text.

Cost: one pass of a literal-prefixed regex over the text, O(1) amortised stack work per tag, and
at most `MAX_TAG_CHARS` chars examined per candidate tag, so 10,000 unclosed tags or a 20 MB text
stay linear.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from typing import NamedTuple

from sanitizer.textkit.lazy import lazy_pattern

MAX_TAG_CHARS = 2048

# The rest of a tag after its name: attributes (quoted values may hold `>`), then `>`.
_TAG_TAIL = lazy_pattern(r"""(?:[^>"']|"[^"]{0,1024}+"|'[^']{0,1024}+'){0,2000}+>""")

# The tag whose blocks are protected whatever the config (`keep-tag` rules add more names).
ALWAYS_PROTECTED = frozenset({"key_info"})


class Block(NamedTuple):
    """One `<name …>inner</name>` occurrence: text[start:end] is the whole block, text[inner_start:inner_end] its inside."""

    name: str
    start: int
    inner_start: int
    inner_end: int
    end: int
    closed: bool = True
    depth: int = 0  # number of enclosing open blocks (of the scanned names) when it opened

    @property
    def span(self) -> tuple[int, int]:
        return self.start, self.end


def _pattern(names: Iterable[str]) -> re.Pattern[str]:
    # A plain literal alternation: the stdlib engine is faster here and cannot backtrack badly.
    alts = "|".join(sorted({re.escape(n.lower()) for n in names}, key=len, reverse=True))
    return re.compile(rf"<(/?)({alts})(?=[\s/>])", re.IGNORECASE)


def find_blocks(text: str, names: Collection[str]) -> list[Block]:
    """All blocks of the given tag names in `text`, ordered by start (see the module doc for damage)."""
    if not names or "<" not in text:
        return []
    pat = _PATTERNS.get(frozenset(n.lower() for n in names))
    if pat is None:
        pat = _pattern(names)
        if len(_PATTERNS) < 64:
            _PATTERNS[frozenset(n.lower() for n in names)] = pat
    out: list[Block] = []
    # stack entries: (name, start, inner_start, depth)
    stack: list[tuple[str, int, int, int]] = []
    open_count: dict[str, int] = {}
    n = len(text)
    for m in pat.finditer(text):
        start = m.start()
        tail = _TAG_TAIL.match(text, m.end(), min(n, start + MAX_TAG_CHARS))
        if tail is None:
            continue
        tag_end = tail.end()
        name = m.group(2).lower()
        if m.group(1):  # close tag
            if not open_count.get(name):
                continue  # stray close tag
            while stack:
                top_name, top_start, top_inner, top_depth = stack.pop()
                open_count[top_name] -= 1
                if top_name == name:
                    out.append(Block(name, top_start, top_inner, start, tag_end, True, top_depth))
                    break
                out.append(Block(top_name, top_start, top_inner, n, n, False, top_depth))
            continue
        if text[tag_end - 2] == "/":
            continue  # self-closing: no inside
        stack.append((name, start, tag_end, len(stack)))
        open_count[name] = open_count.get(name, 0) + 1
    for top_name, top_start, top_inner, top_depth in stack:
        out.append(Block(top_name, top_start, top_inner, n, n, False, top_depth))
    out.sort(key=_order)
    return out


def _order(b: Block) -> tuple[int, int]:
    return b.start, -b.end


_PATTERNS: dict[frozenset[str], re.Pattern[str]] = {}


def outermost(blocks: Iterable[Block]) -> list[Block]:
    """The blocks not contained in an earlier one (input ordered by start, as `find_blocks` returns)."""
    out: list[Block] = []
    reach = -1
    for b in blocks:
        if b.start >= reach:
            out.append(b)
            reach = b.end
    return out


def spans(text: str, names: Collection[str]) -> list[tuple[int, int]]:
    """Merged (start, end) ranges covered by blocks of `names`; unclosed blocks reach the end."""
    merged: list[tuple[int, int]] = []
    for b in find_blocks(text, names):
        if merged and b.start <= merged[-1][1]:
            if b.end > merged[-1][1]:
                merged[-1] = (merged[-1][0], b.end)
        else:
            merged.append((b.start, b.end))
    return merged


def without_blocks(text: str, names: Collection[str]) -> str:
    """`text` with the blocks of `names` taken out, and cut before one left open (then `…`).

    For quotes and clipped lines (a digest's first error line or target): a quote never shows
    part of a protected block; the engine appends the whole blocks a replacement lost.
    """
    if "<" not in text:
        return text
    out: list[str] = []
    pos = 0
    for b in outermost(find_blocks(text, names)):
        out.append(text[pos:b.start])
        pos = b.end
        if not b.closed:
            out.append("…")
            break
    out.append(text[pos:])
    return "".join(out)
