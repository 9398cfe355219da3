"""trim-call-args: cut the parts of old tool-call arguments a summary never reads.

Three cuts, each an option, all on a copy that stays valid JSON with its keys in order:

* argument fields no summary needs: timeouts and permission flags of any call (`drop-keys`), and
  the model's own gloss of a shell command (`shell-keys`: Bash `description`; a Task call's
  `description` is its target, so it is kept);
* repeated todo/plan states (TodoWrite, update_plan, todo): the latest state of the conversation
  stays whole, each earlier state after the first becomes a one-line diff against the state
  before it (`[todos] done: "Add tests"; started: "Fix CI"`), and `activeForm` echoes go;
* patch bodies (`*** Begin Patch` … `*** End Patch`): file lines kept, each file's hunks become
  `[patch: +N -M lines]`.

The call's main target (command, path, pattern, URL, the task of a delegation) is never touched.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sanitizer.actions.base import Action, Change, Context, Doc
from sanitizer.actions.tools import compact_style
from sanitizer.digest.calls import normalise
from sanitizer.digest.plans import patch_outline, plan_diff, plan_items, plan_key
from sanitizer.model import Part

DROP_KEYS = ("timeout", "timeout_ms", "yield_time_ms", "max_output_tokens", "with_escalated_permissions",
             "sandbox_permissions", "is_confirmed", "security_risk", "keep_prompt", "kernel_init_code")
SHELL_KEYS = ("description", "justification")
_SHELL_WORDS = ("bash", "shell", "terminal", "exec_command", "run_command", "execute_command", "powershell")
_PLAN_TOOLS = {"todowrite", "todo_write", "write_todos", "update_plan", "todo", "update_todos"}
_ECHO_KEYS = ("activeForm", "active_form")


@dataclass(frozen=True, slots=True)
class TrimCallOptions:
    """The parameters of `trim-call-args`."""
    drop_keys: tuple[str, ...] = DROP_KEYS
    shell_keys: tuple[str, ...] = SHELL_KEYS
    plans: bool = True
    patches: bool = True

    def __post_init__(self) -> None:
        for name in ("drop_keys", "shell_keys"):
            if not all(isinstance(k, str) and k for k in getattr(self, name)):
                raise ValueError(f"{name.replace('_', '-')}: give argument names (non-empty strings)")


def _is_shell(tool: str | None) -> bool:
    key = normalise(tool or "")
    return any(w in key for w in _SHELL_WORDS)


def _is_plan_tool(tool: str | None) -> bool:
    return normalise(tool or "") in _PLAN_TOOLS


def _load(text: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def _dump(value: Any, like: str) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":") if compact_style(like) else None)


def _outline_leaves(node: Any) -> Any:
    if isinstance(node, str):
        return patch_outline(node) if "*** Begin Patch" in node else node
    if isinstance(node, dict):
        return {k: _outline_leaves(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_outline_leaves(v) for v in node]
    return node


def _without_echoes(items: list[Any]) -> list[Any]:
    return [{k: v for k, v in it.items() if k not in _ECHO_KEYS} if isinstance(it, dict) else it for it in items]


@dataclass(slots=True)
class _Plans:
    """Every whole todo/plan state of the view, in order: (part id, label, items)."""

    order: dict[int, int]
    states: list[tuple[list[tuple[str, str]], str]]

    @classmethod
    def of(cls, parts: list[Part]) -> _Plans:
        order: dict[int, int] = {}
        states: list[tuple[list[tuple[str, str]], str]] = []
        for p in parts:
            if p.kind != "tool_call" or p.dropped or not _is_plan_tool(p.tool):
                continue
            value = _load(p.text)
            if not isinstance(value, dict) or value.get("merge") is True:
                states.append(([], ""))  # a partial update or a diff already: no base for the next one
                order[id(p)] = len(states) - 1
                continue
            key = plan_key(value)
            items = plan_items(value[key]) if key else None
            states.append((items or [], key or ""))
            order[id(p)] = len(states) - 1
        return cls(order, states)


def _plans(ctx: Context, parts: list[Part]) -> _Plans:
    everything = ctx.view.parts if ctx.view is not None else parts
    kept = ctx.cache.get("trim-call-args:plans")
    if kept is None or kept[0] is not everything or kept[1] != len(everything):
        kept = (everything, len(everything), _Plans.of(everything))
        ctx.cache["trim-call-args:plans"] = kept
    return kept[2]


def _plan_args(args: dict[str, Any], plans: _Plans, at: int) -> dict[str, Any]:
    """The arguments of the `at`-th todo/plan state: the latest whole, the first without echoes,
    any other one a diff against the whole state before it (left alone when that one is a diff)."""
    key = plan_key(args)
    if key is None or at == len(plans.states) - 1:
        return args
    if at == 0:
        return {**args, key: _without_echoes(args[key])}
    before = plans.states[at - 1][0]
    if not before:
        return args
    return {**args, key: plan_diff("plan" if key == "plan" else "todos", before, plans.states[at][0])}


def _untouched(text: str, drop: set[str], plan: bool) -> bool:
    """True when the arguments cannot change: no escape (so every string is written as it reads),
    no patch, not a plan tool, and no key to drop written anywhere in them."""
    return ("\\" not in text and "*** Begin Patch" not in text and not plan
            and not any(f'"{key}"' in text for key in drop))


def _trim(part: Part, opts: TrimCallOptions, plans: _Plans) -> str | None:
    text = part.text
    drop = set(opts.drop_keys) | (set(opts.shell_keys) if _is_shell(part.tool) else set())
    plan = opts.plans and _is_plan_tool(part.tool)
    if _untouched(text, drop, plan):  # most calls: no parse, no copy, no compare
        return None
    value = _load(text)
    if not isinstance(value, dict):
        if opts.patches and value is None and "*** Begin Patch" in text:  # raw patch text (custom tool)
            out = patch_outline(text)
            return out if out != text else None
        return None
    new = {k: v for k, v in value.items() if k not in drop}
    if plan and id(part) in plans.order and value.get("merge") is not True:
        new = _plan_args(new, plans, plans.order[id(part)])
    if opts.patches:
        new = _outline_leaves(new)
    if new == value:
        return None
    out = _dump(new, text)
    return out if len(out) < len(text) else None


def trim_call_args(parts: list[Part], opts: TrimCallOptions, ctx: Context) -> dict[int, Change]:
    plans = _plans(ctx, parts)
    out: dict[int, Change] = {}
    for n, part in enumerate(parts):
        if part.kind != "tool_call":
            continue
        new = _trim(part, opts, plans)
        if new is not None:
            out[n] = Change(text=new)
    return out


TRIM_CALL_ARGS = Action(
    name="trim-call-args",
    options=TrimCallOptions,
    kinds=("tool_call",),
    run_batch=trim_call_args,
    doc=Doc(
        what="Drops argument fields a summary never reads from old calls: `drop-keys` (timeouts, permission "
             "and confirmation flags) from every call, `shell-keys` (the command's `description`, "
             "`justification`) from shell calls; with `plans`, each todo/plan state (TodoWrite, update_plan, "
             "todo) before the conversation's latest one becomes a one-line diff against the state before it "
             "(the first keeps its items, without `activeForm` echoes); with `patches`, a `*** Begin Patch` "
             "body keeps its file lines and each file's hunks become `[patch: +N -M lines]`. The arguments "
             "stay valid JSON, keys in order; the main target (command, path, pattern, URL) is never cut.",
        why="Agents re-send their whole todo list at every step and describe every command in words; a "
            "summarizer needs the commands, the files and how the plan moved, not the repeats.",
        loses="Command descriptions, timeouts and flags; the full text of earlier todo states (the latest "
              "state and each change stay); the changed lines of patches (files and line counts stay).",
        before='TodoWrite({"todos": [{"content": "Add tests", "status": "completed", "activeForm": "Adding '
               'tests"}, {"content": "Fix CI", "status": "in_progress", "activeForm": "Fixing CI"}]})',
        after='TodoWrite({"todos": "[todos] done: \\"Add tests\\"; started: \\"Fix CI\\""})',
    ),
)

ACTIONS = (TRIM_CALL_ARGS,)
