"""What a run hands back: the sanitized copy in the input's format, its renderings and the report."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sanitizer import cuts as recover
from sanitizer import transcript
from sanitizer.budget.repair import MODES, repair_doc
from sanitizer.document import loader
from sanitizer.formats.base import Adapter
from sanitizer.model import Document, View
from sanitizer.report import Report
from sanitizer.tokens.tally import Tally

if TYPE_CHECKING:  # the summary package is imported by the summary mode only
    from sanitizer.summary import Summary


class Result:
    """A sanitized copy in the input's format, plus renderings and the report."""

    def __init__(self, doc: Document, adapter: Adapter, views: list[View], report: Report,
                 tally: Tally | None = None, recoverable: list[recover.RecoverableCut] | None = None) -> None:
        self.doc = doc
        self.adapter = adapter
        self.views = views
        self.report = report
        self.tally = tally  # token figures still to count (`Sanitizer.run(..., defer_tokens=True)`)
        self.recoverable = recoverable or []  # the cuts by id, with `Sanitizer(cut_ids=True)`
        self.findings: list[str] = []  # mode `check`: what the validator found
        self.summaries: list[tuple[str, Summary]] = []  # mode `summary`: (label, summary) per conversation

    def expand(self, cut_id: str, *, include_secrets: bool = False) -> str:
        """The text cut `cut_id` (`c17`) stands for, byte-exact; redacted unless `include_secrets`."""
        found = [c for c in self.recoverable if c.id == cut_id]
        if not found:
            hint = "" if self.recoverable else " (run with Sanitizer(cut_ids=True) for cut ids)"
            raise KeyError(f"no cut {cut_id!r}{hint}")
        return str(recover.records(found, include_secrets=include_secrets)[0]["text"])

    def cuts_sidecar(self, *, include_secrets: bool = False) -> str:
        """The cuts sidecar as JSONL text (one cut per line; `sanitize expand` reads it)."""
        return recover.dumps(recover.records(self.recoverable, include_secrets=include_secrets))

    @property
    def output(self) -> Any:
        """The sanitized copy, shaped like the input (a list, or one object). Yours to mutate."""
        return loader.to_object(self.doc)

    def dumps(self) -> str:
        """The sanitized copy as text in the input's layout (JSONL stays JSONL, JSON stays JSON)."""
        return loader.to_text(self.doc)

    def text(self, *, skip_injected: bool = False) -> str:
        """The summarizer transcript (`[USER]: …`, `[ASSISTANT]: …`, `[TOOL RESULT …]: …`)."""
        return "\n".join(transcript.to_text(v, skip_injected=skip_injected) for v in self.views)

    def to_messages(self, *, skip_injected: bool = False) -> list[dict[str, Any]]:
        """Normalized OpenAI chat messages of the (single) conversation; see `conversations()`."""
        if len(self.views) != 1:
            raise ValueError(f"{self.doc.source} holds {len(self.views)} conversations; use conversations()")
        return transcript.to_messages(self.views[0], skip_injected=skip_injected)

    def conversations(self, *, skip_injected: bool = False) -> list[list[dict[str, Any]]]:
        """Normalized OpenAI chat messages, one list per conversation."""
        return [transcript.to_messages(v, skip_injected=skip_injected) for v in self.views]

    def summary_text(self) -> str:
        """Mode `summary`: the summary, or one headed summary per conversation of a file of many."""
        if len(self.summaries) == 1:
            text = self.summaries[0][1].text
            return text if text.endswith("\n") else text + "\n"
        return "".join(f"# {self.doc.source}: {label}\n\n{summary.text.rstrip(chr(10))}\n\n"
                       for label, summary in self.summaries)


def repair_result(result: Result, mode: str) -> Result:
    """Apply a pair repair (`report`, `strip`, `stub`) to an already-sanitized result, in place."""
    if mode not in MODES:
        raise ValueError(f"unknown repair mode {mode!r}; choose one of: {', '.join(MODES)}")
    notes = repair_doc(result.doc, list(result.adapter.views(result.doc)), mode)
    result.views = list(result.adapter.views(result.doc))
    result.report.notes.extend(notes)
    result.report.extra["repair"] = {"mode": mode, "notes": notes}
    return result
