"""Rule fixtures: named cases in TOML files, run through the real engine, for pytest or by hand.

A fixture file holds `[[case]]` tables.  A *part case* gives one text and where it sits:

    [[case]]
    name = "keeps_key_info_inside_trimmed_thinking"
    rule = { use = "trim-tag", max_chars = 40, head = 10, tail = 10 }   # or rules = [{...}, {...}]
    kind = "text"          # text | thinking | tool_call | tool_result | image (default text)
    role = "assistant"     # default: assistant (tool for tool_result)
    tool = "Bash"          # tool name for tool_call / tool_result cases
    args = '{"command": "pytest -q"}'   # the call's arguments, for tool_result cases
    signed = false         # thinking only: an Anthropic thinking block with a signature
    input = "..."
    expected = "..."       # the part's text afterwards (equal to input: must stay unchanged)

The part is placed in an old message of a small conversation (`keep_recent = 0`), between a first
user message and a latest user message, which stay protected.  A *conversation case* gives
`format`, `messages` (JSON text) and `expected_messages` (JSON text), plus optional `keep_recent`.

`sanitize rule-fixtures --update FILE…` rewrites the `expected` values in place from what the
rules produce now; review the result with `git diff` before committing (the command line's part,
arguments and what it prints, is `sanitizer.cli.fixtures`).
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sanitizer.formats.anthropic import Anthropic
from sanitizer.formats.openai_chat import OpenAIChat
from sanitizer.pipeline import Result, Sanitizer

FIRST_USER = "Please help with the task described below."
LATEST_USER = "Thanks. Continue with the next step."


@dataclass
class Case:
    file: Path
    name: str
    data: dict[str, Any]
    rules: list[dict[str, Any]] = field(default_factory=list)

    @property
    def id(self) -> str:
        return f"{self.file.stem}::{self.name}"

    @property
    def whole_conversation(self) -> bool:
        return "messages" in self.data


def load_cases(path: str | Path) -> list[Case]:
    """The cases of one fixture file, validated (names unique, a rule given, input present)."""
    path = Path(path)
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    cases = []
    seen: set[str] = set()
    for raw in data.get("case", []):
        name = raw.get("name")
        if not name or name in seen:
            raise ValueError(f"{path}: every case needs a unique name (got {name!r})")
        seen.add(name)
        rules = raw.get("rules") or ([raw["rule"]] if "rule" in raw else [])
        if not rules:
            raise ValueError(f"{path}: case {name!r}: give `rule = {{use = ...}}` or `rules = [...]`")
        if "messages" not in raw and "input" not in raw:
            raise ValueError(f"{path}: case {name!r}: give `input` (a part case) or `messages` (a conversation)")
        cases.append(Case(path, name, raw, [dict(r) for r in rules]))
    return cases


def fixture_files(root: str | Path) -> list[Path]:
    return sorted(Path(root).rglob("*.toml"))


def _sanitizer(case: Case) -> Sanitizer:
    config = {"extends": "none", "rule": case.rules}
    keep = int(case.data.get("keep_recent", 0))
    return Sanitizer("none", config=config, config_source=str(case.file), keep_recent=keep, count_tokens=False,
                     format=case.data.get("format"))


def _part_conversation(case: Case) -> tuple[Any, str]:
    d = case.data
    kind = d.get("kind", "text")
    text = d["input"]
    tool = d.get("tool", "tool")
    if kind == "thinking" and d.get("signed"):
        target = {"role": "assistant", "content": [{"type": "thinking", "thinking": text, "signature": "c2lnbmF0dXJl"},
                                                   {"type": "text", "text": "Done."}]}
        return [{"role": "user", "content": FIRST_USER}, target, {"role": "user", "content": LATEST_USER}], Anthropic.name
    if kind == "image":
        target = {"role": d.get("role", "user"), "content": [
            {"type": "text", "text": "See the screenshot."},
            {"type": "image_url", "image_url": {"url": f"data:{d.get('media_type', 'image/png')};base64,{text}"}}]}
        return [{"role": "user", "content": FIRST_USER}, target, {"role": "assistant", "content": "Noted."},
                {"role": "user", "content": LATEST_USER}], OpenAIChat.name
    messages: list[dict[str, Any]] = [{"role": "user", "content": FIRST_USER}]
    if kind == "thinking":
        messages.append({"role": "assistant", "content": "Working on it.", "reasoning_content": text})
    elif kind == "tool_call":
        messages.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": tool, "arguments": text}}]})
        messages.append({"role": "tool", "tool_call_id": "call_1", "name": tool, "content": "ok"})
    elif kind == "tool_result":
        messages.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": tool, "arguments": d.get("args", "{}")}}]})
        messages.append({"role": "tool", "tool_call_id": "call_1", "name": tool, "content": text})
    else:
        messages.append({"role": d.get("role", "assistant"), "content": text})
        messages.append({"role": "assistant", "content": "Noted."})
    messages.append({"role": "user", "content": LATEST_USER})
    return messages, OpenAIChat.name


def run_case(case: Case) -> tuple[Any, Result]:
    """(actual, result): the part's text afterwards, or the whole output for conversation cases."""
    san = _sanitizer(case)
    if case.whole_conversation:
        result = san.sanitize(json.loads(case.data["messages"]))
        return result.output, result
    messages, fmt = _part_conversation(case)
    san.format = fmt
    result = san.sanitize(messages)
    kind = case.data.get("kind", "text")
    view = result.views[0]
    if kind == "image":
        target = [p for p in view.parts if p.kind == "image" or p.meta.get("image")]
    else:
        target = [p for p in view.parts if p.message >= 1 and p.original == case.data["input"]
                  and (p.kind == kind or p.meta.get("replaced_kind") == kind)]
    if not target:
        raise AssertionError(f"{case.id}: the case's part was not found in the view")
    part = target[0]
    return ("" if part.dropped else part.text), result


