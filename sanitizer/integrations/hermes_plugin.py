"""`sanitize hermes-plugin DIR`: write the Hermes context-engine plugin folder `DIR/<name>/`.

DIR is a Hermes plugins folder: `~/.hermes/plugins` (a user plugin, enabled with
`plugins: {enabled: [sanitizer]}`) or a checkout's `plugins/context_engine`.  Either way the engine
is selected with `context: {engine: sanitizer}` in config.yaml.  The folder holds `plugin.yaml`
and a two-line `__init__.py` that registers `sanitizer.integrations.hermes.SanitizerEngine`, so
upgrading the sanitizer upgrades the plugin.  Needs no Hermes import to write.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import TextIO

from sanitizer import __version__
from sanitizer.config import check_preset

NAME_RE = re.compile(r"[a-z][a-z0-9_]{0,39}")


def plugin_files(name: str = "sanitizer", preset: str = "hermes") -> dict[str, str]:
    """The files of the plugin folder, by file name."""
    manifest = (f"name: {name}\n"
                f"version: {__version__}\n"
                "description: Sanitizes the turns Hermes summarizes (digests old tool output, labels images,"
                " redacts secrets) and falls back to a deterministic summary when the summary call fails\n")
    init = ('"""Hermes ContextEngine plugin: the sanitizer\'s compressor (written by `sanitize hermes-plugin`)."""\n\n'
            "from sanitizer.integrations.hermes import SanitizerEngine, register as _register\n\n"
            '__all__ = ["SanitizerEngine", "register"]\n\n\n'
            "def register(ctx):\n"
            f'    """Register the engine; select it with `context: {{engine: {name}}}` in config.yaml."""\n'
            f"    _register(ctx, name={name!r}, preset={preset!r})\n")
    return {"plugin.yaml": manifest, "__init__.py": init}


def write_plugin(folder: Path, name: str = "sanitizer", preset: str = "hermes", force: bool = False) -> Path:
    """Write `folder/<name>/`; refuses to replace different files unless `force`."""
    target = folder / name
    files = plugin_files(name, preset)
    if not force:
        for fname, text in files.items():
            path = target / fname
            if path.exists() and path.read_text(encoding="utf-8", errors="replace") != text:
                raise FileExistsError(f"{path} exists with other contents; pass --force to replace it")
    target.mkdir(parents=True, exist_ok=True)
    for fname, text in files.items():
        (target / fname).write_text(text, encoding="utf-8")
    return target


def main(argv: list[str], stdin: TextIO, stdout: TextIO, stderr: TextIO | None = None) -> int:
    """`hermes-plugin DIR [--name NAME] [--preset PACK] [--force]`; 0 written, 1 refused, 2 usage."""
    parser = argparse.ArgumentParser(prog="sanitize hermes-plugin",
                                     description="Write the Hermes context-engine plugin folder DIR/NAME/.")
    parser.add_argument("dir", type=Path, help="a Hermes plugins folder (~/.hermes/plugins or plugins/context_engine)")
    parser.add_argument("--name", default="sanitizer", help="plugin and engine name (default: sanitizer)")
    parser.add_argument("--preset", default="hermes", help="rule pack for the summarizer's copy (default: hermes)")
    parser.add_argument("--force", action="store_true", help="replace an existing plugin folder's files")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return 0 if exc.code == 0 else 2
    err = stderr or stdout
    if not NAME_RE.fullmatch(args.name):
        err.write(f"sanitize: hermes-plugin: invalid --name {args.name!r}: use lowercase letters, digits and _\n")
        return 2
    try:
        check_preset(args.preset)
        target = write_plugin(args.dir, args.name, args.preset, force=args.force)
    except FileExistsError as exc:
        err.write(f"sanitize: hermes-plugin: {exc}\n")
        return 1
    except (OSError, ValueError) as exc:
        err.write(f"sanitize: hermes-plugin: {exc}\n")
        return 2
    stdout.write(f"wrote {target}\n"
                 "add to ~/.hermes/config.yaml:\n"
                 f"  context:\n    engine: {args.name}\n"
                 f"  plugins:\n    enabled: [{args.name}]   # only for a folder under ~/.hermes/plugins\n")
    return 0
