"""dedupe-boilerplate: injected text the conversation already holds becomes a back-reference.

Harnesses inject the same text again and again: `<system-reminder>` notices, environment details,
AGENTS.md / CLAUDE.md instructions, editor notices.  Two kinds of repeat are found:

* a block of one of the `tags` (`<system-reminder>…</system-reminder>`) whose inside, white space
  collapsed, already appeared in an earlier message: the tags stay, the inside becomes
  `[same as message 12]`;
* in a message the format marks as injected (`Message.injected`), a paragraph (text between blank
  lines) of at least `min-chars` chars that already appeared in an earlier message, in any
  paragraph or block: it becomes `[same text as message 12]`.

The first copy always stays (messages before the tail may point to it, the tail never changes);
nothing inside or around a protected block (`<key_info>`) is touched, and the latest user ask is
out of every rule's scope.  One pass over the view hashes each paragraph and block once: linear.
"""

from __future__ import annotations

import bisect
import hashlib
from dataclasses import dataclass

import regex

from sanitizer.actions.base import Action, Change, Context, Doc
from sanitizer.actions.tagged import protected_tags
from sanitizer.model import Part
from sanitizer.textkit import tags as _tags
from sanitizer.textkit.lazy import lazy_pattern

TAGS = ("system-reminder", "system_reminder", "environment_details", "environment_context", "user_instructions",
        "instructions", "claude_md", "agents_md")
_SPACE = lazy_pattern(r"\s++")
_PARAGRAPH_BREAK = lazy_pattern(r"\n[ \t]*+\n")
_REFERENCE = lazy_pattern(r"\[same (?:text )?as message \d++\]")


@dataclass(frozen=True, slots=True)
class BoilerplateOptions:
    """The parameters of `dedupe-boilerplate`."""
    tags: tuple[str, ...] = TAGS
    min_chars: int = 200

    def __post_init__(self) -> None:
        if self.min_chars < 1:
            raise ValueError(f"min-chars: must be 1 or more, got {self.min_chars}")
        for t in self.tags:
            if not isinstance(t, str) or not regex.fullmatch(r"[A-Za-z_][\w:.-]*", t):
                raise ValueError(f"tags: {t!r} is not a tag name")


# Whitespace to `str.split`, not to `regex`'s `\s`: a text holding one is flattened by the pattern.
_SPLIT_ONLY_SPACES = ("\x1c", "\x1d", "\x1e", "\x1f")


def _key(text: str) -> str:
    """A paragraph's key: the sha256 of its words joined by single spaces."""
    if any(c in text for c in _SPLIT_ONLY_SPACES):
        flat = _SPACE.sub(" ", text).strip()
    else:  # the same, six times as fast
        flat = " ".join(text.split())
    return hashlib.sha256(flat.encode("utf-8", "surrogatepass")).hexdigest()


def _paragraphs(text: str) -> list[tuple[int, int]]:
    """(start, end) of each paragraph of `text`, blank lines excluded."""
    out: list[tuple[int, int]] = []
    pos = 0
    for m in _PARAGRAPH_BREAK.finditer(text):
        out.append((pos, m.start()))
        pos = m.end()
    out.append((pos, len(text)))
    return [(s, e) for s, e in out if text[s:e].strip()]


def _blocks(text: str, opts: BoilerplateOptions) -> list[_tags.Block]:
    if "<" not in text or not opts.tags:
        return []
    return _tags.outermost(b for b in _tags.find_blocks(text, opts.tags) if b.closed)


def _first_seen(ctx: Context, parts: list[Part], opts: BoilerplateOptions) -> dict[str, int]:
    """The message where each long paragraph and each tagged block's inside first appears."""
    kept = ctx.cache.get("dedupe-boilerplate:first")
    everything = ctx.view.parts if ctx.view is not None else parts
    if kept is not None and kept[0] is everything and kept[1] == len(everything):
        return kept[2]
    first: dict[str, int] = {}
    for p in everything:
        if p.kind != "text" or p.dropped:
            continue
        for key in _keys_of(p.text, opts):
            first.setdefault(key, p.message)
    ctx.cache["dedupe-boilerplate:first"] = (everything, len(everything), first)
    return first


# The keys of a text, kept for the next conversation that holds the same text: a dataset's
# conversations share their system prompt (taubench: 200 copies, hashed again in each one took 30
# of its 330 ms).  A key depends on the text and the options alone.  Bounded in texts and in the
# chars they hold (the texts are kept alive by the memo).
_KEYS_MAX = 1 << 12
_KEYS_CHARS = 1 << 24
_keys: dict[tuple[BoilerplateOptions, str], tuple[str, ...]] = {}
_keys_chars = 0


