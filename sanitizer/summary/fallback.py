"""Try LLM summarizers in order; fall back to the deterministic summary (DESIGN §8).

A summarizer is any callable taking the list of normalized messages and returning the summary
text.  Each one gets its own deep copy of the messages, so none can change or lose the caller's
list.  Failures are classified (timeout, auth_quota, server, empty, error_text, invalid,
exception) so callers can report or retry sensibly.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sanitizer.errors import SummaryFailed
from sanitizer.summary import layout as L
from sanitizer.summary.core import summarize_messages

TIMEOUT = "timeout"
AUTH_QUOTA = "auth_quota"
SERVER = "server"
EMPTY = "empty"
ERROR_TEXT = "error_text"
INVALID = "invalid"
EXCEPTION = "exception"
KINDS = (TIMEOUT, AUTH_QUOTA, SERVER, EMPTY, ERROR_TEXT, INVALID, EXCEPTION)

MESSAGE_CHARS = 300
AUTH_RE = re.compile(
    r"\b(?:401|403|429)\b|quota|rate[ _-]?limit|too many requests|unauthori[sz]ed|forbidden|"
    r"authenticat|\bauth\b|permission denied|invalid api key|api[ _-]?key|credit balance|billing",
    re.I,
)
SERVER_RE = re.compile(r"\b5\d\d\b|server error|overloaded|service unavailable|bad gateway|internal error", re.I)
TIMEOUT_TEXT_RE = re.compile(r"\btimed out\b|\btimeout\b", re.I)
# An answer that is an error message or a refusal rather than a summary.  Conservative: only a
# short answer that *starts* like one, and never one that has the summary's headings.
ERROR_ANSWER_RE = re.compile(
    r"\A\s*(?:error\s*:|exception\s*:|traceback \(most recent call last\)|\{\s*\"error\"\s*:|"
    r"i['’]m sorry,? (?:but )?i (?:can(?:no|['’])t|am unable|cannot)|"
    r"i (?:can(?:no|['’])t|am unable to) (?:help|assist|summari[sz]e|comply|do that))",
    re.I,
)
ERROR_ANSWER_MAX = 600

Summarizer = Callable[[list[dict[str, Any]]], Any]
Failure = tuple[int, str, str]


@dataclass(frozen=True, slots=True)
class SummaryResult:
    """What `summarize_with_fallback_messages` produced and how.

    path: "llm" (summarizer number `summarizer_index` answered) or "fallback" (the deterministic
    summary, in `summary`).  failures: (summarizer index, kind, message) for each one that failed.
    """

    text: str
    path: str
    summarizer_index: int | None
    failures: list[Failure] = field(default_factory=list)
    summary: L.Summary | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "path": self.path,
            "summarizer_index": self.summarizer_index,
            "failures": [{"index": i, "kind": k, "message": m} for i, k, m in self.failures],
            "summary": self.summary.to_dict() if self.summary is not None else None,
        }


def _names(exc: BaseException) -> str:
    return " ".join(c.__name__ for c in type(exc).__mro__ if c not in (BaseException, Exception, object))


def _status(exc: BaseException) -> int | None:
    for attr in ("status_code", "status", "http_status", "code"):
        value = getattr(exc, attr, None)
        if isinstance(value, int) and not isinstance(value, bool) and 100 <= value <= 599:
            return value
    response = getattr(exc, "response", None)
    value = getattr(response, "status_code", None)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def classify_exception(exc: BaseException) -> str:
    """timeout / auth_quota / server / exception, from the class, a status code, then the message."""
    names = _names(exc)
    if isinstance(exc, TimeoutError) or "timeout" in names.lower():
        return TIMEOUT
    status = _status(exc)
    if status is not None:
        if status in (401, 402, 403, 429):
            return AUTH_QUOTA
        if status >= 500:
            return SERVER
        if status == 408:
            return TIMEOUT
    text = f"{names} {exc}"
    if AUTH_RE.search(text):
        return AUTH_QUOTA
    if SERVER_RE.search(text):
        return SERVER
    if TIMEOUT_TEXT_RE.search(str(exc)):
        return TIMEOUT
    return EXCEPTION


def check_answer(answer: Any) -> tuple[str, str] | None:
    """(kind, message) when an answer is not a usable summary, else None."""
    if answer is None:
        return EMPTY, "summarizer returned None"
    if not isinstance(answer, str):
        return INVALID, f"summarizer returned {type(answer).__name__}, not str"
    if not answer.strip():
        return EMPTY, "summarizer returned an empty answer"
    if len(answer) <= ERROR_ANSWER_MAX and "## " not in answer and ERROR_ANSWER_RE.match(answer):
        return ERROR_TEXT, "answer looks like an error or a refusal: " + _short(answer)
    return None


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MESSAGE_CHARS else text[: MESSAGE_CHARS - 1] + "…"


def _reason(failures: list[Failure]) -> str:
    return "LLM summary failed: " + "; ".join(f"#{i} {kind}" for i, kind, _m in failures)


def summarize_with_fallback_messages(
    messages: Sequence[dict[str, Any]],
    summarizers: Sequence[Summarizer],
    *,
    abort_on_failure: bool = False,
    previous_summary: str | None = None,
    focus: str | None = None,
    max_chars: int = 8000,
    fallback_messages: Sequence[dict[str, Any]] | None = None,
) -> SummaryResult:
    """The first usable summarizer answer, else the deterministic summary.

    `fallback_messages` (default: `messages`) feed the deterministic summary: callers pass the
    unsanitized messages there, since exit codes and errors read best from the full outputs.

    Each summarizer is called with a deep copy of `messages` (the caller's list is never changed).
    Only `Exception`s are caught (a KeyboardInterrupt still stops the run).  With
    `abort_on_failure=True`, `SummaryFailed` is raised when every summarizer failed, instead of
    falling back, so the caller can keep the full history; with no summarizers at all the
    deterministic summary is the intended answer and is returned.
    """
    failures: list[Failure] = []
    for index, summarizer in enumerate(summarizers):
        try:
            answer = summarizer(copy.deepcopy(list(messages)))
        except Exception as exc:  # noqa: BLE001 - every failure is classified and reported
            failures.append((index, classify_exception(exc), _short(f"{type(exc).__name__}: {exc}")))
            continue
        problem = check_answer(answer)
        if problem is not None:
            failures.append((index, *problem))
            continue
        return SummaryResult(answer.strip(), "llm", index, failures)
    if failures and abort_on_failure:
        raise SummaryFailed(failures)
    summary = summarize_messages(messages if fallback_messages is None else fallback_messages,
                                 previous_summary=previous_summary, focus=focus,
                                 reason=_reason(failures) if failures else None, max_chars=max_chars)
    return SummaryResult(summary.text, "fallback", None, failures, summary)
