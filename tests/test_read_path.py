"""A JSONL file read line by line and an output written in pieces give what the whole text gives.

`document.filelines` reads a `.jsonl` file without holding its text or its lines (they stay in
the file), `document.writer.chunks` writes a document a megabyte at a time, and the command line
writes an output into its file (or stdout) as it is made.  Each is checked here against the
whole-text path it replaced: `loader.from_text` of the decoded file, `encode(loader.to_text(doc))`,
and `Sanitizer.sanitize_text` + `Result.dumps`, on the corpus read in place and on odd inputs.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from conftest import EXAMPLE, corpus_files
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sanitizer import Sanitizer
from sanitizer.cli.command import main as cli
from sanitizer.document import filelines, loader, writer
from sanitizer.errors import InputError
from sanitizer.model import Damaged, Document
from sanitizer.run import job
from sanitizer.run.job import InputFile, process, read_input
from sanitizer.run.options import RunOptions

JSONL = [EXAMPLE, *(p for p in corpus_files() if p.suffix == ".jsonl")]


def same(a: Any, b: Any) -> bool:
    """Equal values of equal types, dict keys in the same order, floats by their repr (iterative:
    the odd lines nest deep)."""
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        if type(x) is not type(y):
            return False
        if isinstance(x, dict):
            if list(x) != list(y):
                return False
            stack += [(x[k], y[k]) for k in x]
        elif isinstance(x, list):
            if len(x) != len(y):
                return False
            stack += zip(x, y, strict=True)
        elif isinstance(x, Damaged):
            if (x.line, x.raw, x.reason) != (y.line, y.raw, y.reason):
                return False
        elif isinstance(x, float):
            if repr(x) != repr(y) and not (math.isnan(x) and math.isnan(y)):
                return False
        elif x != y:
            return False
    return True


def whole(path: Path) -> Document:
    return loader.from_text(path.read_bytes().decode("utf-8", errors="surrogateescape"), str(path))


def assert_same_documents(path: Path) -> Document:
    """The line-by-line document of `path` against the whole-text one; returns the former."""
    old = whole(path)
    new = filelines.from_file(path, str(path))
    assert new is not None, "a .jsonl file that starts with { is read line by line"
    assert new.container == old.container == "jsonl"
    assert same(new.records, old.records)
    assert new.lines == old.lines
    assert [str(p) for p in new.problems] == [str(p) for p in old.problems]
    assert new.trailing_newline == old.trailing_newline
    assert list(new.raw_lines or []) == list(old.raw_lines or [])
    assert list((new.raw_lines or [])[1:3]) == (old.raw_lines or [])[1:3]
    expected = writer.encode(loader.to_text(old))
    assert b"".join(writer.chunks(new)) == expected
    assert b"".join(writer.chunks(new, size=7)) == expected
    assert b"".join(writer.chunks(old, size=5)) == expected
    assert loader.to_text(new) == loader.to_text(old)
    return new


@pytest.mark.skipif(len(JSONL) == 1, reason="../shared/corpus not found: only the bundled example is read")
@pytest.mark.parametrize("path", JSONL, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_corpus_files_read_line_by_line_as_whole(path: Path) -> None:
    doc = assert_same_documents(path)
    # Edited records are written from their values, the others from the file.
    doc.dirty.update(range(0, len(doc.records), 3))
    old = whole(path)
    old.records, old.dirty = doc.records, doc.dirty
    assert b"".join(writer.chunks(doc, size=1000)) == writer.encode(loader.to_text(old))


@pytest.mark.skipif(len(JSONL) == 1, reason="../shared/corpus not found: only the bundled example is read")
@pytest.mark.parametrize("path", JSONL[:12], ids=lambda p: f"{p.parent.name}/{p.name}")
def test_runs_give_the_bytes_and_report_of_the_whole_text(path: Path, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(job, "LINEWISE_BYTES", 0)  # the corpus files are smaller than the line-by-line size
    san = Sanitizer(count_tokens=False)
    old = san.sanitize_text(path.read_bytes().decode("utf-8", errors="surrogateescape"), str(path))
    old_report = old.report.to_dict()
    expected = writer.encode(old.dumps())
    opts = RunOptions(count_tokens=False)
    content = read_input(str(path), opts)
    assert isinstance(content, InputFile)
    got = process(san, str(path), content, opts)
    assert got.output == expected
    report = got.report.to_dict()
    for r in (report, old_report):
        r["totals"].pop("seconds")
    assert report == old_report
    out = tmp_path / "out.jsonl"
    result = CliRunner().invoke(cli, [str(path), "-o", str(out), "--no-tokens", "--report", "none"])
    assert result.exit_code in (0, 1), result.output  # 1: damaged lines reported
    assert out.read_bytes() == expected


# --- odd inputs -------------------------------------------------------------------------------------

SCALARS = st.one_of(st.none(), st.booleans(), st.integers(min_value=-2**70, max_value=2**70),
                    st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=12),
                    st.text(st.characters(categories=["Cs", "Cc", "Zs"]), max_size=4))  # lone surrogates too


def containers(kids: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=6), kids, max_size=4)


VALUES = st.recursive(SCALARS, containers, max_leaves=12)
ODD_LINES = st.sampled_from([
    b"", b"   ", b"\r", b"\t \r", b'{"cut": "here', b"not json at all", b'{"a": 1} {"b": 2}', b"\xef\xbb\xbf{}",
    b'{"bad": "\xff\xfe bytes"}', b'{"s": "\\ud800 lone"}', b'{"s": "\\udc80\\ud83d\\ude00"}', b'{"n": NaN}',
    b'{"n": 1e999, "m": -Infinity}', b'{"big": 123456789012345678901234567890}', b'{"big": 18446744073709551616}',
    b'{"i": -9223372036854775809, "j": 9223372036854775807}', b'{"d": 1, "d": 2}', b'{"z": -0.0, "e": 1e16}',
    b'[1, 2, 3]', b'"a string"', b"42", b'{"x": "\x1f"}', b"\x0c{}", b'{"deep": ' + b"[" * 600 + b"]" * 600 + b"}",
    b"[" * 1100 + b"]" * 1100, b'{"u": "caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x99\x82"}', b'{"a":1}\r',
])


@st.composite
def jsonl_files(draw: st.DrawFn) -> bytes:
    lines: list[bytes] = [b'{"first": true}']
    for _ in range(draw(st.integers(0, 8))):
        if draw(st.booleans()):
            value = {"v": draw(VALUES)}
            lines.append(json.dumps(value, ensure_ascii=draw(st.booleans())).encode("utf-8", "surrogatepass"))
        else:
            lines.append(draw(ODD_LINES))
        if draw(st.integers(0, 4)) == 0:
            lines[-1] += b"\r"
    data = b"\n".join(lines)
    if draw(st.booleans()):
        data += b"\n"
    return draw(st.sampled_from([b"", b"\n", b"  \n\t", b"\x1c"])) + data


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=jsonl_files())
def test_odd_files_read_line_by_line_as_whole(data: bytes, tmp_path: Path) -> None:
    path = tmp_path / "odd.jsonl"
    path.write_bytes(data)
    assert_same_documents(path)


def test_what_is_not_jsonl_by_its_name_or_first_char_is_read_whole(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    small = tmp_path / "small.jsonl"
    small.write_bytes(b'{"a": 1}\n')
    assert not isinstance(read_input(str(small), RunOptions()), InputFile)  # below LINEWISE_BYTES
    monkeypatch.setattr(job, "LINEWISE_BYTES", 0)
    assert isinstance(read_input(str(small), RunOptions()), InputFile)
    for name, data in [("a.json", b'{"a": 1}\n{"b": 2}\n'), ("b.jsonl", b'[{"a": 1}]\n'),
                       ("c.jsonl", b"\xef\xbb\xbf{}\n"), ("d.jsonl", b"\xc2\xa0{}\n"), ("e.jsonl", b"")]:
        path = tmp_path / name
        path.write_bytes(data)
        assert filelines.from_file(path, str(path)) is None
        assert not isinstance(read_input(str(path), RunOptions()), InputFile)


def test_a_file_changed_while_sanitized_stops_with_one_line(tmp_path: Path) -> None:
    path = tmp_path / "live.jsonl"
    path.write_bytes(b'{"a": 1}\n{"b": 2}\n')
    doc = filelines.from_file(path, str(path))
    assert doc is not None
    with path.open("r+b") as fh:  # the same length, other bytes
        fh.seek(10)
        fh.write(b"c")
    with pytest.raises(InputError, match=r"live.jsonl:2: the file changed while it was being sanitized"):
        b"".join(writer.chunks(doc))
    with path.open("ab") as fh:  # appending (a live session) leaves the lines read as they were
        fh.write(b'{"more": 1}\n')
    path.write_bytes(b'{"a": 1}\n{"b": 2}\n')
    doc = filelines.from_file(path, str(path))
    assert doc is not None
    with path.open("ab") as fh:
        fh.write(b'{"more": 1}\n')
    assert b"".join(writer.chunks(doc)) == b'{"a": 1}\n{"b": 2}\n'


def test_a_failed_piece_leaves_the_output_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "in.jsonl"
    path.write_bytes(b'{"type": "summary", "summary": "s"}\n' * 3)
    out = tmp_path / "out.jsonl"
    out.write_bytes(b"before\n")
    doc = filelines.from_file(path, str(path))
    assert doc is not None
    path.write_bytes(b'{"type": "summary", "summary": "x"}\n' * 3)  # rewritten under the run
    from sanitizer.run.output import write_atomic

    with pytest.raises(InputError, match="changed"):
        write_atomic(out, writer.chunks(doc))
    assert out.read_bytes() == b"before\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl", "out.jsonl"]  # no temporary file left


def test_encoded_pieces_are_the_encoded_text() -> None:
    text = "a\udc80b\ud800\U0001f642é" * 5
    for size in (1, 2, 3, 7, 1000):
        assert b"".join(writer.encoded(text, size)) == writer.encode(text)
