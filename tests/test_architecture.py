"""The house rules, read from the code itself: no import loops, only the command line prints or
imports click and rich, only `formats/` names a format, small modules."""

from __future__ import annotations

import ast
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import ROOT

from sanitizer.formats import ADAPTERS

PACKAGE = ROOT / "sanitizer"
MAX_LINES = 300
UI_LIBRARIES = ("click", "rich")


def modules() -> dict[str, Path]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


MODULES = modules()

def imports(path: Path, name: str) -> Iterator[tuple[ast.AST, str, bool]]:
    """(node, imported module, at module level) for every import of the file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    top = set(map(id, tree.body))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node, alias.name, id(node) in top
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            for alias in node.names:
                full = f"{mod}.{alias.name}"
                yield node, full if full in MODULES else mod, id(node) in top or _in_type_checking(tree, node)


def _in_type_checking(tree: ast.Module, node: ast.AST) -> bool:
    for stmt in tree.body:
        if isinstance(stmt, ast.If) and "TYPE_CHECKING" in ast.unparse(stmt.test) and \
                any(node is n for n in ast.walk(stmt)):
            return True
    return False


def graph() -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {m: set() for m in MODULES}
    for name, path in MODULES.items():
        for _, target, _ in imports(path, name):
            if target in MODULES and target != name:
                edges[name].add(target)
    return edges


def _loops(edges: dict[str, set[str]]) -> list[list[str]]:
    state: dict[str, int] = {}
    loops: list[list[str]] = []

    def visit(node: str, trail: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(edges[node]):
            if state.get(nxt) == 1:
                loops.append(trail[trail.index(nxt):] + [nxt] if nxt in trail else [node, nxt])
            elif nxt not in state:
                visit(nxt, [*trail, nxt])
        state[node] = 2

    for m in sorted(edges):
        if m not in state:
            visit(m, [m])
    return loops


def test_there_is_no_import_loop() -> None:
    loops = _loops(graph())
    assert not loops, "import loops:\n" + "\n".join(" -> ".join(loop) for loop in loops)


def _room(module: str) -> str:
    """The room a module belongs to: its folder under `sanitizer/`, or itself at the top."""
    return ".".join(module.split(".")[:2])


def test_rooms_import_downwards_only() -> None:
    """A folder is one room: no room imports a room that imports it back, even through other
    files (`tokens/` using `run/procs.py` while `run/` uses `tokens/` would be such a loop).
    The package's face (`sanitizer/__init__.py`) and `__main__` stand above every room."""
    edges: dict[str, set[str]] = {}
    for name, targets in graph().items():
        if name in ("sanitizer", "sanitizer.__main__"):
            continue
        mine = edges.setdefault(_room(name), set())
        mine.update(_room(t) for t in targets if _room(t) != _room(name) and t != "sanitizer")
    loops = _loops(edges)
    assert not loops, "rooms importing each other:\n" + "\n".join(" -> ".join(loop) for loop in loops)


def _outside_cli() -> Iterator[tuple[str, Path]]:
    for name, path in MODULES.items():
        if not name.startswith("sanitizer.cli"):
            yield name, path


def test_only_the_command_line_imports_click_or_rich() -> None:
    offenders = [f"{path.relative_to(ROOT)}:{node.lineno}: imports {target}"
                 for name, path in _outside_cli() for node, target, _ in imports(path, name)
                 if target.split(".")[0] in UI_LIBRARIES]
    assert not offenders, "\n".join(offenders)


def test_only_the_command_line_prints() -> None:
    offenders = []
    for _, path in _outside_cli():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print":
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}: print()")
            if isinstance(node, ast.Attribute) and node.attr in {"stdout", "stderr"} and \
                    isinstance(node.value, ast.Name) and node.value.id == "sys":
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}: sys.{node.attr}")
    assert not offenders, "\n".join(offenders)


def test_only_formats_name_a_format() -> None:
    names = {a.name for a in ADAPTERS}
    offenders = []
    for name, path in MODULES.items():
        # An integration hands its framework's objects over as one named format: naming that
        # format is its job.  Everywhere else the format comes from the adapters.
        if name.startswith(("sanitizer.formats", "sanitizer.integrations")):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and node.value in names:
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.value!r}")
    assert not offenders, "format names outside formats/:\n" + "\n".join(offenders)


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_module_is_over_the_size_limit(name: str) -> None:
    lines = MODULES[name].read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_LINES, f"{name} has {lines} lines (split it by job past {MAX_LINES})"


def test_own_modules_are_imported_at_the_top_below_the_command_line() -> None:
    """An own module imported inside a function hides a dependency (and often a loop).  Only the
    command line loads a mode's modules when that mode runs (start-up time)."""
    offenders = [f"{path.relative_to(ROOT)}:{node.lineno}: {target}"
                 for name, path in _outside_cli() for node, target, at_top in imports(path, name)
                 if not at_top and target.startswith("sanitizer")]
    assert not offenders, "\n".join(offenders)


def test_every_package_folder_is_installed() -> None:
    """`pip install .` (not editable) ships only the packages pyproject lists: a new room must be listed."""
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["packages"])
    folders = {".".join(p.parent.relative_to(ROOT).parts) for p in PACKAGE.rglob("__init__.py")}
    assert folders <= listed, f"not in pyproject's packages: {sorted(folders - listed)}"
