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

from collections.abc import Iterator
from dataclasses import dataclass

import regex

REDACTED_RE = regex.compile(r"\[REDACTED:[a-z0-9-]+\]")


def redaction(kind: str) -> str:
    return f"[REDACTED:{kind}]"


@dataclass(frozen=True, slots=True)
class SecretPattern:
    """`pattern` matches a secret; group `value` (when present) is the part replaced.

    `needles` (for a pattern that ignores case): lower-case literals of which every match holds
    one, so a text whose `lower()` holds none of them is not scanned.  `anchors`: for a pattern
    that starts with a name alternation (slow to scan: `regex` tries it at every position),
    (reach, anchor) pairs built from `_ANCHORS`; every match holds an anchor match that starts at
    most `reach` chars after its own start, so the pattern is tried only there (`_anchored`).
    """

    kind: str
    pattern: regex.Pattern[str]
    needles: tuple[str, ...]
    folded: bool = False
    anchors: tuple[tuple[int, regex.Pattern[str]], ...] = ()


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

# Lower-case literals of which every match of a case-ignoring pattern holds one.  (A pattern that
# starts with a literal needs none: `regex` finds its literal as fast as `str.find` would.)
_NEEDLES: dict[str, tuple[str, ...]] = {"aws-secret-key": ("aws",), "auth-header": ("authorization",)}
# (literal, reach, then) for the patterns that start with a name alternation: every name holds one
# literal, at most `reach` chars after the match start, and is followed by what `then` matches.
_SEP = r"[\"']?\s*+[=:]"
_ANCHORS: dict[str, tuple[tuple[str, int, str], ...]] = {
    "query-credential": (("token", 16, "="), ("key", 5, "="), ("secret", 8, "="), ("passw", 1, "(?:or)?d="),
                         ("pwd", 1, "="), ("sig", 7, "(?:nature)?="), ("credential", 7, "=")),
    "credential": (("passw", 0, "(?:or)?d" + _SEP), ("pwd", 0, _SEP), ("secret", 7, _SEP),
                   ("token", 0, _SEP), ("key", 8, _SEP)),
}
# Characters that `(?i)` matches to an ASCII letter but whose `lower()` is not that letter
# (`İ` → i, `ſ` → s): a text holding one is scanned the plain way.
_FOLD_TRAPS = ("\u0130", "\u017f")


def _pattern(kind: str, spec: str) -> SecretPattern:
    folded = spec.startswith("(?i)")
    specs = _ANCHORS.get(kind, ())
    # Run on `text.lower()`, where case-sensitive lower-case literals find what `(?i)` finds in text.
    anchors = tuple((reach, regex.compile(regex.escape(lit) + then)) for lit, reach, then in specs)
    needles = _NEEDLES.get(kind) or tuple(lit for lit, _, _ in specs)
    assert not folded or needles, f"{kind}: a case-ignoring pattern needs needles"
    return SecretPattern(kind, regex.compile(spec), needles, folded, anchors)


PATTERNS: tuple[SecretPattern, ...] = tuple(_pattern(k, p) for k, p in _SPECS)


def _anchored(sp: SecretPattern, text: str, low: str) -> Iterator[regex.Match[str]]:
    """The matches `sp.pattern.finditer(text)` gives, found by trying the pattern next to anchors.

    `low` is `text.lower()`, of the same length, so its positions are positions in `text`; an
    anchor (literal + what follows it, all lower case) matches in `low` where `(?i)` would in `text`.
    """
    windows = sorted((m.start() - reach, m.start()) for reach, anchor in sp.anchors for m in anchor.finditer(low))
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
    for sp in PATTERNS:
        use_low = False
        if fast and sp.folded:
            if low is None:
                low = text.lower()
                if len(low) != len(text) or (not text.isascii() and any(t in text for t in _FOLD_TRAPS)):
                    fast = False
            if fast and not any(n in low for n in sp.needles):
                continue
            use_low = fast and bool(sp.anchors)
        found = _anchored(sp, text, low) if use_low else sp.pattern.finditer(text)  # type: ignore[arg-type]
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
    return text, removed
