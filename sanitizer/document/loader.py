"""Turn bytes or in-memory objects into a `Document`, and a `Document` back into text.

Damaged JSONL lines never stop the read: each becomes a `Damaged` record that is reported as
`file:line: reason` and copied to the output unchanged.  Untouched JSONL lines are written back
byte for byte from their original text.
"""

from __future__ import annotations

import json
import re
from typing import Any

from sanitizer.document import fastjson, json_numbers
from sanitizer.document.json_indent import dumps_indented
from sanitizer.errors import InputError
from sanitizer.model import Damaged, Document, Problem

# `\s` is `str.isspace` (what `str.strip` removes), so this finds what stripping would keep.
_NON_SPACE = re.compile(r"\S")




def copy_tree(node: Any) -> Any:
    """Deep copy of a JSON-like tree (dict/list/scalars); much faster than copy.deepcopy."""
    if isinstance(node, dict):
        return {k: copy_tree(v) for k, v in node.items()}
    if isinstance(node, list | tuple):
        return [copy_tree(v) for v in node]
    return node


def from_object(obj: Any, source: str = "<memory>") -> Document:
    """A document over a private deep copy of `obj` (the caller's objects are never touched)."""
    if isinstance(obj, list | tuple):
        return Document(records=[copy_tree(r) for r in obj], container="json-list", source=source)
    if isinstance(obj, dict):
        return Document(records=[copy_tree(obj)], container="json-object", source=source)
    raise InputError(f"{source}: expected a list of messages or a JSON object, got {type(obj).__name__}")


def from_text(text: str, source: str = "<input>") -> Document:
    """Parse JSON (a list or an object) or JSONL text into a document."""
    # Positions instead of stripped copies: a big text is not copied to look at its edges.
    first = _NON_SPACE.search(text)
    if first is None:
        return Document(records=[], container="jsonl", source=source, raw_lines=[], trailing_newline=False)
    start = first.start()
    lead = text[start]
    first_line_end = text.find("\n", start)
    single_line = first_line_end == -1 or _NON_SPACE.search(text, first_line_end) is None
    looks_jsonl = source.endswith(".jsonl") and lead != "["
    if lead in "[{" and (not looks_jsonl or single_line and lead == "["):
        try:
            value = _decode(text)  # non-finite numbers kept as written (json_numbers)
        except json.JSONDecodeError as exc:
            if lead == "[" or single_line:
                raise InputError(f"{source}:{exc.lineno}: not valid JSON: {exc.msg} (column {exc.colno})") from exc
        else:
            doc = from_value(value, source)
            doc.indent = _indent_of(text)
            doc.raw_text = text
            return doc
    return _from_jsonl(text, source)


def from_value(value: Any, source: str) -> Document:
    if isinstance(value, list):
        return Document(records=value, container="json-list", source=source)
    return Document(records=[value], container="json-object", source=source)


def _from_jsonl(text: str, source: str) -> Document:
    lines = text.split("\n")
    trailing = text.endswith("\n")
    if trailing:
        lines.pop()
    records: list[Any] = []
    problems: list[Problem] = []
    parse = parse_line if len(text) >= ORJSON_MIN_CHARS else parse_line_stdlib
    for number, line in enumerate(lines, start=1):
        record, problem = parse(line, number, source)
        records.append(record)
        if problem is not None:
            problems.append(problem)
    return Document(records=records, container="jsonl", source=source, lines=list(range(1, len(lines) + 1)),
                    raw_lines=lines, problems=problems, trailing_newline=trailing)


_decode = json_numbers.decoder.decode
# A whole JSONL text this long or longer is read with orjson where it can (`fastjson`): on a
# shorter one the gain was within noise (0.99x; again on 0.8-2.1 MB sessions with orjson at hand,
# once its guards run), and in a bare process orjson's import is 20 ms of the run.
ORJSON_MIN_CHARS = 4 * 1024 * 1024


def parse_line(line: str, number: int, source: str) -> tuple[Any, Problem | None]:
    """The record of one JSONL line (without its `\\n`), or a `Damaged` one and its problem."""
    body = line[:-1] if line.endswith("\r") else line
    if not body.strip():
        return Damaged(number, line, "blank line"), None
    value = fastjson.loads(body)
    if value is not fastjson.MISS:
        return value, None
    return _parse_stdlib(line, body, number, source)


