"""Work that must stay linear: a linked copy's one-part batch does not redo the whole view.

No timing here (the growth exponent is measured by `bench/repeated.py`): these count the
whole-view passes and check that the output is the one the per-copy rebuild gave.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import EXAMPLE

from sanitizer import Sanitizer
from sanitizer.actions import tools


def repeated(tmp_path: Path, times: int) -> Path:
    """The example session repeated: duplicate tool ids and linked copies, as after resumes."""
    path = tmp_path / f"repeated-{times}.jsonl"
    path.write_text(EXAMPLE.read_text(encoding="utf-8") * times, encoding="utf-8")
    return path


@pytest.mark.parametrize("times", [1, 4, 12])
def test_dedupe_scans_the_view_once_whatever_the_copies(times: int, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    passes: list[int] = []
    newest = tools._newest

    def counted(everything, opts):  # noqa: ANN001, ANN202
        passes.append(len(everything))
        return newest(everything, opts)

    monkeypatch.setattr(tools, "_newest", counted)
    result = Sanitizer(count_tokens=False).sanitize_file(repeated(tmp_path, times))
    assert len(passes) == 1
    assert "same output as" in result.dumps() or times == 1


def test_the_output_is_the_one_a_rebuild_per_call_gives(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = repeated(tmp_path, 5)
    fast = Sanitizer(count_tokens=False).sanitize_file(path).dumps()

    def rebuilt(everything, ctx):  # noqa: ANN001, ANN202
        return {id(p): i for i, p in enumerate(everything)}

    monkeypatch.setattr(tools, "_positions", rebuilt)
    assert Sanitizer(count_tokens=False).sanitize_file(path).dumps() == fast
