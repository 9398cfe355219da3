"""One-line digests of tool calls and their results.

`describe_call` says what a call did (verb + main target), `outcome` says how it went (exit code,
line count of the decoded output, first error), `digest_line` puts both on one line:

    [Bash] ran `pytest -q` -> exit 1, 47 lines; first error: AssertionError: expected 3

Used by the `digest-tool-result` action and by the deterministic fallback summary, so the names
and dataclass fields here are public.  Everything is deterministic and linear in the input size.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from typing import Any

import regex

__all__ = [
    "CallInfo",
    "Decoded",
    "Outcome",
    "VERBS",
    "decode_output",
    "describe_call",
    "digest_line",
    "is_digest",
    "outcome",
    "parse_args",
]

VERBS = ("ran", "read", "wrote", "edited", "searched", "fetched", "delegated", "updated todos", "called")

COMMAND_CHARS = 200  # a longer command is cut at a word boundary near this length
ERROR_CHARS = 160
SCALAR_CHARS = 60
MAX_PATHS = 6
DECODE_LIMIT = 20_000_000  # never json-parse outputs beyond this size (they are counted as text)

# ---------------------------------------------------------------------------------------------
# Tool families, by normalised tool name (lower case, last segment of `mcp__server__tool`).

_SHELL = {"bash", "shell", "terminal", "execute_bash", "exec_command", "shell_command", "run_command",
          "run_shell_command", "run_terminal_cmd", "local_shell", "local_shell_call", "exec", "cmd",
          "powershell", "execute_command", "run_in_terminal", "container.exec", "bash_tool"}
_PYTHON = {"python", "ipython", "execute_python", "run_python", "execute_ipython_cell", "jupyter", "code_interpreter"}
_READ = {"read", "read_file", "view", "view_file", "cat", "open", "open_file", "notebookread", "ls", "list_dir",
         "list_directory", "list_files", "read_many_files", "get_file_contents"}
_WRITE = {"write", "write_file", "create", "create_file", "write_to_file"}
_EDIT = {"edit", "multiedit", "edit_file", "replace", "str_replace", "insert", "notebookedit", "search_replace",
         "replace_in_file", "apply_diff", "edit_notebook"}
_EDITOR = {"str_replace_editor", "file_editor", "str_replace_based_edit_tool", "text_editor"}
_PATCH = {"apply_patch", "patch", "applypatch"}
_SEARCH = {"grep", "glob", "search", "find", "search_files", "search_dir", "search_file", "find_file",
           "codebase_search", "file_search", "grep_search", "rg", "ripgrep", "find_files", "search_code",
           "toolsearch"}
_WEBSEARCH = {"websearch", "web_search", "search_web", "google_search", "web_search_call", "brave_web_search",
              "tavily_search", "search_query"}
_FETCH = {"webfetch", "web_fetch", "fetch", "fetch_url", "read_url", "browse", "navigate", "open_url",
          "fetch_generic_url_content", "browser", "visit", "scrape", "get_url"}
_DELEGATE = {"task", "agent", "delegate", "delegate_task", "dispatch_agent", "spawn_agent", "subagent",
             "new_task", "run_subagent"}
_TODOS = {"todowrite", "todo_write", "write_todos", "update_plan", "todo", "todoupdate", "update_todos",
          "taskcreate", "taskupdate"}

_EDITOR_VERBS = {"view": "read", "create": "wrote", "str_replace": "edited", "insert": "edited",
                 "undo_edit": "edited", "write": "wrote", "edit": "edited"}

_PATH_KEYS = ("file_path", "path", "filename", "file", "target_file", "absolute_path", "notebook_path",
              "file_name", "filepath", "relative_path", "uri")
_COMMAND_KEYS = ("command", "cmd", "commands", "script", "code", "input")
_PATTERN_KEYS = ("pattern", "query", "regex", "search_term", "search", "q", "name_pattern", "glob", "file_name")
_WHERE_KEYS = ("path", "dir", "directory", "cwd", "include", "root", "file")
_URL_KEYS = ("url", "uri", "href", "link")
_QUERY_KEYS = ("query", "q", "search_query", "search_term", "prompt")
_TASK_KEYS = ("description", "title", "task", "subject", "goal", "instruction", "instructions", "prompt", "message")

_PATCH_FILE = regex.compile(r"(?m)^\*\*\* (?:Update|Add|Delete) File: ?(.+?)[ \t\r]*$|^\*\*\* Move to: ?(.+?)[ \t\r]*$")
_DIFF_FILE = regex.compile(r"(?m)^\+\+\+ (?:b/)?(\S+)")
_SHELLS = {"bash", "sh", "zsh", "dash", "ksh", "fish", "/bin/bash", "/bin/sh", "/bin/zsh", "/usr/bin/bash",
           "/usr/bin/env", "powershell", "pwsh", "powershell.exe", "cmd", "cmd.exe"}


@dataclass(frozen=True, slots=True)
class CallInfo:
    """What a tool call did.

    verb: one of `VERBS`.  target: the main target (command, path(s), pattern, URL, query,
    subagent description, todo counts, or `k=v` scalars), never cut inside a path or URL.
    where: a secondary place (the folder a search ran in), or "".  paths: files the call touched
    or read, in order (useful for "Relevant Files").
    """

    tool: str
    verb: str
    target: str
    where: str = ""
    paths: tuple[str, ...] = ()

    def phrase(self) -> str:
        """`ran `pytest -q``, `searched `def main` in `src/``, or the bare verb."""
        out = self.verb
        if self.target:
            target = one_line(self.target)
            out += ": " + target if self.verb == "updated todos" else " " + code(target)
        if self.where:
            out += " in " + code(one_line(self.where))
        return out


@dataclass(frozen=True, slots=True)
class Decoded:
    """Tool output with JSON wrappers removed: `text` is what a human would read."""

    text: str
    exit_code: int | None = None
    is_error: bool | None = None


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a tool call went.

    exit_code: from the output (`Exit code 1`, `exit code: 1`, `<returncode>1</returncode>`,
    `[The command completed with exit code 1.]`, Codex `metadata.exit_code`), else None.
    lines / chars: of the decoded output.  failed: is_error, a non-zero exit code, or an output
    that starts like an error.  first_error: first error-looking line (≤ 160 chars) when failed.
    """

    exit_code: int | None
    lines: int
    chars: int
    failed: bool
    first_error: str | None = None

    def summary(self) -> str:
        """`exit 1, 47 lines; first error: …` (what follows `->` in a digest line)."""
        bits = []
        if self.exit_code is not None:
            bits.append(f"exit {self.exit_code}")
        elif self.failed:
            bits.append("error")
        bits.append(plural(self.lines, "line") if self.lines else "no output")
        out = ", ".join(bits)
        if self.failed and self.first_error:
            out += "; first error: " + self.first_error
        return out