def parse_line_stdlib(line: str, number: int, source: str) -> tuple[Any, Problem | None]:
    """`parse_line` by `json` alone (for a caller that tried orjson itself)."""
    body = line[:-1] if line.endswith("\r") else line
    if not body.strip():
        return Damaged(number, line, "blank line"), None
    return _parse_stdlib(line, body, number, source)


def _parse_stdlib(line: str, body: str, number: int, source: str) -> tuple[Any, Problem | None]:
    try:
        return _decode(body), None
    except json.JSONDecodeError as exc:
        reason = f"not valid JSON ({exc.msg} at column {exc.colno}); copied through unchanged"
        return Damaged(number, line, reason), Problem(source, number, reason)
    except RecursionError:  # Python's JSON reader recurses once per level of nesting
        reason = "JSON nested too deep to read (about 1,000 levels); copied through unchanged"
        return Damaged(number, line, reason), Problem(source, number, reason)


def from_line(line: str, number: int, source: str = "<input>") -> Document:
    """A one-record JSONL document for line `number` of a stream (for line-by-line processing).

    `to_text` of it gives the line's output without a line break.
    """
    record, problem = parse_line(line, number, source)
    return Document(records=[record], container="jsonl", source=source, lines=[number], raw_lines=[line],
                    problems=[problem] if problem else [], trailing_newline=False)


def _indent_of(text: str) -> int | None:
    """2 or 4 when the JSON text was pretty-printed with that indent, else None (compact)."""
    nl = text.find("\n")
    if nl == -1 or nl > 200_000:
        return None
    rest = text[nl + 1 : nl + 40]
    width = len(rest) - len(rest.lstrip(" "))
    return width or None


def _dumps(value: Any, indent: int | None = None, read: bool = False, **kw: Any) -> str:
    """JSON text with non-ASCII kept as is, unless the value holds lone surrogates (then escaped).
    `read`: the value's numbers were read by `json_numbers.decoder` (orjson may write it)."""
    if read and indent == 2 and (fast := fastjson.dumps_indent2(value)) is not None:
        return fast  # orjson takes no lone surrogate and no RawNumber: nothing below would change it

    def dump(ensure_ascii: bool) -> str:
        if indent is not None:  # json.dumps's own indenting is slow: the same text, faster
            return json_numbers.dumps(lambda v: dumps_indented(v, indent, ensure_ascii=ensure_ascii), value)
        return json_numbers.dumps(lambda v: json.dumps(v, ensure_ascii=ensure_ascii, **kw), value)

    text = dump(False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = dump(True)
    return text


def dumps_value(value: Any, indent: int | None = None) -> str:
    """JSON text of `value` as the writer makes it (lone surrogates escaped, non-finite numbers
    as they were read)."""
    return _dumps(value, indent=indent)


def dumps_record(record: Any, read: bool = False) -> str:
    """A JSONL record's line.  `read`: its numbers were read from text (orjson may write it,
    where it is cheap to use)."""
    if read and fastjson.cheap() and (fast := fastjson.dumps_compact(record)) is not None:
        return fast  # orjson takes no lone surrogate and no RawNumber: nothing below would change it
    return _dumps(record, separators=(",", ":"))


def to_text(doc: Document) -> str:
    """Serialize a document in its own container layout."""
    if doc.container == "jsonl":
        out = []
        raw = doc.raw_lines or []
        for i, record in enumerate(doc.records):
            if isinstance(record, Damaged):
                out.append(record.raw)
            elif i in doc.dirty or i >= len(raw):
                out.append(dumps_record(record, read=i < len(raw)))
            else:
                out.append(raw[i])
        if doc.trailing_newline and out:
            out.append("")  # the final line break comes from the join: no second copy of the text
        return "\n".join(out)
    if not doc.dirty and doc.raw_text is not None:
        return doc.raw_text
    value = doc.records if doc.container == "json-list" else doc.records[0]
    return _dumps(value, indent=doc.indent, read=doc.raw_text is not None) + "\n"


def to_object(doc: Document) -> Any:
    """The document's records in the shape the caller gave (a list or one object)."""
    if doc.container == "json-object":
        return doc.records[0]
    return [r.raw if isinstance(r, Damaged) else r for r in doc.records]
