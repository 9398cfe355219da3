"""Head+tail cuts with self-describing markers that never cut through a protected span.

`cut_middle` is the one place where text is shortened in the middle: every action that trims
uses it, so the marker format, the protected spans and the idempotence rule live here.

Truncation contract (DESIGN.md §3):

* A cut keeps a head and a tail and leaves `…[trimmed 12,345 chars]…` where text was removed.
  The number counts *original* chars: when a removed stretch already holds markers, their counts
  are added up instead of counting the marker text, so repeated cuts stay truthful.
* Cut points move *outward* (more text kept) until they are outside every protected span:
  URLs, file paths, inline code, `--flags`, tags (`<name …>`), existing markers and other rules'
  placeholders (`[REDACTED:<kind>:<fp>]`, `[image: …]`, `[removed …]`), error lines (lines with `Error`,
  `Exception`, `Traceback`, `FAILED`, `exit code`; the whole line with its newlines), blocks of
  the protected tags (`<key_info>` always; an unclosed one reaches the end of the text), extra
  "atomic" tag blocks, a grapheme cluster (`regex` `\\X`, which also keeps `\\r\\n` whole) and a
  UTF-16 surrogate pair.  Python strings index code points, so a multi-byte UTF-8 char is never
  split.
* Inside the removed middle, protected-tag blocks are kept verbatim, and so are up to
  `error_lines` error lines (the first half and the last half of them): the result then reads
  `head …[trimmed]… kept …[trimmed]… tail`.
* Spans longer than `MAX_SPAN` chars (URLs, paths, code, flags, error lines) are not protected:
  a 20 MB minified line that mentions "Error" must still be cuttable.  Protected-tag blocks have
  no limit.
* Idempotent: cutting the output again with the same numbers changes nothing (returns None),
  because the cut points land in the same places and every gap left is exactly one marker.
* Linear: protected tags are found with one linear tag scan; every other span is looked for in
  a window of about `2 * MAX_SPAN` chars around each cut point, and error lines in the middle
  with one forward keyword search.
"""

from __future__ import annotations

import bisect
from collections.abc import Collection

import regex

from sanitizer.textkit import tags as _tags
from sanitizer.textkit.keywords import KeywordPattern, Scanner
from sanitizer.textkit.lazy import lazy_pattern
from sanitizer.textkit.markers import MARKER_RE, has_marker, id_cost, marker, marker_count
from sanitizer.textkit.salient import SALIENT_LINES, SALIENT_MIN_MIDDLE, middle_lines
from sanitizer.textkit.tags import ALWAYS_PROTECTED

__all__ = ["MARKER_RE", "cut_middle", "has_marker", "marker", "marker_count", "split_kept_blocks"]

MAX_SPAN = 1000

ERROR_WORDS = ("Error", "Exception", "Traceback", "FAILED", "exit code")
ERROR = KeywordPattern(lazy_pattern("|".join(ERROR_WORDS)), ERROR_WORDS)

# Spans a cut point must not fall into.  No class accepts "…", so no span runs into a marker.
_ATOMIC_RE = lazy_pattern(
    r"""
      …\[trimmed\ [0-9][0-9,]*\ chars(?:\ ·\ c[0-9]+)?\]…                # an existing marker
    | (?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{1,15}+://[^\s<>"'`…]++    # URL
    | `[^`\n…]{1,500}+`                                                   # inline code
    | (?<![\w/.~-])(?:~|\.{1,2})?/[\w.@%+~-]++(?:/[\w.@%+~-]*+)*+         # absolute path
    | (?<![\w/.~-])[\w.~-]++(?:/[\w.@%+~-]++)++/?                         # relative path
    | (?<![\w\\])[A-Za-z]:\\[^\s"'<>|…]++                                 # Windows path
    | (?<![\w-])--[A-Za-z][\w-]*+(?:=[^\s`'"…]*+)?                        # --flag[=value]
    | </?[A-Za-z][\w:.-]{0,64}+(?:\s[^<>…]{0,500}+)?>                     # a tag like <tool_result>
    | \[(?:REDACTED|image|file|removed)[:\ ][^\]\n…]{0,200}+\]                # another rule's placeholder
    """,
    regex.VERBOSE,
)
_TAG = r"</?[A-Za-z][\w:.-]{0,64}+(?:\s[^<>…]{0,500}+)?>"
_TAG_RE = lazy_pattern(_TAG)
_TAG_REACH = 600  # a tag is at most 1 + 65 + 501 + 1 chars long
_CLUSTER_RE = lazy_pattern(r"\X")
_MAX_STEPS = 64