# ---------------------------------------------------------------------------------------------
# Arguments and calls


def parse_args(args: str | dict | None) -> dict | None:
    """Tool-call arguments as a dict: a dict as is, JSON object text parsed, anything else None."""
    if isinstance(args, dict):
        return args
    if not isinstance(args, str):
        return None
    s = args.strip()
    if not s.startswith("{"):
        return None
    try:
        value = json.loads(s)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def describe_call(tool: str | None, args: Any) -> CallInfo:
    """Verb and main target of a call to `tool` with `args` (JSON text, dict, raw text or None)."""
    name = tool or "tool"
    d = parse_args(args)
    raw = args if isinstance(args, str) and d is None else None
    if d is None:
        d = {}
    key = normalise(name)

    if key in _PATCH or (raw is not None and "*** Begin Patch" in raw[:2000]):
        paths = patch_paths(raw if raw is not None else str(first(d, _COMMAND_KEYS + ("patch", "diff")) or ""))
        return _edited(name, paths)
    command = first(d, _COMMAND_KEYS) if d else raw
    shellish = any(w in key for w in ("bash", "shell", "terminal", "exec_command")) and command is not None
    if key in _SHELL or key in _PYTHON or shellish:  # (BashOutput / KillShell have no command: not here)
        if isinstance(command, dict):  # Responses local_shell_call action
            command = command.get("command")
        argv = command if isinstance(command, list) else None
        text = shell_text(command)
        patch = patch_body(argv, text)
        if patch is not None:
            return _edited(name, patch_paths(patch))
        return CallInfo(name, "ran", clip(text), where=str_arg(d, ("workdir", "cwd")))
    if key in _EDITOR:
        sub = str(d.get("command") or "")
        path = str_arg(d, _PATH_KEYS)
        verb = _EDITOR_VERBS.get(sub, "edited" if sub else "called")
        return CallInfo(name, verb, path or fallback(d), paths=(path,) if path else ())
    if key in _READ or key in _WRITE or key in _EDIT:
        verb = "read" if key in _READ else "wrote" if key in _WRITE else "edited"
        path = str_arg(d, _PATH_KEYS)
        paths = tuple(p for p in (d.get("paths") or ()) if isinstance(p, str)) if not path else (path,)
        target = ", ".join(paths[:MAX_PATHS]) if paths else fallback(d, skip=("content", "new_string", "old_string"))
        return CallInfo(name, verb, target, paths=paths)
    if key in _WEBSEARCH:
        return CallInfo(name, "searched", clip(str_arg(d, _QUERY_KEYS) or fallback(d)))
    if key in _FETCH or any(w in key for w in ("fetch", "browser", "navigate", "url", "scrape", "crawl")):
        url = str_arg(d, _URL_KEYS)
        if url:
            return CallInfo(name, "fetched", url)
        query = str_arg(d, _QUERY_KEYS)
        if query:
            return CallInfo(name, "searched", clip(query))
        return CallInfo(name, "called", fallback(d))
    if key in _SEARCH:
        pattern = str_arg(d, _PATTERN_KEYS)
        where = str_arg(d, _WHERE_KEYS)
        return CallInfo(name, "searched", clip(pattern) if pattern else fallback(d), where=where,
                        paths=(where,) if where and key != "toolsearch" else ())
    if key in _DELEGATE:
        desc = str_arg(d, _TASK_KEYS)
        return CallInfo(name, "delegated", clip(one_line(desc)) if desc else fallback(d))
    if key in _TODOS or "todo" in key:
        return CallInfo(name, "updated todos", todo_counts(d))
    url = str_arg(d, _URL_KEYS)
    if url and ("search" not in key):
        return CallInfo(name, "fetched", url)
    return CallInfo(name, "called", fallback(d) if d else clip(one_line(raw or "")))


