"""A self-contained HTML report of a run: each message as the summarizer reads it, every cut in place.

The page is built only from a `Result` (the sanitized texts, and the texts the cuts removed passed
through the secret scanner), needs no network and opens from disk.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from sanitizer.html.data import build
from sanitizer.html.page import render

if TYPE_CHECKING:
    from sanitizer.result import Result

__all__ = ["render_html", "write_html"]


def render_html(result: Result, *, title: str | None = None) -> str:
    """The report page of `result` as one HTML document (inline CSS and JS, no external resource)."""
    return render(build(result, title))


def write_html(result: Result, path: str | Path, *, title: str | None = None) -> Path:
    """Write the report page of `result` to `path` (UTF-8) and return the path."""
    path = Path(path)
    path.write_text(render_html(result, title=title), encoding="utf-8")
    return path
