"""The `[fast]` extra changes no byte: the hyperscan pass only skips patterns that cannot match.

With the extra switched off (`prefilter.ENABLED = False`, what `SANITIZER_PLAIN=1` or a missing
hyperscan gives) and on, the credential scan, and whole runs on real files, give the same bytes
and the same report.  The plain path without the extra is `test_plain_path.py`.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import regex

pytest.importorskip("hyperscan", reason="the [fast] extra (hyperscan) is not installed: pip install -e '.[fast]'")

from conftest import EXAMPLE, corpus_params  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from sanitizer import Sanitizer  # noqa: E402
from sanitizer.secrets import anchors, near, prefilter  # noqa: E402
from sanitizer.secrets import scan as secrets  # noqa: E402


def both(monkeypatch: pytest.MonkeyPatch, fn, *args):  # noqa: ANN001, ANN202
    """`fn(*args)` with the extra on, then off."""
    monkeypatch.setattr(prefilter, "ENABLED", True)
    fast = fn(*args)
    monkeypatch.setattr(prefilter, "ENABLED", False)
    plain = fn(*args)
    monkeypatch.setattr(prefilter, "ENABLED", True)
    return fast, plain


TRUE = [e.text for k in secrets.KINDS for e in k.true]
FALSE = [t for k in secrets.KINDS for t in k.false]
FRAGMENTS = [*TRUE, *FALSE, " ", "\n", "\\n", "=", ":", '"', "'", "/", ".", "-", "_", "é", "的", "🙂", "ſ", "İ",
             "token", "password", "key", "AKIA", "sk-", "gh", "xox", "://", "machine", "--", "@", "?", "&", "\x00"]


@pytest.fixture(autouse=True)
def _built(monkeypatch: pytest.MonkeyPatch) -> None:
    """The databases built on the first text long enough (a run builds them after `BUILD_CHARS`
    and `FINDERS_CHARS`)."""
    monkeypatch.setattr(prefilter, "BUILD_CHARS", 0)
    monkeypatch.setattr(prefilter, "FINDERS_CHARS", 0)


def test_every_match_holds_its_anchors() -> None:
    """The derivation is sound on every example: each candidate's literal sits within its reach."""
    prefilter.gate("x" * prefilter.MIN_CHARS, secrets.PATTERNS)
    checked = 0
    for index, sp in enumerate(secrets.PATTERNS):
        for text in TRUE + FALSE:
            for m in sp.pattern.finditer(text):
                for lits, reach in prefilter._CANDS[index]:
                    end = m.end() if reach >= anchors.UNBOUNDED else min(m.start() + reach, m.end())
                    assert any(0 <= m.group().find(lit) <= end - m.start() for lit in lits), (sp.kind, lits, reach)
                    checked += 1
    assert checked > 100


def test_most_patterns_are_gated() -> None:
    prefilter.gate("x" * prefilter.MIN_CHARS, secrets.PATTERNS)
    gated = sum(1 for c in prefilter._CANDS if c)
    assert gated >= len(secrets.PATTERNS) * 3 // 4


def test_no_anchors_where_re_reads_differently() -> None:
    assert prefilter.anchors_of(r"(?i)secret_key=\S+") == ()
    assert prefilter.anchors_of(r"\p{L}+token") == ()
    assert prefilter.anchors_of(r"[[a-z]--[k]]abc") == ()
    assert prefilter.anchors_of(r"(") == ()
    # A case-ignoring group is opaque: only its width counts.
    assert prefilter.anchors_of(r"ab(?i:cd)ef") == ((("ab",), 0), (("ef",), 4))


def test_literal_classes_fan_out_and_branches_unite() -> None:
    assert prefilter.anchors_of(r"gh[pos]_[A-Z]{3}") == ((("ghp_", "gho_", "ghs_"), 0),)
    assert prefilter.anchors_of(r"x?(?:abc|de)") == ((("abc", "de"), 1),)
    # After an unbounded part the literal only tells whether the pattern may match.
    assert prefilter.anchors_of(r"[a-z]++:secret") == (((":secret",), anchors.UNBOUNDED),)


def test_short_texts_and_the_switch_skip_the_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    assert prefilter.gate("short", secrets.PATTERNS) is None
    assert prefilter.gate("x" * prefilter.MIN_CHARS, secrets.PATTERNS) is not None
    monkeypatch.setattr(prefilter, "ENABLED", False)
    assert prefilter.gate("x" * prefilter.MIN_CHARS, secrets.PATTERNS) is None