def _edited(name: str, paths: tuple[str, ...]) -> CallInfo:
    shown = ", ".join(paths[:MAX_PATHS]) + (f" (+{len(paths) - MAX_PATHS} more)" if len(paths) > MAX_PATHS else "")
    return CallInfo(name, "edited", shown, paths=paths)


def normalise(tool: str) -> str:
    """`mcp__claude-in-chrome__navigate` → `navigate`; `functions.shell` → `shell`."""
    key = tool.strip().lower()
    if "__" in key:
        key = key.rsplit("__", 1)[1]
    if key not in _SHELL and "." in key:
        key = key.rsplit(".", 1)[1]
    return key.rsplit("/", 1)[-1]


def first(d: dict, keys: tuple[str, ...]) -> Any:
    for k in keys:
        v = d.get(k)
        if v not in (None, "", [], {}):
            return v
    return None


def str_arg(d: dict, keys: tuple[str, ...]) -> str:
    v = first(d, keys)
    return v if isinstance(v, str) else ""


def shell_text(command: Any) -> str:
    """A command as one string: `["bash", "-lc", "pytest -q"]` → `pytest -q`."""
    if isinstance(command, list) and all(isinstance(a, str) for a in command):
        argv = list(command)
        if len(argv) >= 3 and argv[0] in _SHELLS and argv[1].startswith("-") and argv[1].endswith("c"):
            return argv[2] if len(argv) == 3 else shlex.join(argv[2:])
        if len(argv) >= 3 and argv[0] in _SHELLS and argv[1].lower() in ("-command", "/c"):
            return " ".join(argv[2:])
        return shlex.join(argv)
    if isinstance(command, str):
        return command
    return "" if command is None else json.dumps(command, ensure_ascii=False)


