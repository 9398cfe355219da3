"""OpenHands agent-SDK (V1) events, keyed by their `kind` discriminator (openhands-sdk 1.x,
`openhands/sdk/event/`), as a bare list / JSONL or inside an evaluation output's `history`.

Record kinds read (the LLM-convertible events):

* `SystemPromptEvent` → system text (`system_prompt.text`; `dynamic_context.text` too);
* `MessageEvent` → a message of `llm_message.role` (else by `source`): `content` TextContent /
  ImageContent (`image_urls`) blocks, `reasoning_content` and `thinking_blocks` as thinking,
  `extended_content` blocks as more text;
* `ActionEvent` → an assistant message: `thought` blocks as text, `reasoning_content` /
  `thinking_blocks` as thinking, and a tool call on `tool_call.arguments` (a JSON string; the
  `action` object's long strings are linked as its copies), else on the `action` object itself;
* `ObservationEvent` (`observation.content` blocks), `AgentErrorEvent` (`error`),
  `UserRejectObservation` (`rejection_reason`) → the `tool` result of `tool_call_id`, or a user
  observation text when that call is not in the list;
* `CondensationSummaryEvent` → injected user text (`summary`); `ConversationErrorEvent` → a
  user observation text (`detail`).

Every other kind (`Condensation`, `CondensationRequest`, `PauseEvent`, `InterruptEvent`,
`ConversationStateUpdateEvent`, `LLMCompletionLogEvent`, `TokenEvent`, `HookExecutionEvent`,
`SecurityAnalysisEvent`, `StreamingDeltaEvent`, `ACPToolCallEvent`, and kinds added later) passes
through unchanged; kinds this reader does not know are counted in `view.meta["unknown_kinds"]`
(the report notes them).
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from sanitizer.formats.base import data_uri_meta, is_real_signature, string_leaves
from sanitizer.formats.openai_chat import read_chat_message
from sanitizer.model import Message, Part, Path, View

V1_KINDS = {"SystemPromptEvent", "MessageEvent", "ActionEvent", "ObservationEvent", "AgentErrorEvent",
            "UserRejectObservation", "CondensationSummaryEvent", "Condensation", "CondensationRequest",
            "PauseEvent", "InterruptEvent", "ConversationStateUpdateEvent", "ConversationErrorEvent",
            "LLMCompletionLogEvent", "TokenEvent", "HookExecutionEvent", "SecurityAnalysisEvent",
            "StreamingDeltaEvent", "ACPToolCallEvent"}
# Args that are bookkeeping, not what the tool was asked to do.
SKIP_ARGS = {"thought", "impl_source", "confirmation_state", "security_risk", "blocking", "hidden",
             "is_static", "wait_for_response", "image_urls"}

Located = list[tuple[int, Path, dict[str, Any]]]


def is_v1_event(e: Any) -> bool:
    """A V1 event: a known `kind`, or an unknown `*Event` kind with the base event fields."""
    if not isinstance(e, dict) or not isinstance(e.get("kind"), str):
        return False
    kind = e["kind"]
    return kind in V1_KINDS or (kind.endswith(("Event", "Observation")) and "id" in e and "source" in e)


def args_text(args: dict[str, Any]) -> str:
    """The JSON of the args fields that matter."""
    keep = {k: v for k, v in args.items() if k not in SKIP_ARGS and v not in (None, "", False, [], {})}
    return json.dumps(keep, ensure_ascii=False)


class V1Reader:
    """Agent-SDK (V1) events, keyed by `kind`."""

    def __init__(self, view: View) -> None:
        self.view = view
        self.calls: dict[str, Part] = {}
        self.unknown: Counter[str] = Counter()

    def read(self, events: Located) -> None:
        for record, base, e in events:
            kind = e.get("kind")
            handler = getattr(self, f"_{kind}", None) if isinstance(kind, str) else None
            if handler is not None:
                handler(record, base, e)
            elif kind not in V1_KINDS:
                self.unknown[str(kind)] += 1
        if self.unknown:
            self.view.meta["unknown_kinds"] = dict(self.unknown)

    def _content(self, msg: Message, kind: str, record: int, at: Path, content: Any,
                 tool: str | None = None, call_id: str | None = None) -> None:
        view = self.view
        if isinstance(content, str):
            view.add(msg, Part(kind, msg.role, 0, record, at, content, tool=tool, call_id=call_id,
                               meta={"field": True}))
            return
        for i, block in enumerate(content if isinstance(content, list) else []):
            where = at + (i,)
            if isinstance(block, dict) and isinstance(block.get("text"), str):
                view.add(msg, Part(kind, msg.role, 0, record, where + ("text",), block["text"], block=where,
                                   tool=tool, call_id=call_id))
            elif isinstance(block, dict) and block.get("type") == "image":
                for k, url in enumerate(block.get("image_urls") or []):
                    if isinstance(url, str):
                        view.add(msg, Part("image", msg.role, 0, record, where + ("image_urls", k), "",
                                           block=where + ("image_urls", k), meta={**data_uri_meta(url), "field": True}))
            else:
                view.add(msg, Part("other", msg.role, 0, record, where, "", block=where))

    def _thinking(self, msg: Message, record: int, base: Path, holder: dict[str, Any]) -> None:
        view = self.view
        if isinstance(holder.get("reasoning_content"), str) and holder["reasoning_content"]:
            at = base + ("reasoning_content",)
            view.add(msg, Part("thinking", msg.role, 0, record, at, holder["reasoning_content"], block=at,
                               meta={"field": True}))
        for i, block in enumerate(holder.get("thinking_blocks") or []):
            if isinstance(block, dict) and isinstance(block.get("thinking"), str):
                at = base + ("thinking_blocks", i)
                view.add(msg, Part("thinking", msg.role, 0, record, at + ("thinking",), block["thinking"],
                                   block=at, meta={"signed": is_real_signature(block.get("signature"))}))

    def _SystemPromptEvent(self, record: int, base: Path, e: dict[str, Any]) -> None:  # noqa: N802
        msg = self.view.new_message("system", record)
        for key in ("system_prompt", "dynamic_context"):
            prompt = e.get(key)
            if isinstance(prompt, dict) and isinstance(prompt.get("text"), str):
                self.view.add(msg, Part("text", "system", 0, record, base + (key, "text"), prompt["text"],
                                        block=base + (key,)))
            elif isinstance(prompt, str):
                self.view.add(msg, Part("text", "system", 0, record, base + (key,), prompt, meta={"field": True}))

    def _MessageEvent(self, record: int, base: Path, e: dict[str, Any]) -> None:  # noqa: N802
        m = e.get("llm_message")
        if not isinstance(m, dict):
            return
        if m.get("role") == "tool" or m.get("tool_calls"):
            read_chat_message(self.view, record, base + ("llm_message",), m)
            return
        role = m.get("role") if m.get("role") in ("system", "user", "assistant") else (
            "user" if e.get("source") == "user" else "assistant")
        at = base + ("llm_message",)
        msg = self.view.new_message(role, record)
        self._content(msg, "text", record, at + ("content",), m.get("content"))
        self._thinking(msg, record, at, m)
        self._content(msg, "text", record, base + ("extended_content",), e.get("extended_content"))

    def _ActionEvent(self, record: int, base: Path, e: dict[str, Any]) -> None:  # noqa: N802
        view = self.view
        msg = view.new_message("assistant", record)
        self._content(msg, "text", record, base + ("thought",), e.get("thought"))
        self._thinking(msg, record, base, e)
        tc = e.get("tool_call") if isinstance(e.get("tool_call"), dict) else {}
        fn = tc.get("function") if isinstance(tc.get("function"), dict) else None
        holder, at = (fn, base + ("tool_call", "function")) if fn is not None else (tc, base + ("tool_call",))
        call_id = e.get("tool_call_id") or tc.get("id")
        tool = e.get("tool_name") or holder.get("name")
        if isinstance(holder.get("arguments"), str):
            call = view.add(msg, Part("tool_call", "assistant", 0, record, at + ("arguments",), holder["arguments"],
                                      tool=tool, call_id=call_id))
        elif isinstance(e.get("action"), dict):
            call = view.add(msg, Part("tool_call", "assistant", 0, record, base + ("action",),
                                      args_text({k: v for k, v in e["action"].items() if k != "kind"}),
                                      tool=tool, call_id=call_id,
                                      meta={"args_object": True, "merge_args": True}))
        else:
            return
        if call.path != base + ("action",) and isinstance(e.get("action"), dict):
            call.copies.extend((record, p) for p, _ in string_leaves(e["action"], base + ("action",)))
        if call_id:
            self.calls.setdefault(call_id, call)

    def _result(self, record: int, base: Path, e: dict[str, Any], at: Path, content: Any) -> None:
        call_id = e.get("tool_call_id")
        call = self.calls.get(call_id) if call_id else None
        msg = self.view.new_message("tool" if call is not None else "user", record,
                                    **({} if call is not None else {"observation": True}))
        kind = "tool_result" if call is not None else "text"
        self._content(msg, kind, record, at, content, tool=e.get("tool_name"),
                      call_id=call_id if call is not None else None)

    def _ObservationEvent(self, record: int, base: Path, e: dict[str, Any]) -> None:  # noqa: N802
        obs = e.get("observation") if isinstance(e.get("observation"), dict) else {}
        for key in ("content", "output", "text"):
            if isinstance(obs.get(key), str | list):
                self._result(record, base, e, base + ("observation", key), obs[key])
                return

    def _AgentErrorEvent(self, record: int, base: Path, e: dict[str, Any]) -> None:  # noqa: N802
        if isinstance(e.get("error"), str):
            self._result(record, base, e, base + ("error",), e["error"])

    def _UserRejectObservation(self, record: int, base: Path, e: dict[str, Any]) -> None:  # noqa: N802
        if isinstance(e.get("rejection_reason"), str):
            self._result(record, base, e, base + ("rejection_reason",), e["rejection_reason"])

    def _ConversationErrorEvent(self, record: int, base: Path, e: dict[str, Any]) -> None:  # noqa: N802
        if isinstance(e.get("detail"), str) and e["detail"]:
            msg = self.view.new_message("user", record, observation=True)
            self.view.add(msg, Part("text", "user", 0, record, base + ("detail",), e["detail"], meta={"field": True}))

    def _CondensationSummaryEvent(self, record: int, base: Path, e: dict[str, Any]) -> None:  # noqa: N802
        if isinstance(e.get("summary"), str):
            msg = self.view.new_message("user", record, injected=True)
            self.view.add(msg, Part("text", "user", 0, record, base + ("summary",), e["summary"],
                                    meta={"field": True}))
