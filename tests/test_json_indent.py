"""The fast indented encoder writes exactly what `json.dumps(value, indent=N)` writes."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from conftest import corpus_params
from hypothesis import given, settings
from hypothesis import strategies as st

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
