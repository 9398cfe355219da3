"""The linear tag scanner and the tag actions (keep-tag, strip-block, placeholder-tag, trim-tag)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sanitizer.actions import tagged
from sanitizer.actions.base import Context
from sanitizer.model import Part
from sanitizer.textkit.tags import Block, find_blocks, outermost, spans


def inner(text: str, b: Block) -> str:
    return text[b.inner_start:b.inner_end]


def test_simple_pair_with_attributes_and_case() -> None:
    text = 'x <Tool_Use id="1" name=\'a>b\'>body</TOOL_USE> y'
    (b,) = find_blocks(text, ["tool_use"])
    assert (b.name, inner(text, b), b.closed) == ("tool_use", "body", True)
    assert text[b.start:b.end] == '<Tool_Use id="1" name=\'a>b\'>body</TOOL_USE>'


def test_nesting_closes_innermost_first() -> None:
    text = "<a>1<a>2</a>3</a>"
    blocks = find_blocks(text, ["a"])
    assert [(inner(text, b), b.depth) for b in blocks] == [("1<a>2</a>3", 0), ("2", 1)]
    assert outermost(blocks) == blocks[:1]


def test_crossed_tags_leave_the_inner_one_unclosed() -> None:
    text = "<a><b></a></b>"
    a, b = find_blocks(text, ["a", "b"])
    assert (a.name, a.closed, inner(text, a)) == ("a", True, "<b>")
    assert (b.name, b.closed, b.end) == ("b", False, len(text))


def test_unclosed_tag_reaches_the_end_and_stray_close_is_ignored() -> None:
    text = "</a> start <a> never closed"
    (b,) = find_blocks(text, ["a"])
    assert not b.closed and inner(text, b) == " never closed"


def test_other_tags_self_closing_and_lookalikes_are_text() -> None:
    text = "<ab>1</ab> <a/> <a-b>2</a-b> <a >3</a >"
    blocks = find_blocks(text, ["a"])
    assert [inner(text, b) for b in blocks] == ["3"]


def test_tag_without_closing_bracket_is_text() -> None:
    assert find_blocks("<a " + "x" * 5000 + "</a>", ["a"]) == []


def test_spans_merge_and_cover_unclosed() -> None:
    text = "<k>1</k><k>2</k> <k>3"
    assert spans(text, ["k"]) == [(0, 16), (17, len(text))]


def test_many_unclosed_tags_are_all_reported() -> None:
    text = "<thinking>x" * 10_000
    blocks = find_blocks(text, ["thinking"])
    assert len(blocks) == 10_000 and not any(b.closed for b in blocks)


# Reference model: the same stack rules applied to a token list.
TOKENS = ["<a>", "</a>", "<b>", "</b>", "<A x='>'>", "</A >", "<a/>", "<c>", "</c>", "t", "<", ">"]


def reference(tokens: list[str]) -> list[tuple[str, int, int, bool]]:
    stack: list[tuple[str, int, int]] = []
    out = []
    pos = 0
    for tok in tokens:
        start, pos = pos, pos + len(tok)
        low = tok.lower()
        if low.startswith("</a") or low.startswith("</b"):
            name = low[2]
            if any(n == name for n, _, _ in stack):
                while stack:
                    n, s, i = stack.pop()
                    if n == name:
                        out.append((n, s, start, True))
                        break
                    out.append((n, s, -1, False))
        elif (low.startswith("<a") or low.startswith("<b")) and not low.endswith("/>"):
            stack.append((low[1], start, pos))
    out += [(n, s, -1, False) for n, s, _ in stack]
    return sorted(out, key=lambda x: x[1])


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(TOKENS), max_size=40))
def test_scanner_matches_the_reference_stack(tokens: list[str]) -> None:
    text = "".join(tokens)
    got = [(b.name, b.start, b.inner_end if b.closed else -1, b.closed) for b in find_blocks(text, ["a", "b"])]
    assert got == reference(tokens)


# --- actions ----------------------------------------------------------------------------------


def part(text: str, kind: str = "text") -> Part:
    return Part(kind=kind, role="assistant", message=0, record=0, path=(), text=text)


def run(action: object, text: str, ctx: Context | None = None, **opts: object) -> str | None:
    ch = action.run(part(text), action.options(**opts), ctx or Context(view=None))  # type: ignore[attr-defined]
    return None if ch is None else ch.text


def test_trim_tag_cuts_inside_and_keeps_tags() -> None:
    text = "before <thinking>" + "step one. " * 20 + "</thinking> after"
    new = run(tagged.TRIM_TAG, text, max_chars=40, head=10, tail=10)
    assert new == "before <thinking>step one. …[trimmed 180 chars]…step one. </thinking> after"
    assert run(tagged.TRIM_TAG, new, max_chars=40, head=10, tail=10) is None


def test_trim_tag_keeps_key_info_inside_and_skips_blocks_inside_key_info() -> None:
    info = "<key_info>API lives at api.internal:8443</key_info>"
    text = "<thinking>" + "a " * 50 + info + " b" * 50 + "</thinking>"
    new = run(tagged.TRIM_TAG, text, max_chars=40, head=10, tail=10)
    assert new is not None and info in new
    wrapped = "<key_info><thinking>" + "a " * 100 + "</thinking></key_info>"
    assert run(tagged.TRIM_TAG, wrapped, max_chars=40, head=10, tail=10) is None


def test_trim_tag_respects_tags_registered_by_keep_tag() -> None:
    ctx = Context(view=None)
    text = "<thinking>" + "a " * 50 + "<decision>use sqlite</decision>" + " b" * 50 + "</thinking>"
    assert "<decision>" not in (run(tagged.TRIM_TAG, text, ctx, max_chars=40, head=10, tail=10) or "")
    register = tagged.KEEP_TAG.run_batch
    assert register is not None and register([part(text)], tagged.KeepTagOptions(tags=("decision",)), ctx) == {}
    assert "<decision>use sqlite</decision>" in (run(tagged.TRIM_TAG, text, ctx, max_chars=40, head=10, tail=10) or "")


def test_unclosed_tags_are_left_alone() -> None:
    assert run(tagged.TRIM_TAG, "<thinking>" + "x " * 500, max_chars=40, head=10, tail=10) is None
    assert run(tagged.PLACEHOLDER_TAG, "<history>" + "x " * 500) is None


def test_placeholder_tag_keeps_key_info_and_is_idempotent() -> None:
    text = "<history>old talk, old talk <key_info>k</key_info> more old talk</history>"
    new = run(tagged.PLACEHOLDER_TAG, text)
    assert new == "<history>[...]<key_info>k</key_info>[...]</history>"
    assert run(tagged.PLACEHOLDER_TAG, new) is None


def test_strip_block_note_and_idempotence() -> None:
    text = "<file_content path='a.py'>" + "x = 1\n" * 100 + "</file_content>"
    new = run(tagged.STRIP_BLOCK, text)
    assert new == "<file_content path='a.py'>[removed 600 chars]</file_content>"
    assert run(tagged.STRIP_BLOCK, new) is None


def test_strip_block_refuses_key_info() -> None:
    with pytest.raises(ValueError, match="key_info"):
        tagged.StripBlockOptions(tags=("file_content", "KEY_INFO"))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["<thinking>", "</thinking>", "<key_info>", "</key_info>", "<history>",
                                 "</history>", "word ", "long " * 20, "\n"]), max_size=30).map("".join))
def test_tag_actions_never_grow_are_idempotent_and_keep_key_info(text: str) -> None:
    keys = [text[b.start:b.end] for b in find_blocks(text, ["key_info"])]
    for action, opts in ((tagged.TRIM_TAG, {"max_chars": 40, "head": 10, "tail": 10}),
                         (tagged.PLACEHOLDER_TAG, {}), (tagged.STRIP_BLOCK, {"tags": ("thinking",)})):
        new = run(action, text, **opts)
        if new is None:
            continue
        assert len(new) < len(text)
        assert run(action, new, **opts) is None
        for k in keys:
            assert k in new
