"""dedupe-boilerplate over generated sessions of repeated reminders and instructions: the first copy
of each stays, the latest ask stays verbatim, nothing grows, and a second run changes nothing."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from strategies import property_settings

from sanitizer import Sanitizer
from sanitizer.actions import boilerplate

REMINDER = ("Whenever you read a file, you should consider whether it would be considered malware. You can "
            "analyse it, but you must refuse to improve or augment the code; reports and answers are fine.")
RULES = ("Always run the full test suite before you commit, keep every module under 300 lines, and write the "
         "changelog entry in the same commit as the change it describes. Never push to main directly.")
PIECES = (f"<system-reminder>\n{REMINDER}\n</system-reminder>", RULES, "<key_info>deploy to prod-eu-2</key_info>",
          "Add the board.", f"<system-reminder>{RULES}</system-reminder>")
SAN = Sanitizer("none", config={"extends": "none", "rule": [{"use": "dedupe-boilerplate"}]}, keep_recent=0,
                count_tokens=False, format="claude_code")


@st.composite
def sessions(draw: st.DrawFn) -> str:
    lines = []
    for i in range(draw(st.integers(2, 9))):
        text = "\n\n".join(draw(st.lists(st.sampled_from(PIECES), min_size=1, max_size=3)))
        rec: dict[str, Any] = {"type": "user", "message": {"role": "user", "content": text},
                               "uuid": f"00000000-0000-4000-8000-{2 * i:012d}", "sessionId": "s"}
        if draw(st.booleans()):
            rec["isMeta"] = True
        lines.append(json.dumps(rec))
        lines.append(json.dumps({"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "text", "text": "Noted."}]}, "uuid": f"00000000-0000-4000-8000-{2 * i + 1:012d}", "sessionId": "s"}))
    lines.append(json.dumps({"type": "user", "message": {"role": "user", "content": "What next?\n" + PIECES[0]},
                             "uuid": "00000000-0000-4000-8000-000000009999", "sessionId": "s"}))
    return "\n".join(lines) + "\n"


def texts(jsonl: str) -> list[str]:
    return [json.loads(line)["message"]["content"] for line in jsonl.splitlines()
            if json.loads(line)["type"] == "user"]


@given(sessions())
@property_settings(150)
def test_dedupe_boilerplate_keeps_first_copies_and_the_latest_ask_and_is_idempotent(jsonl: str) -> None:
    result = SAN.sanitize_text(jsonl, "s.jsonl")
    out = result.dumps()
    before, after = texts(jsonl), texts(out)
    assert after[-1] == before[-1]
    for old, new in zip(before, after, strict=True):
        assert len(new) <= len(old)
        assert old.count("<key_info>") == new.count("<key_info>")
    joined = "\n".join(after)
    for piece in (REMINDER, RULES):
        if piece in "\n".join(before[:-1]):
            assert piece in joined
    assert SAN.sanitize_text(out, "s.jsonl").dumps() == out


# Whitespace of every kind, with the four separators `str.split` takes for whitespace and `regex` does not.
SPACED = st.lists(st.sampled_from([" ", "  ", "\t", "\n", "\r\n", "\x0b", "\x1c", "\x1f", "\x85", "\xa0", "\u2028",
                                   "\u3000", "a", "word", "é", "中"]), max_size=40).map("".join)


@given(SPACED)
@property_settings(300)
def test_a_paragraph_key_flattens_whitespace_as_the_pattern_does(text: str) -> None:
    # `_key` joins `str.split` words where that gives what the whitespace pattern gives (six times as fast).
    flat = boilerplate._SPACE.sub(" ", text).strip()
    assert boilerplate._key(text) == hashlib.sha256(flat.encode("utf-8", "surrogatepass")).hexdigest()


def _keys_computed(text: str, opts: boilerplate.BoilerplateOptions) -> tuple[str, ...]:
    """What a text registers, computed afresh (the memo bypassed)."""
    keys: list[str] = []
    texts = [text]
    for b in boilerplate._blocks(text, opts):
        keys.append(boilerplate._key(text[b.inner_start:b.inner_end]))
        texts.append(text[b.inner_start:b.inner_end])
    for t in texts:
        keys += [boilerplate._key(t[s:e]) for s, e in boilerplate._paragraphs(t) if e - s >= opts.min_chars]
    return tuple(keys)


@given(st.lists(st.sampled_from(PIECES), min_size=1, max_size=4).map("\n\n".join), st.sampled_from([20, 200, 400]))
@property_settings(200)
def test_a_remembered_text_registers_what_it_registers_afresh(text: str, min_chars: int) -> None:
    """A text met again (a dataset's shared system prompt) registers from the memo what it
    would register afresh, under the same options only."""
    opts = boilerplate.BoilerplateOptions(min_chars=min_chars)
    copy = "".join(list(text))  # an equal text, another object (as each parsed conversation holds)
    assert boilerplate._keys_of(text, opts) == boilerplate._keys_of(copy, opts) == _keys_computed(text, opts)
    other = boilerplate.BoilerplateOptions(min_chars=min_chars + 1, tags=("system-reminder",))
    assert boilerplate._keys_of(copy, other) == _keys_computed(text, other)


def test_the_memo_of_texts_stays_bounded(monkeypatch) -> None:  # noqa: ANN001
    monkeypatch.setattr(boilerplate, "_keys", {})
    monkeypatch.setattr(boilerplate, "_keys_chars", 0)
    monkeypatch.setattr(boilerplate, "_KEYS_MAX", 8)
    monkeypatch.setattr(boilerplate, "_KEYS_CHARS", 1000)
    opts = boilerplate.BoilerplateOptions()
    for i in range(50):
        boilerplate._keys_of(f"{RULES} {i}", opts)
        assert len(boilerplate._keys) <= 8 and boilerplate._keys_chars <= 1000 + len(RULES) + 3
