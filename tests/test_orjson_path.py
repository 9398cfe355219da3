"""The `[fast]` extra's JSON reader changes no value: orjson reads a text only where `json` reads it
the same, and every other text goes to `json`.

The same texts, lines, files and whole runs through the orjson path and the stdlib path (what
`SANITIZER_PLAIN=1` or a missing orjson gives) in one process, compared value for value (types,
key order, float reprs), byte for byte and report for report.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("orjson", reason="the [fast] extra (orjson) is not installed: pip install -e '.[fast]'")

from conftest import EXAMPLE, corpus_files  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from test_read_path import same  # noqa: E402

from sanitizer import Sanitizer  # noqa: E402
from sanitizer.document import fastjson, filelines, loader, writer  # noqa: E402
from sanitizer.document.json_numbers import decoder  # noqa: E402
from sanitizer.run import job  # noqa: E402
from sanitizer.run.job import process, read_input  # noqa: E402
from sanitizer.run.options import RunOptions  # noqa: E402


def both(monkeypatch: pytest.MonkeyPatch, fn, *args):  # noqa: ANN001, ANN202
    """`fn(*args)` with orjson on, then off."""
    monkeypatch.setattr(fastjson, "ENABLED", True)
    fast = fn(*args)
    monkeypatch.setattr(fastjson, "ENABLED", False)
    plain = fn(*args)
    monkeypatch.setattr(fastjson, "ENABLED", True)
    return fast, plain


def stdlib(text: str) -> Any:
    return decoder.decode(text)


EXPLICIT = [
    "0", "-0", "-0.0", "0.0", "1e16", "1E16", "1e-7", "5e-324", "2.4e-324", "1.7976931348623157e308", "0.1",
    "0.1000000000000000055511151231257827021181583404541015625", "123456789012345678901234567890e-20",
    str(2**63 - 1), str(2**63), str(2**64 - 1), str(2**64), str(-2**63), str(-2**63 - 1), str(10**30), "-" + "9" * 40,
    "1e400", "-1e400", "1.7976931348623159e308", "NaN", "Infinity", "-Infinity", '{"a": 1, "b": 2, "a": 3}',
    '{"a": {"x": 1}, "a": [2]}', '"\\ud800"', '"\\udc80x"', '"\\ud83d\\ude00"', '"\\u0000\\u001f\\u2028\\ufffe"',
    '"\\/\\b\\f\\n\\r\\t"', '{"": ""}', "[]", "{}", "[1, [2, [3, [4]]]]", "true", "false", "null", '"é→🙂"',
    "[" * 499 + "]" * 499, "[" * 980 + "]" * 980, "[" * 1100 + "]" * 1100, "\ufeff{}", '"\x01"', "01", "1.", ".5",
    '{"a": 1} x', " {} ", "\t[1]\r", '{"k": 1e999}', "[-0.0, 0.0, -0]",
]


def outcome_of(parse, text: str) -> tuple[str, Any]:  # noqa: ANN001
    try:
        return "ok", parse(text)
    except (ValueError, RecursionError) as exc:
        return "error", type(exc).__name__


@pytest.mark.parametrize("text", EXPLICIT)
def test_explicit_texts_read_as_json_reads_them(text: str) -> None:
    value = fastjson.loads(text)
    expected = outcome_of(stdlib, text)
    if value is not fastjson.MISS:
        assert expected[0] == "ok" and same(value, expected[1]), text[:60]
    data = text.encode("utf-8")
    value = fastjson.loads_unscanned(data)
    if value is not fastjson.MISS and data.count(b"[") + data.count(b"{") < fastjson.MAX_OPENERS:
        shared = filelines._Shared()
        shared.record(value, keys=False)
        if not shared.wide:  # the reader's own check: a wide float goes back to json
            assert expected[0] == "ok" and same(value, expected[1]), text[:60]


def test_the_silent_difference_is_caught() -> None:
    """orjson reads an integer beyond 64 bits as a float: both readers' guards send it to json."""
    for text in (str(2**64), str(-2**63 - 1), '{"n": ' + str(10**25) + "}"):
        assert isinstance(fastjson.loads_unscanned(text.encode()), float | dict)
        assert fastjson.loads(text) is fastjson.MISS
        shared = filelines._Shared()
        shared.record(fastjson.loads_unscanned(text.encode()), keys=False)
        assert shared.wide
    assert fastjson.loads(str(2**63)) is fastjson.MISS  # 19 digits: json decides
    record, _ = filelines.parse_bytes(b'{"n": 9223372036854775808}', 1, "x.jsonl", filelines._Shared())
    assert type(record["n"]) is int and record["n"] == 2**63  # orjson reads it exactly: no float, no walk back


SCALARS = st.one_of(st.none(), st.booleans(), st.integers(min_value=-2**80, max_value=2**80),
                    st.integers(min_value=-2**64, max_value=2**64), st.floats(allow_nan=False, allow_infinity=False),
                    st.text(max_size=10), st.text(st.characters(codec="utf-8"), max_size=10))


