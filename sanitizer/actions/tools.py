"""Actions on tool calls and tool results: dedupe identical outputs, digest old outputs, compact
long call arguments.  None of them removes a call or a result, so pairs always stay intact."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sanitizer.actions.base import Action, Change, Context, Doc
from sanitizer.actions.tagged import protected_tags
from sanitizer.digest.line import digest_line, is_digest
from sanitizer.model import Part
from sanitizer.textkit.spans import cut_middle, has_marker, split_kept_blocks
from sanitizer.textkit.tags import without_blocks


def _positive(name: str, value: int) -> None:
    if value < 0:
        raise ValueError(f"{name}: must be 0 or more, got {value}")


def _call_of(part: Part, ctx: Context) -> tuple[str, str | None]:
    """Tool name and argument text of the call a result answers (the part's own tool if orphaned;
    for tool output carried as user text, what its format says: `meta["tool_output"]`)."""
    output = part.meta.get("tool_output")
    if part.kind == "text" and isinstance(output, dict):
        return str(output.get("tool") or "tool"), output.get("args")
    call = ctx.call_for(part)
    tool = (call.tool if call is not None else None) or part.tool or "tool"
    return tool, call.text if call is not None else None


# ---------------------------------------------------------------------------------------------
# digest-tool-result


@dataclass(frozen=True, slots=True)
class DigestOptions:
    """The parameters of `digest-tool-result`."""
    min_chars: int = 200
    user_text: bool = True  # also tool output carried as user text (Cline results, observations)

    def __post_init__(self) -> None:
        _positive("min-chars", self.min_chars)


def digest_tool_result(part: Part, opts: DigestOptions, ctx: Context) -> Change | None:
    text = part.text
    output = part.meta.get("tool_output")
    if part.kind == "text" and not (opts.user_text and isinstance(output, dict)):
        return None
    if len(text) <= opts.min_chars or is_digest(split_kept_blocks(text, protected_tags(ctx))[0]):
        return None
    tool, args = _call_of(part, ctx)
    is_error = output.get("is_error") if part.kind == "text" and isinstance(output, dict) else part.meta.get("is_error")
    line = digest_line(tool, args, text, is_error if isinstance(is_error, bool) else None)
    line = without_blocks(line, protected_tags(ctx))  # whole blocks are appended back by the engine
    if len(line) >= len(text):
        return None
    return Change(text=line)


DIGEST = Action(
    name="digest-tool-result",
    options=DigestOptions,
    kinds=("tool_result", "text"),
    run=digest_tool_result,
    doc=Doc(
        what="Replace an old tool result over `min-chars` chars by one line naming the tool, its main "
             "target (command, file, pattern, URL) and the outcome (exit code, line count of the decoded "
             "output, and the first 5 distinct error lines with their count, found from the content "
             "when no status says it failed). With `user-text` (on by default) the same goes for tool output "
             "a format carries as user text (Cline `[tool] Result:` blocks, SWE-agent and mini-swe-agent "
             "observations); other text is never touched.",
        why="Old tool output is the bulk of an agent transcript; a summarizer needs what was done and "
            "whether it worked, not the full listing.",
        loses="The output itself: file contents, listings, passing test logs, error lines after the first 5.",
        before="Exit code 1\n============ test session starts ============\n… 45 more lines …\n"
               "E   AssertionError: expected 3",
        after="[Bash] ran `pytest -q` -> exit 1, 47 lines; first error: AssertionError: expected 3",
    ),
)


# ---------------------------------------------------------------------------------------------
# compact-tool-args


@dataclass(frozen=True, slots=True)
class CompactOptions:
    """The parameters of `compact-tool-args`."""
    leaf_chars: int = 200
    min_chars: int = 500
    head: int = 100
    tail: int = 60

    def __post_init__(self) -> None:
        for name in ("leaf_chars", "min_chars", "head", "tail"):
            _positive(name.replace("_", "-"), getattr(self, name))


_COMMAND_KEYS = frozenset(("command", "cmd", "commands", "script", "code", "input"))
FIRST_LINE_CHARS = 400  # a command's first line is kept whole up to this length


def _cut_leaf(node: str, opts: CompactOptions, removed: list[str], key: str | None) -> str:
    """One long string leaf cut in the middle.  A command keeps its first line whole (up to
    `FIRST_LINE_CHARS`) and the URLs and error lines of its middle; any other value (file
    contents, patch bodies, prompts) keeps only its head and tail."""
    if len(node) <= opts.leaf_chars or has_marker(node):
        return node
    if key in _COMMAND_KEYS:
        line = node.find("\n")
        head = max(opts.head, min(line if line >= 0 else len(node), FIRST_LINE_CHARS))
        cut = cut_middle(node, head, opts.tail)
    else:
        cut = cut_middle(node, opts.head, opts.tail, error_lines=0, salient_lines=0)
    if cut is None:
        return node
    removed.append(cut[1])
    return cut[0]


def _cut_leaves(node: Any, opts: CompactOptions, removed: list[str], key: str | None = None) -> Any:
    """A copy of a JSON value with every long string leaf cut in the middle (keys and order kept)."""
    if isinstance(node, str):
        return _cut_leaf(node, opts, removed, key)
    if isinstance(node, dict):
        return {k: _cut_leaves(v, opts, removed, k) for k, v in node.items()}
    if isinstance(node, list):
        return [_cut_leaves(v, opts, removed, key) for v in node]
    return node


def compact_style(text: str) -> bool:
    """True when the argument JSON was written without spaces after `:` and `,` (OpenAI, Codex)."""
    sample = text[:2000]
    return '": ' not in sample and '", "' not in sample


def compact_tool_args(part: Part, opts: CompactOptions, ctx: Context) -> Change | None:
    text = part.text
    if len(text) <= opts.min_chars:
        return None
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):  # raw argument text (custom tool input, damaged JSON): one leaf
        if has_marker(text):
            return None
        cut = cut_middle(text, opts.head, opts.tail)
        return Change(text=cut[0], removed=cut[1]) if cut is not None else None
    removed: list[str] = []
    new_value = _cut_leaves(value, opts, removed)
    if not removed:
        return None
    separators = (",", ":") if compact_style(text) else None
    new_text = json.dumps(new_value, ensure_ascii=False, separators=separators)
    if len(new_text) >= len(text):
        return None
    return Change(text=new_text, removed="\n".join(removed))


COMPACT = Action(
    name="compact-tool-args",
    options=CompactOptions,
    kinds=("tool_call",),
    run=compact_tool_args,
    doc=Doc(
        what="When a call's arguments are over `min-chars` chars, cut every JSON string leaf over "
             "`leaf-chars` chars to `head` + `tail` chars around a marker; the result is still valid JSON "
             "with the same keys in the same order (non-JSON argument text is cut as one string).",
        why="Write/Edit/apply_patch calls repeat whole files in their arguments; the summarizer needs "
            "which file and what kind of change, not every line.",
        loses="The middle of long argument values (file contents, patch bodies, long prompts).",
        before='{"file_path": "src/app.py", "content": "<4,000 chars of code>"}',
        after='{"file_path": "src/app.py", "content": "import os…[trimmed 3,840 chars]…main()\\n"}',
    ),
)


# ---------------------------------------------------------------------------------------------
# dedupe-tool-results


@dataclass(frozen=True, slots=True)
class DedupeOptions:
    """The parameters of `dedupe-tool-results`."""
    min_chars: int = 200

    def __post_init__(self) -> None:
        _positive("min-chars", self.min_chars)


def _reference(newest: Part, ctx: Context) -> str:
    tool, _ = _call_of(newest, ctx)
    if newest.call_id:
        return f"[same output as {tool} call {newest.call_id} below]"
    return f"[same output as {tool} result in message {newest.message} below]"


def _positions(everything: list[Part], ctx: Context) -> dict[int, int]:
    """Index of each part of the view by id, kept for the run: a linked copy's one-part batch
    (one per copy) must not rebuild it over the whole view.  The view's list only ever grows."""
    kept = ctx.cache.get("dedupe-tool-results:positions")
    if kept is None or kept[0] is not everything or kept[1] != len(everything):
        kept = (everything, len(everything), {id(p): i for i, p in enumerate(everything)})
        ctx.cache["dedupe-tool-results:positions"] = kept
    return kept[2]


