"""Error evidence in any output: the lines that say something went wrong, whatever the status.

One linear detector shared by the tool digest, the text cuts and the summary.  A line is error
evidence when it starts (after indentation, `+`, `>` or `|`) like an error record, or holds an
exception name followed by its message:

- exception lines (`ValueError: bad input`, `ModuleNotFoundError: …`, pytest `E   AssertionError`,
  `E   assert 4 == 3`), `KeyError: 'x'` inside a log line, Elixir/Erlang `** (RuntimeError) …`;
- `Error:` / `error:` / `fatal:` / `panic:` / `error[E0425]:` at line start, `npm ERR!`;
- pytest `FAILED …` / `ERROR …` lines;
- PowerShell error records (`+ CategoryInfo : ObjectNotFound: …`);
- compiler diagnostics (`src/a.c:41:17: error: …`, `App.cs(3,5): error CS1002: …`);
- non-zero exit statements (`exited with code 2`, `make: *** [all] Error 2`).

A Traceback header is evidence but not a line worth quoting: its exception line is.  Candidate
lines are found with `str.find` on a few literals (with the `[fast]` extra, all of them in one
hyperscan scan), so a text without errors is scanned at `find` speed and each line is tried at
most once; a long line is searched for an exception or exit statement only next to its literals.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator
from dataclasses import dataclass

import regex

from sanitizer.textkit.lazy import lazy_pattern
from sanitizer.textkit.occurrences import Literals

LINE_CHARS = 160
LIMIT = 5

_LITERALS = ("Error", "error", "ERROR", "Exception", "FAILED", "fatal", "panic", "ERR!", "CategoryInfo", "exit",
             "Exit", "status", "assert", "Traceback", "** (")
# Any occurrence of a literal marks its line as a candidate: every line the patterns below accept
# holds one of the literals.
_LINE = lazy_pattern(
    r"[ \t>|+]*+(?:"
    r"(?:E[ \t]++)?[\w.]{0,80}?(?:Error|Exception)(?::|[ \t]*+$)|"
    r"E[ \t]++assert\b|"
    r"\*\* \((?:[A-Z][\w.]*+|exit|throw)\)[ \t]|"
    r"(?:[Ee]rror|ERROR|fatal|FATAL|panic)(?:\[\w++\])?:|"
    r"(?:FAILED|ERROR)(?: (?!=)|$)|"
    r"npm ERR!|"
    r"CategoryInfo[ \t]*+:|"
    r"[\w./\\~-]++(?::\d++(?::\d++)?:|\(\d++(?:,\d++)?\):)[ \t]*+(?:fatal )?(?:error|Error)\b"
    r")"
)
# What `_INSIDE` finds inside a line: an exception name and its message, a non-zero exit
# statement, make's failure line.  Each match of the first holds `Error: ` or `Exception: ` (its
# start at most 61 chars before), and each of the second starts at `exit` or `return`.
_EXCEPTION = r"(?<![\w.])(?<!except )(?<!raise )(?<!class )[A-Z][\w.]{0,60}?(?:Error|Exception): \S"
_EXCEPTION_LITERALS = ("Error: ", "Exception: ")
_EXCEPTION_REACH = 61
_EXIT = r"(?i:\bexit(?:ed)?(?: with)? (?:code|status)|\breturn(?:ed)? code|\bexit status)[ :=]*+(?:[1-9]|-\d)"
_EXIT_LITERALS = ("exit", "return")
_MAKE = r"\*\*\* \[[^\]\n]*+\] Error \d"
_INSIDE = lazy_pattern("|".join((_EXCEPTION, _EXIT, _MAKE)))
_EXCEPTION_AT = lazy_pattern(_EXCEPTION)
_EXIT_AT = lazy_pattern(_EXIT)
_MAKE_AT = lazy_pattern(_MAKE)
_EXIT_FINDER = lazy_pattern(r"(?i:exit|return)")  # no occurrence of either overlaps another
# From this length, a line is searched next to those literals only: one search of a
# 27 K-char JSON line holding `return` cost 5 ms (three look-behinds tried at every char).
WINDOWED_CHARS = 512
# The status line a harness writes (`Exit code 1`) is read by the exit-code parser, not quoted.
_STATUS = lazy_pattern(r"[ \t]*+(?:Exit code:?[ \t]++-?\d++|\[[^\]\n]*?exit code -?\d++\.?\])[ \t]*+$",
                        regex.IGNORECASE)
_TRACEBACK = "Traceback (most recent call last)"
# A terminal colour/cursor escape (CSI): error lines are compared and quoted without them.
ANSI_CSI = lazy_pattern(r"\x1b\[[0-9;?]*+[ -/]*+[@-~]")
_NOISE = lazy_pattern(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]|</?tool_use_error>")
_SPACES = lazy_pattern(r"\s++")
_PREFIX = lazy_pattern(r"^(?:[+>|] ?)?E (?=\S)")


@dataclass(frozen=True, slots=True)
class Evidence:
    """The distinct error lines of a text (cleaned, first `limit`), how many there are, and whether
    a Traceback header was seen (evidence even when no line is quoted)."""

    lines: tuple[str, ...] = ()
    count: int = 0
    traceback: bool = False

    def __bool__(self) -> bool:
        return self.count > 0 or self.traceback


def clean_line(line: str) -> str:
    """One line as quoted: no ANSI codes or control characters, runs of spaces as one, no pytest
    `E ` prefix, cut at 160 chars."""
    line = _NOISE.sub("", ANSI_CSI.sub("", line[: LINE_CHARS * 8]))
    line = _PREFIX.sub("", _SPACES.sub(" ", line).strip())
    return line if len(line) <= LINE_CHARS else line[: LINE_CHARS - 1].rstrip() + "…"


def is_error_line(line: str) -> bool:
    """True when one line (no line break) is error evidence."""
    return _LINE.match(line) is not None or (_may_hold_inside(line) and _inside(line))


def _inside(line: str) -> bool:
    """`_INSIDE.search(line) is not None`; on a long line, each alternative is tried only where
    its literals are."""
    if len(line) < WINDOWED_CHARS:
        return _INSIDE.search(line) is not None
    for lit in _EXCEPTION_LITERALS:
        at = line.find(lit)
        while at >= 0:
            if _EXCEPTION_AT.search(line, max(0, at - _EXCEPTION_REACH), at + len(lit) + 1) is not None:
                return True
            at = line.find(lit, at + 1)
    return any(_EXIT_AT.match(line, at) is not None for at in _exit_starts(line)) or (
        "*** [" in line and _MAKE_AT.search(line) is not None)


def _exit_starts(line: str) -> Iterator[int]:
    """Where `exit` or `return` starts in `line`, in any case (as `(?i)` reads them: on ASCII
    text, where lowering keeps every place, by `str.find`)."""
    if not line.isascii():
        yield from (m.start() for m in _EXIT_FINDER.finditer(line))
        return
    low = line.lower()
    for lit in _EXIT_LITERALS:
        at = low.find(lit)
        while at >= 0:
            yield at
            at = low.find(lit, at + 1)


# Every `_INSIDE` match holds one of these, or (ignoring case) `exit` or `return`; the only
# non-ASCII chars that `(?i)` matches to one of those letters are the two Turkish i's.  A line
# with none of them skips the search (its look-behinds make it ~8 us a line).
_INSIDE_NEEDS = ("rror: ", "xception: ", "*** [")
_FOLDS_TO_I = ("\u0130", "\u0131")


def _may_hold_inside(line: str) -> bool:
    return any(n in line for n in _INSIDE_NEEDS) or may_say_exit(line)


def may_say_exit(text: str) -> bool:
    """False only where `text` holds neither `exit` nor `return` in any case, as `(?i)` reads
    them: a pattern whose every match holds one of them need not search it."""
    low = text.lower()
    return "exit" in low or "return" in low or (not text.isascii() and any(c in text for c in _FOLDS_TO_I))


# What a candidate line says: its cleaned quote, "" (no evidence) or `_TRACEBACK_LINE`.  Logs
# repeat their error lines (a PowerShell session: 3,565 candidates, 101 distinct), so each
# distinct line is judged once; the memo is bounded and the verdict depends on the line alone.
_TRACEBACK_LINE = "\n"  # never a cleaned line (those hold no line break)
_VERDICTS_MAX = 1 << 14
_verdicts: dict[str, str] = {}


def _verdict(line: str) -> str:
    if "\x1b" in line:
        line = ANSI_CSI.sub("", line)
    if _TRACEBACK in line:
        return _TRACEBACK_LINE
    if is_error_line(line) and not _STATUS.match(line):
        return clean_line(line)
    return ""


def find(text: str, limit: int = LIMIT) -> Evidence:
    """Error evidence of `text`: its first `limit` distinct error lines and their total count.

    Each line holding a literal is judged once, in order.  The literals are found in one scan
    where the `[fast]` extra can (`occurrences`), else with `str.find`: the next occurrence of
    every literal is kept in a heap, and found again only once the walk has passed it.
    """
    starts = _OCCURRENCES.starts(text)
    seen: dict[str, None] = {}
    traceback = False
    verdicts = _verdicts
    for start, end in (_heap_lines(text) if starts is None else _lines_at(text, starts)):
        line = text[start:end]
        verdict = verdicts.get(line)
        if verdict is None:
            if len(verdicts) >= _VERDICTS_MAX:
                verdicts.clear()
            verdict = verdicts[line] = _verdict(line)
        if verdict is _TRACEBACK_LINE:
            traceback = True
        elif verdict:
            seen.setdefault(verdict, None)
    if not seen and not traceback:
        return _NONE
    lines = tuple(seen)
    return Evidence(lines[:limit], len(lines), traceback)


_OCCURRENCES = Literals(_LITERALS)  # one scan finds them all: 2.5-3x as fast, from texts of 100 chars


def _heap_lines(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of each line holding a literal, in order, found with `str.find`."""
    heap = [(at, lit) for lit in _LITERALS if (at := text.find(lit)) >= 0]
    heapq.heapify(heap)
    size = len(text)
    pos = 0  # the start of the first line not yet given
    while heap:
        at, lit = heap[0]
        if at < pos:
            at = text.find(lit, pos)
            if at < 0:
                heapq.heappop(heap)
            else:
                heapq.heapreplace(heap, (at, lit))
            continue
        start = text.rfind("\n", pos, at) + 1 or pos
        end = text.find("\n", at)
        end = size if end < 0 else end
        yield start, end
        pos = end + 1


def _lines_at(text: str, starts: list[int]) -> Iterator[tuple[int, int]]:
    """The same lines, from the sorted starts of every literal's occurrences."""
    size = len(text)
    pos = 0
    for at in starts:
        if at < pos:
            continue
        start = text.rfind("\n", pos, at) + 1 or pos
        end = text.find("\n", at)
        end = size if end < 0 else end
        yield start, end
        pos = end + 1


_NONE = Evidence()