def cut_middle(
    text: str,
    head: int,
    tail: int,
    *,
    protected_tags: Collection[str] = ALWAYS_PROTECTED,
    atomic_tags: Collection[str] = (),
    error_lines: int = 5,
    salient_lines: int = SALIENT_LINES,
    cues: bool = False,
) -> tuple[str, str] | None:
    """Keep about `head` chars and `tail` chars, replace the middle by a marker.

    `protected_tags` blocks are never cut and are kept even inside the middle (`key_info` is
    always among them); closed `atomic_tags` blocks are never cut through but may be removed whole (an unclosed one has no
    known extent and is plain text here).  Up to `salient_lines` lines with URLs (and, with
    `cues`, constraint sentences: user text) in the middle are kept too (`textkit.salient`).
    Returns (new_text, removed_text), or None when nothing would be saved.
    """
    if head < 0 or tail < 0:
        raise ValueError("head and tail must be >= 0")
    n = len(text)
    if n <= head + tail:
        return None
    protected = _tags.spans(text, set(protected_tags) | ALWAYS_PROTECTED)
    atomic = [b.span for b in _tags.find_blocks(text, atomic_tags) if b.closed] if atomic_tags else []
    hard = _merge(protected + atomic)
    h = _snap(text, head, hard, forward=True)
    p = _snap(text, n - tail, hard, forward=False)
    if h >= p:
        return None
    keep = [(s, e) for s, e in protected if h <= s and e <= p]
    keep += _middle_error_lines(text, h, p, protected, error_lines)
    if salient_lines and marker_count(text[h:p]) >= SALIENT_MIN_MIDDLE:  # original chars: same on a second cut
        keep += middle_lines(text, h, p, protected, cues=cues, limit=salient_lines)
    pieces = [text[:h]]
    removed: list[str] = []
    pos = h
    for s, e in [*_merge(sorted(keep)), (p, n)]:
        if s > pos:
            pieces.append(_gap(text[pos:s], removed))
        if e > pos:
            pieces.append(text[max(s, pos):e])
            pos = e
    new = "".join(pieces)
    if len(new) >= n:
        return None
    return new, "".join(removed)


def _gap(gap: str, removed: list[str]) -> str:
    """The replacement of one removed stretch: a marker, or the stretch itself when that is shorter."""
    has = MARKER_RE.search(gap) is not None
    if has and (m := MARKER_RE.fullmatch(gap)) is not None and m.group(2) is not None:
        return gap  # exactly one marker with its cut id: a second run keeps it
    count = marker_count(gap) if has else len(gap)
    mark = marker(count)
    if not has and len(gap) <= len(mark) + id_cost():  # with --cuts the marker also carries an id
        return gap
    if gap != mark:
        removed.append(gap)
    return mark


