"""SWE-agent trajectories (`*.traj`): `{environment, trajectory[], history[], info, replay_config}`.

`history` is the conversation the model saw, in two generations:

* v0.x text commands: assistant messages carry `thought` and `action` fields next to `content`
  (the command is a fenced block inside `content`); observations come back as *user* messages.
  There is no call id to pair them with, so an observation stays a `text` part; its message gets
  `meta["observation"] = True` (and the command in `meta["command"]`) so rules and scopes can tell
  it from a user ask, and its text parts `meta["tool_output"]` so the output rules digest it.  A message with `is_demo` holds a whole demonstration: `meta["injected"]`.
* 1.x function calling: OpenAI `tool_calls` on the assistant, and `role: tool` messages that carry
  a `tool_call_ids` LIST; the result part's call id is the first id of that list.

The same texts are stored again in `trajectory[]` (`response`, `thought`, `action`,
`observation`, and in newer files the whole prompt in `query`).  They are linked as `Part.copies`
of the history part they repeat, so a cut made on the history reaches them too:

* `response`, `thought`, `action` and `query` contents are linked when their text is EQUAL to the
  history text (or, for `thought`/`action`, contained in the assistant content that holds them);
* `observation` is never stored equal: SWE-agent wraps it in a template (`(Open file: …)`,
  `bash-$` …) before sending it, so it is linked when it is CONTAINED in the observation message
  that follows the matched assistant turn.  A copy is therefore not always the same text as its
  part: whoever fills `copy_texts` must process each copy's own text.

Each trajectory string is linked at most once.  `info`, `environment`, `replay_config` and all
other keys pass through untouched.

Versions covered: SWE-agent 0.7 (text commands, `.traj` of the 2024 releases, EnIGMA CTF runs)
and 1.x (function calling, `tool_call_ids` lists, `query` copies).  Unknown: trajectories of
forks that rename `history`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from sanitizer.formats.base import mark_output
from sanitizer.formats.openai_chat import ChatMessages, read_chat_message
from sanitizer.model import Document, Message, Part, View

STEP_TEXT_KEYS = ("response", "thought", "action", "observation")


def looks_like_traj(root: Any) -> bool:
    return (isinstance(root, dict) and isinstance(root.get("trajectory"), list)
            and isinstance(root.get("history", []), list) and ("history" in root or "info" in root))


def command_of(m: dict[str, Any]) -> str | None:
    action = m.get("action")
    return action if isinstance(action, str) else None


class SweAgent(ChatMessages):
    name = "swe_agent"
    label = "SWE-agent trajectory (.traj)"

    def sniff(self, doc: Document) -> int:
        if doc.container != "json-object" or not looks_like_traj(doc.records[0]):
            return 0
        root = doc.records[0]
        steps = root["trajectory"]
        if steps and not all(isinstance(s, dict) for s in steps[:20]):
            return 0
        if any(isinstance(s, dict) and ("observation" in s or "action" in s) for s in steps[:20]) or root.get("history"):
            return 97
        return 0

    def views(self, doc: Document) -> Iterator[View]:
        root = doc.records[0]
        view = View(doc, self)
        assistants: list[Message] = []  # non-demo assistant turns, in order
        raws: dict[int, dict[str, Any]] = {}  # assistant message index -> its history dict
        observations: dict[int, list[Message]] = {}  # assistant message index -> following results
        last: Message | None = None
        for j, m in enumerate(root.get("history") or []):
            if not isinstance(m, dict) or "role" not in m:
                continue
            seen = m
            ids = m.get("tool_call_ids")
            if m.get("role") == "tool" and "tool_call_id" not in m and isinstance(ids, list) and ids:
                seen = {**m, "tool_call_id": ids[0]}  # read-only proxy: paths still point at `m`
            msg = read_chat_message(view, 0, ("history", j), seen)
            if m.get("is_demo"):
                msg.meta["injected"] = True
                continue
            if msg.role == "assistant":
                assistants.append(msg)
                raws[msg.index] = m
                observations[msg.index] = []
                last = msg
                self._link_fields(view, msg, m, ("history", j))
            elif msg.role in ("user", "tool") and last is not None:
                observations[last.index].append(msg)
                if msg.role == "user":
                    msg.meta["observation"] = True
                    command = command_of(raws[last.index])
                    if command:
                        msg.meta["command"] = command
                    mark_output(view, msg, command)
        self._link_trajectory(view, root, assistants, raws, observations)
        yield view

    # -- helpers -----------------------------------------------------------------------------

    @staticmethod
    def _content_part(view: View, msg: Message) -> Part | None:
        return next((p for p in view.parts_of(msg) if p.kind == "text"), None)

    @staticmethod
    def _call_part(view: View, msg: Message) -> Part | None:
        calls = [p for p in view.parts_of(msg) if p.kind == "tool_call"]
        return calls[0] if len(calls) == 1 else None

    def _owner(self, view: View, msg: Message, key: str, text: str) -> Part | None:
        """The part of assistant `msg` that a `thought`/`action`/`response` string repeats."""
        content = self._content_part(view, msg)
        if key == "action":
            call = self._call_part(view, msg)
            if call is not None:
                return call  # 1.x: the command line is rebuilt from the call's arguments
        if content is not None and text and (text == content.text or text in content.text):
            return content
        return None

    def _link_fields(self, view: View, msg: Message, m: dict[str, Any], base: tuple) -> None:
        """The history message's own `thought`/`action` fields repeat its content or its call."""
        for key in ("thought", "action"):
            text = m.get(key)
            if isinstance(text, str) and text:
                owner = self._owner(view, msg, key, text)
                if owner is not None:
                    owner.copies.append((0, base + (key,)))

    def _link_trajectory(self, view: View, root: dict[str, Any], assistants: list[Message],
                         raws: dict[int, dict[str, Any]], observations: dict[int, list[Message]]) -> None:
        texts: dict[str, Part] = {}
        for p in view.parts:
            if p.kind in ("text", "tool_result", "thinking") and p.text:
                texts.setdefault(p.text, p)
        cursor = 0
        for k, step in enumerate(root.get("trajectory") or []):
            if not isinstance(step, dict):
                continue
            base = ("trajectory", k)
            msg, cursor = self._match_step(view, raws, step, assistants, cursor, k)
            if msg is not None:
                for key in ("response", "thought", "action"):
                    text = step.get(key)
                    if isinstance(text, str) and text:
                        owner = self._owner(view, msg, key, text)
                        if owner is not None:
                            owner.copies.append((0, base + (key,)))
                obs = step.get("observation")
                if isinstance(obs, str) and obs:
                    owner = self._observation_owner(view, observations.get(msg.index, []), obs)
                    if owner is not None:
                        owner.copies.append((0, base + ("observation",)))
            self._link_query(step.get("query"), base + ("query",), texts)

    def _match_step(self, view: View, raws: dict[int, dict[str, Any]], step: dict[str, Any], assistants: list[Message],
                    cursor: int, k: int) -> tuple[Message | None, int]:
        """The assistant turn a trajectory step records: first equal response/action from `cursor`."""
        for i in range(cursor, len(assistants)):
            content = self._content_part(view, assistants[i])
            m = raws[assistants[i].index]
            if (content is not None and step.get("response") == content.text) or (
                    step.get("action") and step.get("action") == m.get("action")):
                return assistants[i], i + 1
        if cursor <= k < len(assistants):
            return assistants[k], k + 1
        return None, cursor

    @staticmethod
    def _observation_owner(view: View, msgs: list[Message], obs: str) -> Part | None:
        for msg in msgs:
            for p in view.parts_of(msg):
                if p.kind in ("text", "tool_result") and (p.text == obs or obs in p.text):
                    return p
        return None

    @staticmethod
    def _link_query(query: Any, base: tuple, texts: dict[str, Part]) -> None:
        if not isinstance(query, list):
            return
        for i, q in enumerate(query):
            if not isinstance(q, dict):
                continue
            content = q.get("content")
            if isinstance(content, str) and content in texts:
                texts[content].copies.append((0, base + (i, "content")))
            elif isinstance(content, list):
                for j, c in enumerate(content):
                    if isinstance(c, dict) and isinstance(c.get("text"), str) and c["text"] in texts:
                        texts[c["text"]].copies.append((0, base + (i, "content", j, "text")))
    where = '`*.traj`: v0.x text commands and 1.x function calling; `trajectory[]` copies handled'