def patch_body(argv: list | None, text: str) -> str | None:
    """The patch text when a shell call is really `apply_patch` (Codex), else None."""
    if argv and isinstance(argv[0], str) and argv[0] in _PATCH and len(argv) > 1:
        return str(argv[1])
    head = text.lstrip()[:40]
    if (head.startswith(("apply_patch", "applypatch")) or "*** Begin Patch" in head) and "*** Begin Patch" in text:
        return text
    return None


def patch_paths(patch: str) -> tuple[str, ...]:
    """Files named by a Codex patch (`*** Update File: …`) or, failing that, a unified diff."""
    found = [m.group(1) or m.group(2) for m in _PATCH_FILE.finditer(patch)]
    if not found:
        found = [m.group(1) for m in _DIFF_FILE.finditer(patch) if m.group(1) != "/dev/null"]
    return tuple(dict.fromkeys(found))


def todo_counts(d: dict) -> str:
    items = first(d, ("todos", "plan", "items", "tasks"))
    if not isinstance(items, list):
        return fallback(d)
    counts: dict[str, int] = {}
    for it in items:
        status = it.get("status") if isinstance(it, dict) else None
        label = str(status).replace("_", " ") if status else "no status"
        counts[label] = counts.get(label, 0) + 1
    detail = ", ".join(f"{n} {label}" for label, n in counts.items())
    return plural(len(items), "item") + (f" ({detail})" if detail else "")


def fallback(d: dict, skip: tuple[str, ...] = ()) -> str:
    """The first scalar arguments as `k=v, k=v`, each value cut at 60 chars, at most 200 chars."""
    bits: list[str] = []
    size = 0
    for k, v in d.items():
        if isinstance(v, list) and v and all(isinstance(x, str | int | float) for x in v):
            v = ", ".join(str(x) for x in v)
        if k in skip or isinstance(v, dict | list) or v is None or k == "security_risk":
            continue
        s = one_line(v if isinstance(v, str) else json.dumps(v))
        if len(s) > SCALAR_CHARS:
            s = clip(s, SCALAR_CHARS)
        bit = f"{k}={s}"
        if bits and size + len(bit) > COMMAND_CHARS:
            break
        bits.append(bit)
        size += len(bit) + 2
        if len(bits) == 3:
            break
    return ", ".join(bits)


# ---------------------------------------------------------------------------------------------
# Outputs

_EXIT_PATTERNS = (
    regex.compile(r"<returncode>\s*(-?\d+)\s*</returncode>"),
    regex.compile(r"\A\s*Exit code:?\s+(-?\d+)\b", regex.IGNORECASE),
    regex.compile(r"^\[The command (?:completed|exited|failed|finished)?\s*with exit code (-?\d+)\b",
                  regex.MULTILINE | regex.IGNORECASE),
)
_EXIT_LOOSE = regex.compile(r"\b(?:exit(?:ed with)? code|exit status|returncode|return code)[:=]?\s+`?(-?\d+)\b",
                            regex.IGNORECASE)