def containers(kids: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.lists(kids, max_size=5) | st.dictionaries(st.text(max_size=6), kids, max_size=5)


VALUES = st.recursive(SCALARS, containers, max_leaves=25)
NUMBER_TEXTS = st.from_regex(r"\A-?(0|[1-9][0-9]{0,24})(\.[0-9]{1,25})?([eE][+-]?[0-9]{1,3})?\Z")


@settings(max_examples=400, deadline=None)
@given(VALUES, st.booleans(), st.sampled_from([None, (",", ":"), (", ", ": ")]))
def test_json_values_read_the_same(value: Any, ascii_only: bool, separators: tuple[str, str] | None) -> None:
    text = json.dumps(value, ensure_ascii=ascii_only, separators=separators)
    got = fastjson.loads(text)
    if got is not fastjson.MISS:
        assert same(got, stdlib(text))
    line = json.dumps({"v": value}, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass")
    fast = filelines.parse_bytes(line, 1, "x.jsonl", filelines._Shared())
    assert same(fast[0], stdlib(line.decode("utf-8", "surrogateescape"))) and fast[1] is None


@settings(max_examples=400, deadline=None)
@given(NUMBER_TEXTS)
def test_number_texts_read_the_same(text: str) -> None:
    expected = outcome_of(stdlib, text)
    for got in (fastjson.loads(text), filelines.parse_bytes(b'{"n": ' + text.encode() + b"}", 1, "x.jsonl",
                                                            filelines._Shared())[0]):
        if got is not fastjson.MISS:
            if isinstance(got, dict):
                got = got["n"]
            assert expected[0] == "ok" and same(got, expected[1]), text  # 1e999: a RawNumber both ways


LINES = [t.encode("utf-8", "surrogatepass") for t in EXPLICIT] + [
    b"", b"  ", b"\r", b'{"a": "\xff"}', b"\xef\xbb\xbf{}", b'{"x": 1}\r', b'{"s": "\\ud800"}', b"{" * 600 + b"}" * 600]


@pytest.mark.parametrize("line", LINES)
def test_lines_parse_the_same_both_ways(line: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    fast, plain = both(monkeypatch, filelines.parse_bytes, line, 7, "x.jsonl", filelines._Shared())
    assert same(fast[0], plain[0])
    assert str(fast[1]) == str(plain[1])
    text = line.decode("utf-8", "surrogateescape")
    fast, plain = both(monkeypatch, loader.parse_line, text, 7, "x.jsonl")
    assert same(fast[0], plain[0])
    assert str(fast[1]) == str(plain[1])


JSONL = [EXAMPLE, *(p for p in corpus_files() if p.suffix == ".jsonl")]
INPUTS = [EXAMPLE, *corpus_files()]


@pytest.mark.skipif(len(JSONL) == 1, reason="../shared/corpus not found: only the bundled example is read")
@pytest.mark.parametrize("path", JSONL, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_corpus_files_read_the_same_both_ways(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fast, plain = both(monkeypatch, filelines.from_file, path, str(path))
    assert fast is not None and plain is not None
    assert same(fast.records, plain.records)
    assert [str(p) for p in fast.problems] == [str(p) for p in plain.problems]
    assert b"".join(writer.chunks(fast)) == b"".join(writer.chunks(plain))


def run(path: Path) -> tuple[bytes | None, dict]:
    """The command line's run of `path` (read whole below `LINEWISE_BYTES`, line by line above)."""
    san = Sanitizer()
    opts = RunOptions()
    out = process(san, str(path), read_input(str(path), opts), opts)
    report = out.report.to_dict()
    report["totals"].pop("seconds")
    return out.output, report


@pytest.mark.skipif(len(INPUTS) == 1, reason="../shared/corpus not found: only the bundled example is read")
@pytest.mark.parametrize("path", INPUTS, ids=lambda p: f"{p.parent.name}/{p.name}")
@pytest.mark.parametrize("linewise", [False, True], ids=["whole", "linewise"])
def test_whole_runs_give_the_same_bytes_and_report(path: Path, linewise: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    if linewise:
        monkeypatch.setattr(job, "LINEWISE_BYTES", 0)
    # orjson writes the changed JSONL records wherever it is cheap to use (as on the command line).
    monkeypatch.setattr(fastjson, "cheap", lambda: True)
    compact = []
    monkeypatch.setattr(fastjson, "dumps_compact", lambda v, real=fastjson.dumps_compact: compact.append(v) or real(v))
    fast, plain = both(monkeypatch, run, path)
    assert fast[0] == plain[0]
    assert fast[1] == plain[1]
    if path.suffix == ".jsonl" and fast[0] != path.read_bytes():
        assert compact  # the compact writer took part


def test_a_record_not_read_from_text_is_written_by_json(monkeypatch: pytest.MonkeyPatch) -> None:
    """orjson writes a float NaN as `null`: only records whose numbers were read from text (a NaN
    there is a `RawNumber`, which orjson refuses) go to it."""
    monkeypatch.setattr(fastjson, "cheap", lambda: True)
    record = {"x": float("nan"), "y": [2.5, "4e-5"]}
    assert loader.dumps_record(record) == json.dumps(record, separators=(",", ":")) == '{"x":NaN,"y":[2.5,"4e-5"]}'
    read = loader.from_text('{"x": NaN, "y": [1e-07, 2.5, "4e-5"]}\n{"z": 1}\n', "t.jsonl").records[0]
    assert loader.dumps_record(read, read=True) == '{"x":NaN,"y":[1e-07,2.5,"4e-5"]}'
    assert loader.dumps_record({"z": [2.5, "1b4e-5f"]}, read=True) == fastjson.dumps_compact({"z": [2.5, "1b4e-5f"]})