def _keys_of(text: str, opts: BoilerplateOptions) -> tuple[str, ...]:
    """The keys `text` registers, in order: each tagged block's inside, then every long paragraph
    of the text and of each inside (an injected copy may come without the tags)."""
    global _keys_chars
    memo = (opts, text)
    found = _keys.get(memo)
    if found is not None:
        return found
    keys: list[str] = []
    texts = [text]
    for b in _blocks(text, opts):
        inner = text[b.inner_start:b.inner_end]
        keys.append(_key(inner))
        texts.append(inner)
    for t in texts:
        keys.extend(_key(t[s:e]) for s, e in _paragraphs(t) if e - s >= opts.min_chars)
    if len(_keys) >= _KEYS_MAX or _keys_chars + len(text) > _KEYS_CHARS:
        _keys.clear()
        _keys_chars = 0
    _keys_chars += len(text)
    found = _keys[memo] = tuple(keys)
    return found


def _edits(part: Part, opts: BoilerplateOptions, first: dict[str, int], injected: bool,
           names: set[str]) -> list[tuple[int, int, str]]:
    """(start, end, replacement) of each repeat in one part, in text order, never overlapping."""
    text = part.text
    edits: list[tuple[int, int, str]] = []
    guarded = _tags.spans(text, names) if "<" in text else []  # sorted, merged
    ends = [ge for _, ge in guarded]

    def free(s: int, e: int) -> bool:
        i = bisect.bisect_right(ends, s)  # the first protected span ending after `s`
        return i == len(guarded) or guarded[i][0] >= e

    for b in _blocks(text, opts):
        inner = text[b.inner_start:b.inner_end]
        at = first.get(_key(inner))
        if at is not None and at < part.message and not _REFERENCE.fullmatch(inner.strip()) and free(b.start, b.end):
            ref = f"[same as message {at}]"
            if len(ref) < len(inner):
                edits.append((b.inner_start, b.inner_end, ref))
    if injected:
        taken = sorted((s, e) for s, e, _ in edits)
        taken_ends = [te for _, te in taken]
        for s, e in _paragraphs(text):
            i = bisect.bisect_right(taken_ends, s)
            if e - s < opts.min_chars or (i < len(taken) and taken[i][0] < e) or not free(s, e):
                continue
            at = first.get(_key(text[s:e]))
            if at is not None and at < part.message:
                edits.append((s, e, f"[same text as message {at}]"))
    return sorted(edits)


def dedupe_boilerplate(parts: list[Part], opts: BoilerplateOptions, ctx: Context) -> dict[int, Change]:
    first = _first_seen(ctx, parts, opts)
    names = protected_tags(ctx)
    out: dict[int, Change] = {}
    for n, part in enumerate(parts):
        if part.kind != "text":
            continue
        msg = ctx.view.messages[part.message] if ctx.view is not None else None
        edits = _edits(part, opts, first, bool(msg is not None and msg.injected), names)
        if not edits:
            continue
        pieces: list[str] = []
        removed: list[str] = []
        pos = 0
        for s, e, ref in edits:
            pieces += [part.text[pos:s], ref]
            removed.append(part.text[s:e])
            pos = e
        pieces.append(part.text[pos:])
        out[n] = Change(text="".join(pieces), removed="\n".join(removed))
    return out


DEDUPE_BOILERPLATE = Action(
    name="dedupe-boilerplate",
    options=BoilerplateOptions,
    kinds=("text",),
    run_batch=dedupe_boilerplate,
    doc=Doc(
        what="Replaces injected text the conversation already holds by a back-reference: the inside of a "
             "`tags` block (`<system-reminder>`, environment details, AGENTS.md / CLAUDE.md instructions) "
             "seen in an earlier message becomes `[same as message N]` (the tags stay), and in an injected "
             "message a paragraph of at least `min-chars` chars seen earlier becomes `[same text as message "
             "N]`. The first copy stays; protected blocks and the latest ask are never touched.",
        why="Harnesses re-inject the same reminders and instructions many times; a summarizer needs them once.",
        loses="Nothing but the repetition: the first copy keeps the full text.",
        before="(message 3) <system-reminder>Whenever you read a file …</system-reminder>  …  (message 9) "
               "<system-reminder>Whenever you read a file …</system-reminder>",
        after="(message 9) <system-reminder>[same as message 3]</system-reminder>",
    ),
)

ACTIONS = (DEDUPE_BOILERPLATE,)
