"""End to end: with every speed shortcut replaced by its plain computation, the bytes and the report
are the same (DESIGN §12: no target met by skipping work).

The plain path, switched on here by monkeypatching:

- secrets: every pattern scanned everywhere, one text at a time (no anchors or batches);
- the engine's "fewer tokens" check: both texts encoded (no bounds);
- token counting: in this process only (no worker processes, early counts or batches across lines);
- pretty-printed JSON: written by `json.dumps(indent=N)` itself;
- JSON read and written by `json` alone (no orjson, as `SANITIZER_PLAIN=1` gives);
- error evidence's literals found with `str.find` (no hyperscan scan).

Each shortcut also has its own tests (`test_fast_scans.py`, `test_fast_paths.py`,
`test_json_indent.py`); this one checks that together they change no byte of real outputs.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from pathlib import Path

import pytest
from conftest import EXAMPLE, corpus_params

from sanitizer import Sanitizer, engine
from sanitizer.document import fastjson, json_indent
from sanitizer.secrets import scan as secrets
from sanitizer.textkit import occurrences
from sanitizer.tokens import counter as tokens


def outputs(path: Path) -> tuple[str, dict]:
    result = Sanitizer().sanitize_file(path)
    report = result.report.to_dict()
    report["totals"].pop("seconds")
    return result.dumps(), report


def plain_path(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Switch the plain path on; the returned list names each plain computation as it runs."""
    used: list[str] = []
    plain_redact = secrets.redact

    def redact_many(texts: list[str], clean: Collection[str] = ()) -> list[tuple[str, list[str]]]:
        used.append("redact")  # every text scanned the plain way, cleared ones too
        return [plain_redact(t, fast=False) for t in texts]

    def shrinks(self: engine.Engine, old: str, new: str) -> bool:
        used.append("shrinks")
        return len(new) < len(old) and self.counter.count(new) < self.counter.count(old)

    def dumps_indented(value: object, indent: int, *, ensure_ascii: bool = False) -> str:
        return json.dumps(value, indent=indent, ensure_ascii=ensure_ascii)

    monkeypatch.setattr(secrets, "redact_many", redact_many)
    monkeypatch.setattr(engine.Engine, "shrinks", shrinks)
    monkeypatch.setattr(tokens, "PARALLEL_MIN_CHARS", 1 << 60)
    monkeypatch.setattr(tokens, "WARM_PARALLEL_MIN_CHARS", 1 << 60)
    monkeypatch.setattr(json_indent, "dumps_indented", dumps_indented)
    monkeypatch.setattr(fastjson, "ENABLED", False)
    monkeypatch.setattr(occurrences, "ENABLED", False)
    monkeypatch.setattr("sanitizer.document.loader.dumps_indented", dumps_indented)
    return used


@pytest.mark.parametrize("path", [pytest.param(EXAMPLE, id="example"), *corpus_params()])
def test_fast_and_plain_paths_give_the_same_bytes_and_report(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fast = outputs(path)
    used = plain_path(monkeypatch)
    plain = outputs(path)
    assert "redact" in used  # the plain path really ran
    assert fast[0] == plain[0]
    assert fast[1] == plain[1]