def _merge(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for s, e in sorted(spans):
        if out and s <= out[-1][1]:
            if e > out[-1][1]:
                out[-1] = (out[-1][0], e)
        else:
            out.append((s, e))
    return out


def _snap(text: str, point: int, hard: list[tuple[int, int]], *, forward: bool) -> int:
    """Move `point` outward (right for a head cut, left for a tail cut) out of every protected span."""
    starts = [s for s, _ in hard]
    for _ in range(_MAX_STEPS):
        before = point
        for s, e in _spans_at(text, point, hard, starts):
            if s < point < e:
                point = e if forward else s
        if point == before:
            break
    return point


def _spans_at(text: str, p: int, hard: list[tuple[int, int]], starts: list[int]) -> list[tuple[int, int]]:
    """Protected spans that may contain position `p`."""
    n = len(text)
    out: list[tuple[int, int]] = []
    i = bisect.bisect_left(starts, p) - 1
    if i >= 0 and hard[i][1] > p:
        out.append(hard[i])
    # Only a tag may run over a line break, so the other spans are looked for on p's line (and
    # at most MAX_SPAN + 2 chars either side); a match that touches a window edge which is not a
    # line break may be a truncated span and is not trusted.
    lo, hi = max(0, p - MAX_SPAN - 2), min(n, p + MAX_SPAN + 2)
    ls = text.rfind("\n", lo, p) + 1
    le = text.find("\n", p, hi)
    cut_lo = ls == 0 and lo > 0
    cut_hi = le < 0 and hi < n
    lo, hi = (ls if ls else lo), (hi if le < 0 else le)
    for m in _ATOMIC_RE.finditer(text, lo, hi):
        s, e = m.span()
        if s >= p:
            break
        if e > p and e - s <= MAX_SPAN and not (s == lo and cut_lo) and not (e == hi and cut_hi):
            out.append((s, e))
    k = text.rfind("<", max(0, p - _TAG_REACH), p)
    if k >= 0 and (m := _TAG_RE.match(text, k)) is not None and m.end() > p:
        out.append(m.span())
    line = _error_line(text, p)
    if line is not None:
        out.append(line)
    if 0 < p < n:
        a, b = text[p - 1], text[p]
        if a < "\x80" and b < "\x80":
            if a == "\r" and b == "\n":  # the only ASCII pair that is one grapheme cluster
                out.append((p - 1, p + 1))
        else:
            for m in _CLUSTER_RE.finditer(text, max(0, p - 32), min(n, p + 32)):
                if m.end() > p:
                    if m.start() < p:
                        out.append(m.span())
                    break
            if "\ud800" <= a <= "\udbff" and "\udc00" <= b <= "\udfff":
                out.append((p - 1, p + 1))
    return out


def _error_line(text: str, p: int) -> tuple[int, int] | None:
    """The error line around `p` with its surrounding line breaks, if it is one and not too long."""
    n = len(text)
    lo = max(0, p - MAX_SPAN)
    ls = text.rfind("\n", lo, p) + 1
    if ls == 0 and lo > 0:
        return None
    hi = min(n, p + MAX_SPAN)
    le = text.find("\n", p, hi)
    if le < 0:
        if hi < n:
            return None
        le = n
    if le - ls > MAX_SPAN or ERROR.search(text, ls, le) is None:
        return None
    return _with_breaks(text, ls, le)


def _with_breaks(text: str, ls: int, le: int) -> tuple[int, int]:
    """Line [ls, le) widened to its preceding line break (`\\n` or `\\r\\n`) and its own `\\n`."""
    s = ls
    if ls > 0:
        s = ls - 2 if ls >= 2 and text[ls - 2] == "\r" else ls - 1
    return s, min(len(text), le + 1)


def _middle_error_lines(
    text: str, h: int, p: int, protected: list[tuple[int, int]], limit: int
) -> list[tuple[int, int]]:
    """Error lines lying wholly in [h, p) and outside protected blocks: the first and last few."""
    if limit <= 0:
        return []
    found: list[tuple[int, int]] = []
    starts = [s for s, _ in protected]
    scan = Scanner(ERROR, text, p)
    pos = h
    while True:
        m = scan.search(pos)
        if m is None:
            break
        k = m.start()
        ls = text.rfind("\n", max(h, k - MAX_SPAN), k) + 1
        le = text.find("\n", k, min(p, k + MAX_SPAN))
        if le < 0:
            break  # the line runs into the tail or is too long
        pos = le + 1
        if ls == 0 or ls <= h or le - ls > MAX_SPAN:
            continue
        i = bisect.bisect_right(starts, le) - 1
        if i >= 0 and protected[i][1] > ls:
            continue  # inside a protected block: kept with it
        s, e = _with_breaks(text, ls, le)
        found.append((max(s, h), min(e, p)))
    if len(found) > limit:
        first = limit // 2
        found = found[:first] + found[len(found) - (limit - first):]
    return found


def split_kept_blocks(text: str, names: frozenset[str] | set[str] = ALWAYS_PROTECTED) -> tuple[str, str]:
    """(body, suffix): `suffix` is the trailing run of protected blocks, each on its own line,
    that the engine appends when a whole-part replacement would have lost them.

    Actions that recognise their own output (digests, placeholders) look at `body`, so a
    replacement that kept a `<key_info>` block stays idempotent.
    """
    if not text.endswith(">"):
        return text, ""
    cut = len(text)
    for block in reversed(_tags.outermost(_tags.find_blocks(text, sorted(names)))):
        if not block.closed or block.end != cut or block.start == 0 or text[block.start - 1] != "\n":
            break
        cut = block.start - 1
    return text[:cut], text[cut:]
