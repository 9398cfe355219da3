"""The one-line digest of a call and its result: what the call did, then how it went.

    [Bash] ran `pytest -q` -> exit 1, 47 lines; first error: AssertionError: expected 3

`sanitizer.digest.calls` describes the call, `sanitizer.digest.outputs` reads the output; this
module composes them, so neither of the two needs the other.
"""

from __future__ import annotations

from typing import Any

from sanitizer.digest.calls import VERBS, describe_call
from sanitizer.digest.outputs import Outcome, outcome_of
from sanitizer.textkit.lazy import lazy_pattern
from sanitizer.textkit.snippets import one_line


def outcome(tool: str | None, args: Any, output: Any, is_error: bool | None = None) -> Outcome:
    """Exit code, size and first error of a tool result (args are used to know a command ran)."""
    return outcome_of(output, is_error, describe_call(tool, args).verb if tool else "called")


def digest_line(tool: str | None, args: Any, output: Any, is_error: bool | None = None) -> str:
    """`[Tool] VERB `target` -> OUTCOME` on one line; deterministic."""
    info = describe_call(tool, args)
    result = outcome(tool, args, output, is_error)
    return f"[{one_line(info.tool)}] {info.phrase()} -> {result.summary()}"


_DIGEST_RE = lazy_pattern(
    r"\[[^\]\n]{1,200}\] (?:" + "|".join(VERBS) + r")\b[^\n]* -> [^\n]*"
)


def is_digest(text: str) -> bool:
    """True when `text` is already a digest line (so digesting again changes nothing)."""
    return "\n" not in text and _DIGEST_RE.fullmatch(text) is not None
