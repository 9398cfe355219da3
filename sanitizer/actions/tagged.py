"""Actions on tagged blocks inside text: keep-tag, strip-block, placeholder-tag, trim-tag.

Tags are found with the linear scanner in `sanitizer.tags`.  Only *closed* blocks are edited (an
unclosed `<thinking>` has no known end, so it is left alone), and among nested blocks of the
edited names only the outermost one is edited.  A block that overlaps a protected block
(`<key_info>` always, plus the names registered by `keep-tag`) without containing it whole is
left alone; protected blocks inside an edited block are kept verbatim.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from dataclasses import dataclass

import regex

from sanitizer.actions.base import Action, Change, Context, Doc
from sanitizer.model import KINDS, Part
from sanitizer.textkit import spans as _spans
from sanitizer.textkit import tags as _tags
from sanitizer.textkit.lazy import lazy_pattern
from sanitizer.textkit.tags import ALWAYS_PROTECTED


def protected_tags(ctx: Context) -> set[str]:
    """Tag names no action may cut: `key_info` plus what `keep-tag` registered in this run."""
    return {t.lower() for t in ctx.cache.get("protected_tags", ())} | ALWAYS_PROTECTED


def _names(tags: tuple[str, ...], what: str) -> None:
    for t in tags:
        if not isinstance(t, str) or not regex.fullmatch(r"[A-Za-z_][\w:.-]*", t):
            raise ValueError(f"{what}: {t!r} is not a tag name")


def _non_negative(**values: int) -> None:
    for key, value in values.items():
        if value < 0:
            raise ValueError(f"{key.replace('_', '-')} must be >= 0, got {value}")


# --- keep-tag ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class KeepTagOptions:
    """The parameters of `keep-tag`."""
    tags: tuple[str, ...] = ("key_info",)

    def __post_init__(self) -> None:
        _names(self.tags, "tags")


def kept_tags(opts: KeepTagOptions) -> tuple[str, ...]:
    """The tag names a keep-tag rule protects (read by the config, before any rule runs)."""
    return opts.tags


def keep_tag(parts: list[Part], opts: KeepTagOptions, ctx: Context) -> dict[int, Change]:
    ctx.cache.setdefault("protected_tags", set()).update(t.lower() for t in opts.tags)
    return {}


KEEP_TAG = Action(
    name="keep-tag",
    options=KeepTagOptions,
    doc=Doc(
        what="Registers tag names whose blocks no later rule may cut, trim or remove; "
             "<key_info> is protected whatever the config",
        why="Agents put the facts they must not forget in <key_info>; a summarizer needs them verbatim",
        loses="Nothing: it changes no text",
        before="<key_info>deploy target is prod-eu-2</key_info>",
        after="<key_info>deploy target is prod-eu-2</key_info>",
    ),
    kinds=KINDS,
    run_batch=keep_tag,
    protects=kept_tags,
)


# --- shared block editing -----------------------------------------------------------------------


EditFn = Callable[[str, list[tuple[int, int]], set[str]], tuple[str, str] | None]
MAX_PASSES = 4


def _edit_blocks(text: str, names: tuple[str, ...], ctx: Context, edit: EditFn) -> Change | None:
    """Edit each outermost closed block until nothing changes (at most `MAX_PASSES` passes).

    One pass can change the tag structure (crossed or unclosed tags inside a replaced inside
    uncover another closed block), so a single pass is not always idempotent; the result of
    this function always is, and without a fixed point the text is left alone.
    """
    change = _edit_once(text, names, ctx, edit)
    for _ in range(MAX_PASSES - 1):
        if change is None:
            return None
        again = _edit_once(change.text, names, ctx, edit)
        if again is None:
            return change
        change = Change(text=again.text, removed=change.removed + again.removed)
    return None


def _edit_once(text: str, names: tuple[str, ...], ctx: Context, edit: EditFn) -> Change | None:
    """Apply `edit(inner, protected spans inside inner, protected names)` to each outermost closed block."""
    if "<" not in text:
        return None
    prot = protected_tags(ctx)
    targets = tuple(t for t in names if t.lower() not in prot)
    if not targets:
        return None
    blocks = _tags.outermost(b for b in _tags.find_blocks(text, targets) if b.closed)
    if not blocks:
        return None
    pspans = _tags.spans(text, prot)
    starts = [s for s, _ in pspans]
    pieces: list[str] = []
    removed: list[str] = []
    pos = 0
    for b in blocks:
        inside: list[tuple[int, int]] = []
        ok = True
        i = max(0, bisect.bisect_right(starts, b.start) - 1)
        while i < len(pspans) and pspans[i][0] < b.end:
            s, e = pspans[i]
            if e > b.start:
                if b.inner_start <= s and e <= b.inner_end:
                    inside.append((s - b.inner_start, e - b.inner_start))
                else:
                    ok = False
                    break
            i += 1
        if not ok:
            continue
        result = edit(text[b.inner_start:b.inner_end], inside, prot)
        if result is None:
            continue
        new_inner, cut = result
        pieces.append(text[pos:b.inner_start])
        pieces.append(new_inner)
        removed.append(cut)
        pos = b.inner_end
    if not removed:
        return None
    pieces.append(text[pos:])
    new = "".join(pieces)
    if len(new) >= len(text):
        return None
    return Change(text=new, removed="".join(removed))


def _replace_gaps(inner: str, keep: list[tuple[int, int]], replace: Callable[[str], str]) -> tuple[str, str] | None:
    """Replace every stretch of `inner` outside `keep` by `replace(stretch)` (kept when not shorter)."""
    pieces: list[str] = []
    removed: list[str] = []
    pos = 0
    for s, e in [*keep, (len(inner), len(inner))]:
        gap = inner[pos:s]
        if gap:
            new = replace(gap)
            if len(new) < len(gap):
                pieces.append(new)
                removed.append(gap)
            else:
                pieces.append(gap)
        pieces.append(inner[s:e])
        pos = e
    new_inner = "".join(pieces)
    if new_inner == inner:
        return None
    return new_inner, "".join(removed)


# --- strip-block ------------------------------------------------------------------------------

STRIPPED_RE = lazy_pattern(r"\[removed ([0-9][0-9,]*) chars\]")


@dataclass(frozen=True, slots=True)
class StripBlockOptions:
    """The parameters of `strip-block`."""
    tags: tuple[str, ...] = ("file_content",)

    def __post_init__(self) -> None:
        _names(self.tags, "tags")
        if any(t.lower() in ALWAYS_PROTECTED for t in self.tags):
            raise ValueError("tags: key_info is protected and can never be stripped")


def _stripped(gap: str) -> str:
    if STRIPPED_RE.fullmatch(gap):
        return gap
    return f"[removed {len(gap):,} chars]"


def strip_block(part: Part, opts: StripBlockOptions, ctx: Context) -> Change | None:
    return _edit_blocks(part.text, opts.tags, ctx, lambda inner, keep, _: _replace_gaps(inner, keep, _stripped))


STRIP_BLOCK = Action(
    name="strip-block",
    options=StripBlockOptions,
    doc=Doc(
        what="Empties <file_content>…</file_content> (configurable `tags`), keeping the tags and "
             "a `[removed N chars]` note; protected blocks inside are kept",
        why="Whole files pasted into the conversation are the largest and least useful part of a "
            "transcript for a summarizer, which can re-read the file",
        loses="The file contents (their size stays visible)",
        before="<file_content>import os\n…(12,000 chars)…</file_content>",
        after="<file_content>[removed 12,000 chars]</file_content>",
    ),
    kinds=("text", "tool_result"),
    run=strip_block,
)


# --- placeholder-tag --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PlaceholderTagOptions:
    """The parameters of `placeholder-tag`."""
    tags: tuple[str, ...] = ("history", "earlier_context")
    placeholder: str = "[...]"

    def __post_init__(self) -> None:
        _names(self.tags, "tags")
        if not self.placeholder or "<" in self.placeholder:
            raise ValueError("placeholder: must be a non-empty text without '<'")


def placeholder_tag(part: Part, opts: PlaceholderTagOptions, ctx: Context) -> Change | None:
    ph = opts.placeholder
    return _edit_blocks(part.text, opts.tags, ctx, lambda inner, keep, _: _replace_gaps(inner, keep, lambda g: ph))


PLACEHOLDER_TAG = Action(
    name="placeholder-tag",
    options=PlaceholderTagOptions,
    doc=Doc(
        what="Replaces the inside of <history>, <earlier_context> (configurable `tags`) by `[...]`; "
             "protected blocks inside are kept",
        why="Re-injected history repeats what the transcript already holds",
        loses="Everything inside the tag except protected blocks",
        before="<history>user asked for X, we did Y…</history>",
        after="<history>[...]</history>",
    ),
    kinds=("text",),
    run=placeholder_tag,
)


# --- trim-tag ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TrimTagOptions:
    """The parameters of `trim-tag`."""
    tags: tuple[str, ...] = ("thinking", "think", "tool_use", "tool_call", "tool_result")
    max_chars: int = 800
    head: int = 400
    tail: int = 400

    def __post_init__(self) -> None:
        _names(self.tags, "tags")
        _non_negative(max_chars=self.max_chars, head=self.head, tail=self.tail)


def trim_tag(part: Part, opts: TrimTagOptions, ctx: Context) -> Change | None:
    def edit(inner: str, keep: list[tuple[int, int]], prot: set[str]) -> tuple[str, str] | None:
        if len(inner) <= opts.max_chars:
            return None
        return _spans.cut_middle(inner, opts.head, opts.tail, protected_tags=prot, atomic_tags=opts.tags)

    return _edit_blocks(part.text, opts.tags, ctx, edit)


TRIM_TAG = Action(
    name="trim-tag",
    options=TrimTagOptions,
    doc=Doc(
        what="Cuts the middle of the inside of <thinking>, <think>, <tool_use>, <tool_call>, "
             "<tool_result> (configurable `tags`) over `max-chars`, keeping `head` + `tail` chars "
             "and the tags",
        why="Long reasoning and inline tool traffic matter mostly at their start and their end",
        loses="The middle of long tagged blocks, except protected blocks, up to 5 error lines and up to 24 "
              "lines with URLs; "
              "URLs, paths, inline code and flags at the cut points are kept whole",
        before="<thinking>(2,000 chars of reasoning)</thinking>",
        after="<thinking>(first 400 chars)…[trimmed 1,200 chars]…(last 400 chars)</thinking>",
    ),
    kinds=("text", "thinking", "tool_result"),
    run=trim_tag,
)

ACTIONS = (KEEP_TAG, STRIP_BLOCK, PLACEHOLDER_TAG, TRIM_TAG)
