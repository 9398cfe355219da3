"""Detection that explains itself: each adapter's score, what it looks for, and — when none is
sure — the two closest adapters and the keys they expected but did not find."""

from __future__ import annotations

from dataclasses import dataclass

from sanitizer.formats.base import Adapter, sample
from sanitizer.model import Document

# Keys each format's records (or their messages / events) carry.  Closeness = the share of them a
# document shows; it only ranks adapters when no sniff is sure, it never decides a format.
SIGNATURES: dict[str, tuple[str, str]] = {
    "claude_code": ("type, message, sessionId, uuid, parentUuid",
                    "lines of type user/assistant holding a `message`, with sessionId / uuid"),
    "codex": ("timestamp, type, payload", "envelope lines `{timestamp, type: response_item|event_msg|…, payload}`"),
    "swe_agent": ("trajectory, history, info, environment", "an object with `trajectory` steps and `history`"),
    "mini_swe_agent": ("info, messages, trajectory_format, role, content",
                       "`messages` with ```mswea_bash_command``` blocks, or `trajectory_format: mini-swe-agent*`"),
    "openhands": ("id, source, action, observation, kind, history, instruction",
                  "events with id/source/action|observation (V0) or `kind` (V1), or records with `history`"),
    "hermes": ("session_id, id, system_prompt, messages, model",
               "a session `{session_id, messages}` or an export of `{id, system_prompt, messages}` rows"),
    "dataset": ("messages, traj, conversation, conversations", "several records each holding a conversation"),
    "anthropic": ("role, content, messages, system", "`{role, content: [blocks]}` with tool_use / tool_result blocks"),
    "responses": ("type, call_id, input, items, role, content", "Responses items: message / function_call / …"),
    "openai_chat": ("role, content, tool_calls, tool_call_id, messages", "chat messages `{role, content}`"),
}


@dataclass(frozen=True, slots=True)
class Verdict:
    """One adapter's view of a document."""

    name: str
    label: str
    score: int
    looks_for: str
    closeness: float
    missing: tuple[str, ...]


def _keys(doc: Document) -> set[str]:
    """Top-level keys of the sampled records and of the items of their first lists."""
    keys: set[str] = set()
    for rec in sample(doc, 50):
        items = rec if isinstance(rec, list) else [rec]
        for item in items[:50]:
            if not isinstance(item, dict):
                continue
            keys.update(item)
            for value in item.values():
                if isinstance(value, list):
                    for sub in value[:20]:
                        if isinstance(sub, dict):
                            keys.update(sub)
                    break
    return keys


def explain(doc: Document, adapters: tuple[Adapter, ...]) -> list[Verdict]:
    """Every adapter's verdict, most sure first (ties: the detection order)."""
    keys = _keys(doc)
    out: list[Verdict] = []
    for adapter in adapters:
        wanted, looks_for = SIGNATURES.get(adapter.name, ("", adapter.label))
        names = tuple(k.strip() for k in wanted.split(",") if k.strip())
        missing = tuple(k for k in names if k not in keys)
        closeness = 1 - len(missing) / len(names) if names else 0.0
        out.append(Verdict(adapter.name, adapter.label, adapter.sniff(doc), looks_for, closeness, missing))
    order = {a.name: i for i, a in enumerate(adapters)}
    return sorted(out, key=lambda v: (-v.score, -v.closeness, order[v.name]))


def detection_report(doc: Document, adapters: tuple[Adapter, ...]) -> str:
    """The lines `--detect` prints for one document."""
    verdicts = explain(doc, adapters)
    width = max(len(v.name) for v in verdicts)
    lines = [f"{doc.source}:"]
    for v in verdicts:
        state = "found" if v.score else "not found"
        lines.append(f"  {v.name.ljust(width)}  {v.score:>3}  {state}: {v.looks_for}")
    best = verdicts[0]
    if best.score:
        lines.append(f"  -> {best.name} ({best.label})")
    else:
        lines.append("  -> " + no_adapter_sure(verdicts))
    return "\n".join(lines)


def no_adapter_sure(verdicts: list[Verdict]) -> str:
    """`no adapter is sure; closest: …` naming the two closest adapters and what each misses."""
    closest = sorted(verdicts, key=lambda v: -v.closeness)[:2]
    bits = [f"{v.name} (missing {', '.join(v.missing) or 'the shape it expects'}: {v.looks_for})" for v in closest]
    return "no adapter is sure; closest: " + "; ".join(bits)


def closest_summary(doc: Document, adapters: tuple[Adapter, ...]) -> str:
    """One sentence for an error message when detection fails."""
    return no_adapter_sure(explain(doc, adapters))
