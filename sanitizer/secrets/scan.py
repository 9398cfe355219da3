"""Patterns that find credentials (each compiled when a run first needs it), and one function that redacts them.

Every secret becomes `[REDACTED:<kind>:<fp>]` (for example `[REDACTED:github-token:3f9a]`), where
`<fp>` is the first 4 hex digits of the sha256 of the secret: stable across runs, so a reader can
tell two keys apart without seeing either.  The marker holds no `"` and no `\\`, so a JSON string
stays valid, and no pattern matches a marker, so redacting twice changes nothing.  Where a secret
sits behind a name (`Authorization: Bearer …`, `?token=…`, `aws_secret_access_key=…`,
`https://user:pass@host`), the name stays and only the value goes.

The kinds (`KINDS`: name, shape, examples) live in `secret_providers` and `secret_named`.  False
positives are held down by shape (provider prefixes plus lengths, a digit required in most free-form
values, a random string's mix of cases or a password's symbols in the others, word boundaries,
values never spanning quotes, backslashes or whitespace) and by
`_not_a_secret`: placeholders (`<your-token>`, `${VAR}`, `xxxx`, `****`, `EXAMPLE`, `changeme`…)
and, for free-form values, file paths.  Plain hex hashes, git SHAs and UUIDs match no pattern.

All patterns are possessive or bounded: the cost is linear in the text length.
"""

from __future__ import annotations

import bisect
import hashlib
from collections.abc import Collection, Iterable, Iterator, Sequence

from sanitizer.secrets import near
from sanitizer.secrets import prefilter as _prefilter
from sanitizer.secrets.kinds import MARKER, Example, Kind
from sanitizer.secrets.named import KEY_BLOCKS, NAMED
from sanitizer.secrets.pattern import SecretPattern, read_leads
from sanitizer.secrets.providers import PROVIDERS
from sanitizer.textkit.lazy import lazy_pattern

__all__ = ["KINDS", "PATTERNS", "REDACTED_RE", "Example", "Kind", "SecretPattern", "redact", "redact_many",
           "redaction"]

KINDS: tuple[Kind, ...] = (*KEY_BLOCKS, *PROVIDERS, *NAMED)
"""Every supported kind, in the order its pattern runs (key blocks, provider tokens, named values)."""

REDACTED_RE = lazy_pattern(MARKER)


def fingerprint(value: str) -> str:
    """The first 4 hex digits of the sha256 of `value` (UTF-8, lone surrogates kept)."""
    return hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()[:4]


def redaction(kind: str, value: str) -> str:
    """The marker that replaces the secret `value` of kind `kind`: `[REDACTED:<kind>:<fp>]`."""
    return f"[REDACTED:{kind}:{fingerprint(value)}]"


# A value holding one of these is a placeholder or a masked value, not a secret.
_PLACEHOLDER = lazy_pattern(r"xxxx|XXXX|\*\*\*|\.\.\.|…|<[^>]*+>|\$\{|\{\{"
                             r"|(?i:example|placeholder|change_?me|your[_-]|_here(?![a-z])|dummy|redacted"
                             r"|replace[_-]?me|insert[_-]?(?:your|key|token))")
# A free-form value that is one of these words (after a `user:`) or reads an environment variable.
# Only ever `fullmatch`ed; `\A` keeps a search linear too (each start would run to the next `:`).
_PLACEHOLDER_WORD = lazy_pattern(r"(?i)\A(?:(?:[^:]*+:)?+(?:password|passwd|pass|secret|token)"
                                  r"|(?:process\.env|os\.environ|env)\.[A-Za-z_].*+)")
_PATH = lazy_pattern(r"(?:~|\.{1,2})?/?+(?:[\w.-]++/)++[\w.-]*?\.[A-Za-z][A-Za-z0-9]{0,7}(?::[0-9]++)*+"
                      r"|(?:~|\.{1,2})/[\w./-]++")
_NO_PLACEHOLDER_CHECK = frozenset({"private-key"})


def _not_a_secret(sp: SecretPattern, value: str) -> bool:
    """A match that only looks like a credential: a placeholder, a masked value or a path."""
    if sp.kind in _NO_PLACEHOLDER_CHECK:
        return False
    if _PLACEHOLDER.search(value) or _PLACEHOLDER_WORD.fullmatch(value):
        return True
    return sp.generic and _PATH.fullmatch(value) is not None


def _patterns(kind: Kind) -> Iterator[SecretPattern]:
    for entry in (kind.spec,) if isinstance(kind.spec, str) else kind.spec:
        spec, anchors = (entry, ()) if isinstance(entry, str) else entry
        folded = spec.startswith("(?i)")
        if folded:  # the kind's anchors
            anchors = kind.anchors
            assert anchors, f"{kind.name}: a case-ignoring pattern needs anchors"
        assert all(lit in near.FOLLOWS for lit, _ in anchors), f"{kind.name}: an anchor without a finder"
        yield SecretPattern(kind.name, spec, folded, anchors, kind.needs, kind.generic)


