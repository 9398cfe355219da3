"""The collapse-code action: long fenced code blocks keep their first lines and a count of the rest.

Like the other text actions it returns None when it does not apply, is idempotent, and leaves
protected blocks (`<key_info>` and the tags registered by `keep-tag`) verbatim.
"""

from __future__ import annotations

from dataclasses import dataclass

from sanitizer.actions.base import Action, Change, Context, Doc
from sanitizer.actions.text import non_negative, outside_protected
from sanitizer.model import Part
from sanitizer.textkit.lazy import lazy_pattern

# --- collapse-code ----------------------------------------------------------------------------

_OPEN_RE = lazy_pattern(r" {0,3}+(?<fence>`{3,}+|~{3,}+)(?<info>[^\n]*+)")
_NOTE_RE = lazy_pattern(r"… \([0-9,]+ more lines(?:, [^)\n]*)?\)")
# Lines with a URL in the collapsed part stay (before the note, so the note still ends the block):
# a link is a fact no first line restates.  Bounded: a count and a line length.
URL_LINES = 8
URL_LINE_CHARS = 300
_URL = lazy_pattern(r"[A-Za-z][A-Za-z0-9+.-]{1,15}+://\S")


@dataclass(frozen=True, slots=True)
class CollapseCodeOptions:
    """The parameters of `collapse-code`."""
    max_lines: int = 6
    keep_lines: int = 5

    def __post_init__(self) -> None:
        non_negative(max_lines=self.max_lines, keep_lines=self.keep_lines)
        if self.keep_lines >= self.max_lines:
            raise ValueError(f"keep-lines ({self.keep_lines}) must be less than max-lines ({self.max_lines})")


def _closes(line: str, fence: str) -> bool:
    """A closing fence: up to 3 spaces, at least as many fence chars as the opening, nothing else."""
    body = line.rstrip("\r\n").rstrip(" \t")
    stripped = body.lstrip(" ")
    return (len(body) - len(stripped) <= 3 and len(stripped) >= len(fence)
            and stripped.count(fence[0]) == len(stripped))


def _collapse_code(text: str, opts: CollapseCodeOptions) -> str:
    starts = [0]
    i = text.find("\n")
    while i >= 0:
        starts.append(i + 1)
        i = text.find("\n", i + 1)
    lines = [text[s:e] for s, e in zip(starts, [*starts[1:], len(text)], strict=True)]
    out: list[str] = []
    i = 0
    while i < len(lines):
        m = _OPEN_RE.fullmatch(lines[i].rstrip("\r\n"))
        if m is None or (m["fence"][0] == "`" and "`" in m["info"]):
            out.append(lines[i])
            i += 1
            continue
        fence = m["fence"]
        j = i + 1
        while j < len(lines) and not _closes(lines[j], fence):
            j += 1
        if j == len(lines):  # unclosed fence: leave the rest alone
            out.extend(lines[i:])
            break
        body = lines[i + 1:j]
        out.append(lines[i])
        if len(body) > opts.max_lines and not _NOTE_RE.fullmatch(body[-1].rstrip("\r\n")):
            more = len(body) - opts.keep_lines
            lang = m["info"].strip().split(" ", 1)[0].strip("{}.") if m["info"].strip() else ""
            nl = "\r\n" if body[-1].endswith("\r\n") else "\n"
            kept = body[:opts.keep_lines]
            links = [x for x in body[opts.keep_lines:] if "://" in x and len(x) <= URL_LINE_CHARS
                     and _URL.search(x)][:URL_LINES]
            more -= len(links)
            kept += links
            if kept and not kept[-1].endswith("\n"):
                kept[-1] += nl
            out.extend(kept)
            out.append(f"… ({more:,} more lines{', ' + lang if lang else ''}){nl}")
        else:
            out.extend(body)
        out.append(lines[j])
        i = j + 1
    return "".join(out)


def collapse_code(part: Part, opts: CollapseCodeOptions, ctx: Context) -> Change | None:
    if "```" not in part.text and "~~~" not in part.text:
        return None
    new = outside_protected(part.text, ctx, lambda t: _collapse_code(t, opts))
    if len(new) >= len(part.text):
        return None
    return Change(text=new)


COLLAPSE_CODE = Action(
    name="collapse-code",
    options=CollapseCodeOptions,
    doc=Doc(
        what="Shortens a fenced code block of more than `max-lines` lines to its first `keep-lines` "
             "lines, the lines with a URL among the rest (up to 8), and a `… (N more lines, lang)` note; "
             "fences stay, unclosed fences are left alone",
        why="Code the agent already wrote to disk is noise for a summarizer; its start says what it is",
        loses="All but the first lines of long code blocks (and their lines with URLs)",
        before="```python\nimport os\nimport sys\n\n\ndef main():\n    config = load_config(sys.argv[1])\n"
               "    results = run_all(config)\n    report(results)\n```",
        after="```python\nimport os\nimport sys\n\n\ndef main():\n… (3 more lines, python)\n```",
    ),
    kinds=("text", "tool_result"),
    run=collapse_code,
)


ACTIONS = (COLLAPSE_CODE,)
