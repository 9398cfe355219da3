"""File paths mentioned in a session: from tool arguments first, then from prose.

Only strings that look like real paths are kept: URLs (and protocol-relative `//host/x`) are
skipped, closing tags such as `</think>` never yield `/think`, `:12` / `:12:5` line suffixes and
trailing punctuation are cut.  Every path returned is a substring of the text it was found in.
What this can lose: bare file names without a known extension (`Makefile` is kept, `LICENSE`
is not), and paths with spaces unless they are a whole argument value.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

EXTENSIONS = frozenset(
    ["py", "pyi", "pyx", "ipynb", "js", "jsx", "ts", "tsx", "mjs", "cjs", "json", "jsonl", "toml", "yaml", "yml", "md", "mdx", "rst", "txt", "cfg", "ini", "conf", "env", "sh", "bash", "zsh", "fish", "ps1", "psm1", "bat", "cmd", "c", "h", "cc", "cpp", "cxx", "hpp", "hh", "rs", "go", "java", "kt", "kts", "scala", "rb", "php", "cs", "fs", "swift", "m", "mm", "html", "htm", "css", "scss", "sass", "less", "sql", "xml", "csv", "tsv", "lock", "log", "vue", "svelte", "lua", "pl", "pm", "r", "jl", "ex", "exs", "erl", "hs", "ml", "tf", "hcl", "gradle", "properties", "proto", "graphql", "gql", "dockerfile", "patch", "diff", "pem", "crt", "service", "desktop", "plist"]
)
BARE_NAMES = ("Makefile", "Dockerfile", "Containerfile", "Justfile", "Gemfile", "Rakefile", "Procfile",
              "CMakeLists.txt", "BUILD", "WORKSPACE")
# "Node.js" and friends are products, not files.
NOT_FILES = ("/dev/null", "/dev/stdout", "/dev/stderr", "/dev/stdin", "/dev/tty", "node.js", "next.js", "nuxt.js", "vue.js", "react.js", "express.js", "three.js", "d3.js",
             "chart.js", "socket.io", "ember.js", "angular.js", "backbone.js", "p5.js", "deno.js")

URL_RE = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]{1,15}://[^\s<>\"'`)\]]*")
_SEG = r"[\w.@+~-]+"
PATH_RE = re.compile(
    r"(?<![\w:/<\\.@\]{})$%~+-])"
    r"(?:"
    r"[A-Za-z]:[\\/](?:[\w .@+~()-]+[\\/])*[\w.@+~()-]+"  # Windows: C:\dir\file, C:/dir/file
    rf"|(?:~|\.{{1,2}})?/?(?:{_SEG}/)+{_SEG}/?"  # a/b, /a/b, ./a, ../a, ~/a
    rf"|/{_SEG}"  # /etc (single segment, absolute)
    rf"|{_SEG}\.[A-Za-z0-9]{{1,12}}"  # name.ext
    r")"
)
LINE_SUFFIX_RE = re.compile(r"(?::\d+)+$")
# A match followed by one of these is only the start of a glob, a redacted or templated path.
CUT_SHORT = "*?[{$%"
DOMAIN_RE = re.compile(r"^(?:www\.)?[a-z0-9-]+(?:\.[a-z0-9-]+)*\.([a-z]{2,6})/", re.I)
TRAILING = ".,;:!?)]}>'\"`*"
PATH_KEYS = ("file_path", "path", "filepath", "filename", "file", "notebook_path", "target_file",
             "source", "destination", "dest", "src", "dst", "paths", "files", "cwd", "workdir", "dir",
             "directory")
PATCH_FILE_RE = re.compile(r"^\*\*\* (?:Update|Add|Delete) File: (.+?)\s*$", re.M)


def _clean(raw: str) -> str:
    path = raw.rstrip(TRAILING)
    path = LINE_SUFFIX_RE.sub("", path)
    return path.rstrip(TRAILING)


def looks_like_path(path: str, *, strict: bool = False) -> bool:
    """A conservative test: enough shape that a human would call it a file path."""
    if len(path) < 3 or len(path) > 260 or path.startswith("//") or "://" in path:
        return False
    if re.match(r"^[A-Za-z]:[\\/]", path):
        return len(path) > 3
    last = re.split(r"[\\/]", path.rstrip("/\\"))[-1]
    if last in BARE_NAMES:
        return True
    if path.lower() in NOT_FILES or re.fullmatch(r"v?\d+(?:\.\d+)+", last):
        return False
    m = DOMAIN_RE.match(path)
    if m and m.group(1).lower() not in EXTENSIONS:
        return False  # github.com/owner/repo: a URL without its scheme
    stem, dot, ext = last.rpartition(".")
    has_ext = bool(dot and stem and ext.lower() in EXTENSIONS)
    if "/" not in path:
        return has_ext
    if path.startswith(("/", "~/", "./", "../")):
        return len(path.strip("/.~")) >= 2 and not re.fullmatch(r"/[A-Za-z]{1,6}", path)
    # Relative a/b: needs an extension or three segments ("and/or", "TCP/IP" are not paths).
    return has_ext or (not strict and path.count("/") >= 2 and not path.endswith("/"))


def _cut_short(text: str, end: int) -> bool:
    nxt = text[end:end + 2]
    if nxt[:1] in ("/", "\\"):
        nxt = nxt[1:]
    return bool(nxt) and nxt[0] in CUT_SHORT and not text.startswith("**", end)


def find_paths(text: str, *, strict: bool = False) -> list[str]:
    """Paths in a command line or, with `strict` (prose), in text, in order of appearance.

    `strict` drops relative paths without a file extension (`API/Team/Enterprise`).
    """
    if not text:
        return []
    text = URL_RE.sub(lambda m: " " * len(m.group()), text)
    out: list[str] = []
    for m in PATH_RE.finditer(text):
        if _cut_short(text, m.end()):
            continue
        path = _clean(m.group())
        if looks_like_path(path, strict=strict):
            out.append(path)
    return out


def _leaves(value: Any, key: str = "") -> Iterable[tuple[str, str]]:
    if isinstance(value, str):
        yield key, value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _leaves(v, str(k))
    elif isinstance(value, list):
        for v in value:
            yield from _leaves(v, key)


def paths_in_args(args: Any) -> list[str]:
    """Paths in a tool call's parsed arguments: path-like keys whole, other strings scanned."""
    out: list[str] = []
    for key, value in _leaves(args):
        if key.lower() in PATH_KEYS and "\n" not in value:
            path = _clean(value.strip())
            if path and looks_like_path(path) or path in BARE_NAMES:
                out.append(path)
                continue
        if key.lower() in ("patch", "input", "diff") and "*** " in value:
            out.extend(m.group(1) for m in PATCH_FILE_RE.finditer(value))
            continue
        if len(value) <= 4000:  # file bodies and long prompts are not where paths are named
            out.extend(find_paths(value))
    return out


def ordered_unique(paths: Iterable[str]) -> list[str]:
    """First occurrence order, `./a` and `a` treated as the same file."""
    seen: dict[str, None] = {}
    out: list[str] = []
    for path in paths:
        key = path[2:] if path.startswith("./") else path
        if key not in seen:
            seen[key] = None
            out.append(path)
    return out
