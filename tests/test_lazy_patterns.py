"""Patterns compiled on first use give the results the eagerly compiled ones gave.

The credential patterns are compiled only when a text holds one of their leading literals
(`secrets.leads`); every other module-level pattern compiles on its first call (`lazy_pattern`).
Importing the package compiles no credential pattern (checked in a fresh interpreter).
"""

from __future__ import annotations

import subprocess
import sys

import pytest
import regex
from conftest import ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

from sanitizer.secrets import scan as secrets
from sanitizer.secrets.kinds import AN, fake
from sanitizer.secrets.leads import leads
from sanitizer.textkit.lazy import LazyPattern, lazy_pattern

EXAMPLES = [e.text for k in secrets.KINDS for e in k.true] + [t for k in secrets.KINDS for t in k.false]


@pytest.mark.parametrize(("spec", "want"), [
    (r"ghp_[A-Z]{3}", ("ghp_",)),
    (r"gh[pos]_[A-Z]{3}", ("ghp_", "gho_", "ghs_")),
    (r"(?:(?<![a-z])|(?<=\\[nrt]))AKIA[A-Z0-9]{16}", ("AKIA",)),
    (r"(?<![A-Z])sk_(?:live|test)_x", ("sk_live_x", "sk_test_x")),
    (r"hooks\.slack\.com/x", ("hooks.slack.com/x",)),
    (r"[a-z]++:secret=", (":secret=",)),  # a run after a quantified item
    (r"abc?def", ("def",)),             # `c` may be absent: it ends the run `ab`
    (r"abc*d", ("ab",)),
    (r"abc{0,2}d", ("ab",)),
    (r"abc{2}def", ("def",)),           # a counted item ends the run too
    (r"abc+d", ("abc",)),               # more `c` may follow: the run ends after one
    (r"ab(?:cd)?ef", ("ab",)),          # equally long: the first
    (r"ab(?=x)cdef", ("cdef",)),        # a lookaround ends a run
    (r"ab|cd", None),                   # a top-level alternation: no literal every match holds
    (r"(?:ab|cd)ef", ("abef", "cdef")),
    (r"(?:ab|c.)ef", ("ef",)),
    (r"a[A-Z]b", None),                 # runs of one char only
    (r"ab(?i)cd", None),                # a global flag past the start
    (r"(?x)ab cd", None),
    (r"(?i)abcd", None),
    (r"x(?i:ab)cd", ("cd",)),          # a scoped flag stays in its group
    (r"\d\dab", ("ab",)),
    (r"\x41bc", None),                   # an escape with an argument: unsure
    (r"\p{L}abc", None),
    (r"\1abc", None),
    (r"[[:alpha:]]ab", None),
    (r"\Qab\E", None),
    (r"a(?#|)bc", None),
    (r"a\.b-c_d", ("a.b-c_d",)),
    (r"(?<value>ab)cd", ("cd",)),
    (r"ab{e<=1}cd", ("cd",)),           # a fuzzy item ends a run
])
def test_leads_reads_only_what_it_is_sure_of(spec: str, want: tuple[str, ...] | None) -> None:
    assert leads(spec) == want


def test_every_match_holds_one_of_its_leads() -> None:
    """Over every example text (and all of them joined), each match of a pattern holds a lead."""
    texts = [*EXAMPLES, "\n".join(EXAMPLES)]
    checked = 0
    for sp in secrets.PATTERNS:
        if sp.leads is None:
            continue
        for text in texts:
            for m in sp.pattern.finditer(text):
                assert any(lit in m[0] for lit in sp.leads), (sp.kind, m[0], sp.leads)
                checked += 1
    assert checked >= 80
    assert sum(sp.leads is not None for sp in secrets.PATTERNS) >= len(secrets.PATTERNS) * 3 // 4


PREFIXES = sorted({lit[:n] for sp in secrets.PATTERNS for lit in sp.leads or () for n in (len(lit), len(lit) - 1)})
FRAGMENTS = [*PREFIXES, *EXAMPLES[:60], " ", "\n", "\\n", "=", ":", '"', "_", "-", ".", "/", "é", "[REDACTED:x]",
             fake(AN, 40, 1), fake(AN, 24, 2), "0123456789abcdef" * 2, "token=", "Bearer ", "AKIA"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(FRAGMENTS), min_size=1, max_size=40))
