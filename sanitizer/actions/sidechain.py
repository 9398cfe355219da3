"""fold-sidechain: a sub-agent's turns folded under the call that started it.

A format marks the messages a sub-agent wrote inside the main conversation with the call that
started it (`Message.meta["parent_call"]`, Claude Code's inline `isSidechain` records) and, when
known, the sub-agent's id (`meta["agent_id"]`).  The main chain's result of that call already
carries the sub-agent's report, so the sub-agent's own texts, reasoning and outputs are repeats a
summarizer does not need.  Each folded text, reasoning block or output becomes a short line; one
of them (the first long enough to hold it) becomes the fold: a one-line digest of what the
sub-agent did, its tool calls by name and its distinct error lines.  Tool calls stay (every call
keeps its result), and so does every record with at least one block (the file's chain links them).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from sanitizer.actions.base import Action, Change, Context, Doc
from sanitizer.digest.line import outcome
from sanitizer.model import Message, Part, View
from sanitizer.textkit.lazy import lazy_pattern
from sanitizer.textkit.snippets import plural

FOLDED = "[sub-agent turn folded]"
_FOLD = lazy_pattern(r"\[sub-agent[^\n]*; its report is the result of (?:[^\s\]]++ )?call [^\s\]]++\]")
_TOOL_NAMES = 6


@dataclass(frozen=True, slots=True)
class FoldOptions:
    """The parameters of `fold-sidechain`."""
    errors: int = 5

    def __post_init__(self) -> None:
        if self.errors < 0:
            raise ValueError(f"errors: must be 0 or more, got {self.errors}")


def is_fold(text: str) -> bool:
    """True when `text` is a fold line or a folded turn (so folding again changes nothing)."""
    return text == FOLDED or _FOLD.fullmatch(text) is not None


def _group(view: View, call_id: str) -> list[Message]:
    return [m for m in view.messages if m.meta.get("parent_call") == call_id]


def fold_line(view: View, ctx: Context, call_id: str, opts: FoldOptions) -> str:
    """`[sub-agent a1b2: 14 tool calls (Bash ×9, Read ×5), 1 failed output; errors: "…"; its report
    is the result of Task call toolu_…]`: the sub-agent's calls by tool, and the distinct error
    lines of its outputs (the first `opts.errors`, with a count of the rest)."""
    msgs = _group(view, call_id)
    agent = next((str(m.meta["agent_id"]) for m in msgs if m.meta.get("agent_id")), "")
    parts = [p for m in msgs for p in view.parts_of(m)]
    tools = Counter(p.tool or "tool" for p in parts if p.kind == "tool_call")
    bits = [plural(sum(tools.values()), "tool call")]
    if tools:
        names = [f"{name} ×{n}" for name, n in tools.most_common(_TOOL_NAMES)]
        bits[0] += " (" + ", ".join(names + (["…"] if len(tools) > _TOOL_NAMES else [])) + ")"
    lines: dict[str, None] = {}
    failed = 0
    for p in parts:
        if p.kind != "tool_result" or p.dropped or is_fold(p.text):
            continue
        call = ctx.call_for(p)
        is_error = p.meta.get("is_error")
        out = outcome(call.tool if call else p.tool, call.text if call else None, p.text,
                      is_error if isinstance(is_error, bool) else None)
        if out.failed or out.errors:
            failed += out.failed
            lines.update(dict.fromkeys(out.errors or ((out.first_error,) if out.first_error else ())))
    if failed or lines:
        shown = list(lines)[: opts.errors]
        quoted = " | ".join(f'"{x}"' for x in shown)
        more = f" (+{len(lines) - len(shown)} more)" if len(lines) > len(shown) else ""
        bits.append(plural(failed, "failed output") + (f"; errors: {quoted}{more}" if quoted else ""))
    else:
        bits.append("no errors")
    call = ctx.calls.get(call_id)
    name = f" {agent}" if agent else ""
    return (f"[sub-agent{name}: {', '.join(bits)}; its report is the result of call {call_id}]"
            if call is None else
            f"[sub-agent{name}: {', '.join(bits)}; its report is the result of {call.tool or 'tool'} call {call_id}]")


def _foldable(view: View, ctx: Context, msg: Message) -> str | None:
    """The call a sub-agent message folds under, when that call has a result to carry the report."""
    call_id = msg.meta.get("parent_call")
    if not isinstance(call_id, str) or not ctx.results.get(call_id):
        return None
    return call_id


def _ids(view: View, ctx: Context) -> set[int]:
    """Ids of the view's parts, kept for the run: a linked copy's one-part batch (one per copy)
    must not rebuild it over the whole view.  The view's list only ever grows."""
    kept = ctx.cache.get("fold-sidechain:ids")
    if kept is None or kept[0] is not view.parts or kept[1] != len(view.parts):
        kept = (view.parts, len(view.parts), {id(p) for p in view.parts})
        ctx.cache["fold-sidechain:ids"] = kept
    return kept[2]