def test_a_scan_visits_every_pattern_the_gate_does_not_rule_out() -> None:
    """`Gate.candidates` lists, in order, exactly the patterns `absent` does not rule out (a scan
    visits only those), on texts holding no anchor literal, two credentials, and all of them."""
    pad = "\n" + "~" * prefilter.MIN_CHARS
    for text in (pad, TRUE[0] + " and " + TRUE[-1] + pad, "\n".join(TRUE)):
        gate = prefilter.gate(text, secrets.PATTERNS)
        assert gate is not None
        assert gate.candidates() == [i for i in range(len(secrets.PATTERNS)) if not gate.absent(i)]
    # With no anchor literal only the patterns the gate cannot judge are left: a few of 239.
    assert prefilter.gate(pad, secrets.PATTERNS).candidates() == sorted(prefilter._UNGATED)
    assert len(prefilter._UNGATED) < len(secrets.PATTERNS) // 10


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(FRAGMENTS), min_size=1, max_size=60), st.booleans())
def test_redaction_is_the_same_with_and_without(pieces: list[str], ascii_only: bool) -> None:
    text = "".join(p for p in pieces if p.isascii() or not ascii_only)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(prefilter, "MIN_CHARS", 0)  # the pass on every text, short ones too
        fast, plain = both(mp, secrets.redact, text)
        assert fast == plain
        assert both(mp, secrets.redact_many, [text, text * 3])[0] == secrets.redact_many([text, text * 3])


# Every char `regex` takes for `\s`, each ASCII letter of the finders in both cases, and what
# follows a finder's literal: a text made of these tries the finder shapes at their edges.
_SPACES = [c for c in map(chr, range(0x3001)) if regex.match(r"\s", c)] + ["\u3000"]
_SHAPE_PIECES = [*near.FOLLOWS, *(lit.upper() for lit in near.FOLLOWS), "Pass", "sIg", "nature", "ord", "or", "d",
                 "s", "_", "-", "=", ":", '"', "'", "\\", "\\\\", "é", "的", "🙂", "a" * 6, "Z" * 24, "7" * 27, "x",
                 *_SPACES]


def test_the_finder_shapes_are_the_finders_of_near() -> None:
    assert list(prefilter.FINDER_SHAPES) == list(near.FOLLOWS)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_SHAPE_PIECES), min_size=1, max_size=40))
def test_a_finder_the_pass_calls_quiet_finds_nothing(pieces: list[str]) -> None:
    """`Gate.quiet` is sound: a finder it names has no match in the lowered text (so not running
    it changes nothing), whatever spaces, quotes, escapes and cases surround its literal."""
    text = "".join(pieces) + "\n" + "~" * prefilter.MIN_CHARS
    gate = prefilter.gate(text, secrets.PATTERNS)
    assert gate is not None and prefilter._FINDER_DB is not None
    low = near.ascii_lower(text)
    for lit in gate.quiet:
        assert near.finder(lit).search(low) is None, (lit, text[:200])


def test_no_finder_an_example_needs_is_called_quiet() -> None:
    """On every example of every kind, true and false, a finder that matches is never quiet."""
    matched = 0
    for example in TRUE + FALSE:
        text = example + "\n" + "~" * prefilter.MIN_CHARS
        gate = prefilter.gate(text, secrets.PATTERNS)
        low = near.ascii_lower(text)
        found = {lit for lit in near.FOLLOWS if near.finder(lit).search(low)}
        assert not found & set(gate.quiet), (example, found & set(gate.quiet))
        matched += len(found)
    assert matched > 40 and "." in {lit for e in TRUE for lit in near.FOLLOWS
                                    if near.finder(lit).search(near.ascii_lower(e))}


def test_the_pass_calls_most_finders_quiet_on_plain_prose() -> None:
    text = "The quick brown fox jumps over the lazy dog. Its key: passing tokens around.\n" * 40
    gate = prefilter.gate(text, secrets.PATTERNS)
    assert gate is not None and "key" not in gate.quiet and "." in gate.quiet and "token" in gate.quiet
    assert all(near.finder(lit).search(near.ascii_lower(text)) is None for lit in gate.quiet)
    assert near.finder("key").search(near.ascii_lower(text)) is not None


def test_long_texts_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    filler = "\nlorem ipsum dolor sit amet, consectetur adipiscing elit\n" * 400
    text = filler.join(TRUE[:40]) + filler.join(FALSE)
    fast, plain = both(monkeypatch, secrets.redact, text)
    assert fast == plain
    assert len(fast[1]) >= 30


def outputs(path: Path) -> tuple[str, dict]:
    result = Sanitizer().sanitize_file(path)
    report = result.report.to_dict()
    report["totals"].pop("seconds")
    return result.dumps(), report


