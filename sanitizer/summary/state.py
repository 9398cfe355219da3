"""Where the work stands: working directory, git branch, files changed, the last test run.

Each fact is the *latest* one visible in the session (by message order).  What this can lose: a
`cd` inside a subshell or a script is taken at face value, and a branch switched by a tool that
prints nothing recognisable is not seen.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field

from sanitizer import digest
from sanitizer.summary.extract import Call, Session
from sanitizer.summary.paths import looks_like_path
from sanitizer.summary.text import clip

CD_RE = re.compile(r"(?:^|&&|;|\|\||\n)\s*(?:cd|pushd|Set-Location)\s+(\"[^\"\n]+\"|'[^'\n]+'|[^\s;&|]+)")
CWD_TEXT_RES = (
    re.compile(r"<cwd>\s*([^<\n]+?)\s*</cwd>"),
    re.compile(r"^[ \t]*(?:Current )?(?:working directory|cwd)[ \t]*:[ \t]*(\S[^\n]*?)[ \t]*$", re.I | re.M),
)
BRANCH_CMD_RE = re.compile(
    r"\bgit\s+(?:checkout\s+-[bB]|switch\s+(?:-[cC]|--create))\s+([\w./-]+)"
    r"|\bgit\s+(?:checkout|switch)\s+(?!-)([\w/-]+)(?=\s*(?:$|&&|;|\n))"
)
BRANCH_TEXT_RE = re.compile(
    r"^\s*(?:On branch ([\w./-]+)|Switched to (?:a new )?branch '([^'\n]+)'|"
    r"(?:Current|Git) branch:\s*([\w./-]+))",
    re.M,
)
TEST_RE = re.compile(
    r"\b(?:pytest|py\.test|tox|nox|unittest|jest|vitest|mocha|rspec|phpunit|ctest)\b"
    r"|\b(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?test\b|\b(?:cargo|go|mix|dotnet|deno|swift)\s+test\b"
    r"|\bmake\s+(?:test|check)\b|\b(?:mvn|gradle|gradlew)\b[^\n]*\btest\b",
    re.I,
)
TEST_COUNT_RE = re.compile(r"\b\d+\s+(?:passed|failed|failing|passing|errors?|error|tests?|skipped)\b", re.I)
COMMAND_KEYS = ("command", "cmd", "commands", "script", "code", "input")


@dataclass(slots=True)
class State:
    cwd: str | None = None
    branch: str | None = None
    changed: list[str] = field(default_factory=list)  # most recent first
    test: Call | None = None

    def items(self) -> list[str]:
        out: list[str] = []
        if self.cwd:
            out.append(f"Working directory: {self.cwd}")
        if self.branch:
            out.append(f"Git branch: {self.branch}")
        if self.changed:
            out.append("Last files changed: " + ", ".join(self.changed))
        if self.test is not None:
            out.append("Last test run: " + test_line(self.test))
        return out


def command_of(call: Call) -> str:
    """The shell command (or code) a `ran` call executed, else ''."""
    if call.verb != "ran" or not isinstance(call.args, dict):
        return ""
    for key in COMMAND_KEYS:
        value = call.args.get(key)
        if isinstance(value, dict):  # Responses local_shell_call action
            value = value.get("command")
        if value and isinstance(value, str | list):
            return digest.shell_text(value)
    return ""


def is_edit(call: Call) -> bool:
    return call.verb in ("edited", "wrote")


def edited_files(call: Call) -> list[str]:
    if call.paths:
        return list(call.paths)
    return [call.target] if call.target and looks_like_path(call.target) else []


def test_summary(output: str) -> str:
    """The last line of a test run's output that counts passed/failed tests."""
    tail = output[-6000:]
    for line in reversed(tail.splitlines()):
        if TEST_COUNT_RE.search(line):
            return clip(line.strip(" =-*\t"), 160)
    return ""


def test_line(call: Call) -> str:
    cmd = clip(command_of(call) or call.target, 120)
    if call.output is None:
        return f"`{cmd}` — no result recorded"
    verdict = "failed" if call.failed else "passed"
    if call.exit_code is not None:
        verdict += f" (exit {call.exit_code})"
    summary = test_summary(call.output)
    return f"`{cmd}` — {verdict}" + (f": {summary}" if summary else "")


def _cd(cwd: str | None, target: str) -> str:
    target = target.strip("\"'")
    if target.startswith(("/", "~")) or re.match(r"^[A-Za-z]:[\\/]", target) or cwd is None:
        return target
    if target == "-":
        return cwd
    return posixpath.normpath(posixpath.join(cwd, target))


def collect_state(session: Session) -> State:
    """Scan the session in message order; later facts replace earlier ones."""
    events: list[tuple[int, int, str, object]] = []
    for order, (index, text) in enumerate(session.other_texts):
        events.append((index, order, "text", text))
    for ask in session.asks:
        events.append((ask.index, 0, "text", ask.text))
    for call in session.calls:
        events.append((call.last_index, call.number, "call", call))
    events.sort(key=lambda e: (e[0], e[1], e[2]))
    state = State()
    changed: list[str] = []
    for _index, _order, kind, item in events:
        if kind == "text":
            _scan_text(state, str(item))
            continue
        call = item
        assert isinstance(call, Call)
        args = call.args if isinstance(call.args, dict) else {}
        for key in ("cwd", "workdir", "working_directory"):
            if isinstance(args.get(key), str) and args[key].strip():
                state.cwd = args[key].strip()
        cmd = command_of(call)
        if cmd and not call.failed:
            for m in CD_RE.finditer(cmd):
                state.cwd = _cd(state.cwd, m.group(1))
            for m in BRANCH_CMD_RE.finditer(cmd):
                state.branch = m.group(1) or m.group(2)
            if cmd.strip() == "pwd" and call.output and looks_like_path(call.output.strip()):
                state.cwd = call.output.strip()
        if cmd and TEST_RE.search(cmd):
            state.test = call
        if call.output:
            _scan_text(state, call.output[-20000:])
        if is_edit(call) and not call.failed:
            for path in edited_files(call):
                if path in changed:
                    changed.remove(path)
                changed.append(path)
    state.changed = list(reversed(changed))[:5]
    return state


def _scan_text(state: State, text: str) -> None:
    for pattern in CWD_TEXT_RES:
        for m in pattern.finditer(text):
            state.cwd = m.group(1).strip()
    for m in BRANCH_TEXT_RE.finditer(text):
        state.branch = m.group(1) or m.group(2) or m.group(3)