def test_skipping_by_leads_changes_nothing(pieces: list[str]) -> None:
    """The gated scan (leads, anchors) finds what every pattern scanned everywhere finds."""
    text = "".join(pieces)
    assert secrets.redact(text) == secrets.redact(text, fast=False)
    assert secrets.redact_many([text, text + "\n" + text]) == [secrets.redact(text, fast=False),
                                                               secrets.redact(text + "\n" + text, fast=False)]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(FRAGMENTS), min_size=1, max_size=30))
def test_a_short_text_skips_only_patterns_that_cannot_match_it(pieces: list[str]) -> None:
    """A short text runs only the patterns its leads allow (`_may_match`), compiled or not: every
    pattern left out finds nothing in it."""
    text = "".join(pieces)
    can = secrets._may_match(text)
    left_out = [sp for i, sp in enumerate(secrets.PATTERNS) if i not in can]
    assert left_out, "every pattern can match: the check skipped nothing"
    for sp in left_out:
        assert sp.pattern.search(text) is None, (sp.kind, text)
    assert secrets.redact(text) == secrets.redact(text, fast=False)


def _fresh(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "SANITIZER_PLAIN": "1"})
    return done.stdout.strip()


def test_importing_the_package_compiles_no_credential_pattern() -> None:
    out = _fresh("import sanitizer, sanitizer.cli.command, sanitizer.cli.write\n"
                 "from sanitizer.secrets import near, scan\n"
                 "print(sum(sp.compiled for sp in scan.PATTERNS), len(near.FINDERS))\n"
                 "scan.redact('nothing secret in here, just words and 42 numbers')\n"
                 "print(sum(sp.compiled for sp in scan.PATTERNS if sp.leads))\n"
                 "scan.redact('ghp_' + 'a1B2c3D4e5' * 4)\n"
                 "print(sorted({sp.kind for sp in scan.PATTERNS if sp.leads and sp.compiled}))\n")
    nothing, none, some = out.splitlines()
    assert (nothing, none) == ("0 0", "0")
    assert "github-token" in some and "slack-token" not in some and "aws-access-key-id" not in some


def test_a_lazy_pattern_is_the_compiled_one() -> None:
    spec = r"(?<word>[a-z]++)-(?<n>[0-9]{2})"
    lazy, real = lazy_pattern(spec), regex.compile(spec)
    assert isinstance(lazy, LazyPattern) and not lazy.is_compiled and lazy.pattern == spec
    text = "ab-12 cd-3 ef-45"
    assert lazy.search(text).span() == real.search(text).span()
    assert lazy.is_compiled
    assert [m.span() for m in lazy.finditer(text)] == [m.span() for m in real.finditer(text)]
    assert lazy.findall(text) == real.findall(text)
    assert lazy.sub("x", text) == real.sub("x", text) and lazy.subn("x", text) == real.subn("x", text)
    assert lazy.split(text) == real.split(text)
    assert lazy.match(text, 6) is None and lazy.fullmatch("ab-12") is not None
    assert lazy.groupindex == real.groupindex and lazy.groups == real.groups
    assert lazy.compiled.pattern == spec


def test_importing_the_package_leaves_hyperscan_for_the_first_large_run() -> None:
    """hyperscan (when installed) is imported only to build the database, after `BUILD_CHARS`."""
    code = ("import sys\nimport sanitizer, sanitizer.cli.command, sanitizer.cli.write\n"
            "from sanitizer.secrets import prefilter, scan\n"
            "before = 'hyperscan' in sys.modules\n"
            "scan.redact_many(['a short text, ghp_ and AKIA but nothing secret ' * 100])\n"
            "print(before, 'hyperscan' in sys.modules, prefilter._DB is None)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert done.stdout.split() == ["False", "False", "True"]


def test_a_secret_pattern_still_takes_a_compiled_pattern() -> None:
    from sanitizer.secrets.pattern import SecretPattern

    compiled = regex.compile(r"ghp_[A-Za-z0-9]{30,}+")
    sp = SecretPattern("github-token", compiled)
    assert sp.compiled and sp.pattern is compiled and sp.spec == compiled.pattern and sp.leads == ("ghp_",)
    lazy = SecretPattern("github-token", compiled.pattern)
    assert not lazy.compiled and lazy.pattern.pattern == compiled.pattern and lazy.compiled
