"""Collecting the strings of JSON-like trees for one batched credential scan, and writing back.

`Walk` visits every node of a record (the guard) or of a decoded JSON text (tool arguments and
JSON tool outputs) and keeps what could hold a credential; `apply` scans it all in one batch and
writes each redaction in place.  A `"name": "value"` member whose name says secret is scanned as
that pair, so a NAME: value pattern sees the name.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterator, Sequence
from typing import Any

from sanitizer.secrets import scan as _secrets

LEAF_MIN_CHARS = 8  # no credential shape is shorter
KEY_MIN_CHARS = 16  # a dict key is scanned only from this length (keys are names, rarely values)
# A long ASCII string with no separator is a signature, an image or an encrypted blob (base64):
# never edited.  (What this can lose: a credential glued into such a string without a separator.)
OPAQUE_MIN_CHARS = 256
_SEPARATORS = (" ", "\n", ".", ":", '"', "@", "&", "%", "\\")
# A short plain string made only of these is an id, a hash, a timestamp or a word: no credential
# shape is, unless its key names a secret (then it is scanned as a pair).
INERT_MAX_CHARS = 64
# `apply` scans the collected strings this many at a time: the scan's results for all of them at
# once (a pair per string) come to about 14 MB for the 117 K strings of a 100 MB session.
APPLY_CHUNK = 16 * 1024
_HEXLIKE = "0123456789abcdef-:.TZ+"
_WORDLIKE = "abcdefghijklmnopqrstuvwxyz_-. "
# Dict keys whose string value is scanned as `"key": "value"`, so a NAME: value pattern sees the name.
_SECRET_WORDS = ("pass", "pwd", "secret", "token", "key", "auth", "cred", "sig", "cookie", "session")


_PLAIN, _NAMED, _LONG = 0, 1, 2  # a dict key: ordinary, names a secret, long enough to scan itself


def _key_kind(key: Any) -> int:
    if not isinstance(key, str):
        return _PLAIN
    low = key.lower()
    if any(w in low for w in _SECRET_WORDS):
        return _NAMED
    return _LONG if len(key) >= KEY_MIN_CHARS else _PLAIN


class Walk:
    """Collects the strings of records to scan; counts each record's keys (for duplicate keys).

    Written for speed (it visits every node of the input): one loop per container, type checks
    by identity, each distinct key classified once.
    """

    def __init__(self, leaves: dict[int, set[Any]], subtrees: dict[int, set[Any]]) -> None:
        self.leaves = leaves
        self.subtrees = subtrees
        self.kinds: dict[Any, int] = {}
        # (record, container, key, text scanned, prefix): prefix set for a `"key": "value"` pair,
        # None for a value, and key None for a dict key itself (container is then the dict).
        self.todo: list[tuple[int, Any, Any, str, str | None]] = []

    def record(self, index: int, records: list[Any]) -> int:
        leaves, subtrees, kinds, todo = self.leaves, self.subtrees, self.kinds, self.todo
        empty: set[Any] = set()
        keys = 0
        root = records[index]
        if type(root) is str:
            if index not in leaves.get(id(records), empty):
                self._leaf(index, records, index, root, _PLAIN)
            return 0
        stack: list[tuple[Any, bool]] = [(root, index not in subtrees.get(id(records), empty))]
        while stack:
            node, scan = stack.pop()
            skip = leaves.get(id(node), empty)
            deep = subtrees.get(id(node), empty)
            if type(node) is dict:
                keys += len(node)
                for k, v in node.items():
                    t = type(v)
                    if t is str:
                        if scan and k not in skip:
                            kind = kinds.get(k)
                            if kind is None:
                                kind = kinds[k] = _key_kind(k)
                            if kind == _PLAIN:  # the common case, inline: most values are short ids
                                n = len(v)
                                if n < LEAF_MIN_CHARS or n <= INERT_MAX_CHARS and not (
                                        v.strip(_HEXLIKE) and v.strip(_WORDLIKE)):
                                    continue
                                if n < OPAQUE_MIN_CHARS:
                                    todo.append((index, node, k, v, None))
                                    continue
                            elif kind == _LONG:
                                todo.append((index, node, None, k, None))
                            self._leaf(index, node, k, v, kind)
                    elif t is dict or t is list:
                        stack.append((v, scan and k not in deep))
            else:
                for i, v in enumerate(node):
                    t = type(v)
                    if t is str:
                        if scan and len(v) >= LEAF_MIN_CHARS and i not in skip:
                            self._leaf(index, node, i, v, _PLAIN)
                    elif t is dict or t is list:
                        stack.append((v, scan and i not in deep))
        return keys

    def _leaf(self, index: int, container: Any, key: Any, value: str, kind: int) -> None:
        if opaque(value):
            return
        if kind == _NAMED:
            prefix = f'"{key}": "'
            self.todo.append((index, container, key, f'{prefix}{value}"', prefix))
        elif len(value) >= LEAF_MIN_CHARS and (len(value) > INERT_MAX_CHARS or (
                value.strip(_HEXLIKE) and value.strip(_WORDLIKE))):
            self.todo.append((index, container, key, value, None))


def opaque(value: str) -> bool:
    """True for a string the guard never edits: long, ASCII, with no separator (an image, a
    signature, an encrypted blob)."""
    return len(value) >= OPAQUE_MIN_CHARS and value.isascii() and not any(c in value for c in _SEPARATORS)


def scannable_strings(node: Any, out: list[str]) -> None:
    """Append to `out` the strings of a parsed JSON tree that a scan could change: values of at
    least `LEAF_MIN_CHARS` (not `opaque`), keys of at least `KEY_MIN_CHARS` (one loop per
    container, types by identity: it visits every node)."""
    if type(node) is str:
        node = [node]
    elif type(node) is not dict and type(node) is not list:
        return  # a number, true, false or null
    stack = [node]
    while stack:
        n = stack.pop()
        if type(n) is dict:
            out.extend(k for k in n if type(k) is str and len(k) >= KEY_MIN_CHARS)
            values = n.values()
        else:
            values = n
        for v in values:
            t = type(v)
            if t is str:
                if len(v) >= LEAF_MIN_CHARS and not (len(v) >= OPAQUE_MIN_CHARS and opaque(v)):
                    out.append(v)
            elif t is dict or t is list:
                stack.append(v)


def apply(walk: Walk, clean: Collection[str] = ()) -> Iterator[tuple[int, Any, Any, str, str, list[str]]]:
    """Scan what `walk` collected (`APPLY_CHUNK` strings at a time, in their order) and write
    each redaction in place: (record, container, key, old, new, removed) for each.  A string in
    `clean` is known to hold no credential."""
    todo = walk.todo
    for start in range(0, len(todo), APPLY_CHUNK):
        chunk = todo[start:start + APPLY_CHUNK]
        yield from _apply_chunk(chunk, _secrets.redact_many([t for _, _, _, t, _ in chunk], clean))


def _apply_chunk(chunk: list[tuple[int, Any, Any, str, str | None]],
                 results: list[tuple[str, list[str]]]) -> Iterator[tuple[int, Any, Any, str, str, list[str]]]:
    for (index, container, key, text, prefix), (new, removed) in zip(chunk, results, strict=True):
        if not removed or new == text:
            continue
        if key is None:  # a dict key: renamed in place, order kept
            items = list(container.items())
            container.clear()
            container.update((new if k == text else k, v) for k, v in items)
            old, key = text, new
        else:
            old = container[key]
            if prefix is not None:
                new = new[len(prefix):-1] if new.startswith(prefix) and new.endswith('"') else _secrets.redact(old)[0]
            container[key] = new
        yield index, container, key, old, new, removed


def scanned_decoded(kind: str, text: str) -> bool:
    """True for a part text the redaction reads decoded (`redact_json_texts`): a tool call's
    arguments or a tool result holding an escape.  Every other text is scanned as it is."""
    return kind in ("tool_call", "tool_result") and "\\" in text


def redact_json_texts(texts: Sequence[str]) -> list[tuple[str, list[str]] | None]:
    """For each JSON text (tool arguments, a JSON tool output) holding an escape: the text with the
    credentials of its decoded strings redacted, and the removed values; None for any other text
    (scan that one as text).

    Scanned as text, an escape hides a value (`\\nghp_…`: the `n` joins the token; `\\"password\\":`);
    decoded, it does not, and a `"name": "value"` member is scanned as a pair, so the decoded scan
    finds what the text scan does.  Only a text with a backslash can differ.  A text with a finding
    is written again with the separators it used; the strings of all texts are scanned in one batch.
    """
    out: list[tuple[str, list[str]] | None] = [None] * len(texts)
    roots: list[Any] = []
    at: list[int] = []
    walk = Walk({}, {})
    for i, text in enumerate(texts):
        if "\\" not in text or text.lstrip()[:1] not in ("{", "["):
            continue
        try:
            roots.append(json.loads(text))
        except ValueError:
            continue
        at.append(i)
        out[i] = (text, [])
        walk.record(len(roots) - 1, roots)
    found: dict[int, list[str]] = {}
    for index, *_, removed in apply(walk):
        found.setdefault(index, []).extend(removed)
    for j, removed in found.items():
        text = texts[at[j]]
        compact = '": ' not in text and '", ' not in text
        out[at[j]] = (json.dumps(roots[j], ensure_ascii=False, separators=(",", ":") if compact else None), removed)
    return out


def redact_json_text(text: str) -> tuple[str, list[str]]:
    """`redact_json_texts` for one text; the text itself when it is not JSON with an escape."""
    return redact_json_texts([text])[0] or (text, [])
