"""The redaction contract beyond the parts: every other string a record carries, damaged lines, duplicate keys.

`redact-secrets` scans the parts the rule selects.  The same-format copy also carries what a view
does not read as parts: Claude Code `toolUseResult`, Codex `event_msg` payloads, SWE-agent
`trajectory[]` entries, metadata fields, damaged lines, and a raw line that still holds the first
value of a duplicate key (`redaction_raw`).  `guard_document` runs before the rules, on every string of every record
that is neither a part nor a linked copy; `settle_copies` runs after the write, on the linked
copies no rule change reached (the engine redacts the others before it changes them, so a cut
never splits a secret in a copy).

A string at a part's path is left to the rule, so the copy, `--to text` and `--to messages` agree.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from . import secrets as _secrets
from .model import Damaged, Document, Path, Problem, View, get_at
from .redaction_raw import duplicates, redact_damaged, strings

if TYPE_CHECKING:
    from .config import Config
    from .engine import Cut, RuleStats

LEAF_MIN_CHARS = 8  # no credential shape is shorter
KEY_MIN_CHARS = 16  # a dict key is scanned only from this length (keys are names, rarely values)
# A long ASCII string with no separator is a signature, an image or an encrypted blob (base64):
# never edited.  (What this can lose: a credential glued into such a string without a separator.)
OPAQUE_MIN_CHARS = 512
_SEPARATORS = (" ", "\n", ".", ":", '"', "@", "&", "%", "\\")
# A short plain string made only of these is an id, a hash, a timestamp or a word: no credential
# shape is, unless its key names a secret (then it is scanned as a pair).
INERT_MAX_CHARS = 64
_HEXLIKE = "0123456789abcdef-:.TZ+"
_WORDLIKE = "abcdefghijklmnopqrstuvwxyz_-. "
# Dict keys whose string value is scanned as `"key": "value"`, so a NAME: value pattern sees the name.
_SECRET_WORDS = ("pass", "pwd", "secret", "token", "key", "auth", "cred", "sig", "cookie", "session")
_TEXT_KINDS = ("text", "thinking", "tool_result", "tool_call")


@dataclass(slots=True)
class Found:
    """One redaction outside the parts: where, and what was removed (for the report)."""

    record: int
    path: list[Any]
    old_chars: int
    new_chars: int
    removed: str


def rule_of(config: Config) -> str | None:
    """The name of the first active rule whose action redacts, or None when redaction is off."""
    return next((r.name for r in config.active if r.action.redacts), None)


def record(found: Sequence[Found], rule: str, doc: Document, stats: dict[str, RuleStats], cuts: list[Cut]) -> None:
    """Count redactions outside the parts as hits of `rule`, each with its provenance cut.

    They change no part, so the report's chars and tokens (what a summarizer reads) stay as
    they are.
    """
    if not found:
        return
    from .engine import Cut, RuleStats  # (the engine imports this module)

    st = stats.setdefault(rule, RuleStats())
    for f in found:
        st.hits += 1
        cuts.append(Cut(rule=rule, record=f.record, line=doc.line_of(f.record), path=f.path,
                        original_chars=f.old_chars, new_chars=f.new_chars, removed_chars=len(f.removed),
                        sha256=hashlib.sha256(f.removed.encode("utf-8", "surrogatepass")).hexdigest()))


def redact_text(text: str) -> str:
    """`text` with every credential replaced by its marker."""
    return _secrets.redact(text)[0]


def redact_tree(node: Any) -> Any:
    """A copy of a JSON-like tree (dicts, lists, strings) with every string redacted (keys too)."""
    leaves: list[str] = []
    strings(node, leaves)
    done = dict(zip(leaves, (t for t, _ in _secrets.redact_many(leaves)), strict=True))

    def build(n: Any) -> Any:
        if isinstance(n, str):
            return done.get(n, n)
        if isinstance(n, dict):
            return {done.get(k, k) if isinstance(k, str) else k: build(v) for k, v in n.items()}
        if isinstance(n, list | tuple):
            return [build(v) for v in n]
        return n

    return build(node)


def _settled(doc: Document, views: Iterable[View]) -> tuple[dict[int, set[Any]], dict[int, set[Any]]]:
    """(leaves, subtrees) the parts settle, as `id(container) -> keys` (identity: no path per leaf)."""
    leaves: dict[int, set[Any]] = {}
    subtrees: dict[int, set[Any]] = {}

    def mark(into: dict[int, set[Any]], record: int, path: Path) -> None:
        try:
            parent = doc.records if not path else get_at(doc.records[record], path[:-1])
        except (KeyError, IndexError, TypeError):
            return
        into.setdefault(id(parent), set()).add(path[-1] if path else record)

    for view in views:
        for p in view.parts:
            if p.kind == "image" or (p.kind == "tool_call" and p.meta.get("args_object")
                                     and not p.meta.get("merge_args")):
                mark(subtrees, p.record, p.path)
            elif p.kind in _TEXT_KINDS:
                mark(leaves, p.record, p.path)
            for record, path in p.copies:  # see `settle_copies`
                mark(leaves, record, path)
    return leaves, subtrees


def follows(copy: Any, text: str) -> bool:
    """True when a linked copy holds a credential only where its part does: it equals the part's
    text up to surrounding whitespace, or is a stretch of it between whitespace."""
    if not isinstance(copy, str):
        return False
    if copy == text or copy.strip() == text.strip():
        return True
    at = text.find(copy) if len(copy) < len(text) else -1
    if at < 0:
        return False
    end = at + len(copy)
    return (at == 0 or text[at - 1].isspace()) and (end == len(text) or text[end].isspace())


def _value(doc: Document, record: int, path: Path) -> Any:
    try:
        return doc.get(record, path)
    except (KeyError, IndexError, TypeError):
        return None


_PLAIN, _NAMED, _LONG = 0, 1, 2  # a dict key: ordinary, names a secret, long enough to scan itself


def _key_kind(key: Any) -> int:
    if not isinstance(key, str):
        return _PLAIN
    low = key.lower()
    if any(w in low for w in _SECRET_WORDS):
        return _NAMED
    return _LONG if len(key) >= KEY_MIN_CHARS else _PLAIN


class _Walk:
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
        if len(value) >= OPAQUE_MIN_CHARS and value.isascii() and not any(c in value for c in _SEPARATORS):
            return
        if kind == _NAMED:
            prefix = f'"{key}": "'
            self.todo.append((index, container, key, f'{prefix}{value}"', prefix))
        elif len(value) >= LEAF_MIN_CHARS and (len(value) > INERT_MAX_CHARS or (
                value.strip(_HEXLIKE) and value.strip(_WORDLIKE))):
            self.todo.append((index, container, key, value, None))


def guard_document(doc: Document, views: Sequence[View]) -> list[Found]:
    """Redact, in place, every string of `doc` that no part of `views` settles; report damage.

    Also redacts damaged lines (adding a problem for each), and warns about duplicate keys
    (whose first value `json` drops: the record is then written from its parsed value, so the
    raw line holding the dropped value is not copied).
    """
    leaves, subtrees = _settled(doc, views)
    walk = _Walk(leaves, subtrees)
    found: list[Found] = []
    counts: list[int] = [0] * len(doc.records)
    for i, rec in enumerate(doc.records):
        if isinstance(rec, Damaged):
            if rec.raw.strip():
                found.extend(_damaged(doc, i, rec))
            continue
        counts[i] = walk.record(i, doc.records)
    for index, container, key, old, new, removed in _apply(walk):
        doc.dirty.add(index)
        found.append(Found(index, _path_to(doc.records[index], container, key), len(old), len(new),
                           "\n".join(removed)))
    duplicates(doc, counts)
    return found


def _apply(walk: _Walk) -> Iterator[tuple[int, Any, Any, str, str, list[str]]]:
    """Scan what `walk` collected in one batch and write each redaction in place:
    (record, container, key, old, new, removed) for each."""
    results = _secrets.redact_many([t for _, _, _, t, _ in walk.todo])
    for (index, container, key, text, prefix), (new, removed) in zip(walk.todo, results, strict=True):
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
                new = new[len(prefix):-1] if new.startswith(prefix) and new.endswith('"') else redact_text(old)
            container[key] = new
        yield index, container, key, old, new, removed


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
    walk = _Walk({}, {})
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
    for index, *_, removed in _apply(walk):
        found.setdefault(index, []).extend(removed)
    for j, removed in found.items():
        text = texts[at[j]]
        compact = '": ' not in text and '", ' not in text
        out[at[j]] = (json.dumps(roots[j], ensure_ascii=False, separators=(",", ":") if compact else None), removed)
    return out


def redact_json_text(text: str) -> tuple[str, list[str]]:
    """`redact_json_texts` for one text; the text itself when it is not JSON with an escape."""
    return redact_json_texts([text])[0] or (text, [])


def settle_copies(doc: Document, views: Sequence[View]) -> list[Found]:
    """Redact, after the write, the linked copies no rule change reached.

    A copy of a changed part is settled by the engine (it carries the part's change, or redacts
    the copy's own text before any other change: `Engine._carry_to_copies`).  What is left: the
    copies of an unchanged part that hold more than the part does, and every copy of a dropped
    part (the adapter writes no copy of it).
    """
    found: list[Found] = []
    for view in views:
        for p in view.parts:
            if not p.copies or (p.changed and not p.dropped):
                continue
            for record, path in p.copies:
                old = _value(doc, record, path)
                if not isinstance(old, str) or (not p.dropped and follows(old, p.text)):
                    continue
                new, removed = _secrets.redact(old)
                if removed and new != old:
                    doc.set(record, path, new)
                    found.append(Found(record, list(path), len(old), len(new), "\n".join(removed)))
    return found


def _path_to(root: Any, container: Any, key: Any) -> list[Any]:
    """The path of `container[key]` inside `root` (searched by identity; only called on a hit)."""
    stack: list[tuple[Any, list[Any]]] = [(root, [])]
    while stack:
        node, path = stack.pop()
        if node is container:
            return [*path, key]
        if isinstance(node, dict):
            stack.extend((v, [*path, k]) for k, v in node.items() if isinstance(v, dict | list))
        elif isinstance(node, list):
            stack.extend((v, [*path, j]) for j, v in enumerate(node) if isinstance(v, dict | list))
    return []  # `container` is the record list: the record itself is the string


def _damaged(doc: Document, index: int, rec: Damaged) -> list[Found]:
    new, removed = redact_damaged(rec.raw)
    if not removed or new == rec.raw:
        return []
    old, rec.raw = rec.raw, new
    doc.problems.append(Problem(doc.source, rec.line, f"{len(removed)} credential(s) redacted in this damaged "
                                                      "line; the rest of it is copied through unchanged"))
    return [Found(index, [], len(old), len(new), "\n".join(removed))]
