"""What a tool output says: decoded text, exit code, line count, first error line.

The output half of the tool digests (`sanitizer.digest.calls` describes the call,
`sanitizer.digest.line` composes both); shared with the fallback summary.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import regex

from sanitizer.textkit import evidence
from sanitizer.textkit.keywords import KeywordPattern
from sanitizer.textkit.lazy import lazy_pattern
from sanitizer.textkit.snippets import clip, plural

ERROR_CHARS = 160
DECODE_LIMIT = 20_000_000  # never json-parse outputs beyond this size (they are counted as text)


@dataclass(frozen=True, slots=True)
class Decoded:
    """Tool output with JSON wrappers removed: `text` is what a human would read."""

    text: str
    exit_code: int | None = None
    is_error: bool | None = None


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a tool call went.

    exit_code: from the output (`Exit code 1`, `exit code: 1`, `<returncode>1</returncode>`,
    `[The command completed with exit code 1.]`, Codex `metadata.exit_code`), else None.
    lines / chars: of the decoded output.  failed: is_error, a non-zero exit code, or (no status)
    an output that starts like an error or, for a command, holds error evidence.  errors: the first
    distinct error lines (`textkit.evidence`) and error_count all of them; first_error: the first
    of them, else (failed) the first meaningful line.
    """

    exit_code: int | None
    lines: int
    chars: int
    failed: bool
    first_error: str | None = None
    errors: tuple[str, ...] = ()
    error_count: int = 0

    def summary(self) -> str:
        """`exit 1, 47 lines; first error: …` (what follows `->` in a digest line)."""
        bits = []
        if self.exit_code is not None:
            bits.append(f"exit {self.exit_code}")
        elif self.failed:
            bits.append("error")
        bits.append(plural(self.lines, "line") if self.lines else "no output")
        out = ", ".join(bits)
        if self.error_count > 1:
            shown = f", first {len(self.errors)}" if self.error_count > len(self.errors) else ""
            out += f"; {self.error_count} error lines{shown}: " + " | ".join(self.errors)
        elif (self.failed or self.errors) and self.first_error:
            out += "; first error: " + self.first_error
        return out


# ---------------------------------------------------------------------------------------------
# Outputs

_EXIT_PATTERNS = (
    lazy_pattern(r"<returncode>\s*(-?\d+)\s*</returncode>"),
    lazy_pattern(r"\A\s*Exit code:?\s+(-?\d+)\b", regex.IGNORECASE),
    lazy_pattern(r"^\[The command (?:completed|exited|failed|finished)?\s*with exit code (-?\d+)\b",
                  regex.MULTILINE | regex.IGNORECASE),
)
_EXIT_LOOSE = lazy_pattern(r"\b(?:exit(?:ed with)? code|exit status|returncode|return code)[:=]?\s+`?(-?\d+)\b",
                            regex.IGNORECASE)
# Every alternative starts with one of the literals: searched at `str.find` speed (`keywords`).
_ERROR_TOKEN = KeywordPattern(lazy_pattern(
    r"Traceback \(most recent call last\)|(?:Error|Exception)\b|(?<!\w)(?:FAILED|ERROR)\b|"
    r"(?<!\w)(?:error|fatal|panic)(?:\[\w+\])?:|npm ERR!|<tool_use_error>"
), ("Traceback (most recent call last)", "Error", "Exception", "FAILED", "ERROR", "error", "fatal", "panic",
    "npm ERR!", "<tool_use_error>"))
