"""Write openhands_v1_eval_output.jsonl with the openhands-sdk's own event classes.

Run with a Python that has `openhands-sdk` (it needs Python >= 3.12, so it is not a test
dependency):  python tests/data/make_openhands_v1.py
The file is an evaluation-output line as the V1 benchmarks write it: the task only in
`instruction`, no user MessageEvent in `history`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

os.environ.setdefault("OPENHANDS_SUPPRESS_BANNER", "1")

from openhands.sdk.event import (  # noqa: E402
    ActionEvent,
    AgentErrorEvent,
    ConversationStateUpdateEvent,
    MessageEvent,
    ObservationEvent,
    PauseEvent,
    SystemPromptEvent,
)
from openhands.sdk.llm import Message, MessageToolCall, TextContent, ThinkingBlock  # noqa: E402
from openhands.sdk.tool.builtins import FinishAction, ThinkAction, ThinkObservation  # noqa: E402

TASK = "Fix the off-by-one error in pager.py so the last page is shown."


def call(cid: str, name: str, args: dict) -> MessageToolCall:
    return MessageToolCall(id=cid, name=name, arguments=json.dumps(args), origin="completion")


def history() -> list:
    think = ThinkAction(thought="The loop stops one page early.")
    return [
        SystemPromptEvent(system_prompt=TextContent(text="You are OpenHands agent."), tools=[],
                          dynamic_context=TextContent(text="Working directory: /workspace/pager")),
        ActionEvent(thought=[TextContent(text="Let me think about the loop first.")],
                    thinking_blocks=[ThinkingBlock(thinking="Pages are 1-based.", signature="EqQBCkgIBRAB")],
                    action=think, tool_name="think", tool_call_id="call_1",
                    tool_call=call("call_1", "think", {"thought": think.thought}), llm_response_id="resp_1"),
        ObservationEvent(tool_name="think", tool_call_id="call_1", action_id="a1",
                         observation=ThinkObservation.from_text("Your thought has been logged.")),
        ConversationStateUpdateEvent(key="execution_status", value="running"),
        ActionEvent(thought=[TextContent(text="Checking an unknown tool.")], tool_name="grep",
                    tool_call_id="call_2", tool_call=call("call_2", "grep", {"pattern": "range("}),
                    llm_response_id="resp_2"),
        AgentErrorEvent(tool_name="grep", tool_call_id="call_2", error="Tool 'grep' not found."),
        MessageEvent(source="agent", llm_message=Message(role="assistant", content=[
            TextContent(text="The loop now uses range(1, pages + 1).")])),
        PauseEvent(),
        ActionEvent(thought=[], action=FinishAction(message="Fixed pager.py."), tool_name="finish",
                    tool_call_id="call_3", tool_call=call("call_3", "finish", {"message": "Fixed pager.py."}),
                    llm_response_id="resp_3"),
    ]


def main() -> None:
    events = [json.loads(e.model_dump_json()) for e in history()]
    record = {"instance_id": "demo__pager-1", "instruction": TASK, "history": events,
              "test_result": {"git_patch": "diff --git a/pager.py b/pager.py\n"}, "error": None}
    out = Path(__file__).with_name("openhands_v1_eval_output.jsonl")
    out.write_text(json.dumps(record) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
