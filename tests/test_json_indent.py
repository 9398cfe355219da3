"""The fast indented encoder writes exactly what `json.dumps(value, indent=N)` writes, and so do
the `[fast]` extra's orjson writers (indented and compact) wherever they write at all."""

from __future__ import annotations

import json
import math
import random
import struct
from pathlib import Path

import pytest
from conftest import corpus_params
from hypothesis import given, settings
from hypothesis import strategies as st

from sanitizer.document import fastjson
from sanitizer.document.json_indent import dumps_indented

scalars = (st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True, allow_infinity=True)
           | st.text(st.characters(codec="utf-8") | st.sampled_from(['"', "\\", "\n", "\x00", "\u2028", "é", "😀"])))
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=5) | st.tuples(inner, inner)
                      | st.dictionaries(st.text(max_size=5), inner, max_size=5), max_leaves=40)


@settings(max_examples=500, deadline=None)
@given(values, st.sampled_from([0, 1, 2, 4]), st.booleans())
def test_equals_json_dumps(value: object, indent: int, ensure_ascii: bool) -> None:
    assert dumps_indented(value, indent, ensure_ascii=ensure_ascii) == json.dumps(value, indent=indent,
                                                                                 ensure_ascii=ensure_ascii)


@pytest.mark.parametrize("value", [
    {1: "int key", None: 2, 1.5: [True]},  # keys json.dumps turns into strings
    [float("nan"), -math.inf, math.inf, -0.0, 1e300, True, False, None, 10**30],
    {"lone": "\ud800 surrogate"},
    [[[[]]], {}, [{}], {"a": {}}],
])
def test_edge_values_equal_json_dumps(value: object) -> None:
    for ensure_ascii in (False, True):
        assert dumps_indented(value, 2, ensure_ascii=ensure_ascii) == json.dumps(value, indent=2,
                                                                                ensure_ascii=ensure_ascii)


def test_values_json_cannot_encode_fail_as_in_json_dumps() -> None:
    loop: list = []
    loop.append(loop)
    with pytest.raises(ValueError, match="Circular reference"):
        dumps_indented(loop, 2)
    with pytest.raises(TypeError, match="not JSON serializable"):
        dumps_indented({"a": object()}, 2)


JSON_DOCUMENTS = [p for p in corpus_params("openai_chat", "swe_agent_traj", "openhands_events", "mini_swe_agent")
                  if p.values[0] is None or p.values[0].suffix != ".jsonl"]


@pytest.mark.parametrize("path", JSON_DOCUMENTS)
def test_corpus_json_files_encode_like_json_dumps(path: Path) -> None:
    value = json.loads(path.read_text(encoding="utf-8"))
    for indent in (2, 4):
        assert dumps_indented(value, indent) == json.dumps(value, indent=indent, ensure_ascii=False)
    fast = fastjson.dumps_indent2(value)
    assert fast is None or fast == json.dumps(value, indent=2, ensure_ascii=False)


# --- the [fast] writer: orjson for a 2-space indent ---------------------------------------------

# What `json_numbers.decoder` can give: no non-finite float (those are RawNumbers), string keys.
read_scalars = (st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False, allow_infinity=False)
                | st.text(st.characters(codec="utf-8") | st.sampled_from(['"', "\\", "\n", "\x00", "\x1f", "\x7f",
                                                                         "\u2028", "é", "😀"]))
                | st.sampled_from([".0000", "1e-5", "x 2e-3", "1b4e-5f", "v1.00001", "a:1e-7", "[2e-5", ",0.00001",
                                   "0.0000" * 20, "1" * 40 + "e-5", "9" * 20 + ".00001"]))
read_values = st.recursive(read_scalars, lambda inner: st.lists(inner, max_size=5)
                           | st.dictionaries(st.text(max_size=5), inner, max_size=5), max_leaves=40)


COMPACT = (",", ":")  # a JSONL record as the writer makes it


@settings(max_examples=500, deadline=None)
@given(read_values)
def test_orjson_writes_the_json_dumps_text_or_leaves_the_value_to_json(value: object) -> None:
    pytest.importorskip("orjson", reason="the [fast] extra (orjson) is not installed")
    fast = fastjson.dumps_indent2(value)
    assert fast is None or fast == json.dumps(value, indent=2, ensure_ascii=False)
    fast = fastjson.dumps_compact(value)
    assert fast is None or fast == json.dumps(value, separators=COMPACT, ensure_ascii=False)


JSONL_FILES = [p for p in corpus_params() if p.values[0] is None or p.values[0].suffix == ".jsonl"]


@pytest.mark.parametrize("path", JSONL_FILES)
def test_corpus_records_are_written_as_json_writes_them(path: Path) -> None:
    pytest.importorskip("orjson", reason="the [fast] extra (orjson) is not installed")
    records = []
    for line in path.read_text(encoding="utf-8").split("\n"):
        try:
            records.append(json.loads(line))
        except ValueError:  # a blank or damaged line (some corpus files hold one): the writer copies it
            continue
    written = [fastjson.dumps_compact(r) for r in records]
    assert sum(w is not None for w in written) > len(records) // 2
    for record, fast in zip(records, written, strict=True):  # a UUID's `4e-5` leaves none to json
        assert fast is None or fast == json.dumps(record, separators=COMPACT, ensure_ascii=False)


def test_every_float_orjson_writes_is_the_json_dumps_text() -> None:
    """orjson writes some floats below 1e-4 otherwise (`1e-7`, `0.00001`): those, and only such,
    go to `json`.  Random bit patterns cover every exponent."""
    pytest.importorskip("orjson", reason="the [fast] extra (orjson) is not installed")
    rnd = random.Random(5)
    floats = [struct.unpack("<d", rnd.getrandbits(64).to_bytes(8, "little"))[0] for _ in range(50_000)]
    floats += [1e-05, 1e-07, 0.0001, 0.00012, 1e16, 1.5e16, 1e-100, 5e-324, -0.0, 1.7976931348623157e308, 0.1 + 0.2]
    written = left = 0
    for f in filter(math.isfinite, floats):
        fast = fastjson.dumps_indent2({"x": [f]})
        if fast is None:
            left += 1
        else:
            written += 1
            assert fast == json.dumps({"x": [f]}, indent=2), f
    assert written > 20_000 and left > 100  # both ways taken (about half the bit patterns are below 1e-4)
    assert fastjson.dumps_indent2([1e-05]) is None and fastjson.dumps_indent2([2.5]) == "[\n  2.5\n]"


def test_what_orjson_refuses_goes_to_json() -> None:
    pytest.importorskip("orjson", reason="the [fast] extra (orjson) is not installed")
    from sanitizer.document.json_numbers import RawNumber

    for value in ([RawNumber("Infinity")], [2**64], {"lone": "\ud800"}, {1: "int key"}, _deep(300), [1e-05]):
        assert fastjson.dumps_indent2(value) is None
        assert fastjson.dumps_compact(value) is None


def _deep(levels: int) -> list:
    value: list = []
    for _ in range(levels):
        value = [value]
    return value