_FAILED_START = lazy_pattern(
    r"\A\s*(?:<tool_use_error>|Traceback \(most recent call last\)|(?:error|fatal|Error|ERROR|panic)(?:\[\w+\])?:|"
    r"tool call error|Command failed|failed in sandbox|\[Request interrupted)"
)
_EXCEPTION_LINE = lazy_pattern(r"(?m)^(?=\S)(?!Traceback|During handling|The above exception)[^\n]+")
_EXIT_LINE = lazy_pattern(r"\s*Exit code:?\s+-?\d+\s*$", regex.IGNORECASE)
_SPACES = lazy_pattern(r"\s+")
_CONTROL = lazy_pattern(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_TAGS = lazy_pattern(r"</?tool_use_error>")


def decode_output(output: Any) -> Decoded:
    """Unwrap JSON-encoded outputs: a JSON string, Codex `{"output", "metadata": {"exit_code"}}`,
    MCP `[{"type": "text", "text": …}]` or `{"content": [...], "isError": …}`, `{"stdout", "stderr"}`.
    Any other output (plain text, JSON data such as a tau-bench record) is returned as is."""
    if not isinstance(output, str):
        output = "" if output is None else json.dumps(output, ensure_ascii=False)
    s = output.strip()
    if not s or s[0] not in '{["' or len(s) > DECODE_LIMIT:
        return Decoded(output)
    try:
        value = json.loads(s)
    except (ValueError, RecursionError):
        return Decoded(output)
    if isinstance(value, str):
        return Decoded(value)
    if isinstance(value, list):
        texts = text_items(value)
        return Decoded("\n".join(texts)) if texts is not None else Decoded(output)
    if not isinstance(value, dict):
        return Decoded(output)
    meta = value.get("metadata") if isinstance(value.get("metadata"), dict) else {}
    code = as_int(first_present(meta, value, keys=("exit_code", "exitCode", "returncode", "return_code", "exit_status")))
    is_error = value.get("isError", value.get("is_error"))
    is_error = is_error if isinstance(is_error, bool) else None
    for k in ("output", "stdout", "text", "result", "content"):
        inner = value.get(k)
        if isinstance(inner, str):
            err = value.get("stderr")
            text = inner + ("\n" + err if isinstance(err, str) and err.strip() else "")
            return Decoded(text, code, is_error)
        if isinstance(inner, list) and (texts := text_items(inner)) is not None:
            return Decoded("\n".join(texts), code, is_error)
    return Decoded(output, code, is_error)


def text_items(items: list) -> list[str] | None:
    """Texts of a list of `{"text": …}` items, or None when the list is anything else."""
    if not items or not all(isinstance(i, dict) and isinstance(i.get("text"), str) for i in items):
        return None
    return [i["text"] for i in items]


def first_present(*dicts: dict, keys: tuple[str, ...]) -> Any:
    for d in dicts:
        for k in keys:
            if k in d and d[k] is not None:
                return d[k]
    return None


def as_int(v: Any) -> int | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, str) and regex.fullmatch(r"-?\d{1,12}", v.strip()):
        return int(v)
    return None


def exit_code_of(text: str) -> int | None:
    for pattern in _EXIT_PATTERNS:
        m = pattern.search(text)
        if m:
            return int(m.group(1))
    ends = (text,) if len(text) <= _LOOSE_CHARS else (text[:_LOOSE_CHARS], text[-_LOOSE_CHARS:])
    for chunk in ends:  # loose phrases only near the start or the end
        m = _loose_exit(chunk)
        if m:
            return int(m.group(1))
    return None


_LOOSE_CHARS = 300


def _loose_exit(chunk: str) -> regex.Match[str] | None:
    """`_EXIT_LOOSE.search(chunk)`, skipped where the chunk holds neither `exit` nor `return`, one
    of which every match holds (a search costs about 6 us a chunk, the check a tenth of that)."""
    return _EXIT_LOOSE.search(chunk) if evidence.may_say_exit(chunk) else None


def count_lines(text: str) -> int:
    if not text:
        return 0
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def outcome_of(output: Any, is_error: bool | None, verb: str) -> Outcome:
    """Exit code, size and error lines of a tool result; `verb` says what the call did.

    Error evidence in the text makes a command (`ran`, or a call of unknown kind) with no status
    a failure; a read or a search that worked shows content, not errors.
    `sanitizer.digest.line.outcome` passes the call's verb.
    """
    dec = decode_output(output)
    text = dec.text
    code = dec.exit_code if dec.exit_code is not None else exit_code_of(text)
    if is_error is None:
        is_error = dec.is_error
    found = evidence.find(text)
    if is_error is not None or code is not None:
        failed = bool(is_error) or (code is not None and code != 0)
        # A file read or a search that worked shows content, not errors.
        if not failed and verb not in ("ran", "called"):
            found = evidence.Evidence()
    else:
        failed = bool(_FAILED_START.search(text)) or (verb == "ran" and bool(found))
    first = found.lines[0] if found.lines else (first_error(text) if failed else None)
    return Outcome(code, count_lines(text), len(text), failed, first, found.lines, found.count)


def first_error(text: str) -> str | None:
    """The first error-looking line (a Traceback points at its exception line), else the first
    meaningful line; cleaned (ANSI codes, pytest `E ` prefix, runs of spaces) and cut at 160 chars."""
    line = ""
    m = _ERROR_TOKEN.search(text)
    if m:
        line = line_at(text, m.start())
        if m.group(0).startswith("Traceback"):
            tail = _EXCEPTION_LINE.search(text, pos=m.end())
            if tail:
                line = tail.group(0)
    if not clean(line):
        for candidate in text.split("\n", 20)[:20]:
            if clean(candidate) and not _EXIT_LINE.match(candidate):
                line = candidate
                break
    return clean(line) or None


def line_at(text: str, at: int) -> str:
    start = text.rfind("\n", 0, at) + 1
    end = text.find("\n", at)
    return text[start : end if end != -1 else len(text)]


def clean(line: str) -> str:
    line = _CONTROL.sub("", _TAGS.sub("", evidence.ANSI_CSI.sub("", line[: ERROR_CHARS * 8])))
    line = _SPACES.sub(" ", line).strip()
    line = regex.sub(r"^E (?=\S)", "", line)
    return clip(line, ERROR_CHARS, words=False)
