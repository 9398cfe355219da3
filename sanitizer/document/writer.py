"""A `Document` written out as UTF-8 bytes in pieces: `loader.to_text` encoded, never whole at once.

The whole-text writer builds the output text and then its bytes (two copies of the output);
`chunks` gives the same bytes about a megabyte at a time, an untouched JSONL line read back from
its file (`FileLines`) copied as the bytes it was.  `encode` is the one way an output text
becomes bytes: a lone surrogate never stops it.
"""

from __future__ import annotations

import codecs
from collections.abc import Iterator

from sanitizer.document import loader
from sanitizer.document.filelines import FileLines
from sanitizer.model import Damaged, Document

CHUNK = 1024 * 1024


def _escape(exc: UnicodeError) -> tuple[bytes, int]:
    """Encoding error handler: a byte smuggled by `surrogateescape` goes back as that byte; any
    other lone surrogate (`"\\ud800"` in the JSON) is written as its `\\uXXXX` escape."""
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    out = bytearray()
    for ch in exc.object[exc.start:exc.end]:
        code = ord(ch)
        out += bytes([code - 0xDC00]) if 0xDC80 <= code <= 0xDCFF else f"\\u{code:04x}".encode()
    return bytes(out), exc.end


codecs.register_error("sanitizer-escape", _escape)


def encode(text: str) -> bytes:
    """UTF-8 bytes of an output text; never raises on lone surrogates (see `_escape`)."""
    return text.encode("utf-8", errors="sanitizer-escape")


def encoded(text: str, size: int = CHUNK) -> Iterator[bytes]:
    """`encode(text)` in pieces of `size` chars (each char is encoded on its own: no piece
    boundary can change a byte)."""
    for start in range(0, len(text), size):
        yield encode(text[start:start + size])


def chunks(doc: Document, size: int = CHUNK) -> Iterator[bytes]:
    """`encode(loader.to_text(doc))`, in pieces of about `size` bytes."""
    if doc.container != "jsonl":
        yield from encoded(loader.to_text(doc), size)
        return
    raw = doc.raw_lines if doc.raw_lines is not None else []
    from_file = raw.bytes_at if isinstance(raw, FileLines) else None
    pieces: list[bytes] = []
    held = 0
    for i, record in enumerate(doc.records):
        if isinstance(record, Damaged):
            piece = encode(record.raw)
        elif i in doc.dirty or i >= len(raw):
            piece = encode(loader.dumps_record(record, read=i < len(raw)))
        else:
            piece = from_file(i) if from_file is not None else encode(raw[i])
        if i:
            pieces.append(b"\n")
        pieces.append(piece)
        held += len(piece) + 1
        if held >= size:
            yield b"".join(pieces)
            pieces.clear()
            held = 0
    if doc.trailing_newline and doc.records:
        pieces.append(b"\n")
    if pieces:
        yield b"".join(pieces)
