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

from dataclasses import dataclass

import regex

REDACTED_RE = regex.compile(r"\[REDACTED:[a-z0-9-]+\]")


def redaction(kind: str) -> str:
    return f"[REDACTED:{kind}]"


@dataclass(frozen=True, slots=True)
class SecretPattern:
    """`pattern` matches a secret; group `value` (when present) is the part replaced."""

    kind: str
    pattern: regex.Pattern[str]


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

PATTERNS: tuple[SecretPattern, ...] = tuple(SecretPattern(k, regex.compile(p)) for k, p in _SPECS)
_QUICK = regex.compile(
    r"(?i)private key|sk-|gh[pousr]_|github_pat_|xox|a(?:kia|sia|gpa|ida|roa|npa)|aiza|eyj|authorization"
    r"|bearer|://|[?&;]|password|passwd|pwd|secret|token|key"
)


def redact(text: str) -> tuple[str, list[str]]:
    """The text with every secret replaced, and the list of removed secret values (in order)."""
    if _QUICK.search(text) is None:
        return text, []
    removed: list[str] = []
    for sp in PATTERNS:
        has_value = "value" in sp.pattern.groupindex

        def repl(m: regex.Match[str], kind: str = sp.kind, has_value: bool = has_value) -> str:
            if has_value:
                s, e = m.span("value")
                removed.append(m.group("value"))
                whole_s = m.start()
                return m.group(0)[: s - whole_s] + redaction(kind) + m.group(0)[e - whole_s:]
            removed.append(m.group(0))
            return redaction(kind)

        text = sp.pattern.sub(repl, text)
    return text, removed
