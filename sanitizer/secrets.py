"""Compiled patterns that find credentials, and one function that redacts them.

Every secret becomes `[REDACTED:<kind>]` (for example `[REDACTED:github-token]`).  The marker
holds no `"` and no `\\`, so a JSON string stays valid, and no pattern matches a marker, so
redacting twice changes nothing.  Where a secret sits behind a name (`Authorization: Bearer …`,
`?token=…`, `aws_secret_access_key=…`, `https://user:pass@host`), the name stays and only the
value goes.

False positives are held down by shape: provider prefixes plus a minimum length, a digit
required in `sk-` keys and in generic `password=`-style values, word boundaries on both sides,
and values never spanning quotes, backslashes or whitespace (so a JSON escape is never split).
Plain hex hashes (git SHAs, sha256 digests) match none of the patterns.

All patterns are possessive or bounded: the cost is linear in the text length.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import regex

REDACTED_RE = regex.compile(r"\[REDACTED:[a-z0-9-]+\]")


def redaction(kind: str) -> str:
    return f"[REDACTED:{kind}]"


@dataclass(frozen=True, slots=True)
class SecretPattern:
    """`pattern` matches a secret; group `value` (when present) is the part replaced.

    `anchors`: for a pattern that ignores case (slow to scan: `regex` tries it at every position),
    (literal, reach) pairs; every match holds a `_FINDERS[literal]` match that starts at most
    `reach` chars after its own start, so the pattern is tried only there (`_anchored`).
    """

    kind: str
    pattern: regex.Pattern[str]
    folded: bool = False
    anchors: tuple[tuple[str, int], ...] = ()


_B = r"(?<![A-Za-z0-9_\]-])"  # left boundary for token-shaped secrets
_E = r"(?![A-Za-z0-9_\[-])"  # right boundary
_NOT_REDACTED = r"(?!\[REDACTED:)"

_SPECS: tuple[tuple[str, str], ...] = (
    # PEM blocks (also inside JSON strings, where newlines are `\n` escapes); a block whose END
    # line is missing (truncated output) is redacted up to the end of its base64 body.
    ("private-key", r"-----BEGIN (?:[A-Z0-9]{1,12} ){0,4}PRIVATE KEY(?: BLOCK)?-----"
                    r"(?:(?:[A-Za-z0-9+/=\s:,.]|\\[nrt]|-(?!----))*+"
                    r"-----END (?:[A-Z0-9]{1,12} ){0,4}PRIVATE KEY(?: BLOCK)?-----"
                    r"|(?:(?:\s|\\[nrt])++[A-Za-z0-9+/=]{16,}+)*+)"),
    ("anthropic-key", _B + r"sk-ant-[A-Za-z0-9_-]{20,}+"),
    ("openai-key", _B + r"sk-(?!ant-)(?=[A-Za-z_-]{0,200}+[0-9])[A-Za-z0-9_-]{20,}+"),
    ("github-token", _B + r"(?:gh[pousr]_[A-Za-z0-9]{30,}+|github_pat_[A-Za-z0-9_]{22,}+)"),
    ("slack-token", _B + r"xox[abeoprs]-[A-Za-z0-9-]{10,}+"),
    ("aws-access-key-id", r"(?<![A-Z0-9\]])(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA)[A-Z0-9]{16}(?![A-Z0-9\[])"),
    ("aws-secret-key", r"(?i)(?<![a-z0-9_\]])aws_?secret_?access_?key[\"']?\s*+[=:]\s*+[\"']?"
                       r"(?<value>" + _NOT_REDACTED + r"[A-Za-z0-9/+=]{40}+)(?![A-Za-z0-9/+=\[])"),
    ("google-api-key", _B + r"AIza[0-9A-Za-z_-]{35}" + _E),
    ("jwt", _B + r"eyJ[A-Za-z0-9_-]{8,}+\.eyJ[A-Za-z0-9_-]{8,}+\.[A-Za-z0-9_-]*+"),
    ("auth-header", r"(?i)(?<![a-z0-9_\]-])(?:proxy-)?authorization[\"']?\s*+[:=]\s*+[\"']?"
                    r"(?:(?:bearer|basic|token|digest|negotiate)\s++)?+"
                    r"(?<value>" + _NOT_REDACTED + r"(?![$%{<])(?!(?:bearer|basic|token|digest|negotiate)\b)"
                    r"[^\s\"'\\,;]{4,}+)"),
    ("bearer-token", r"(?<![A-Za-z0-9_\]-])Bearer\s++(?<value>" + _NOT_REDACTED
                     + r"(?=[A-Za-z._~+/-]{0,200}+[0-9])[A-Za-z0-9._~+/-]{20,}+=*+)"),
    ("url-credentials", r"(?<![A-Za-z0-9+.\]-])[A-Za-z][A-Za-z0-9+.-]{1,15}+://"
                        r"(?<value>" + _NOT_REDACTED + r"[^\s/@:\"'\\<>\[\]]++:[^\s/@\"'\\<>]++)@"),
    ("query-credential", r"(?i)[?&;](?:access_token|refresh_token|id_token|auth_token|token|api_key|apikey"
                         r"|api-key|key|secret|client_secret|password|passwd|pwd|sig|signature"
                         r"|x-amz-signature|x-amz-credential|x-amz-security-token)="
                         r"(?<value>" + _NOT_REDACTED + r"[^&#\s\"'\\<>]++)"),
    # NAME=value / "name": "value" where the name ends in a secret word (DB_PASSWORD, apiKey) and
    # the value looks like one
    # (at least 6 chars with a letter and a digit; `$VAR`, `${…}` and code are left alone).
    ("credential", r"(?i)(?:password|passwd|pwd|secret|token|api[_-]?key"
                   r"|access[_-]?key|auth[_-]?key|private[_-]?key|client[_-]?secret)[\"']?\s*+[=:]\s*+[\"']?"
                   r"(?<value>" + _NOT_REDACTED + r"(?![$%{<])(?=[^\s\"'\\,;&<>(){}\[\]0-9]{0,200}+[0-9])"
                   r"(?=[^\s\"'\\,;&<>(){}\[\]a-z]{0,200}+[a-z])[^\s\"'\\,;&<>(){}\[\]]{6,}+)"),
)

# (literal, reach) for the case-ignoring patterns: every match holds one literal, at most `reach`
# chars after the match start, followed by what `_FOLLOWS[literal]` matches (for the two name
# alternations, the union over the names of both patterns, so one scan per literal serves both).
# (A case-sensitive pattern needs none: `regex` finds its leading literal as fast as `str.find`.)
_SEP = r"[\"']?\s*+[=:]"
_FOLLOWS = {"token": _SEP, "key": _SEP, "secret": _SEP, "passw": "(?:or)?d" + _SEP, "pwd": _SEP,
            "sig": "(?:nature)?=", "credential": "=", "aws": "_?secret", "authorization": _SEP}
_ANCHORS: dict[str, tuple[tuple[str, int], ...]] = {
    "aws-secret-key": (("aws", 0),),
    "auth-header": (("authorization", len("proxy-")),),
    "query-credential": (("token", 16), ("key", 5), ("secret", 8), ("passw", 1), ("pwd", 1), ("sig", 7),
                         ("credential", 7)),
    "credential": (("passw", 0), ("pwd", 0), ("secret", 7), ("token", 0), ("key", 8)),
}
# Run on `_ascii_lower(text)`, where case-sensitive lower-case literals find what `(?i)` finds in text.
_FINDERS = {lit: regex.compile(regex.escape(lit) + then) for lit, then in _FOLLOWS.items()}
# The only non-ASCII characters that `(?i)` matches to an ASCII letter (`İ` → i, `ſ` → s, Kelvin
# sign → k), which `_ascii_lower` leaves as they are: a text holding one is scanned the plain way.
_FOLD_TRAPS = ("\u0130", "\u017f", "\u212a")


def _ascii_lower(text: str) -> str:
    """`text` of the same length with A-Z lowered: what the finders scan.

    On non-ASCII text, `bytes.lower` on UTF-16 is 5x as fast as `str.lower`.  It adds 0x20 to
    every byte 0x41-0x5A.  A non-ASCII code unit it changes stays non-ASCII, never becomes
    whitespace (no whitespace unit has a byte 0x61-0x7A) and keeps its surrogate half, and no
    whitespace unit changes.  So an ASCII literal followed by `\\s` matches here exactly where
    `(?i)` matches it in `text`, except at `_FOLD_TRAPS`.  Two lone surrogates that form a pair
    would decode as one character: the caller checks the length.
    """
    if text.isascii():
        return text.lower()
    return text.encode("utf-16-le", "surrogatepass").lower().decode("utf-16-le", "surrogatepass")


def _pattern(kind: str, spec: str) -> SecretPattern:
    folded = spec.startswith("(?i)")
    anchors = _ANCHORS.get(kind, ())
    assert not folded or anchors, f"{kind}: a case-ignoring pattern needs anchors"
    return SecretPattern(kind, regex.compile(spec), folded, anchors)


PATTERNS: tuple[SecretPattern, ...] = tuple(_pattern(k, p) for k, p in _SPECS)


def _anchored(sp: SecretPattern, text: str, low: str, hits: dict[str, list[int]]) -> Iterator[regex.Match[str]]:
    """The matches `sp.pattern.finditer(text)` gives, found by trying the pattern next to anchors.

    `low` is `_ascii_lower(text)`, of the same length, so its positions are positions in `text`; a
    finder (literal + what follows it, all lower case) matches in `low` where `(?i)` would in
    `text`.  `hits` caches each literal's finder positions for this text.
    """
    for lit, _ in sp.anchors:
        if lit not in hits:
            hits[lit] = [m.start() for m in _FINDERS[lit].finditer(low)]
    windows = sorted((i - reach, i) for lit, reach in sp.anchors for i in hits[lit])
    pos = 0  # where the scan stands: the end of the last match, or the next untried start
    for lo, hi in windows:
        for s in range(max(lo, pos, 0), hi + 1):
            m = sp.pattern.match(text, s)
            if m is not None:
                yield m
                pos = m.end()
                break
        else:
            pos = max(pos, hi + 1)


def redact(text: str, *, fast: bool = True) -> tuple[str, list[str]]:
    """The text with every secret replaced, and the list of removed secret values (in order).

    The patterns apply one after the other, each to the previous one's output.  `fast=False`
    scans with every pattern everywhere: the same result, slower (the reference for tests).
    """
    removed: list[str] = []
    low: str | None = None
    hits: dict[str, list[int]] = {}
    for sp in PATTERNS:
        use_low = False
        if fast and sp.folded:
            if low is None:
                low = _ascii_lower(text)
                if len(low) != len(text) or (not text.isascii() and any(t in text for t in _FOLD_TRAPS)):
                    fast = False
            use_low = fast
        found = _anchored(sp, text, low, hits) if use_low else sp.pattern.finditer(text)  # type: ignore[arg-type]
        pieces: list[str] = []
        pos = 0
        for m in found:
            s, e = m.span("value") if "value" in sp.pattern.groupindex else m.span()
            pieces += (text[pos:s], redaction(sp.kind))
            removed.append(text[s:e])
            pos = e
        if pieces:
            pieces.append(text[pos:])
            text = "".join(pieces)
            low = None  # the text changed
            hits.clear()
    return text, removed


# Joins texts for one scan: no pattern matches across it (every value class stops at whitespace
# or NUL, every lookbehind is negative, so a text's edges behave as at the start or end of text).
_JOIN = "\n\x00\n"
BATCH_CHARS = 4 * 1024 * 1024


def redact_many(texts: Sequence[str]) -> list[tuple[str, list[str]]]:
    """`[redact(t) for t in texts]`, scanning batches of texts joined together.

    One scan per batch instead of one per text saves the per-call cost of 14 patterns on many
    short texts.  The joined scan only tells which texts hold a secret; those are redacted again
    one by one, so every result is exactly `redact(text)`.
    """
    out: list[tuple[str, list[str]]] = [(t, []) for t in texts]
    start = 0
    while start < len(texts):
        end, size = start, 0
        while end < len(texts) and (end == start or size + len(texts[end]) <= BATCH_CHARS):
            size += len(texts[end]) + len(_JOIN)
            end += 1
        batch = texts[start:end]
        joined = _JOIN.join(batch)
        new, removed = redact(joined)
        if removed:
            pieces = new.split(_JOIN)
            if len(pieces) != len(batch) or joined.count(_JOIN) != len(batch) - 1:
                pieces = [None] * len(batch)  # a text holds the separator itself: one by one
            for i, (text, piece) in enumerate(zip(batch, pieces, strict=True)):
                if piece != text:
                    out[start + i] = redact(text)
        start = end
    return out
