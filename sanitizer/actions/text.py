"""Actions on plain text: redact-secrets, image-placeholder, trim-text, collapse-blank-lines.

Each returns None when it does not apply, is idempotent, and leaves `<key_info>` blocks (and the
tags registered by `keep-tag`) verbatim, with one deliberate exception: `redact-secrets` also
redacts inside them, because a credential must never reach a second model.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import regex

from sanitizer.actions.base import Action, Change, Context, Doc
from sanitizer.actions.tagged import protected_tags
from sanitizer.model import Part
from sanitizer.secrets import scan as _secrets
from sanitizer.secrets.walk import redact_json_texts, scanned_decoded
from sanitizer.textkit import spans as _spans
from sanitizer.textkit import tags as _tags
from sanitizer.textkit.images import image_placeholder_text, label_of
from sanitizer.textkit.lazy import lazy_pattern


def non_negative(**values: int) -> None:
    for key, value in values.items():
        if value < 0:
            raise ValueError(f"{key.replace('_', '-')} must be >= 0, got {value}")


def outside_protected(text: str, ctx: Context, fn: Callable[[str], str]) -> str:
    """Apply `fn` to every stretch of `text` outside protected tag blocks."""
    prot = _tags.spans(text, protected_tags(ctx)) if "<" in text else []
    if not prot:
        return fn(text)
    pieces: list[str] = []
    pos = 0
    for s, e in prot:
        pieces.append(fn(text[pos:s]))
        pieces.append(text[s:e])
        pos = e
    pieces.append(fn(text[pos:]))
    return "".join(pieces)


# --- redact-secrets ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RedactSecretsOptions:
    """`redact-secrets` takes no parameters."""


def redact_secrets(parts: list[Part], opts: RedactSecretsOptions, ctx: Context) -> dict[int, Change]:
    out: dict[int, Change] = {}
    # A JSON tool text with escapes is scanned decoded (an escape can hide a value), the rest as text.
    tools = [i for i, p in enumerate(parts) if scanned_decoded(p.kind, p.text)]
    results: list[tuple[str, list[str]] | None] = [None] * len(parts)
    for i, done in zip(tools, redact_json_texts([parts[i].text for i in tools]), strict=True):
        results[i] = done
    rest = [i for i, r in enumerate(results) if r is None]
    clean = ctx.cache.get("clean_texts", ())  # cleared for the whole document at once (`clean_texts`)
    for i, done in zip(rest, _secrets.redact_many([parts[i].text for i in rest], clean), strict=True):
        results[i] = done
    for i, (part, (new, removed)) in enumerate(zip(parts, results, strict=True)):
        if removed and new != part.text:
            # A signed thinking block may not be edited in place: it becomes a plain text part instead.
            out[i] = Change(text=new, removed="\n".join(removed), replace=part.signed)
    return out


REDACT_SECRETS = Action(
    always=True,
    redacts=True,
    name="redact-secrets",
    options=RedactSecretsOptions,
    doc=Doc(
        what="Replaces credentials by `[REDACTED:<kind>:<fp>]` (`<fp>`: 4 hex digits of the secret's sha256, "
             "so two keys stay apart): private keys, provider tokens (OpenAI, Anthropic, GitHub, GitLab, Slack, "
             "AWS, Stripe, Google and 80 more), Authorization headers, URL user:password, connection "
             "strings, credential flags and NAME=value secrets; see Secret kinds",
        why="Credentials must never reach a second model or a log",
        loses="The secret values (their kind stays visible); also inside <key_info>",
        before="git clone https://alice:s3cret@github.com/acme/app.git",
        after="git clone https://[REDACTED:url-credentials:1fe2]@github.com/acme/app.git",
    ),
    kinds=("text", "thinking", "tool_call", "tool_result"),
    run_batch=redact_secrets,
)


# --- image-placeholder ------------------------------------------------------------------------

DATA_URI_RE = lazy_pattern(
    r"data:(?<mime>[A-Za-z0-9.+-]++\\?/[A-Za-z0-9.+-]++)?+(?:;[A-Za-z0-9.+-]++=[^;,\s\"'\\]*+)*+"
    r";base64,(?<b64>(?:[A-Za-z0-9+=]|\\?/)++)"
)


@dataclass(frozen=True, slots=True)
class ImagePlaceholderOptions:
    """The parameters of `image-placeholder`."""
    data_uris: bool = True  # also replace `data:…;base64,…` runs inside text


def _replace_data_uris(text: str) -> str:
    def repl(m: regex.Match[str]) -> str:
        mime = (m.group("mime") or "").replace("\\/", "/") or None
        new = image_placeholder_text(mime, m.group("b64").replace("\\/", "/"))
        return new if len(new) < len(m.group(0)) else m.group(0)

    return DATA_URI_RE.sub(repl, text)


def image_placeholder(part: Part, opts: ImagePlaceholderOptions, ctx: Context) -> Change | None:
    if part.kind == "image":
        if part.replaced:
            return None
        return Change(text=label_of(part.meta), replace=True)
    if not opts.data_uris or ";base64," not in part.text:
        return None
    new = outside_protected(part.text, ctx, _replace_data_uris)
    if len(new) >= len(part.text):
        return None
    return Change(text=new)


IMAGE_PLACEHOLDER = Action(
    name="image-placeholder",
    options=ImagePlaceholderOptions,
    doc=Doc(
        what="Turns image blocks, and `data:<mime>;base64,…` runs inside any text or JSON string, into "
             "`[image: <type>, <decoded size>, sha256:<first 8 hex>]` (non-image data: `[file: …]`; "
             "URL images: type and URL without query)",
        why="A summarizer cannot read base64, and one screenshot outweighs the whole conversation",
        loses="The image bytes (type, size and a fingerprint stay)",
        before='{"screenshot": "data:image/png;base64,iVBORw0KGgo…(190,000 chars)"}',
        after='{"screenshot": "[image: image/png, 139 KB, sha256:1a2b3c4d]"}',
    ),
    kinds=("image", "text", "tool_result", "tool_call"),
    run=image_placeholder,
)


# --- trim-text --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TrimTextOptions:
    """The parameters of `trim-text`."""
    max_chars: int = 6000
    head: int = 4000
    tail: int = 1500

    def __post_init__(self) -> None:
        non_negative(max_chars=self.max_chars, head=self.head, tail=self.tail)


def trim_text(part: Part, opts: TrimTextOptions, ctx: Context) -> Change | None:
    if len(part.text) <= opts.max_chars:
        return None
    cut = _spans.cut_middle(part.text, opts.head, opts.tail, protected_tags=protected_tags(ctx),
                            cues=part.role == "user" and "tool_output" not in part.meta)
    if cut is None:
        return None
    return Change(text=cut[0], removed=cut[1])


TRIM_TEXT = Action(
    name="trim-text",
    options=TrimTextOptions,
    doc=Doc(
        what="Cuts the middle of any text over `max-chars`, keeping `head` + `tail` chars and a "
             "`…[trimmed N chars]…` marker",
        why="Errors and results live at the end of outputs, intent at the start",
        loses="The middle of long texts, except protected blocks, up to 5 error lines and up to 24 lines "
              "with URLs or (user text) constraint sentences; URLs, paths, inline code and flags at "
              "the cut points are kept whole",
        before="(10,000 chars of build log)",
        after="(first 4,000 chars)…[trimmed 4,500 chars]…(last 1,500 chars)",
    ),
    kinds=("text", "tool_result"),
    run=trim_text,
)


# --- collapse-blank-lines ---------------------------------------------------------------------

_BLANKS_RE = lazy_pattern(r"\r?\n(?:[ \t]*+\r?\n){2,}+")


def _collapse_blanks(text: str) -> str:
    return _BLANKS_RE.sub(lambda m: "\r\n\r\n" if m.group(0)[0] == "\r" else "\n\n", text)


@dataclass(frozen=True, slots=True)
class CollapseBlankLinesOptions:
    """`collapse-blank-lines` takes no parameters."""


def collapse_blank_lines(part: Part, opts: CollapseBlankLinesOptions, ctx: Context) -> Change | None:
    if part.text.count("\n") < 3:
        return None
    new = outside_protected(part.text, ctx, _collapse_blanks)
    if len(new) >= len(part.text):
        return None
    return Change(text=new)


COLLAPSE_BLANK_LINES = Action(
    name="collapse-blank-lines",
    options=CollapseBlankLinesOptions,
    doc=Doc(
        what="Turns three or more line breaks (blank or whitespace-only lines) into two",
        why="Runs of blank lines cost tokens and carry nothing",
        loses="Vertical spacing only",
        before="done.\n\n\n\nNext step",
        after="done.\n\nNext step",
    ),
    kinds=("text", "thinking", "tool_result"),
    run=collapse_blank_lines,
)

ACTIONS = (REDACT_SECRETS, IMAGE_PLACEHOLDER, TRIM_TEXT, COLLAPSE_BLANK_LINES)
