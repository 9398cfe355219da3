"""What a tool call did: its verb and main target, read from the tool name and arguments.

`describe_call` gives a `CallInfo` (verb + main target + paths); `sanitizer.digest.outputs` says
how the call went and `sanitizer.digest.line` puts both on one line.  Used by the
`digest-tool-result` action and by the deterministic fallback summary, so the names and dataclass
fields here are public.  Everything is deterministic and linear in the input size.
"""

from __future__ import annotations

import functools
import json
import shlex
from dataclasses import dataclass
from typing import Any

from sanitizer.textkit.lazy import lazy_pattern
from sanitizer.textkit.snippets import COMMAND_CHARS, clip, code, one_line, plural

__all__ = ["VERBS", "CallInfo", "describe_call", "parse_args", "shell_text"]

VERBS = ("ran", "read", "wrote", "edited", "searched", "fetched", "delegated", "updated todos", "called")

SCALAR_CHARS = 60
MAX_PATHS = 6

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

_PATCH_FILE = lazy_pattern(r"(?m)^\*\*\* (?:Update|Add|Delete) File: ?(.+?)[ \t\r]*$|^\*\*\* Move to: ?(.+?)[ \t\r]*$")
_DIFF_FILE = lazy_pattern(r"(?m)^\+\+\+ (?:b/)?(\S+)")
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
    if isinstance(args, str):  # the same call is described for its digest, its outcome and copies
        return _describe_text(tool, args)
    return _describe(tool, args)


@functools.lru_cache(maxsize=1024)
def _describe_text(tool: str | None, args: str) -> CallInfo:
    return _describe(tool, args)


def _describe(tool: str | None, args: Any) -> CallInfo:
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