def fold_sidechain(parts: list[Part], opts: FoldOptions, ctx: Context) -> dict[int, Change]:
    view = ctx.view
    in_view = _ids(view, ctx)
    out: dict[int, Change] = {}
    done: set[str] = set()  # sub-agents an earlier run folded: their fold stays as it is
    todo: list[tuple[int, Part, str]] = []
    for n, part in enumerate(parts):
        msg = view.messages[part.message] if part.message < len(view.messages) else None
        call_id = _foldable(view, ctx, msg) if msg is not None else None
        if call_id is None or part.dropped or is_fold(part.text):
            if call_id is not None and _FOLD.fullmatch(part.text):
                done.add(call_id)
            continue
        if id(part) not in in_view:  # a linked copy (Claude Code toolUseResult) of a folded output
            out[n] = Change(text=FOLDED)
            continue
        todo.append((n, part, call_id))
    holders = {c: _holder(todo, c, fold_line(view, ctx, c, opts), out)
               for c in sorted({c for _, _, c in todo} - done)}
    for n, part, call_id in todo:
        if call_id not in done and holders[call_id] is None:
            continue  # no turn long enough to hold the fold: the sub-agent stays as it is
        if n in out:
            continue
        if len(part.text) > len(FOLDED):
            out[n] = Change(text=FOLDED, removed=part.text, replace=part.kind == "thinking")
    return out


def _holder(todo: list[tuple[int, Part, str]], call_id: str, line: str, out: dict[int, Change]) -> int | None:
    """The part that holds the fold: the first text or output at least twice as long as the line,
    else the longest one at least half again as long (a change must save tokens); None if none is."""
    candidates = [(n, p) for n, p, c in todo if c == call_id and p.kind != "thinking"]
    chosen = next((n for n, p in candidates if len(p.text) >= 2 * len(line)), None)
    if chosen is None:
        longest = max(candidates, key=lambda c: len(c[1].text), default=None)
        if longest is not None and 2 * len(longest[1].text) >= 3 * len(line):
            chosen = longest[0]
    if chosen is not None:
        out[chosen] = Change(text=line)
    return chosen


FOLD_SIDECHAIN = Action(
    name="fold-sidechain",
    options=FoldOptions,
    kinds=("text", "thinking", "tool_result"),
    run_batch=fold_sidechain,
    doc=Doc(
        what="Fold a sub-agent's turns (Claude Code inline sidechain records) under the call that started "
             "it, when the main chain holds that call's result: each of its texts and outputs becomes "
             f"`{FOLDED}` (reasoning blocks too), and the first long one becomes a one-line digest of the "
             "sub-agent (tool calls by name, failed outputs and the first `errors` distinct error lines; "
             "when no turn is long enough to hold it, nothing is folded). Its tool calls stay; a sub-agent's "
             "own file is a conversation of its own and is not folded.",
        why="The main chain's result of the Task call already carries the sub-agent's report; rendering "
            "every sub-agent turn again can cost ten times the main conversation.",
        loses="The sub-agent's own words, reasoning and outputs (its report stays in the call's result; "
              "its calls, their count and its error lines stay).",
        before="(sidechain) user: Read the docs. / assistant: Bash(pytest) / tool: <3,000-char log> / "
               "assistant: The docs say X.",
        after='[sub-agent a1b2: 1 tool call (Bash ×1), 1 failed output; errors: "ImportError: x"; '
              "its report is the result of Task call toolu_1]",
    ),
)

ACTIONS = (FOLD_SIDECHAIN,)