# One pattern per spec: a spec that starts with one literal is found as fast as `str.find`, an
# alternation of literals is tried at every position, so a kind's alternatives are split.
PATTERNS: tuple[SecretPattern, ...] = tuple(sp for k in KINDS for sp in _patterns(k))


# `str.find` on UCS-2 text runs at about 1 GB/s, slower than `regex` scanning for a literal: the
# leads are checked only while a check costs less than compiling the pattern (~0.4 ms).
_LEAD_CHECK_CHARS = 1 << 18
# A text up to this long is checked for every distinct lead once, before the patterns run, and
# only the patterns that can match it run (compiled or not): a check a pattern, a generator over its
# own leads, cost 1 us a pattern, more than most patterns' own scans of so short a text (a call of
# every pattern on a 40-char text took 200 us).  Without the `[fast]` gate, on corpus texts of 1-2 K
# chars: 330 us a scan this way, 540 us checking each pattern's leads (2-4 K: 615 against 720 us;
# 4-8 K: no better).
_ALL_LEADS_CHARS = 4096
_LEADLESS: frozenset[int] = frozenset()  # the patterns without leads: they can match any text
_USERS: dict[str, tuple[int, ...]] = {}  # lead -> the patterns it leads, once the leads are read
_leads_read = False


def _read_leads() -> None:
    global _LEADLESS, _USERS, _leads_read
    read_leads(PATTERNS)  # all at once, from the cache folder where an earlier process kept them
    users: dict[str, list[int]] = {}
    for index, sp in enumerate(PATTERNS):
        for lit in sp.leads or ():
            users.setdefault(lit, []).append(index)
    _LEADLESS = frozenset(i for i, sp in enumerate(PATTERNS) if sp.leads is None)
    _USERS = {lit: tuple(at) for lit, at in users.items()}
    _leads_read = True


def _may_match(text: str) -> set[int]:
    """The patterns that can match `text`: those without leads, and those with a lead in it."""
    if not _leads_read:
        _read_leads()
    can = set(_LEADLESS)
    for lit, at in _USERS.items():
        if lit in text:
            can.update(at)
    return can


def _lacks_leads(sp: SecretPattern, text: str) -> bool:
    """True when `text` holds none of the pattern's leads (so it holds no match)."""
    if not _leads_read:
        _read_leads()
    leads = sp.leads
    return (leads is not None and len(text) * len(leads) <= _LEAD_CHECK_CHARS
            and not any(lit in text for lit in leads))


def redact(text: str, *, fast: bool = True) -> tuple[str, list[str]]:
    """The text with every secret replaced, and the list of removed secret values (in order).

    The patterns apply one after the other, each to the previous one's output (a pattern with
    `needs` only to a text holding one of them).  `fast=False` scans with every pattern everywhere
    instead of next to anchors: the same result, slower (the reference for tests).

    A value that runs into an earlier marker ends there, and the text is scanned again (the scan
    had skipped to the match's end), so a second call never finds more.
    """
    removed: list[str] = []
    for _ in range(4):  # each round redacts more of a text where a value ran into a marker
        text, found, rescan = _redact_once(text, fast)
        removed += found
        if not (rescan and found):
            break
    return text, removed


def _redact_once(text: str, fast: bool, starts: list[int] | None = None) -> tuple[str, list[str], bool]:
    """One pass of every pattern; with `starts`, only the start of each value found is noted there."""
    removed: list[str] = []
    rescan = False
    low: str | None = None
    gated = fast  # `fast` turns off below for the folded patterns only
    # The `[fast]` extra: one pass finds which patterns can match (the same result, see prefilter).
    gate = _prefilter.gate(text, PATTERNS) if fast and _prefilter.ENABLED else None
    can = _may_match(text) if fast and gate is None and len(text) <= _ALL_LEADS_CHARS else None  # else all may
    hits = _known_hits(gate)
    order, k = _order(gate, can), 0  # not the patterns whose leads or anchor literals the text lacks
    while k < len(order):
        index = order[k]
        k += 1
        sp = PATTERNS[index]
        use_low = False
        if fast and sp.anchors:
            if low is None:
                low = near.ascii_lower(text)
                if len(low) != len(text) or (not text.isascii() and any(t in text for t in near.FOLD_TRAPS)):
                    fast = False
            use_low = fast
        if sp.needs and not any(n in text for n in sp.needs):
            continue
        found = None
        if gate is not None and not sp.folded:
            found = gate.finditer(index, sp.pattern)
        if found is None:
            if gated and sp._compiled is None and can is None and _lacks_leads(sp, text):
                continue  # none of its leads in the text: no match, known without compiling it
            found = near.anchored(sp, text, low, hits) if use_low else sp.pattern.finditer(text)  # type: ignore[arg-type]
        pieces: list[str] = []
        pos = 0
        has_value: bool | None = None
        for m in found:
            if has_value is None:
                has_value = "value" in sp.pattern.groupindex
            s, e = m.span("value") if has_value else (-1, -1)
            if s < 0:  # no `value` group, or not in the branch that matched: the whole match
                s, e = m.span()
            opened = text.rfind("[REDACTED:", max(0, s - _MARKER_CHARS), s)
            if opened >= 0 and text.find("]", opened, s) < 0:
                continue  # it starts inside an earlier marker (`-u [REDACTED:…]:…`): that marker stays whole
            cut = text.find("[REDACTED:", s, e)
            if cut >= 0:  # a value ends where an earlier marker starts; what follows is scanned again
                rescan, e = True, cut
                if e == s:
                    continue
            value = text[s:e]
            if _not_a_secret(sp, value):
                continue
            if starts is not None:
                starts.append(s)
                continue
            pieces += (text[pos:s], redaction(sp.kind, value))
            removed.append(value)
            pos = e
        if pieces:
            pieces.append(text[pos:])
            text = "".join(pieces)
            low = None  # the text changed
            can = _may_match(text) if can is not None else None
            if gate is not None:
                gate = _prefilter.gate(text, PATTERNS)
            hits = _known_hits(gate)
            order, k = [i for i in _order(gate, can) if i > index], 0
    return text, removed, rescan


