"""Every meta key the code uses is declared in the model's typed meta dicts (the contract between
formats, rules and renderers), in the source and on every corpus file."""

from __future__ import annotations

import re
from pathlib import Path
from typing import get_type_hints

import pytest

from sanitizer import Sanitizer
from sanitizer.model import MessageMeta, PartMeta, ViewMeta

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus"
DECLARED = {"part": set(get_type_hints(PartMeta)), "message": set(get_type_hints(MessageMeta)),
            "view": set(get_type_hints(ViewMeta))}
ALL = set().union(*DECLARED.values())

# meta["key"], meta.get("key"), meta.setdefault("key"), and the keys of a `meta={...}` literal.
USE = re.compile(r"""\bmeta(?:\[|\.(?:get|setdefault|pop)\()\s*["'](\w+)["']""")
LITERAL = re.compile(r"""\bmeta=\{([^{}]*)\}""")
LITERAL_KEY = re.compile(r"""["'](\w+)["']\s*:""")
NEW_MESSAGE = re.compile(r"""new_message\(([^()]*(?:\([^()]*\)[^()]*)*)\)""")
KWARG = re.compile(r"""\b(\w+)=""")


def _source_keys() -> dict[str, set[Path]]:
    found: dict[str, set[Path]] = {}
    for path in sorted((ROOT / "sanitizer").rglob("*.py")):
        text = path.read_text()
        keys = set(USE.findall(text))
        for body in LITERAL.findall(text):
            keys.update(LITERAL_KEY.findall(body))
        for args in NEW_MESSAGE.findall(text):
            keys.update(KWARG.findall(args))
        for key in keys:
            found.setdefault(key, set()).add(path.relative_to(ROOT))
    return found


def test_the_patterns_find_keys_in_the_source():
    keys = _source_keys()
    # A few keys known to be written each way: `meta["..."] =`, `meta={...}`, `new_message(..., k=v)`.
    assert {"copy_texts", "args_object", "sidechain"} <= set(keys)


def test_every_meta_key_in_the_source_is_declared():
    unknown = {k: sorted(map(str, where)) for k, where in _source_keys().items() if k not in ALL}
    assert not unknown, f"declare these keys in sanitizer/model.py (PartMeta/MessageMeta/ViewMeta): {unknown}"


def _corpus_files() -> list[Path]:
    if not CORPUS.is_dir():
        pytest.skip("../shared/corpus is absent (the shared corpus sits beside the clone in CI)")
    return sorted(p for p in CORPUS.rglob("*") if p.suffix in (".json", ".jsonl") and p.is_file())


def test_every_meta_key_on_the_corpus_is_declared_where_it_is_used():
    san = Sanitizer("default", count_tokens=False)
    seen: dict[str, set[str]] = {"part": set(), "message": set(), "view": set()}
    files = _corpus_files()
    for path in files:
        result = san.sanitize_file(path)
        for view in result.views:
            seen["view"].update(view.meta)
            for msg in view.messages:
                seen["message"].update(msg.meta)
            for part in view.parts:
                seen["part"].update(part.meta)
    assert seen["part"] and seen["message"] and seen["view"], f"no meta seen on {len(files)} corpus files"
    for where, keys in seen.items():
        assert keys <= DECLARED[where], f"{where} meta keys not declared: {sorted(keys - DECLARED[where])}"
