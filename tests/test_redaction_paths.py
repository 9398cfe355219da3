"""No output path lets a credential out: plant fake ones everywhere, look for them in every output.

A case is one conversation in one format with fake credentials planted in chosen placements
(user and assistant text, tool output, tool-call arguments, thinking, `<key_info>`, the latest
user ask, a damaged line, a duplicate key, Claude Code `toolUseResult`, Codex `event_msg`,
SWE-agent `trajectory[]`, the cut point of a long text, a metadata field), either among the older
messages or in the tail, in seven formats.
Every output must hold no 12-character window of any planted value: the same-format copy,
`text()`, `conversations()`, the JSON report, `fallback_summary`, `summarize_with_fallback` when
every summarizer fails, and the command line (`--to same|text|messages`, `--summary`, `--budget`,
`--report json`).  Hypothesis varies the credentials, the placements and the text around them.

The credentials and the case builders are in `planted.py`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st
from planted import EXAMPLES, HOLDS, MARKER, build, chat_messages, credential_examples, leaks, planted
from strategies import property_settings

from sanitizer import Sanitizer, fallback_summary, summarize_with_fallback
from sanitizer.cli.command import main
from sanitizer.document import loader
from sanitizer.secrets import scan as secrets
from sanitizer.secrets.contract import redact_damaged, redact_json_text

# --- hypothesis: credentials, placements, surrounding text ---------------------------------------

SURROUND = st.sampled_from(("", " ", "\n", "see: ", "token=", "(", "\t", "> ", "export X=", "`"))
TAIL = st.sampled_from(("", " ", "\n", ".", ")", " and more text", "`", ","))


@st.composite
def cases(draw: st.DrawFn, fmt: str) -> tuple[str, dict[str, str], list[str], bool]:
    where = draw(st.lists(st.sampled_from(sorted(HOLDS[fmt])), min_size=1, max_size=5, unique=True))
    plants: dict[str, str] = {}
    values: list[str] = []
    for w in where:
        _, example = draw(st.sampled_from(EXAMPLES))
        plants[w] = draw(SURROUND) + example + draw(TAIL)
        values += planted(example)
    return fmt, plants, values, draw(st.booleans())


def outputs(fmt: str, name: str, text: str) -> dict[str, str]:
    """Every library output of one input."""
    result = Sanitizer().sanitize_text(text, name)
    out = {"copy": result.dumps(), "text": result.text(), "messages": json.dumps(result.conversations()),
           "report": json.dumps(result.report.to_dict()),
           "fallback_summary": json.dumps(fallback_summary(loader.from_text(text, name)).to_dict())}

    def failing(messages: list[dict[str, Any]]) -> str:
        raise RuntimeError("summarizer down")

    doc = loader.from_text(text, name)
    obj = loader.to_object(doc)
    if fmt in ("claude_code", "codex", "dataset"):
        obj = [r for r in obj if isinstance(r, dict)]  # the library call takes parsed records
    if fmt == "swe_agent":
        obj = json.loads(text)
    chained = summarize_with_fallback(obj, [failing], format=fmt)
    out["summarize_with_fallback"] = chained.text + json.dumps(chained.to_dict())
    return out


FORMATS = tuple(HOLDS)


def test_the_planted_set_covers_every_kind_detected() -> None:
    kinds = {k for k, _ in credential_examples()}
    covered = {k for k, _ in EXAMPLES}
    assert len(EXAMPLES) >= 10
    assert covered == kinds or len(covered) >= len(kinds) * 0.9, sorted(kinds - covered)


@pytest.mark.parametrize("fmt", FORMATS)
def test_no_planted_credential_survives_any_library_output(fmt: str) -> None:
    @property_settings(15)
    @given(cases(fmt))
    def check(case: tuple[str, dict[str, str], list[str], bool]) -> None:
        _, plants, values, older = case
        name, text = build(fmt, plants, older)
        assert leaks(text, values)  # planted for real
        for where, out in outputs(fmt, name, text).items():
            assert not leaks(out, values), (where, sorted(plants), leaks(out, values))
        # In the tail nothing is cut, so a marker shows (a dropped duplicate value is gone, not marked).
        if not older and set(plants) != {"duplicate_key"}:
            assert "[REDACTED:" in Sanitizer().sanitize_text(text, name).dumps()

    check()


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_placement_at_once_with_every_kind(fmt: str) -> None:
    """Each placement the format holds gets a credential, cycling through every kind's examples."""
    for older in (True, False):
        for start in range(0, len(EXAMPLES), max(1, len(HOLDS[fmt]) // 2)):
            where = sorted(HOLDS[fmt])
            chosen = [EXAMPLES[(start + i) % len(EXAMPLES)][1] for i in range(len(where))]
            plants = {w: "x " + ex + " y" for w, ex in zip(where, chosen, strict=True)}
            values = [v for ex in chosen for v in planted(ex)]
            name, text = build(fmt, plants, older)
            for out_name, out in outputs(fmt, name, text).items():
                assert not leaks(out, values), (fmt, older, out_name, leaks(out, values))


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_command_line_lets_nothing_out(fmt: str, tmp_path: Path) -> None:
    where = sorted(HOLDS[fmt])
    chosen = [EXAMPLES[i % len(EXAMPLES)][1] for i in range(len(where))]
    values = [v for ex in chosen for v in planted(ex)]
    name, text = build(fmt, {w: " " + ex + " " for w, ex in zip(where, chosen, strict=True)}, True)
    src = tmp_path / name
    src.write_text(text, encoding="utf-8")
    runs = [("--to", "same"), ("--to", "text"), ("--to", "messages"), ("--summary",), ("--budget", "1500")]
    for args in runs:
        result = CliRunner().invoke(main, [str(src), *args, "--report", "json"], catch_exceptions=False)
        assert result.exit_code == 0, result.stderr
        for stream, out in (("stdout", result.stdout), ("stderr", result.stderr)):
            assert not leaks(out, values), (args, stream, leaks(out, values))
        if args[0] == "--to":
            assert "[REDACTED:" in result.stdout


def test_key_info_is_verbatim_except_for_its_credential() -> None:
    example = EXAMPLES[0][1]
    body = "deploy with " + example + " then tag v2"
    msgs = chat_messages({"key_info": body}, older=True)
    result = Sanitizer().sanitize(msgs)
    texts = result.text()
    redacted = secrets.redact("<key_info>" + body + "</key_info>")[0]
    assert redacted in texts
    assert texts.count("<key_info>") == 1  # never appended back in clear
    assert not leaks(texts, planted(example))


def test_latest_user_keeps_its_words_and_loses_its_credential() -> None:
    example = EXAMPLES[2][1]
    ask = "Now finish it, the key is " + example + " and ship it"
    msgs = chat_messages({}, older=False)
    msgs[-1]["content"] = ask
    result = Sanitizer().sanitize(msgs)
    assert result.output[-1]["content"] == secrets.redact(ask)[0]
    assert result.output[-1]["content"].startswith("Now finish it, the key is ")


def test_a_damaged_line_is_redacted_in_place_and_reported() -> None:
    secret = planted(EXAMPLES[0][1])[0]
    damaged = '{"type":"user","message":{"role":"user","content":"here ' + secret + ' and'
    text = "\n".join([json.dumps({"role": "user", "content": "hi"}), damaged,
                      json.dumps({"role": "assistant", "content": "ok"})]) + "\n"
    result = Sanitizer().sanitize_text(text, "s.jsonl")
    lines = result.dumps().split("\n")
    assert MARKER.sub("X", lines[1]) == damaged.replace(secret, "X")  # byte for byte but the value
    assert any(p.line == 2 and "redacted" in p.message for p in result.report.problems)


def test_a_credential_hidden_by_json_escapes_in_a_damaged_line_is_found() -> None:
    secret = planted(EXAMPLES[2][1])[0]
    raw = '{"content": "first line\\n' + secret + '\\nnext", "cut'
    new, removed = redact_damaged(raw)
    assert removed and not leaks(new, [secret])
    assert new.startswith('{"content": "first line\\n[REDACTED:') and new.endswith('\\nnext", "cut')


def _damaged_one_text_at_a_time(raw: str) -> tuple[str, list[str]]:
    """`redact_damaged` as it was written before its scans were batched: every text scanned alone."""
    from sanitizer.secrets.raw import escaped_literals

    new, removed = secrets.redact(raw)
    pieces: list[str] = []
    pos = 0
    for start, size, decoded in escaped_literals(new):
        red, more = secrets.redact(decoded)
        if not more or red == decoded:
            continue
        pieces += [new[pos:start], json.dumps(red, ensure_ascii=False)[1:-1]]
        pos = start + size
        removed = removed + more
    return ("".join([*pieces, new[pos:]]) if pieces else new), removed


def _u_escaped(value: str) -> str:
    """`value` with its first char written as a JSON `\\u` escape: the raw scan cannot see it."""
    return f"\\u{ord(value[0]):04x}{value[1:]}"


_DAMAGED_BITS = ['{"a": "', '", "b": "', '"', "\\n", '\\"', "\\u0041", "\\\\", " ", ",", "}", "password: ",
                 "token=", *(planted(e[1])[0] for e in EXAMPLES[:6]), *(_u_escaped(planted(e[1])[0]) for e in EXAMPLES[:6])]


@property_settings(200)
@given(st.lists(st.lists(st.sampled_from(_DAMAGED_BITS), max_size=14).map("".join), min_size=1, max_size=5))
def test_damaged_lines_scanned_in_batches_equal_each_alone(raws: list[str]) -> None:
    from sanitizer.secrets.raw import redact_damaged_many

    assert redact_damaged_many(raws) == [_damaged_one_text_at_a_time(raw) for raw in raws]


def test_damaged_lines_with_several_hidden_values_in_batches_equal_each_alone() -> None:
    from sanitizer.secrets.raw import redact_damaged_many

    secrets_ = [planted(e[1])[0] for e in EXAMPLES[:4]]
    raws = ['{"x": "a\\n' + _u_escaped(secrets_[0]) + '\\n", "y": "b\\n' + _u_escaped(secrets_[1]) + '", "z',
            "plain line", '{"q": "\\"' + secrets_[2] + '\\"", "w": "' + _u_escaped(secrets_[3]) + '", "cut']
    got = redact_damaged_many(raws)
    assert got == [_damaged_one_text_at_a_time(raw) for raw in raws]
    assert [len(removed) for _, removed in got] == [2, 0, 2] and got[1] == ("plain line", [])
    assert not leaks(got[0][0] + got[2][0], [s[1:] for s in secrets_])  # found decoded, written again


def test_json_text_is_scanned_decoded_where_escapes_hide_a_value() -> None:
    secret = planted(EXAMPLES[2][1])[0]
    args = json.dumps({"command": "cat log", "output": "ok\n" + secret, "note": 'a "password": "Zq9xW3vB7n"'})
    new, removed = redact_json_text(args)
    assert not leaks(new, [secret, "Zq9xW3vB7n"])
    assert json.loads(new)["command"] == "cat log"
    assert redact_json_text('{"a": "no escapes here"}') == ('{"a": "no escapes here"}', [])


def test_duplicate_keys_are_reported_and_the_dropped_value_never_copied() -> None:
    secret = planted(EXAMPLES[0][1])[0]
    dup = '{"role": "user", "content": "' + secret + '", "content": "hello"}'
    text = json.dumps({"role": "system", "content": "s"}) + "\n" + dup + "\n"
    result = Sanitizer().sanitize_text(text, "d.jsonl")
    assert not leaks(result.dumps(), [secret])
    assert any(p.line == 2 and "duplicate key" in p.message and "credential" in p.message
               for p in result.report.problems)
    plain = Sanitizer().sanitize_text(json.dumps({"role": "user", "content": "a"}) + "\n", "p.jsonl")
    assert not any("duplicate" in p.message for p in plain.report.problems)


def test_a_linked_copy_that_differs_from_its_block_is_redacted_on_its_own() -> None:
    example = EXAMPLES[0][1]
    name, text = build("claude_code", {"tool_use_result": " " + example + " "}, older=False)
    result = Sanitizer().sanitize_text(text, name)
    out = result.dumps()
    assert not leaks(out, planted(example))
    assert any(c.rule == "redact-secrets" and c.path[:1] == ["toolUseResult"] for c in result.report.cuts)


# The shapes whose cases hold at least three strings outside the parts (so chunks of 1 and 2 are
# more than one chunk); the others hold one or two.
@pytest.mark.parametrize("fmt", ["anthropic", "dataset", "claude_code", "codex"])
def test_the_strings_outside_the_parts_scanned_in_chunks_of_any_size_give_the_same_copy(
        fmt: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """`walk.apply` scans the strings no part settles `APPLY_CHUNK` at a time and writes each
    redaction in place (a dict key renamed, a `"key": "value"` pair): chunks of 1 and 2 strings
    give the copy and the cuts of one chunk for all."""
    from sanitizer.secrets import walk

    where = sorted(HOLDS[fmt])
    plants = {w: "x " + EXAMPLES[i % len(EXAMPLES)][1] + " y" for i, w in enumerate(where)}
    name, text = build(fmt, plants, True)

    def run() -> tuple[str, list[dict[str, Any]]]:
        result = Sanitizer().sanitize_text(text, name)
        return result.dumps(), result.report.to_dict()["cuts"]

    expected = run()
    assert "[REDACTED:" in expected[0]
    chunks: list[int] = []
    apply_chunk = walk._apply_chunk
    monkeypatch.setattr(walk, "_apply_chunk", lambda chunk, results: chunks.append(len(chunk)) or apply_chunk(chunk, results))
    for size in (1, 2):
        monkeypatch.setattr(walk, "APPLY_CHUNK", size)
        chunks.clear()
        assert run() == expected, size
        assert chunks and max(chunks) <= size
        assert sum(chunks) > size  # more than one chunk: the chunking is what is tested
