"""OpenHands event histories.

Layouts (each event list is one view):

* V0 event list: a JSON array (or JSONL) of events `{id, source, action|observation, message,
  args|extras, content, cause, tool_call_metadata}` (`~/.openhands/…`, `tests/runtime/trajs`);
* evaluation output JSONL (`evaluation/benchmarks/*` `output.jsonl`): one instance per line,
  its `history` holds V0 events or V1 SDK events — one view per line, like `formats/dataset.py`
  (also a single such object);
* the early resolver output (openhands-resolver, 2024: `{issue, instruction, base_commit,
  git_patch, history, metrics, error}`): `history` is a list of `[action, observation]` pairs,
  read in order as V0 events (placeholder `observation: "null"` entries without ids pass through);
* V1 agent-SDK events (`kind` discriminator; see `formats/openhands_v1.py` for the kinds) as a
  JSON array or JSONL, or inside an evaluation output.

The task: when a record's events hold no user message (V1 eval outputs keep the task only in
`instruction`), the record's `instruction` is read as the first user turn (`meta["instruction"]`);
when the first user text equals `instruction`, that field is linked as its copy.

V0 events are read by `formats/openhands_v0.py`, V1 events by `formats/openhands_v1.py`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from sanitizer.formats.base import live_records, sample
from sanitizer.formats.openai_chat import ChatText
from sanitizer.formats.openhands_v0 import Located, V0Reader
from sanitizer.formats.openhands_v1 import V1Reader, is_v1_event
from sanitizer.model import Document, Part, View


def is_v0_event(e: Any) -> bool:
    return isinstance(e, dict) and "id" in e and "source" in e and ("action" in e or "observation" in e)


def is_event(e: Any) -> bool:
    return is_v0_event(e) or is_v1_event(e)


def is_pair(e: Any) -> bool:
    """An early resolver `[action, observation]` history entry."""
    return isinstance(e, list) and 1 <= len(e) <= 2 and is_event(e[0]) and all(isinstance(x, dict) for x in e)


def _history(rec: Any) -> list | None:
    if isinstance(rec, dict) and isinstance(rec.get("history"), list):
        events = rec["history"][:20]
        if events and sum(is_event(e) or is_pair(e) for e in events) >= len(events) * 0.8:
            return rec["history"]
    return None


def history_events(history: list, record: int) -> Located:
    """The events of a `history`, flattening `[action, observation]` pairs in order."""
    out: Located = []
    for j, e in enumerate(history):
        if isinstance(e, dict):
            out.append((record, ("history", j), e))
        elif isinstance(e, list):
            out.extend((record, ("history", j, k), x) for k, x in enumerate(e) if isinstance(x, dict))
    return out


def _is_system(e: dict[str, Any]) -> bool:
    return e.get("kind") == "SystemPromptEvent" or e.get("action") == "system"


def _is_user_message(e: dict[str, Any]) -> bool:
    if e.get("kind") == "MessageEvent":
        m = e.get("llm_message")
        return e.get("source") == "user" or (isinstance(m, dict) and m.get("role") == "user")
    return e.get("action") == "message" and e.get("source") == "user"


class OpenHands(ChatText):
    name = "openhands"
    label = "OpenHands event history (V0 events, eval output, V1 SDK events)"
    where = 'V0 event lists, evaluation / resolver `output.jsonl` with `history`, V1 SDK events'

    def sniff(self, doc: Document) -> int:
        recs = sample(doc, 50)
        if not recs:
            return 0
        if doc.container == "json-object":
            return 96 if _history(recs[0]) is not None else 0
        if all(_history(r) is not None for r in recs):
            return 96
        if sum(map(is_event, recs)) >= len(recs) * 0.8:
            return 96
        return 0

    # -- layouts -------------------------------------------------------------------------------

    def views(self, doc: Document) -> Iterator[View]:
        recs = sample(doc, 50)
        if doc.container == "json-object" or (recs and all(_history(r) is not None for r in recs)):
            for i, rec in live_records(doc):
                history = _history(rec) if isinstance(rec, dict) else None
                if history is None:
                    continue
                view = View(doc, self, meta={"record": i})
                events = history_events(history, i)
                task = rec.get("instruction") if isinstance(rec.get("instruction"), str) else ""
                reader = self._reader(view, events)
                if task and not any(_is_user_message(e) for _, _, e in events):
                    # The task is only in the record (V1 eval outputs): the first user turn, after
                    # the system prompt.
                    k = next((n for n, (_, _, e) in enumerate(events) if not _is_system(e)), len(events))
                    reader.read(events[:k])
                    msg = view.new_message("user", i, instruction=True)
                    view.add(msg, Part("text", "user", 0, i, ("instruction",), task, meta={"field": True}))
                    reader.read(events[k:])
                else:
                    reader.read(events)
                    if task:
                        _link_instruction(view, i, task)
                yield view
            return
        view = View(doc, self)
        events = [(i, (), e) for i, e in live_records(doc) if isinstance(e, dict)]
        self._reader(view, events).read(events)
        yield view

    @staticmethod
    def _reader(view: View, events: Located) -> V0Reader | V1Reader:
        return V1Reader(view) if any(is_v1_event(e) for _, _, e in events[:50]) else V0Reader(view)

    # -- write-back ------------------------------------------------------------------------------

    def write(self, view: View) -> None:
        """Merge edited args objects key by key; everything else goes through the generic writer."""
        merged: set[int] = set()
        doc = view.doc
        for n, part in enumerate(view.parts):
            if not (part.meta.get("merge_args") and part.changed and not part.replaced and not part.dropped):
                continue
            merged.add(n)
            target = doc.get(part.record, part.path)
            for key, value in json.loads(part.text).items():
                target[key] = value
            doc.dirty.add(part.record)
            for (record, path), text in zip(part.copies, part.meta.get("copy_texts", ()), strict=False):
                if text is not None:
                    doc.set(record, path, text)
        if not merged:
            super().write(view)
            return
        rest = View(doc, self, messages=view.messages,
                    parts=[p for n, p in enumerate(view.parts) if n not in merged], meta=view.meta)
        super().write(rest)


def _link_instruction(view: View, record: int, task: str) -> None:
    """`instruction` repeating the first user text is a copy of it."""
    for part in view.parts:
        if part.role == "user" and part.kind == "text":
            if part.text == task:
                part.copies.append((record, ("instruction",)))
            return
