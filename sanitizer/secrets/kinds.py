"""What a kind of credential is: its name, its shape, its pattern and its examples.

The kinds themselves are listed in `secret_providers` (values recognised by their own prefix or
shape) and `secret_named` (values recognised by the name or syntax around them); `secrets.KINDS`
joins them in the order the patterns run.

Examples are made up.  Their bodies come from `fake` (a fixed pseudo-random generator) and their
prefixes are split in the source, so no scanner mistakes this code for a leaked credential.
"""

from __future__ import annotations

from dataclasses import dataclass

AN = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
HEX = "0123456789abcdef"
B64 = AN + "+/"
URLSAFE = AN + "_-"
UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"  # upper-case letters and digits
B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"  # RFC 4648 base32


def fake(alphabet: str, n: int, seed: int) -> str:
    """`n` characters of `alphabet`, always the same for the same seed: a made-up secret body."""
    out, x, size = [], seed * 2654435761 + 12345, len(alphabet)
    for _ in range(n):  # `& (2**64 - 1)` is `% 2**64` on these non-negative ints, a third faster
        x = (x * 6364136223846793005 + 1442695040888963407) & 0xFFFFFFFFFFFFFFFF
        out.append(alphabet[(x >> 33) % size])
    return "".join(out)


UUID = r"[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12}"  # a lower-case UUID, in a spec


def fake_uuid(seed: int) -> str:
    """A made-up lower-case UUID (8-4-4-4-12 hex digits), from seeds `seed` to `seed + 4`."""
    return "-".join(fake(HEX, n, seed + i) for i, n in enumerate((8, 4, 4, 4, 12)))


@dataclass(frozen=True, slots=True)
class Example:
    """`text` holds the credential `secret`: redacting `text` must remove every char of `secret`."""

    text: str
    secret: str


def bare(secret: str) -> Example:
    """An example whose text is the credential alone (a kind recognised by its own shape)."""
    return Example(secret, secret)


def named(template: str, secret: str) -> Example:
    """An example where the credential sits in `template` at `{}` (a kind found by its context)."""
    return Example(template.replace("{}", secret), secret)


# (literal, reach): every match holds the literal (and what `near.FOLLOWS` says follows it),
# starting at most `reach` chars after the match start.
Anchors = tuple[tuple[str, int], ...]


@dataclass(frozen=True, slots=True)
class Kind:
    """One kind of credential.

    `spec`: the regex, or alternatives tried one after the other (group `value`, when present
    in the branch that matched, is the part replaced; the rest stays).  A case-sensitive
    alternative that no literal leads may come as `(spec, anchors)`, tried only near them.
    `looks`: one line on what it looks like (the README's table).  `true`: texts holding such a
    credential; `false`: lookalikes that must stay as they are.  `needs`: literals of which the
    text must hold one for the pattern to run (a condition of the kind or a cheap skip).
    `generic`: the value is free-form (found by a name), so paths and placeholders are not
    secrets.  A `(?i)` spec must have `anchors` (see `secrets.SecretPattern`).
    """

    name: str
    looks: str
    spec: str | tuple[str | tuple[str, Anchors], ...]
    true: tuple[Example, ...]
    false: tuple[str, ...]
    needs: tuple[str, ...] = ()
    generic: bool = False
    anchors: Anchors = ()


# left boundary for token-shaped secrets (a `\\n` escape in a JSON string counts as a line break)
B = r"(?:(?<![A-Za-z0-9_\]-])|(?<=\\[nrt]))"
E = r"(?![A-Za-z0-9_\[-])"  # right boundary
NOT_REDACTED = r"(?!\[REDACTED:)"
MARKER = r"\[REDACTED:[a-z0-9-]++(?::[0-9a-f]{4})?\]"  # a marker a scan left: `[REDACTED:<kind>:<fp>]`
VALUE = NOT_REDACTED + r"(?![$%{<])"  # a free-form value: not a marker, a variable or a placeholder
VALUE_ENDS = r"\s\"'\\,;&<>(){}\[\]"  # what ends an unquoted value of `credential`, in a class
# what follows a secret's name before its value: a closing quote, then `=`, `:`, `:=` or `=>`
NAME_IS = r"(?:\\*+[\"'])?+\s*+(?::=|=>|[=:])\s*+"
# a name ending in a secret word, then `=` or `:` (how the `credential` specs and `letter-credential` start)
SECRET_NAME = (r"(?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|auth[_-]?key|private[_-]?key"
               r"|secret[_-]?key|client[_-]?secret|[_-]key|[_-]pass|credentials?)" + NAME_IS)
SECRET_NAME_IS = "(?i)" + SECRET_NAME
