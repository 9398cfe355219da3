"""OpenHands V0 events (`action` / `observation` with `source`), read into one view.

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

from typing import Any

from sanitizer.formats.base import data_uri_meta, string_leaves
from sanitizer.formats.openhands_v1 import args_text
from sanitizer.model import Message, Part, Path, View

PASS_ACTIONS = {"recall", "change_agent_state", "null", "condensation", "condensation_request", "pause",
                "resume", "push", "send_pr", "reject", "delegate"}
Located = list[tuple[int, Path, dict[str, Any]]]


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