def _newest(everything: list[Part], opts: DedupeOptions) -> dict[str, tuple[int, Part]]:
    """The newest tool_result holding each long text, over the whole view (the tail included).

    A digest line is already a one-line summary: two equal digests are not a repeated output.
    """
    newest: dict[str, tuple[int, Part]] = {}
    for i, p in enumerate(everything):
        if (p.kind == "tool_result" and not (p.dropped or p.replaced) and len(p.text) >= opts.min_chars
                and not is_digest(p.text)):
            newest[p.text] = (i, p)
    return newest


def dedupe_tool_results(parts: list[Part], opts: DedupeOptions, ctx: Context) -> dict[int, Change]:
    memo: dict[str, str] = ctx.cache.setdefault("dedupe-tool-results", {})
    everything = ctx.view.parts if ctx.view is not None else parts
    position = _positions(everything, ctx)
    newest: dict[str, tuple[int, Part]] | None = None  # built at the first part of the view
    out: dict[int, Change] = {}
    for n, part in enumerate(parts):
        if part.kind != "tool_result" or len(part.text) < opts.min_chars:
            continue
        at = position.get(id(part))
        if newest is None and at is not None:
            newest = _newest(everything, opts)
        if at is None:  # a linked copy (Claude Code toolUseResult): follow what its part got
            if part.call_id is not None and part.call_id in memo:
                out[n] = Change(text=memo[part.call_id])
            continue
        hit = newest.get(part.text)  # type: ignore[union-attr]
        if hit is None or hit[0] <= at:
            continue
        ref = _reference(hit[1], ctx)
        out[n] = Change(text=ref)
        if part.call_id is not None:
            memo[part.call_id] = ref
    return out


DEDUPE = Action(
    name="dedupe-tool-results",
    options=DedupeOptions,
    kinds=("tool_result",),
    run_batch=dedupe_tool_results,
    doc=Doc(
        what="Replace an older tool output of at least `min-chars` chars by a back-reference when the "
             "very same output appears again later (the newest copy stays, even in the protected tail).",
        why="Agents re-read the same file and re-run the same command; the repeats carry no new facts.",
        loses="Nothing but the repetition: the newest copy keeps the full text.",
        before="(call c1) <2,000-char listing>  …  (call c7) <the same listing>",
        after="(call c1) [same output as Bash call c7 below]  …  (call c7) <the listing>",
    ),
)

ACTIONS = (DEDUPE, DIGEST, COMPACT)
