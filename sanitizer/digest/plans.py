"""Short forms of call arguments a summary reads at a glance: todo/plan states and patches.

A todo list (Claude Code `TodoWrite`, Codex `update_plan`, Hermes `todo`) is re-sent whole at each
update; `plan_diff` says in one line what changed since the state before it:

    [todos] done: "Write the parser", "Add tests"; started: "Fix CI"; added: "Update docs"

A patch (`*** Begin Patch` … `*** End Patch`, Codex `apply_patch`) repeats every changed line;
`patch_outline` keeps its file lines and puts a count in place of each file's hunks:

    *** Begin Patch\\n*** Update File: src/app.py\\n[patch: +12 -3 lines]\\n*** End Patch

Both are deterministic and linear, and both recognise their own output (a second pass changes
nothing).
"""

from __future__ import annotations

from sanitizer.textkit.lazy import lazy_pattern
from sanitizer.textkit.markers import MARKER_RE
from sanitizer.textkit.snippets import clip

PLAN_KEYS = ("todos", "plan", "items", "tasks")
_ITEM_KEYS = ("content", "step", "text", "title", "task", "subject", "description", "name")
_STATUS_WORDS = {"completed": "done", "complete": "done", "done": "done", "in_progress": "started",
                 "in progress": "started", "pending": "pending", "cancelled": "cancelled", "canceled": "cancelled"}
ITEM_CHARS = 60

PatchSpan = tuple[int, int]
_BEGIN = "*** Begin Patch"
_END = "*** End Patch"
_FILE_LINE = lazy_pattern(r"\*\*\* (?:Update|Add|Delete) File: |\*\*\* Move to: ")
_OUTLINE = lazy_pattern(r"\[patch: \+\d++ -\d++ lines?\]")


def plan_items(value: object) -> list[tuple[str, str]] | None:
    """(item text, status) of each entry of a todo/plan list, or None when it is not one."""
    if not isinstance(value, list) or not value:
        return None
    out: list[tuple[str, str]] = []
    for it in value:
        if not isinstance(it, dict):
            return None
        text = next((it[k] for k in _ITEM_KEYS if isinstance(it.get(k), str) and it[k].strip()), None)
        status = it.get("status", it.get("state", ""))
        if text is None or not isinstance(status, str):
            return None
        out.append((text.strip(), status.strip().lower()))
    return out


def plan_key(args: dict) -> str | None:
    """The key of `args` holding a whole todo/plan list, or None."""
    return next((k for k in PLAN_KEYS if plan_items(args.get(k)) is not None), None)


def _word(status: str) -> str:
    return _STATUS_WORDS.get(status, status.replace("_", " ") or "no status")


def _quoted(texts: list[str]) -> str:
    return ", ".join('"' + clip(t, ITEM_CHARS).replace('"', "'") + '"' for t in texts)


def plan_diff(label: str, before: list[tuple[str, str]], after: list[tuple[str, str]]) -> str:
    """One line naming what changed from `before` to `after`, grouped by new status."""
    old = dict(before)
    new = dict(after)
    groups: dict[str, list[str]] = {}
    for text, status in after:
        if text not in old:
            groups.setdefault("added", []).append(text)
        elif old[text] != status:
            groups.setdefault(_word(status), []).append(text)
    gone = [text for text, _ in before if text not in new]
    if gone:
        groups["removed"] = gone
    body = "; ".join(f"{word}: {_quoted(texts)}" for word, texts in groups.items()) or "unchanged"
    return f"[{label}] {body}"


def patch_spans(text: str) -> list[PatchSpan]:
    """(start, end) of each `*** Begin Patch` … `*** End Patch` block of `text` (end after END).

    The END must start a line: a patch quoted inside one line of the body (an escaped `\\n*** End
    Patch` in a JSON string) does not end the block, so trimming that line later cannot move the end.
    """
    spans: list[PatchSpan] = []
    pos = 0
    while True:
        start = text.find(_BEGIN, pos)
        if start < 0:
            return spans
        end = text.find("\n" + _END, start)
        if end < 0:
            return spans
        end += 1 + len(_END)
        spans.append((start, end))
        pos = end


def _outline_one(patch: str) -> str:
    lines = patch.split("\n")
    out: list[str] = [lines[0]]
    plus = minus = 0

    def flush() -> None:
        nonlocal plus, minus
        if plus or minus:
            out.append(f"[patch: +{plus} -{minus} lines]")
        plus = minus = 0

    for line in lines[1:-1]:
        if _FILE_LINE.match(line):
            flush()
            out.append(line.rstrip("\r"))
        elif line.startswith("+"):
            plus += 1
        elif line.startswith("-"):
            minus += 1
        elif _OUTLINE.fullmatch(line.strip()) or MARKER_RE.search(line):
            out.append(line)  # an outline already, or a cut's marker (with its id): kept as it is
    flush()
    out.append(lines[-1])
    return "\n".join(out)


def patch_outline(text: str) -> str:
    """`text` with each patch block's hunks replaced by `[patch: +N -M lines]` per file."""
    spans = patch_spans(text)
    if not spans:
        return text
    pieces: list[str] = []
    pos = 0
    for start, end in spans:
        pieces.append(text[pos:start])
        pieces.append(_outline_one(text[start:end]))
        pos = end
    pieces.append(text[pos:])
    return "".join(pieces)