@pytest.mark.parametrize("path", [pytest.param(EXAMPLE, id="example"), *corpus_params()])
def test_whole_runs_give_the_same_bytes_and_report(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fast, plain = both(monkeypatch, outputs, path)
    assert fast[0] == plain[0]
    assert fast[1] == plain[1]


def _unbuilt(monkeypatch: pytest.MonkeyPatch) -> None:
    """The gate as a new process finds it: nothing offered, no database built."""
    for name, value in (("_CANDS", []), ("_DB", None), ("_FINDER_DB", None), ("_finders_compiled", False),
                        ("_offered", 0)):
        monkeypatch.setattr(prefilter, name, value)


def _gates_built(count: int) -> list[bool]:
    """For `count` texts of `MIN_CHARS` offered one after the other: whether each got a gate."""
    text = "x" * prefilter.MIN_CHARS
    return [prefilter.gate(text, secrets.PATTERNS) is not None for _ in range(count)]


def test_the_database_waits_for_enough_text(monkeypatch: pytest.MonkeyPatch) -> None:
    """A small run never pays for building the database; a larger one builds it once."""
    monkeypatch.setattr(prefilter, "BUILD_CHARS", 3 * prefilter.MIN_CHARS)
    _unbuilt(monkeypatch)
    assert _gates_built(4) == [False, False, True, True]


def test_with_no_cache_folder_the_database_waits_longer(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where nothing is kept, building costs the derivation and the compile: it waits for more text."""
    monkeypatch.setenv("SANITIZER_CACHE_DIR", "")
    monkeypatch.setattr(prefilter, "BUILD_CHARS", 0)
    monkeypatch.setattr(prefilter, "BUILD_CHARS_UNKEPT", 3 * prefilter.MIN_CHARS)
    _unbuilt(monkeypatch)
    assert _gates_built(4) == [False, False, True, True]


def test_the_databases_are_kept_and_a_foreign_one_compiled_anew(monkeypatch: pytest.MonkeyPatch,
                                                                 tmp_path: Path) -> None:
    """The first build keeps each compiled database; the next loads them (no compile) and finds
    the same; a kept file this hyperscan does not load is compiled anew and replaced."""
    import hyperscan

    from sanitizer import cachedir

    monkeypatch.setenv("SANITIZER_CACHE_DIR", str(tmp_path))
    compiles: list[int] = []
    real_compile = hyperscan.Database.compile

    class Counting(hyperscan.Database):
        def compile(self, *args, **kwargs):  # noqa: ANN002, ANN003, ANN202
            compiles.append(1)
            return real_compile(self, *args, **kwargs)

    monkeypatch.setattr(hyperscan, "Database", Counting)
    texts = [*TRUE, *FALSE, "token= key: secret passw AKIA sk- xoxb- ghp_ ." * 3]

    def build() -> tuple[list[set[int]], list[set[int]]]:
        _unbuilt(monkeypatch)
        assert _gates_built(1) == [True]
        return _present(prefilter._DB, texts), _present(prefilter._FINDER_DB, texts)

    built = build()
    kept = sorted(p for p in tmp_path.iterdir() if p.name.startswith("hyperscan"))
    assert len(compiles) == 2 and len(kept) == 2
    assert build() == built and len(compiles) == 2  # loaded, not compiled
    assert sum(map(len, built[0])) > len(texts) and sum(map(len, built[1])) > 10  # the comparison says something
    for file in kept:
        cachedir.write(file.name, b"not a database")
    assert build() == built and len(compiles) == 4
    assert build() == built and len(compiles) == 4  # the replaced files load again


def test_the_finders_database_waits_for_more_text_unless_kept(monkeypatch: pytest.MonkeyPatch,
                                                               tmp_path: Path) -> None:
    """Compiling the finders' shapes costs more than the literals: a run compiles them only past
    `FINDERS_CHARS`, and a later run loads the kept ones with the literals'."""
    monkeypatch.setenv("SANITIZER_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(prefilter, "FINDERS_CHARS", 3 * prefilter.MIN_CHARS)

    _unbuilt(monkeypatch)
    text = "token = 1\n" + "x" * prefilter.MIN_CHARS
    quiet = [prefilter.gate(text, secrets.PATTERNS).quiet for _ in range(4)]
    assert quiet[0] == quiet[1] == () and quiet[2] == quiet[3] and "." in quiet[2] and "token" not in quiet[2]
    _unbuilt(monkeypatch)
    assert prefilter.gate(text, secrets.PATTERNS).quiet == quiet[2]  # kept: from the first text on


def _present(db: object, texts: list[str]) -> list[set[int]]:
    """Which expression ids `db` finds in each text."""
    found: list[set[int]] = []

    def hit(i: int, *_: object) -> int:
        found[-1].add(i)
        return 0

    for text in texts:
        found.append(set())
        db.scan(text.encode("utf-8", "surrogatepass"), match_event_handler=hit)
    return found


def test_a_finders_database_that_fails_to_compile_leaves_every_finder_running(monkeypatch: pytest.MonkeyPatch,
                                                                              tmp_path: Path) -> None:
    monkeypatch.setenv("SANITIZER_CACHE_DIR", str(tmp_path))  # nothing kept: the finders are compiled
    _unbuilt(monkeypatch)
    real = prefilter._compiled

    def failing(expressions: list[bytes], flags: list[int]):  # noqa: ANN202
        if expressions == list(prefilter.FINDER_SHAPES.values()):
            raise RuntimeError("no room for a database")
        return real(expressions, flags)

    monkeypatch.setattr(prefilter, "_compiled", failing)
    text = "token = 1\n" + "x" * prefilter.MIN_CHARS
    gates = [prefilter.gate(text, secrets.PATTERNS) for _ in range(2)]
    assert all(g is not None and g.quiet == () for g in gates) and prefilter._finders_compiled
    assert secrets.redact(text) == secrets.redact(text, fast=False)
