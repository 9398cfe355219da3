"""Generated README sections (rules, formats, options, secret kinds, the module tree), kept in step by a test.

`python -m sanitizer.docs` rewrites the marked sections of README.md in place.
"""

from __future__ import annotations

import ast
import dataclasses
import re
import sys
from pathlib import Path

from sanitizer.actions import registry
from sanitizer.config import load, pack_names
from sanitizer.formats import ADAPTERS


def _options(options: object) -> str:
    parts = []
    for f in dataclasses.fields(options):  # type: ignore[arg-type]
        value = getattr(options, f.name)
        if isinstance(value, tuple):
            value = ", ".join(value)
        parts.append(f"{f.name.replace('_', '-')}={value}")
    return "; ".join(parts) or "—"


def rules_table() -> str:
    """Every action, in the order rules run, with what it does and what it can lose."""
    in_default = {r.action.name: r for r in load("default").rules}
    packs = {name: {r.action.name for r in load(name).rules} for name in pack_names()}
    rows = ["| # | rule | what it does | defaults | packs | what it can lose |", "|---|---|---|---|---|---|"]
    for i, (name, action) in enumerate(registry().items(), 1):
        rule = in_default.get(name)
        opts = _options(rule.options if rule else action.options())
        where = ", ".join(p for p in sorted(packs) if name in packs[p])
        what = action.doc.what.replace("|", "\\|").replace("\n", " ")
        loses = action.doc.loses.replace("|", "\\|").replace("\n", " ")
        rows.append(f"| {i} | `{name}` | {what} | {opts} | {where} | {loses} |")
    return "\n".join(rows)


def formats_table() -> str:
    rows = ["| `--format` | what | where users have it |", "|---|---|---|"]
    rows += [f"| `{a.name}` | {a.label} | {a.where} |" for a in ADAPTERS]
    return "\n".join(rows)


def options_table() -> str:
    """The command's options, from the click command itself."""
    import click

    from sanitizer.cli.command import main as command

    rows = ["| option | what it does |", "|---|---|"]
    ctx = click.Context(command, **command.context_settings)
    for param in command.get_params(ctx):
        record = param.get_help_record(ctx) if isinstance(param, click.Option) else None
        if record is None:
            continue
        names, text = record
        text = text.replace("|", "\\|")
        rows.append(f"| `{names}` | {text} |")
    return "\n".join(rows)


def secret_kinds_table() -> str:
    """Every credential kind `redact-secrets` finds, in the order its pattern runs."""
    from sanitizer.secrets.scan import KINDS

    rows = ["| kind | what it looks like |", "|---|---|"]
    rows += [f"| `{k.name}` | {k.looks.replace('|', chr(92) + '|')} |" for k in KINDS]
    return "\n".join(rows)


PACKAGE = Path(__file__).resolve().parents[1]


def _first_line(path: Path) -> str:
    """A module's docstring summary: its first line, continued when the sentence wraps."""
    doc = (ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or "").strip()
    return " ".join(doc.split("\n\n")[0].split())


def modules_tree() -> str:
    """The package's folders and modules, one line each: the first line of its docstring."""
    rows: list[tuple[str, str]] = [("sanitizer/", _first_line(PACKAGE / "__init__.py"))]

    def walk(folder: Path, depth: int) -> None:
        pad = "  " * depth
        for path in sorted(p for p in folder.iterdir() if p.suffix == ".py" and p.name != "__init__.py"):
            rows.append((pad + path.name, _first_line(path)))
        for sub in sorted(p for p in folder.iterdir() if (p / "__init__.py").is_file()):
            rows.append((pad + sub.name + "/", _first_line(sub / "__init__.py")))
            walk(sub, depth + 1)

    walk(PACKAGE, 1)
    width = max(len(name) for name, _ in rows) + 2
    return "```\n" + "\n".join(f"{name:<{width}}{line}".rstrip() for name, line in rows) + "\n```"


SECTIONS = {"rules-table": rules_table, "formats-table": formats_table, "options-table": options_table,
            "secret-kinds-table": secret_kinds_table, "modules-tree": modules_tree}


def render(readme: str) -> str:
    for key, fn in SECTIONS.items():
        pattern = re.compile(rf"(<!-- {key} -->\n)(?:.*?\n)?(<!-- /{key} -->)", re.S)
        readme = pattern.sub(lambda m, fn=fn: m.group(1) + fn() + "\n" + m.group(2), readme)
    return readme


def main() -> int:
    if len(sys.argv) > 2 or sys.argv[1:] in (["-h"], ["--help"]):
        print("usage: python -m sanitizer.cli.docs [README.md]  (rewrites its generated sections)")
        return 0 if len(sys.argv) == 2 else 2
    path = Path(sys.argv[1] if len(sys.argv) > 1 else "README.md")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        print(f"docs: {path}: cannot be read ({exc.__class__.__name__})", file=sys.stderr)
        return 2
    new = render(text)
    if new != text:
        path.write_text(new, encoding="utf-8")
        print(f"{path}: sections rewritten")
    else:
        print(f"{path}: up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
