"""Credentials and duplicate keys in a JSON text itself: damaged lines, and what `json` drops.

A damaged line (not valid JSON) is copied through unchanged, so its credentials are redacted in
its raw text, every other byte kept.  A duplicate key keeps only its last value in the parsed
record, while the raw line (written back for an untouched record) still holds the others: such
a record is written from its parsed value, and the report warns with file:line.  Duplicates are
looked for cheaply: a line is parsed again (with `object_pairs_hook`) only when it spells more
keys than its parsed value holds.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

import regex

from sanitizer.model import Damaged, Document, Problem
from sanitizer.secrets import scan as _secrets
from sanitizer.textkit.lazy import lazy_pattern

# A JSON string literal (the last one of a damaged line may be unterminated).
_STRING = lazy_pattern(r'"(?:[^"\\]|\\.)*+"?', regex.S)


def strings(node: Any, out: list[str]) -> None:
    """Append every string of a JSON-like tree to `out` (dict keys too)."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, str):
            out.append(n)
        elif isinstance(n, dict):
            out.extend(k for k in n if isinstance(k, str))
            stack.extend(n.values())
        elif isinstance(n, list | tuple):
            stack.extend(n)


def redact_damaged(raw: str) -> tuple[str, list[str]]:
    """A damaged line with its credentials redacted and every other byte kept.

    The raw text is scanned as it is; then each JSON string literal holding an escape is decoded
    and scanned again (an escaped quote or `\\u` escape can hide a value from the raw scan), and
    only a literal with a finding there is written again, from its redacted decoded text.
    """
    return redact_damaged_many([raw])[0]


def redact_damaged_many(raws: Sequence[str]) -> list[tuple[str, list[str]]]:
    """`[redact_damaged(raw) for raw in raws]`: the lines, then their decoded literals, each
    scanned in one batch (`redact_many`) rather than a scan a text."""
    out = _secrets.redact_many(raws)
    # (line, where the literal's body starts, its length, its decoded text)
    literals = [(i, *found) for i, (new, _) in enumerate(out) for found in escaped_literals(new)]
    pieces: dict[int, list[str]] = {}
    pos: dict[int, int] = {}
    for (i, start, size, decoded), (red, more) in zip(literals, _secrets.redact_many([d for *_, d in literals]),
                                                      strict=True):
        if not more or red == decoded:
            continue
        new, removed = out[i]
        pieces.setdefault(i, []).extend((new[pos.get(i, 0):start], json.dumps(red, ensure_ascii=False)[1:-1]))
        pos[i] = start + size
        out[i] = (new, removed + more)
    for i, done in pieces.items():
        new, removed = out[i]
        out[i] = ("".join([*done, new[pos[i]:]]), removed)
    return out


def escaped_literals(text: str) -> Iterator[tuple[int, int, str]]:
    """Each JSON string literal of `text` holding an escape (the last one may be unterminated):
    where its body starts, the body's length and its decoded text."""
    if "\\" not in text:
        return
    for m in _STRING.finditer(text):
        literal = m.group()
        closed = len(literal) > 1 and literal.endswith('"') and not _odd_backslashes(literal)
        body = literal[1:-1] if closed else literal[1:]
        if "\\" not in body:
            continue
        try:
            decoded = json.loads('"' + body.rstrip("\\") + '"')
        except ValueError:
            continue
        yield m.start() + 1, len(body), decoded


def _odd_backslashes(literal: str) -> bool:
    """True when the closing `"` of `literal` is itself escaped (the literal is unterminated)."""
    n = len(literal) - 1 - len(literal[:-1].rstrip("\\"))
    return n % 2 == 1


def raw_keys(raw: str) -> int:
    """The keys a JSON text spells (`"…":`), never more than it holds: `":` inside a string is `\\":`."""
    return raw.count('":') - raw.count('\\":')


def more_keys(raw: str, parsed: int) -> bool:
    """True when `raw` spells more keys than its parsed value holds (`raw_keys(raw) > parsed`),
    counting the escaped ones only when the plain count leaves the question open."""
    spelled = raw.count('":')
    return spelled > parsed and spelled - raw.count('\\":') > parsed


def duplicates(doc: Document, counts: list[int]) -> None:
    """Warn about duplicate keys (file:line); the record is then written from its parsed value."""
    if doc.raw_lines is not None and doc.container == "jsonl":
        for i, raw in enumerate(doc.raw_lines[:len(doc.records)]):
            if not isinstance(doc.records[i], Damaged) and more_keys(raw, counts[i]):
                dups = _duplicate_keys(raw)
                for key, values in dups:
                    doc.problems.append(Problem(doc.source, doc.line_of(i), _duplicate_message(key, values)))
                if dups:
                    doc.dirty.add(i)
    elif doc.raw_text is not None and more_keys(doc.raw_text, sum(counts)):
        dups = _duplicate_keys(doc.raw_text)
        for key, values in dups:
            doc.problems.append(Problem(doc.source, _line_of_second(doc.raw_text, key),
                                        _duplicate_message(key, values)))
        if dups and doc.records:
            doc.dirty.add(0)


def _duplicate_keys(raw: str) -> list[tuple[str, list[Any]]]:
    found: list[tuple[str, list[Any]]] = []

    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        obj = dict(pairs)
        if len(obj) != len(pairs):
            seen: dict[str, list[Any]] = {}
            for k, v in pairs:
                seen.setdefault(k, []).append(v)
            found.extend((k, vs) for k, vs in seen.items() if len(vs) > 1)
        return obj

    try:
        json.loads(raw, object_pairs_hook=hook)
    except ValueError:
        return []
    return found


def _duplicate_message(key: str, values: list[Any]) -> str:
    dropped: list[str] = []
    for v in values[:-1]:
        strings(v, dropped)
    secret = any(removed for _, removed in _secrets.redact_many(dropped))
    name = _secrets.redact(key)[0]
    name = name if len(name) <= 60 else name[:57] + "..."
    note = "; a dropped value held a credential, which is not copied" if secret else ""
    return (f"duplicate key {json.dumps(name, ensure_ascii=False)} in one object: the last of its "
            f"{len(values)} values is kept, the record is written from it{note}")


def _line_of_second(text: str, key: str) -> int | None:
    token = json.dumps(key, ensure_ascii=False) + ":"
    first = text.find(token)
    second = text.find(token, first + 1) if first >= 0 else -1
    at = second if second >= 0 else first
    return text.count("\n", 0, at) + 1 if at >= 0 else None