def expected_of(case: Case) -> Any:
    if case.whole_conversation:
        return json.loads(case.data["expected_messages"])
    return case.data["expected"]


def check_case(case: Case) -> None:
    """Assert the case's expectation, then that running the rules again changes nothing."""
    actual, result = run_case(case)
    expected = expected_of(case)
    assert actual == expected, f"{case.id}: output differs from expected\n--- expected\n{expected}\n--- actual\n{actual}"
    again = _sanitizer(case)
    if case.whole_conversation:
        assert again.sanitize(result.output).output == result.output, f"{case.id}: a second run changed the output"
    else:
        again.format = result.adapter.name
        second = again.sanitize(result.output)
        assert second.output == result.output, f"{case.id}: a second run changed the output (not idempotent)"


# --- the update workflow ---------------------------------------------------------------------

_KEY_RE = re.compile(r'^(expected|expected_messages)\s*=\s*', re.M)


def _toml_string(value: str) -> str:
    """A readable multi-line literal where TOML allows one, else a basic (JSON-compatible) string."""
    literal_ok = "\n" in value and "'''" not in value and "\r" not in value
    if literal_ok and not re.search(r"[\x00-\x08\x0b-\x1f\x7f]", value):
        return "'''\n" + value + "'''"
    return json.dumps(value, ensure_ascii=False)


def _value_end(text: str, start: int) -> int:
    """End offset of the TOML string value starting at `start`."""
    for quote in ('"""', "'''"):
        if text.startswith(quote, start):
            end = text.index(quote, start + 3)
            while text.startswith(quote[0], end + 3):  # a quote right before the closing delimiter
                end += 1
            return end + 3
    if text[start] == "'":
        return text.index("'", start + 1) + 1
    i = start + 1
    while text[i] != '"':
        i += 2 if text[i] == "\\" else 1
    return i + 1


def update_file(path: str | Path) -> int:
    """Rewrite the expected values of every case in `path` that now differs; returns how many."""
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    changed = 0
    blocks = [m.start() for m in re.finditer(r"^\[\[case\]\]", text, re.M)] + [len(text)]
    cases = load_cases(path)
    out, last = [], 0
    for case, (start, end) in zip(cases, zip(blocks, blocks[1:], strict=False), strict=True):
        actual, _ = run_case(case)
        if actual == expected_of(case):
            continue
        key = "expected_messages" if case.whole_conversation else "expected"
        block = text[start:end]
        new_value = _toml_string(json.dumps(actual, ensure_ascii=False, indent=2) if case.whole_conversation else actual)
        m = next((m for m in _KEY_RE.finditer(block) if m.group(1) == key), None)
        if m is None:
            insert = f"{key} = {new_value}\n"
            out.append(text[last:end].rstrip("\n") + "\n" + insert + ("\n" if end < len(text) else ""))
        else:
            vstart = start + m.end()
            vend = _value_end(text, vstart)
            out.append(text[last:vstart] + new_value + text[vend:end])
        last = end
        changed += 1
    if changed:
        out.append(text[last:])
        path.write_text("".join(out), encoding="utf-8")
    return changed


def check_files(files: list[Path]) -> list[str]:
    """Check every case of `files`; the message of each case that fails (none: all pass)."""
    failures = []
    for f in files:
        for case in load_cases(f):
            try:
                check_case(case)
            except AssertionError as exc:
                failures.append(str(exc))
    return failures

