"""Helpers of the record-kind tests: a corpus file read in place, and an edit as the engine makes it."""

from __future__ import annotations

import pytest
from conftest import CORPUS

from sanitizer.document.loader import from_text
from sanitizer.formats import detect
from sanitizer.model import Document, Part, View


def corpus(folder: str, name: str) -> tuple[str, Document, list[View]]:
    """The text, document and views of a corpus file; skips when `../shared/corpus` is absent."""
    path = CORPUS / folder / name
    if not path.is_file():
        pytest.skip(f"../shared/corpus not found: {path}")
    text = path.read_text(encoding="utf-8")
    doc = from_text(text, str(path))
    return text, doc, list(detect(doc).views(doc))


def edit(part: Part, text: str) -> None:
    """What the engine does for a cut that reaches every copy with the same text."""
    part.original = part.text
    part.text = text
    part.meta["copy_texts"] = [text] * len(part.copies)
