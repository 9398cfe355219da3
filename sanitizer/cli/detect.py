"""`--detect`: print each adapter's score and why for each FILE, and the format chosen."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from sanitizer.document import loader
from sanitizer.formats import ADAPTERS
from sanitizer.formats.explain import detection_report, explain


def show(files: tuple[str, ...]) -> int:
    """Print the detection report of each file; 1 when some file has no sure adapter, else 0."""
    code = 0
    for name in files:
        if name == "-":
            text, source = sys.stdin.read(), "<stdin>"
        else:
            text, source = Path(name).read_bytes().decode("utf-8", errors="surrogateescape"), name
        doc = loader.from_text(text, source)
        click.echo(detection_report(doc, ADAPTERS))
        if not explain(doc, ADAPTERS)[0].score:
            code = 1
    return code
