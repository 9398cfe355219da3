"""The cuts sidecar: one JSON line per cut, written beside the copy, read back by `sanitize expand`.

    {"id": "c17", "rule": "trim-text", "rules": ["trim-text"], "record": 12, "line": 13,
     "path": ["message", "content", 0, "text"], "kind": "text", "text": "…the original…",
     "sha256": "…", "redacted": true}

`text` is the part's text before the rules, redacted (only the credential scan applied: what the
copy would hold with redaction alone) unless the caller asks for the secrets; `sha256` is the
hash of the UTF-8 bytes `sanitize expand` prints for it, so `sanitize expand S c17 | sha256sum`
checks it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sanitizer.cuts.ids import RecoverableCut
from sanitizer.errors import InputError
from sanitizer.secrets.scan import redact_many
from sanitizer.secrets.walk import redact_json_texts, scanned_decoded


def to_bytes(text: str) -> bytes:
    """The bytes a cut's text stands for: UTF-8, a byte the input could not decode given back as
    that byte (`surrogateescape`), any other lone surrogate as its `\\uXXXX` escape (as in the copy)."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        pass
    out = bytearray()
    for ch in text:
        code = ord(ch)
        if 0xD800 <= code <= 0xDFFF:
            out += bytes([code - 0xDC00]) if 0xDC80 <= code <= 0xDCFF else f"\\u{code:04x}".encode()
        else:
            out += ch.encode("utf-8")
    return bytes(out)


def digest(text: str) -> str:
    """The sha256 (hex) a sidecar line carries for `text`."""
    return hashlib.sha256(to_bytes(text)).hexdigest()


def redacted_texts(cuts: Sequence[RecoverableCut]) -> list[str]:
    """Each cut's text with its credentials redacted, as the redaction rule would (a JSON tool text
    holding an escape is scanned decoded, the rest as text; all in one batch)."""
    texts = [c.original for c in cuts]
    out: list[str | None] = [None] * len(texts)
    tools = [i for i, c in enumerate(cuts) if scanned_decoded(c.kind, c.original)]
    for i, done in zip(tools, redact_json_texts([texts[i] for i in tools]), strict=True):
        if done is not None:
            out[i] = done[0]
    rest = [i for i, t in enumerate(out) if t is None]
    for i, (clean, _found) in zip(rest, redact_many([texts[i] for i in rest]), strict=True):
        out[i] = clean
    return [t if t is not None else texts[i] for i, t in enumerate(out)]


def records(cuts: Sequence[RecoverableCut], *, include_secrets: bool = False) -> list[dict[str, Any]]:
    """The sidecar entries of `cuts`, in id order."""
    texts = [c.original for c in cuts] if include_secrets else redacted_texts(cuts)
    return [{"id": c.id, "rule": c.rules[0], "rules": list(c.rules), "record": c.record, "line": c.line,
             "path": list(c.path), "kind": c.kind, "text": text, "sha256": digest(text),
             "redacted": not include_secrets} for c, text in zip(cuts, texts, strict=True)]


def dumps(entries: Iterable[dict[str, Any]]) -> str:
    """JSONL text of sidecar entries (one per line; lone surrogates stay `\\uXXXX` escapes)."""
    return "".join(json.dumps(e, ensure_ascii=True) + "\n" for e in entries)


@dataclass(slots=True)
class Sidecar:
    """A sidecar read back: its entries by id, in file order."""

    source: str
    entries: dict[str, dict[str, Any]]

    def expand(self, cut_id: str) -> str:
        """The text of cut `cut_id`; KeyError (with the ids there are) when there is none."""
        try:
            return str(self.entries[cut_id]["text"])
        except KeyError:
            raise KeyError(f"{self.source}: no cut {cut_id!r} ({_ids_said(list(self.entries))})") from None


def _ids_said(ids: list[str]) -> str:
    if not ids:
        return "the file holds no cut"
    return f"ids {ids[0]}…{ids[-1]}" if len(ids) > 1 else f"the only id is {ids[0]}"


def parse(text: str, source: str) -> Sidecar:
    """Read sidecar JSONL; a line that is not a valid entry is an InputError `source:LINE: what`."""
    entries: dict[str, dict[str, Any]] = {}
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except ValueError as exc:
            raise InputError(f"{source}:{n}: not JSON ({exc.args[0].split(':')[0].lower()})") from None
        problem = _problem(entry)
        if problem is None and entry["id"] in entries:
            problem = f"id {entry['id']} appears twice"
        if problem is not None:
            raise InputError(f"{source}:{n}: {problem}")
        entries[entry["id"]] = entry
    return Sidecar(source, entries)


def _problem(entry: Any) -> str | None:
    """What is wrong with one parsed sidecar line, or None."""
    if not isinstance(entry, dict):
        return f"expected a JSON object, got {type(entry).__name__}"
    missing = [k for k in ("id", "text", "sha256") if k not in entry]
    if missing:
        return f"missing key {missing[0]!r}"
    if not isinstance(entry["id"], str) or not isinstance(entry["text"], str):
        return "'id' and 'text' must be strings"
    if entry["sha256"] != digest(entry["text"]):
        return f"the sha256 of cut {entry['id']} does not match its text (the file was edited or damaged)"
    return None
