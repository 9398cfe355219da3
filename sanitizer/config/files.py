"""The TOML files a configuration is read from: the shipped packs and the user's own file.

A shipped pack's table is kept in the cache folder by the first process that parses it (a file a
pack, keyed by its text, named after this module's source and the Python version), so a later
run neither imports the TOML reader nor parses the pack: about 2.5 ms of every start.  The
user's `sanitizer.toml` or `pyproject.toml` is parsed every time and never kept, except that a
`pyproject.toml` whose text never names us is not parsed at all (a run in any Python project's
folder would otherwise import the TOML reader and parse that file: about 7 ms).
"""

from __future__ import annotations

import functools
import importlib.util
import os
from pathlib import Path
from typing import Any

from sanitizer import cachedir
from sanitizer.errors import ConfigError

__all__ = ["check_preset", "did_you_mean", "find_user_config", "pack_names", "pack_table", "read_user_config"]


def _packs() -> Any:
    """`sanitizer.packs` once installed (pyproject maps `rules/` there), else `rules/` of the checkout.
    A folder on disk is what `importlib.resources.files` gives, taken without its ~4 ms import."""
    spec = importlib.util.find_spec("sanitizer.packs") or importlib.util.find_spec("sanitizer")
    if spec.has_location and spec.origin and Path(spec.origin).is_file():
        folder = Path(spec.origin).parent
    else:  # a zip or another loader
        folder = importlib.import_module("importlib.resources").files(spec.name)
    return folder if spec.name == "sanitizer.packs" else folder.joinpath("..", "rules")


def pack_names() -> list[str]:
    return sorted(p.name[:-5] for p in _packs().iterdir() if p.name.endswith(".toml"))


def check_preset(name: str) -> None:
    """Raise a ConfigError with the closest names when `name` is not a shipped pack."""
    if name != "none" and name not in pack_names():
        raise ConfigError(f"unknown preset {name!r}{did_you_mean(name, pack_names() + ['none'])}")


def did_you_mean(word: str, choices: list[str] | tuple[str, ...]) -> str:
    """The end of an error message about `word`: the closest of `choices`, or all of them."""
    import difflib  # only an error needs it
    if close := difflib.get_close_matches(word, list(choices), n=3, cutoff=0.5):
        return "; did you mean " + " or ".join(repr(c) for c in close) + "?"
    return "; valid: " + ", ".join(choices)


def pack_table(name: str) -> tuple[dict[str, Any], str]:
    """The table of the shipped pack `name` (empty for `none`) and where it comes from."""
    if name == "none":
        return {}, "<preset none>"
    check_preset(name)
    text, source = (_packs() / f"{name}.toml").read_text(encoding="utf-8"), f"rules/{name}.toml"
    try:
        kept = cachedir.kept(_kept_name(name), [text], lambda t: parse_toml(t, source), _is_table,
                             os.getpid() == _owner)
    except ValueError:  # a value marshal cannot keep (a TOML date): parsed each time
        return parse_toml(text, source), source
    return kept[0], source


_owner = os.getpid()  # only this process writes the kept tables (not forked workers)


@functools.cache
def _kept_name(pack: str) -> str | None:
    """A file for each pack (a pack and the one it extends are both read in one run)."""
    return cachedir.named_after(f"pack-{pack}", __file__)


def _is_table(value: Any) -> bool:
    return isinstance(value, dict)


def parse_toml(text: str, source: str) -> dict[str, Any]:
    """The table of a TOML text, or one ConfigError naming `source`."""
    import tomllib  # here: a run whose pack is kept parsed never imports it

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{source}: invalid TOML: {exc}", source=source) from exc


def read_user_config(path: Path) -> tuple[dict[str, Any], str]:
    """A user config table from a TOML file (`[tool.sanitizer]` when it is a pyproject.toml)."""
    try:
        data = parse_toml(path.read_text(encoding="utf-8"), str(path))
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}", source=str(path)) from exc
    if path.name == "pyproject.toml":
        data = data.get("tool", {}).get("sanitizer", {})
    return data, str(path)


def find_user_config(start: Path) -> tuple[dict[str, Any], str] | None:
    """`sanitizer.toml`, or `[tool.sanitizer]` in pyproject.toml, in the current folder.

    A folder whose entries cannot be looked at (no search permission) holds no configuration
    for us: the run goes on with the pack, as it would in an empty folder.
    """
    own = start / "sanitizer.toml"
    if _is_file(own):
        return read_user_config(own)
    pyproject = start / "pyproject.toml"
    if _is_file(pyproject) and _may_name_us(pyproject):
        data, source = read_user_config(pyproject)
        if data:
            return data, f"{source} [tool.sanitizer]"
    return None


def _may_name_us(pyproject: Path) -> bool:
    """False only where `pyproject` surely holds no `[tool.sanitizer]` table: its text has neither
    the word nor a TOML escape that could spell it in a quoted key.  An unreadable file says True,
    so that reading it reports why."""
    try:
        text = pyproject.read_bytes()
    except OSError:
        return True
    return b"sanitizer" in text or b"\\u" in text or b"\\U" in text


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except OSError:  # Path.is_file raises PermissionError where the folder cannot be searched
        return False
