"""Fast scans give exactly what the plain scans give (DESIGN §12: no target met by skipping work).

- secret patterns that start with a name alternation are tried only next to their anchors;
- the engine decides "fewer tokens" from bounds where they settle it, and encodes otherwise;
- error-keyword patterns are tried only where one of their literals starts (`keywords`).

No timing here: speed is measured by `bench/run.py`.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest
import regex
from conftest import corpus_params
from hypothesis import given, settings
from hypothesis import strategies as st

from sanitizer import Sanitizer
from sanitizer.digest import outputs as tool_output
from sanitizer.model import Document
from sanitizer.run import dataset as stream
from sanitizer.run import lines as stream_lines
from sanitizer.secrets import contract, near, walk
from sanitizer.secrets import scan as secrets
from sanitizer.textkit import spans
from sanitizer.textkit.keywords import KeywordPattern, Scanner
from sanitizer.tokens.counter import get_encoding

# Fragments that assemble into names, separators and values of every anchored pattern, plus
# characters that case-fold into ASCII letters (Kelvin sign, long s), whitespace variants, and
# non-ASCII characters whose UTF-16 bytes include 0x41-0x5A (which `near.ascii_lower` changes).
SECRET_BITS = ["password", "PassWd", "pwd", "secret", "client_", "token", "refresh_", "api", "_", "-", "key",
               "KEY", "aws", "access", "sig", "nature", "x-amz-", "security-", "credential", "=", ":", " ", "\t", '"', "'",
               "?", "&", ";", "abc123", "Z9", "hunter22", "\n", "\u212a", "\u017f", "\u0130", "é", "AKIA", "PRIVATE KEY", "sk-", "://", "@", "Bearer ", "ghp_",
               "authorization", "proxy-", "Authorization", "AWS", "_secret", "_access", "_key", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "[REDACTED:x]", "$V", "\u00a0", "\u3000", "\u2028", "\u205f", "\u1680", "\u0141",
               "\u4e2d", "\U00010441", "\U0001f600", "\ud801", "\udc41", "\udc80",
               "_pass", "credentials", "SecretAccessKey", "\\\"", "\\n", "Proxy-", "Basic ", "ssws "]


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(SECRET_BITS), max_size=40).map("".join))
def test_anchored_secret_scan_equals_the_plain_scan(text: str) -> None:
    assert secrets.redact(text) == secrets.redact(text, fast=False)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_anchored_secret_scan_equals_the_plain_scan_on_any_text(text: str) -> None:
    assert secrets.redact(text) == secrets.redact(text, fast=False)


# A Discord bot token (`M`, 23-25 chars, `.`, 6, `.`, 27-40) has no leading literal: it is tried
# only where its first `.` can be.  Token-like texts of every length around each boundary.
discord_like = st.builds(
    lambda before, lead, body, mid, tail, after: f"{before}{lead}{body}.{mid}.{tail}{after}",
    st.sampled_from(["", " ", "x", ".", "\\n", "-", "é", ".abcdef."]), st.sampled_from("MNOx"),
    st.text("abXY019_-", min_size=22, max_size=26), st.text("aZ9_-", min_size=5, max_size=7),
    st.text("aZ9_-", min_size=25, max_size=42), st.sampled_from(["", " ", "x", "[", ".abcdef.", "\u212a"]))


@settings(max_examples=600, deadline=None)
@given(st.lists(discord_like, min_size=1, max_size=4).map("".join))
def test_a_pattern_no_literal_leads_finds_next_to_its_anchor_what_it_finds_everywhere(text: str) -> None:
    assert secrets.redact(text) == secrets.redact(text, fast=False)


def test_a_discord_token_among_many_dots_is_redacted_whole() -> None:
    token = "MTk4NjIyNDgzNDcxOTI1MjQ4" + ".Cl2FMQ." + "ZnCjm1XVW7vRze4b7Cq4se7kKWs"
    text = "v1.2.3 a.b.c.d " + token + " ...... x.abcdef.y"
    new, removed = secrets.redact(text)
    assert removed == [token] and token not in new and new.endswith(" ...... x.abcdef.y")


PEM_BITS = ["-----BEGIN RSA PRIVATE KEY-----", "-----END RSA PRIVATE KEY-----", "MIIEowIBAAKCAQEAu1SU1LfVLPHC",
            "\\n", "\x00", "\n\x00\n", "Bearer abc123def456ghi789jkl", "eyJhbGciOiJIUzI1.eyJzdWIiOiIxMjM0.Sfl"]
secret_texts = st.lists(st.sampled_from(SECRET_BITS + PEM_BITS), max_size=25).map("".join)


@settings(max_examples=400, deadline=None)
@given(st.lists(secret_texts, max_size=8), st.integers(min_value=1, max_value=200))
def test_batched_redaction_equals_one_by_one(texts: list[str], batch: int) -> None:
    old = secrets.BATCH_CHARS
    secrets.BATCH_CHARS = batch  # small batches: many batch edges
    try:
        assert secrets.redact_many(texts) == [secrets.redact(t) for t in texts]
    finally:
        secrets.BATCH_CHARS = old


def test_a_text_met_again_is_scanned_once_and_gets_a_list_of_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    # The same session id or folder on every record: scanned once, each result its own copy.
    texts = ["token=abc123def456", "plain words", "token=abc123def456", "é password: hunter22x", "é password: hunter22x"]
    batched: list[str] = []
    holding = secrets._holding

    def spy(texts: list[str]) -> Iterator[str]:
        batched.extend(texts)
        return holding(texts)

    monkeypatch.setattr(secrets, "_holding", spy)
    got = secrets.redact_many(texts)
    assert got == [secrets.redact(t) for t in texts] and sorted(batched) == sorted(set(texts))
    assert got[2][1] == got[0][1] and got[2][1] is not got[0][1] and got[4][1] is not got[3][1]


@settings(max_examples=300, deadline=None)
@given(st.lists(secret_texts, max_size=8), st.integers(min_value=1, max_value=200))
def test_the_texts_cleared_at_once_are_those_redact_leaves_and_skipping_them_changes_nothing(
        texts: list[str], batch: int) -> None:
    old = secrets.BATCH_CHARS
    secrets.BATCH_CHARS = batch
    try:
        clean = secrets.clean_of(texts)
        assert clean == {t for t in texts if not secrets.redact(t)[1]}
        assert secrets.redact_many(texts, clean) == [secrets.redact(t) for t in texts]
    finally:
        secrets.BATCH_CHARS = old


def _conversations(path: Path | str) -> list:
    """Many short conversations with credentials in some: a dataset file of the corpus, or made here."""
    if isinstance(path, Path):
        return json.loads(path.read_text(encoding="utf-8"))
    said = ["token=abc123def456ghi", "nothing here", "Bearer abc123def456ghi789jkl", "password: hunter22x"]
    return [{"messages": [{"role": "user", "content": f"ask {i}: {said[i % 4]}"},
                          {"role": "assistant", "content": f"answer {i} {said[(i + 1) % 4]}"}]} for i in range(40)]


# The corpus's one file of many conversations (200 airline dialogues), beside a made-up one.
DATASETS = ["made", *(p for p in corpus_params("openai_chat") if p.values[0] is None or "taubench" in p.values[0].name)]


@pytest.mark.parametrize("path", DATASETS)
def test_many_conversations_cleared_at_once_give_what_each_scanned_alone_gives(
        path: Path | str, monkeypatch: pytest.MonkeyPatch) -> None:
    data = _conversations(path)
    at_once = Sanitizer(count_tokens=False).sanitize(data)
    monkeypatch.setattr(contract, "clean_texts", lambda views: set())
    alone = Sanitizer(count_tokens=False).sanitize(data)
    first, second = at_once.report.to_dict(), alone.report.to_dict()
    first["totals"].pop("seconds"), second["totals"].pop("seconds")
    assert at_once.output == alone.output and first == second
    if path == "made":  # some of its conversations hold credentials (the airline dialogues hold none)
        assert any(r["rule"] == "redact-secrets" and r["hits"] >= 40 for r in first["rules"])


def _dataset_lines(tmp_path: Path) -> Path:
    """A dataset JSONL whose lines hold credentials in parts, in tool arguments and in metadata."""
    rows = []
    for i, conv in enumerate(_conversations("made")):
        conv["metadata"] = {"api_key": f"k{i:03d}x9Qz7Lm2Np4Rt6Vw8Yb1", "note": f"run {i} with token=abc{i:03d}def456ghi",
                            "trace": f"trace {i} of a plain run, long enough to be scanned"}
        conv["messages"].append({"role": "assistant", "content": None, "tool_calls": [
            {"id": f"c{i}", "type": "function",
             "function": {"name": "login", "arguments": json.dumps({"password": f"hunter{i:03d}x"})}}]})
        conv["messages"].append({"role": "tool", "tool_call_id": f"c{i}", "content": f"ok {i}"})
        rows.append(json.dumps(conv))
    path = tmp_path / "rows.jsonl"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def test_the_strings_a_group_clears_are_those_a_scan_could_change() -> None:
    blob = "QUJD" * 100  # long, ASCII, no separator: the guard never edits it
    record = {"k" * 16: "short", "id": "abc", "note": "eight ch", "nested": [blob, {"x": "token=abc123def456"}, 7, None]}
    out: list[str] = []
    for node in (record, "a loose string line", 5, None, True, [1.5, "tiny"]):
        walk.scannable_strings(node, out)
    assert sorted(out) == sorted(["k" * 16, "eight ch", "token=abc123def456", "a loose string line"])


# (group chars, most chars a line on average for the group to be cleared, whether groups are cleared)
@pytest.mark.parametrize("group_chars, line_chars, clears", [(1, 1 << 15, False), (700, 1 << 15, True),
                                                             (1 << 20, 1 << 15, True), (1 << 20, 10, False)])
def test_dataset_lines_cleared_a_group_at_a_time_give_what_each_line_alone_gives(
        group_chars: int, line_chars: int, clears: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _dataset_lines(tmp_path)
    cleared: list[int] = []
    clean_strings = contract.clean_strings

    def spy(docs: Iterable[Document]) -> set[str]:
        docs = list(docs)
        cleared.append(len(docs))
        return clean_strings(docs)

    monkeypatch.setattr(contract, "clean_strings", spy)
    monkeypatch.setattr(stream_lines, "CLEAR_GROUP_CHARS", group_chars)
    monkeypatch.setattr(stream_lines, "CLEAR_LINE_CHARS", line_chars)
    grouped = io.BytesIO()
    report = stream.sanitize_jsonl(Sanitizer(count_tokens=False), path, grouped.write)
    assert (max(cleared, default=0) > 1) == clears and sum(cleared) in (0, 40)
    monkeypatch.setattr(contract, "clean_strings", lambda docs: set())
    alone = io.BytesIO()
    report_alone = stream.sanitize_jsonl(Sanitizer(count_tokens=False), path, alone.write)
    whole = Sanitizer(count_tokens=False).sanitize_file(path)
    first, second, third = (r.to_dict() for r in (report, report_alone, whole.report))
    for d in (first, second, third):
        d["totals"].pop("seconds")
    assert grouped.getvalue() == alone.getvalue() == whole.dumps().encode() and first == second
    # The whole-file path lists the cuts outside the parts after every line's rule cuts.
    first["cuts"].sort(key=json.dumps), third["cuts"].sort(key=json.dumps)
    assert first == third
    assert next(r["hits"] for r in first["rules"] if r["rule"] == "redact-secrets") >= 120
    assert b"hunter0" not in grouped.getvalue() and b"x9Qz7Lm2Np4Rt6Vw8Yb1" not in grouped.getvalue()


def test_ascii_and_wide_texts_are_batched_apart_in_their_order(monkeypatch: pytest.MonkeyPatch) -> None:
    # One non-ASCII char makes a joined batch a wide string (slower to lower, find and scan), so
    # ASCII texts are joined apart from the others; every result still lands at its own index.
    texts = ["token=abc123def456", "é token=abc123def789", "plain words", "ü",
             "Bearer abc123def456ghi789jkl", "中 password: hunter22x"] * 3
    scanned: list[str] = []
    one_pass = secrets._redact_once

    def spy(text: str, fast: bool, starts: list[int] | None = None) -> tuple[str, list[str], bool]:
        scanned.append(text)
        return one_pass(text, fast, starts)

    monkeypatch.setattr(secrets, "_redact_once", spy)
    got = secrets.redact_many(texts)
    assert got == [secrets.redact(t) for t in texts]
    assert sum("[REDACTED:" in new for new, _ in got) == 12
    joined = [t for t in scanned if secrets._JOIN in t]
    assert len(joined) == 2 and joined[0].isascii() and not joined[1].isascii()


def test_ascii_lower_keeps_what_the_finders_see_for_every_character() -> None:
    # Every code point: A-Z lowered, other ASCII kept, non-ASCII stays non-ASCII, whitespace (to
    # `regex`'s `\\s`) stays whitespace and non-whitespace stays non-whitespace.  The only
    # characters `(?i)` folds into ASCII letters are the fold traps.
    space = regex.compile(r"\\s")
    letter = regex.compile(r"(?i)[a-z]")
    text = " ".join(map(chr, range(0x110000)))  # spaced: lone surrogates side by side would pair
    low = near.ascii_lower(text)
    assert len(low) == len(text)
    assert len(near.ascii_lower("\udbff\udc00")) == 1  # why `redact` checks the length
    for c, lc in zip(text[::2], low[::2], strict=True):
        if c.isascii():
            assert lc == c.lower()
        else:
            assert not lc.isascii(), hex(ord(c))
            assert bool(space.match(lc)) == bool(space.match(c)), hex(ord(c))
            assert (letter.match(c) is not None) == (c in near.FOLD_TRAPS), hex(ord(c))


@pytest.mark.parametrize("path", corpus_params("claude_code_jsonl", "codex_rollout", "anthropic_messages"))
def test_anchored_secret_scan_equals_the_plain_scan_on_corpus(path: Path) -> None:
    text = path.read_text(encoding="utf-8", errors="surrogateescape")
    assert secrets.redact(text) == secrets.redact(text, fast=False)


def test_every_slow_pattern_is_anchored() -> None:
    folded = {"aws-secret-key", "auth-header", "query-credential", "credential", "letter-credential", "cookie"}
    assert {sp.kind for sp in secrets.PATTERNS if sp.folded} == folded
    assert all(sp.anchors for sp in secrets.PATTERNS if sp.folded)
    # and the case-sensitive patterns that no literal leads and that cost the most (a Discord bot
    # token's dots, a newer Mailgun key's dashes, a Facebook app token's pipe)
    assert {sp.kind for sp in secrets.PATTERNS if sp.anchors and not sp.folded} == {
        "discord-token", "mailgun-key", "facebook-token"}


# --- token bounds: the engine's "fewer tokens" check encodes only what they leave open ----------

BOUND_BITS = ["a", "word", " ", "  ", "\n", "\r\n", "\t", "!", "!!", "\n/", "'s", "'ll", "123", "12345", "中文",
              "\u00a0", "\u3000", "\u2028", "\x1c", "\x1f", "\x85", "é", "😀", ".b", "-", "=" * 40, " " * 70]
_counter = None


def counter():  # noqa: ANN201 - one shared counter (loading the encoding once)
    global _counter
    if _counter is None:
        from sanitizer.tokens.counter import TokenCounter

        _counter = TokenCounter()
    return _counter


@settings(max_examples=500, deadline=None)
@given(st.one_of(st.text(max_size=300), st.lists(st.sampled_from(BOUND_BITS), max_size=1500).map("".join)),
       st.none() | st.integers(min_value=0, max_value=2000))
def test_token_bounds_hold(text: str, enough: int | None) -> None:
    c = counter()
    exact = len(get_encoding().encode_ordinary(text))
    c._memo.pop(text, None)
    assert c.at_least(text, enough) <= exact <= c.at_most(text)


@pytest.mark.parametrize("path", corpus_params("claude_code_jsonl", "codex_rollout"))
def test_token_bounds_hold_on_corpus_texts(path: Path) -> None:
    c = counter()
    result = Sanitizer(preset="none", count_tokens=False).sanitize_file(path)
    texts = [p.text for v in result.views for p in v.parts if p.text]
    for text, exact in zip(texts, c.count_many(texts), strict=True):
        c._memo.pop(text, None)
        assert c.at_least(text) <= exact <= c.at_most(text)


def test_shrink_check_agrees_with_exact_counts() -> None:
    from sanitizer.engine import Engine

    engine = Sanitizer().engine
    pairs = [("x " * 500, "x " * 10), ("=" * 4000, "=" * 100), ("a" * 300, "a" * 299), ("word " * 50, "wordword")]
    for old, new in pairs:
        exact = len(get_encoding().encode_ordinary(new)) < len(get_encoding().encode_ordinary(old))
        assert Engine.shrinks(engine, old, new) == exact, (old[:20], new[:20])


def test_known_encoding_facts_equal_the_vocabulary() -> None:
    from sanitizer.tokens.counter import max_high_bytes, max_token_bytes

    assert max_token_bytes("cl100k_base") == max_token_bytes("cl100k_base", known=False) == 128
    assert max_high_bytes("cl100k_base") == max_high_bytes("cl100k_base", known=False) == 48


# --- keyword patterns ----------------------------------------------------------------------------

KEYWORD_PATTERNS = {"spans.ERROR": spans.ERROR, "tool_output._ERROR_TOKEN": tool_output._ERROR_TOKEN}
KEYWORD_BITS = ["Error", "Errors", "ERR!", "ERROR", "exit", "Exit", "status", "assert", "** (", "CategoryInfo", "Exception", "Traceback", "Traceback (most recent call last)", "FAILED", "ERROR",
                "error", "error[E0308]", "fatal", "panic", "npm ERR!", "<tool_use_error>", "exit code", ":", "_", "x",
                " ", "\n", "E", "r", "(", "[", "]", "é", "\u212a"]
keyword_texts = st.lists(st.sampled_from(KEYWORD_BITS) | st.text(max_size=3), max_size=30).map("".join)


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(sorted(KEYWORD_PATTERNS)), keyword_texts, st.integers(0, 40), st.integers(0, 200))
def test_keyword_search_equals_the_pattern_search(name: str, text: str, pos: int, end: int) -> None:
    kp = KEYWORD_PATTERNS[name]
    got, want = kp.search(text, pos, end), kp.pattern.search(text, pos, end)
    assert (got and (got.span(), got.group())) == (want and (want.span(), want.group()))


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(KEYWORD_PATTERNS)), keyword_texts, st.lists(st.integers(0, 3), max_size=12))
def test_scanner_walk_equals_successive_searches(name: str, text: str, steps: list[int]) -> None:
    """A walk as `spans._middle_error_lines` makes it: each search from at or after the last match."""
    kp = KEYWORD_PATTERNS[name]
    scan, pos = Scanner(kp, text), 0
    for step in steps:
        got, want = scan.search(pos), kp.pattern.search(text, pos)
        assert (got and got.span()) == (want and want.span())
        if want is None:
            break
        pos = want.end() + step


def test_scanner_refuses_to_go_back() -> None:
    scan = Scanner(spans.ERROR, "Error then Exception")
    scan.search(5)
    with pytest.raises(ValueError, match="must not go back"):
        scan.search(4)


@pytest.mark.parametrize("path", corpus_params())
def test_keyword_walk_equals_finditer_on_corpus(path: Path) -> None:
    """Real transcripts (raw file text, escapes and all): every keyword match agrees."""
    text = path.read_text(encoding="utf-8", errors="replace")
    for kp in KEYWORD_PATTERNS.values():
        assert [m.span() for m in _walk(kp, text)] == [m.span() for m in kp.pattern.finditer(text)]


def _walk(kp: KeywordPattern, text: str):  # noqa: ANN202 - a generator of matches
    scan, pos = Scanner(kp, text), 0
    while (m := scan.search(pos)) is not None:
        yield m
        pos = m.end() if m.end() > m.start() else m.start() + 1