# Every alternative starts with a literal, so the search stays fast on megabytes of output.
_ERROR_TOKEN = regex.compile(
    r"Traceback \(most recent call last\)|(?:Error|Exception)\b|(?<!\w)(?:FAILED|ERROR)\b|"
    r"(?<!\w)(?:error|fatal|panic)(?:\[\w+\])?:|npm ERR!|<tool_use_error>"
)
_FAILED_START = regex.compile(
    r"\A\s*(?:<tool_use_error>|Traceback \(most recent call last\)|(?:error|fatal|Error|ERROR|panic)(?:\[\w+\])?:|"
    r"tool call error|Command failed|failed in sandbox|\[Request interrupted)"
)
_EXCEPTION_LINE = regex.compile(r"(?m)^(?=\S)(?!Traceback|During handling|The above exception)[^\n]+")
_EXIT_LINE = regex.compile(r"\s*Exit code:?\s+-?\d+\s*$", regex.IGNORECASE)
_ANSI = regex.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")
_SPACES = regex.compile(r"\s+")
_CONTROL = regex.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_TAGS = regex.compile(r"</?tool_use_error>")


def decode_output(output: Any) -> Decoded:
    """Unwrap JSON-encoded outputs: a JSON string, Codex `{"output", "metadata": {"exit_code"}}`,
    MCP `[{"type": "text", "text": …}]` or `{"content": [...], "isError": …}`, `{"stdout", "stderr"}`.
    Any other output (plain text, JSON data such as a tau-bench record) is returned as is."""
    if not isinstance(output, str):
        output = "" if output is None else json.dumps(output, ensure_ascii=False)
    s = output.strip()
    if not s or s[0] not in '{["' or len(s) > DECODE_LIMIT:
        return Decoded(output)
    try:
        value = json.loads(s)
    except (ValueError, RecursionError):
        return Decoded(output)
    if isinstance(value, str):
        return Decoded(value)
    if isinstance(value, list):
        texts = text_items(value)
        return Decoded("\n".join(texts)) if texts is not None else Decoded(output)
    if not isinstance(value, dict):
        return Decoded(output)
    meta = value.get("metadata") if isinstance(value.get("metadata"), dict) else {}
    code = as_int(first_present(meta, value, keys=("exit_code", "exitCode", "returncode", "return_code", "exit_status")))
    is_error = value.get("isError", value.get("is_error"))
    is_error = is_error if isinstance(is_error, bool) else None
    for k in ("output", "stdout", "text", "result", "content"):
        inner = value.get(k)
        if isinstance(inner, str):
            err = value.get("stderr")
            text = inner + ("\n" + err if isinstance(err, str) and err.strip() else "")
            return Decoded(text, code, is_error)
        if isinstance(inner, list) and (texts := text_items(inner)) is not None:
            return Decoded("\n".join(texts), code, is_error)
    return Decoded(output, code, is_error)


def text_items(items: list) -> list[str] | None:
    """Texts of a list of `{"text": …}` items, or None when the list is anything else."""
    if not items or not all(isinstance(i, dict) and isinstance(i.get("text"), str) for i in items):
        return None
    return [i["text"] for i in items]


def first_present(*dicts: dict, keys: tuple[str, ...]) -> Any:
    for d in dicts:
        for k in keys:
            if k in d and d[k] is not None:
                return d[k]
    return None


def as_int(v: Any) -> int | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, str) and regex.fullmatch(r"-?\d{1,12}", v.strip()):
        return int(v)
    return None


def exit_code_of(text: str) -> int | None:
    for pattern in _EXIT_PATTERNS:
        m = pattern.search(text)
        if m:
            return int(m.group(1))
    for chunk in (text[:300], text[-300:]):  # loose phrases only near the start or the end
        m = _EXIT_LOOSE.search(chunk)
        if m:
            return int(m.group(1))
    return None


