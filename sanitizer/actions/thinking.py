"""drop-thinking: thinking blocks and reasoning fields become a short placeholder, or go.

A signed thinking block is never edited in place (a provider rejects an edited signature): the
whole block is replaced by a plain-text placeholder or removed, which is what this action does in
both modes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sanitizer.actions.base import Action, Change, Context, Doc
from sanitizer.actions.tagged import protected_tags
from sanitizer.model import Part
from sanitizer.textkit.markers import without_cut_id
from sanitizer.textkit.spans import split_kept_blocks

MODES = ("placeholder", "remove")


@dataclass(frozen=True, slots=True)
class DropThinkingOptions:
    """The parameters of `drop-thinking`."""
    mode: str = "placeholder"
    placeholder: str = "[thinking omitted: {chars} chars]"

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"mode: unknown value {self.mode!r} (use one of: {', '.join(MODES)})")
        try:
            self.placeholder.format(chars="1")
        except (KeyError, IndexError, ValueError) as exc:
            raise ValueError(f"placeholder: only the field {{chars}} may be used ({exc})") from exc


def placeholder_pattern(template: str) -> re.Pattern[str]:
    """A regex that recognises any text this template produces (for idempotence)."""
    pieces = template.split("{chars}")
    return re.compile("[0-9,]+".join(re.escape(p.replace("{{", "{").replace("}}", "}")) for p in pieces))


def drop_thinking(part: Part, opts: DropThinkingOptions, ctx: Context) -> Change | None:
    if part.dropped:
        return None
    text = part.text
    body = without_cut_id(split_kept_blocks(text, protected_tags(ctx))[0].strip())  # `· c3`: a --cuts id
    if placeholder_pattern(opts.placeholder).fullmatch(body):
        return None
    if opts.mode == "remove" or not text.strip():
        return Change(text="", removed=text, drop=True)
    placeholder = opts.placeholder.format(chars=f"{len(text):,}")
    if len(placeholder) >= len(text):  # nothing saved: a signed block stays byte-exact
        return None
    return Change(text=placeholder, removed=text, replace=True)


DROP_THINKING = Action(
    name="drop-thinking",
    options=DropThinkingOptions,
    kinds=("thinking",),
    run=drop_thinking,
    doc=Doc(
        what="Replace each thinking block / reasoning field by a plain-text placeholder such as "
             "`[thinking omitted: 1,234 chars]` (mode = \"placeholder\"), or remove it (mode = \"remove\"). "
             "An empty thinking block is always removed. Signed blocks are replaced whole, never edited.",
        why="A summarizer needs what the agent did and found, not its private reasoning; signatures only "
            "matter when the history is sent back to the same provider.",
        loses="The model's reasoning text and its signature (the block can no longer be replayed as signed "
              "thinking).",
        before="<thinking, 1,234 chars, signed>",
        after="[thinking omitted: 1,234 chars]",
    ),
)

ACTIONS = (DROP_THINKING,)