def _order(gate: _prefilter.Gate | None, can: set[int] | None) -> Sequence[int]:
    """The patterns a scan visits, in order: every one, or only those the gate or the leads do
    not rule out (visiting the others only to skip them cost 50 us a call of 239 patterns)."""
    if gate is not None:
        return gate.candidates()
    return sorted(can) if can is not None else range(len(PATTERNS))


def _known_hits(gate: _prefilter.Gate | None) -> dict[str, Sequence[int]]:
    """The finder hits known before any finder runs on a text: none for each finder the `[fast]`
    pass found nothing for (so it is not run)."""
    return dict.fromkeys(gate.quiet, ()) if gate is not None else {}


# The longest marker: how far back a value's start looks for the `[` of one it would start inside.
_MARKER_CHARS = len(redaction(max((k.name for k in KINDS), key=len), ""))
# Joins texts for one scan: no pattern matches across it (every value class stops at whitespace
# or NUL, and no lookbehind takes the separator for more than a line break, so a text's edges
# behave as at the start or end of text).
_JOIN = "\n\x00\n"
# A batch, its redacted copy and the pieces between are held at once: 1 M chars keeps that small
# (4 M chars was no faster: 1.35 against 1.22 s over every string of a 20 MB session).
BATCH_CHARS = 1024 * 1024


def redact_many(texts: Sequence[str], clean: Collection[str] = ()) -> list[tuple[str, list[str]]]:
    """`[redact(t) for t in texts]`, scanning batches of texts joined together.

    One scan per batch instead of one per text saves the per-call cost of every pattern on many
    short texts.  The joined scan only tells which texts hold a secret (it redacts nothing, so no
    pattern rescans the batch after a find); those are redacted one by one, so every result is
    exactly `redact(text)`.  A text in `clean` (from `clean_of`) is known to hold none.
    """
    # A text met again (a session id, a folder on every record) is scanned once.
    unique = [t for t in dict.fromkeys(texts) if t not in clean] if clean else list(dict.fromkeys(texts))
    done = {t: redact(t) for t in _holding(unique)}
    if not done:
        return [(t, []) for t in texts]
    # Each text gets its own list of removed values, a repeated one too.
    return [(t, []) if (r := done.get(t)) is None else (r[0], list(r[1])) for t in texts]


def clean_of(texts: Iterable[str]) -> set[str]:
    """The texts among `texts` that hold no credential (`redact` leaves them as they are), found
    in the same batches as `redact_many`: scanned once for many calls that will each ask."""
    unique = list(dict.fromkeys(texts))
    holding = set(_holding(unique))
    return {t for t in unique if t not in holding}


def _holding(texts: Sequence[str]) -> Iterator[str]:
    """The texts among `texts` that hold a credential, from scans of joined batches.

    ASCII texts are batched apart from the others: one non-ASCII char makes a whole joined batch
    a wide string, on which lowering, `str.find` and `regex` are slower.
    """
    narrow: list[str] = []
    wide: list[str] = []
    for t in texts:
        (narrow if t.isascii() else wide).append(t)
    for group in (narrow, wide):
        start = 0
        while start < len(group):
            end, size = start, 0
            offsets: list[int] = []  # where each text starts in the joined batch
            while end < len(group) and (end == start or size + len(group[end]) <= BATCH_CHARS):
                offsets.append(size)
                size += len(group[end]) + len(_JOIN)
                end += 1
            starts: list[int] = []
            _redact_once(_JOIN.join(group[start:end]), True, starts)
            for k in sorted({bisect.bisect_right(offsets, s) - 1 for s in starts}):
                yield group[start + k]
            start = end