def count_lines(text: str) -> int:
    if not text:
        return 0
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def outcome(tool: str | None, args: Any, output: Any, is_error: bool | None = None) -> Outcome:
    """Exit code, size and first error of a tool result (args are used to know a command ran)."""
    dec = decode_output(output)
    text = dec.text
    code = dec.exit_code if dec.exit_code is not None else exit_code_of(text)
    if is_error is None:
        is_error = dec.is_error
    if is_error is not None or code is not None:
        failed = bool(is_error) or (code is not None and code != 0)
    else:
        ran = describe_call(tool, args).verb == "ran" if tool else False
        failed = bool(_FAILED_START.search(text)) or (ran and "Traceback (most recent call last)" in text)
    return Outcome(code, count_lines(text), len(text), failed, first_error(text) if failed else None)


def first_error(text: str) -> str | None:
    """The first error-looking line (a Traceback points at its exception line), else the first
    meaningful line; cleaned (ANSI codes, pytest `E ` prefix, runs of spaces) and cut at 160 chars."""
    line = ""
    m = _ERROR_TOKEN.search(text)
    if m:
        line = line_at(text, m.start())
        if m.group(0).startswith("Traceback"):
            tail = _EXCEPTION_LINE.search(text, pos=m.end())
            if tail:
                line = tail.group(0)
    if not clean(line):
        for candidate in text.split("\n", 20)[:20]:
            if clean(candidate) and not _EXIT_LINE.match(candidate):
                line = candidate
                break
    return clean(line) or None


def line_at(text: str, at: int) -> str:
    start = text.rfind("\n", 0, at) + 1
    end = text.find("\n", at)
    return text[start : end if end != -1 else len(text)]


def clean(line: str) -> str:
    line = _CONTROL.sub("", _TAGS.sub("", _ANSI.sub("", line[: ERROR_CHARS * 8])))
    line = _SPACES.sub(" ", line).strip()
    line = regex.sub(r"^E (?=\S)", "", line)
    return clip(line, ERROR_CHARS, words=False)


# ---------------------------------------------------------------------------------------------
# The digest line


def digest_line(tool: str | None, args: Any, output: Any, is_error: bool | None = None) -> str:
    """`[Tool] VERB `target` -> OUTCOME` on one line; deterministic."""
    info = describe_call(tool, args)
    result = outcome(tool, args, output, is_error)
    return f"[{one_line(info.tool)}] {info.phrase()} -> {result.summary()}"


_DIGEST_RE = regex.compile(
    r"\[[^\]\n]{1,200}\] (?:" + "|".join(VERBS) + r")\b[^\n]* -> [^\n]*"
)


def is_digest(text: str) -> bool:
    """True when `text` is already a digest line (so digesting again changes nothing)."""
    return "\n" not in text and _DIGEST_RE.fullmatch(text) is not None


# ---------------------------------------------------------------------------------------------
# Small text helpers


def one_line(s: str) -> str:
    """Newlines written as `\\n` so the digest stays on one line."""
    return s.replace("\r\n", "\\n").replace("\n", "\\n").replace("\r", "\\r")


def clip(s: str, limit: int = COMMAND_CHARS, words: bool = True) -> str:
    """Cut `s` near `limit` chars, at whitespace so a path or URL is never split, and add ` …`."""
    s = one_line(s)
    if len(s) <= limit:
        return s
    if not words:
        return s[: limit - 1].rstrip() + "…"
    cut = max(s.rfind(" ", 0, limit + 1), s.rfind("\t", 0, limit + 1))
    if cut <= 0:
        nxt = s.find(" ", limit)
        cut = nxt if 0 < nxt <= limit * 2 else min(len(s), limit * 2)
    head = s[:cut].rstrip()
    return head + " …" if len(head) < len(s) else head


def code(s: str) -> str:
    """Inline code, with a longer fence when the text itself holds a backtick."""
    if "`" not in s:
        return f"`{s}`"
    return f"`` {s} ``"


def plural(n: int, word: str) -> str:
    return f"{n:,} {word}" if n == 1 else f"{n:,} {word}s"
