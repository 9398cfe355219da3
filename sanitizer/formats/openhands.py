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

V0 mapping:

* `action: system` → system text (`args.content`); `action: message` → user/assistant text by
  `source` (`args.content`, `args.image_urls` as images);
* tool actions (`run`, `run_ipython`, `read`, `edit`, `browse`, `browse_interactive`, `mcp`, …)
  → an assistant message: `args.thought` as text, and a `tool_call` part on the `args` OBJECT
  (`meta["args_object"]`): its text is the JSON of the args fields that matter (not `thought`,
  bookkeeping flags or empty values), and write-back MERGES the edited keys into `args`, so every
  other key stays as it was.  call id = `tool_call_metadata.tool_call_id`, else `oh-<event id>`;
  tool = `tool_call_metadata.function_name`, else the action name;
* observations whose `cause` is a tool action (or whose `tool_call_metadata.tool_call_id` names
  one) → `role: tool` `tool_result` at `content`; long strings in `extras` (`new_content`,
  `diff` …) are linked as copies;
* `think` → a `thinking` part (`args.thought`); its "Your thought has been logged." observation
  passes through (there is no call part, so it would be an orphan result);
* `finish` → assistant text (`args.final_thought`, `args.thought`): it never gets a result;
* an `error` observation without a call → user text (`meta["observation"]`);
* `recall`, `change_agent_state`, `agent_state_changed`, `null`, … pass through (not messages).

`tool_call_metadata.model_response` repeats the call: `choices[].message.tool_calls[].function.
arguments` (the call with the same id) is linked as a copy of the tool_call part, and
`choices[].message.content` as a copy of the text part it equals — in the action event and in the
observation event (which carries the same metadata).  The `message` field of a message / system /
finish event equal to its text is linked the same way.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from sanitizer.formats.base import data_uri_meta, live_records, sample, string_leaves
from sanitizer.formats.openai_chat import ChatText
from sanitizer.formats.openhands_v1 import V1Reader, args_text, is_v1_event
from sanitizer.model import Document, Message, Part, Path, View

PASS_ACTIONS = {"recall", "change_agent_state", "null", "condensation", "condensation_request", "pause",
                "resume", "push", "send_pr", "reject", "delegate"}
Located = list[tuple[int, Path, dict[str, Any]]]


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


class V0Reader:
    def __init__(self, view: View) -> None:
        self.view = view
        self.calls_by_event: dict[Any, Part] = {}
        self.calls_by_id: dict[str, Part] = {}
        self.texts: dict[int, list[Part]] = {}  # message index -> its text parts

    def read(self, events: Located) -> None:
        for record, base, e in events:
            if "action" in e:
                self._action(record, base, e)
            elif "observation" in e:
                self._observation(record, base, e)

    def _text(self, msg: Message, kind: str, record: int, path: Path, text: str) -> Part:
        part = self.view.add(msg, Part(kind, msg.role, 0, record, path, text, meta={"field": True}))
        self.texts.setdefault(msg.index, []).append(part)
        return part

    def _link_message_field(self, msg: Message, record: int, base: Path, e: dict[str, Any]) -> None:
        text = e.get("message")
        for part in self.texts.get(msg.index, []):
            if isinstance(text, str) and text and text == part.text and part.path != base + ("message",):
                part.copies.append((record, base + ("message",)))
                return

    def _action(self, record: int, base: Path, e: dict[str, Any]) -> None:
        view, action = self.view, e.get("action")
        args = e.get("args") if isinstance(e.get("args"), dict) else {}
        source = e.get("source")
        if action in PASS_ACTIONS or not isinstance(action, str):
            return
        if action in ("system", "message"):
            role = "system" if action == "system" else ("user" if source == "user" else "assistant")
            msg = view.new_message(role, record)
            if isinstance(args.get("content"), str):
                self._text(msg, "text", record, base + ("args", "content"), args["content"])
                self._link_message_field(msg, record, base, e)
            elif isinstance(e.get("message"), str):
                self._text(msg, "text", record, base + ("message",), e["message"])
            for k, url in enumerate(args.get("image_urls") or []):
                if isinstance(url, str):
                    at = base + ("args", "image_urls", k)
                    view.add(msg, Part("image", role, 0, record, at, "", block=at,
                                       meta={**data_uri_meta(url), "field": True}))
            self._link_model_response(record, base, e, msg, None)
            return
        msg = view.new_message("assistant", record)
        if action == "think":
            if isinstance(args.get("thought"), str):
                self._text(msg, "thinking", record, base + ("args", "thought"), args["thought"])
            return
        if action == "finish":
            for key in ("final_thought", "thought"):
                if isinstance(args.get(key), str) and args[key]:
                    self._text(msg, "text", record, base + ("args", key), args[key])
            self._link_message_field(msg, record, base, e)
            self._link_model_response(record, base, e, msg, None)
            return
        if isinstance(args.get("thought"), str) and args["thought"]:
            self._text(msg, "text", record, base + ("args", "thought"), args["thought"])
        tcm = e.get("tool_call_metadata") if isinstance(e.get("tool_call_metadata"), dict) else {}
        call_id = tcm.get("tool_call_id") or f"oh-{e.get('id')}"
        tool = tcm.get("function_name") or action
        call = view.add(msg, Part("tool_call", "assistant", 0, record, base + ("args",), args_text(args),
                                  tool=tool, call_id=call_id,
                                  meta={"args_object": True, "merge_args": True, "action": action}))
        self.calls_by_event.setdefault(e.get("id"), call)
        self.calls_by_id.setdefault(call_id, call)
        self._link_model_response(record, base, e, msg, call)

    def _observation(self, record: int, base: Path, e: dict[str, Any]) -> None:
        view = self.view
        tcm = e.get("tool_call_metadata") if isinstance(e.get("tool_call_metadata"), dict) else {}
        call = self.calls_by_event.get(e.get("cause")) if e.get("cause") is not None else None
        if call is None and tcm.get("tool_call_id"):
            call = self.calls_by_id.get(tcm["tool_call_id"])
        key = "content" if "content" in e else "message"
        text = e.get(key)
        if call is not None:
            msg = view.new_message("tool", record)
            part = view.add(msg, Part("tool_result", "tool", 0, record, base + (key,),
                                      text if isinstance(text, str) else "", tool=call.tool, call_id=call.call_id,
                                      meta={"field": True, "observation": e.get("observation")}))
            if isinstance(e.get("extras"), dict):
                part.copies.extend((record, p) for p, _ in string_leaves(e["extras"], base + ("extras",)))
            owner = view.messages[call.message]
            self._link_model_response(record, base, e, owner, call)
        elif e.get("observation") == "error" and isinstance(text, str) and text:
            msg = view.new_message("user", record, observation=True)
            self._text(msg, "text", record, base + (key,), text)

    def _link_model_response(self, record: int, base: Path, e: dict[str, Any], msg: Message,
                             call: Part | None) -> None:
        tcm = e.get("tool_call_metadata")
        response = tcm.get("model_response") if isinstance(tcm, dict) else None
        choices = response.get("choices") if isinstance(response, dict) else None
        if not isinstance(choices, list):
            return
        texts = {p.text: p for p in self.texts.get(msg.index, []) if p.text}
        for c, choice in enumerate(choices):
            message = choice.get("message") if isinstance(choice, dict) else None
            if not isinstance(message, dict):
                continue
            at = base + ("tool_call_metadata", "model_response", "choices", c, "message")
            content = message.get("content")
            if isinstance(content, str) and content in texts:
                texts[content].copies.append((record, at + ("content",)))
            if call is None:
                continue
            for t, tc in enumerate(message.get("tool_calls") or []):
                fn = tc.get("function") if isinstance(tc, dict) else None
                if isinstance(fn, dict) and tc.get("id") == call.call_id and isinstance(fn.get("arguments"), str):
                    call.copies.append((record, at + ("tool_calls", t, "function", "arguments")))
