"""The HTML report: built only from a run's result, escaped, self-contained, and usable in a browser."""

from __future__ import annotations

import html
import json
import re
import struct
import zlib
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from conftest import CORPUS, EXAMPLE
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sanitizer import Sanitizer, sanitize
from sanitizer.html import browser, render_html, write_html
from sanitizer.transcript import part_text

SECRET = "ghp_" + "Z7q9K2m4N6p8R1s3T5v7X9y2A4c6E8g0J3kL"
OUTSIDE = "https://tracker.example.invalid/pixel.png"
LOADS = {"src", "href", "action", "poster", "data", "srcset", "formaction", "background"}
SECTION = re.compile(r'<section class="([^"]*)" id="c(\d+)m(\d+)" data-role="([^"]*)" data-rules="([^"]*)"')


def chat(n: int, body: str = "step") -> list[dict[str, Any]]:
    """An OpenAI chat conversation with `n` rounds of a long tool output (so older ones are cut)."""
    msgs: list[dict[str, Any]] = [{"role": "system", "content": "You are a coding agent."},
                                  {"role": "user", "content": "Fix the bug. <key_info>order 77 is the one</key_info>"}]
    for i in range(n):
        msgs.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": f"call_{i}", "type": "function", "function": {"name": "bash", "arguments": '{"cmd": "make"}'}}]})
        msgs.append({"role": "tool", "tool_call_id": f"call_{i}",
                     "content": "\n".join(f"{body} {i} line {k} of the build log" for k in range(120))})
    msgs.append({"role": "user", "content": "Now run the tests and tell me what failed."})
    return msgs


class Tags(HTMLParser):
    """Every start tag of a page with its attributes (what a browser would act on, not the text)."""

    def __init__(self, page: str) -> None:
        super().__init__()
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []
        self.feed(page)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))


def references(page: str) -> list[str]:
    """Values of the attributes that make a browser load something (src, href, ...)."""
    return [v or "" for _, attrs in Tags(page).tags for k, v in attrs if k in LOADS]


def sections(page: str) -> list[tuple[str, int, int, str, str]]:
    return [(c, int(v), int(m), role, rules) for c, v, m, role, rules in SECTION.findall(page)]


@pytest.fixture(scope="module")
def example() -> tuple[Any, str]:
    result = Sanitizer().sanitize_file(EXAMPLE)
    return result, render_html(result)


def test_every_message_is_on_the_page_in_order(example: tuple[Any, str]) -> None:
    result, page = example
    expected = [(c, m.index, m.role) for c, v in enumerate(result.views) for m in v.messages]
    assert [(c, m, role) for _, c, m, role, _ in sections(page)] == expected
    assert len(expected) == result.report.messages


def test_each_cut_is_shown_at_its_part_with_rule_and_reason(example: tuple[Any, str]) -> None:
    result, page = example
    cut_rules = {c.rule for c in result.report.cuts}
    shown = set(re.findall(r'<details class="cut" data-rules="([^"]*)"', page))
    assert {r for s in shown for r in s.split()} == cut_rules
    # the thinking the rule dropped is in the page, escaped, inside a <details>
    thinking = next(p.original for v in result.views for p in v.parts if p.meta.get("replaced_kind") == "thinking")
    assert thinking and html.escape(thinking[:200]) in page
    assert 'title="drop-thinking: reasoning of older turns is dropped' in page


def test_bars_add_up_to_the_report_totals(example: tuple[Any, str]) -> None:
    result, page = example
    before = [int(x) for x in re.findall(r'data-before="(\d+)"', page)]
    after = [int(x) for x in re.findall(r'data-after="(\d+)"', page)]
    assert len(before) == len(after) == result.report.messages
    assert (sum(before), sum(after)) == (result.report.tokens_before, result.report.tokens_after)
    widths = [float(w) for w in re.findall(r'<b style="width:([\d.]+)%"', page)]
    assert max(widths) <= 100 and len(widths) == result.report.messages


def test_lone_surrogates_are_written_as_replacement_characters(tmp_path: Path) -> None:
    msgs = chat(2)
    msgs[-1]["content"] = "broken \ud800 text"
    page = write_html(sanitize(msgs), tmp_path / "r.html").read_text(encoding="utf-8")
    assert "broken \ufffd text" in page


def test_filter_data_matches_the_messages_and_rules(example: tuple[Any, str]) -> None:
    result, page = example
    roles = {m.role for v in result.views for m in v.messages}
    assert set(re.findall(r'<input type="checkbox" data-role="([^"]*)"', page)) == roles
    options = re.findall(r'<option value="([^"*]+)">cut by', page)
    assert options == [name for name, st in result.report.rules.items() if st.hits]
    cut_messages = {p.message for v in result.views for p in v.parts if p.changed}
    assert {m for _, _, m, _, rules in sections(page) if rules} == cut_messages


def test_latest_ask_and_key_info_are_marked_as_kept() -> None:
    result = sanitize(chat(12))
    page = render_html(result)
    rows = sections(page)
    latest = [m for classes, _, m, _, _ in rows if "latest" in classes.split()]
    assert latest == [len(result.views[0].messages) - 1]
    assert "latest ask · kept" in page
    assert '<mark class="kept" title="key_info: kept verbatim">&lt;key_info&gt;order 77 is the one&lt;/key_info&gt;</mark>' in page
    assert [m for classes, _, m, _, _ in rows if "haskept" in classes.split()] == [1]


def test_texts_are_escaped_everywhere() -> None:
    evil = '<script>alert(1)</script>"><img src=x onerror=alert(2)>&amp;'
    msgs = chat(12, body=evil)
    msgs[-1]["content"] = f"{evil} and see {OUTSIDE}"
    page = render_html(sanitize(msgs), title=evil)
    assert "<script>alert" not in page and "<img" not in page
    assert html.escape(evil) in page
    assert page.count("<script>") == 1  # the page's own script, nothing else


def test_no_resource_reference_leaves_the_page() -> None:
    msgs = chat(12)
    msgs[-1]["content"] = f'look at <img src="{OUTSIDE}"> and <a href="//cdn.example.invalid/x.js">this</a>'
    page = render_html(sanitize(msgs))
    assert references(page) == []
    assert {tag for tag, _ in Tags(page).tags} <= {"html", "head", "meta", "title", "style", "body", "header", "h1",
                                                  "h2", "div", "label", "input", "select", "option", "span",
                                                  "button", "main", "section", "pre", "details", "summary",
                                                  "mark", "aside", "table", "tr", "th", "td", "i", "b", "p",
                                                  "script"}
    assert not re.search(r"url\(|@import", page, re.IGNORECASE)


def test_a_planted_credential_never_reaches_the_page() -> None:
    msgs = chat(12, body=f"export GITHUB_TOKEN={SECRET}")  # in old tool outputs that get digested
    msgs[1]["content"] += f" token {SECRET}"
    msgs[-1]["content"] += f" (my token is {SECRET})"
    result = sanitize(msgs)
    assert SECRET not in result.dumps()  # the copy redacts it ...
    assert any(p.original and SECRET in p.original for p in result.views[0].parts)  # ... the originals hold it
    page = render_html(result)
    assert SECRET not in page and SECRET[:20] not in page
    assert "[REDACTED:" in page


def test_size_is_linear_in_the_conversation() -> None:
    small, big = (len(render_html(sanitize(chat(n)))) for n in (20, 80))
    assert 3.5 * small < big < 4.5 * small


def test_page_without_token_counts_shows_chars(tmp_path: Path) -> None:
    result = Sanitizer(count_tokens=False).sanitize(chat(12))
    path = write_html(result, tmp_path / "r.html")
    page = path.read_text(encoding="utf-8")
    assert "chars before" in page and " tokens</span>" not in page
    before = [int(x) for x in re.findall(r'data-before="(\d+)"', page)]
    assert sum(before) == result.report.chars_before


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.text(st.characters(codec=None, exclude_categories=()), min_size=1, max_size=60),
                min_size=1, max_size=6))
def test_any_text_appears_escaped_and_never_as_markup(texts: list[str]) -> None:
    msgs = [{"role": "user" if i % 2 == 0 else "assistant", "content": t} for i, t in enumerate(texts)]
    result = Sanitizer(count_tokens=False).sanitize(msgs)
    page = render_html(result)
    assert len(sections(page)) == len(result.views[0].messages)
    assert page.count("<script") == 1 and page.count("</script>") == 1
    assert references(page) == []
    for p in result.views[0].parts:
        if p.text and not p.dropped:
            clean = re.sub("[\ud800-\udfff]", "\ufffd", part_text(p))  # as the summarizer reads it
            assert html.escape(clean) in page or "<mark" in page


# --- in a real browser -------------------------------------------------------------------------------

needs_chromium = pytest.mark.skipif(not browser.available(), reason="needs Debian's chromium at /usr/bin/chromium (or SANITIZER_CHROMIUM=path)")

PROBE = """<script>(function(){
document.querySelectorAll('.msg').forEach(function(m){ m.style.contentVisibility='visible'; });
var ds=Array.prototype.slice.call(document.querySelectorAll('details.cut'));
var closed=ds.map(function(d){ return d.querySelector('pre.removed').checkVisibility(); });
ds.forEach(function(d){ d.open=true; });
var opened=ds.map(function(d){ var p=d.querySelector('pre.removed'); return p.checkVisibility() ? p.innerText.length : 0; });
var sel=document.getElementById('rule'), shown={};
Array.prototype.slice.call(sel.options).forEach(function(o){
  sel.value=o.value; sel.dispatchEvent(new Event('change'));
  shown[o.value]=document.querySelectorAll('.msg:not([hidden])').length;
});
var out=document.createElement('pre'); out.id='probe';
out.textContent=JSON.stringify({closed:closed, opened:opened, shown:shown,
  resources:performance.getEntriesByType('resource').map(function(e){ return e.name; })});
document.body.appendChild(out);
})();</script></body>"""


def probe(page: str, tmp_path: Path) -> tuple[dict[str, Any], str]:
    path = tmp_path / "probe.html"
    path.write_text(page.replace("</body>", PROBE, 1), encoding="utf-8")
    dom = browser.dump_dom(path)
    found = re.search(r'<pre id="probe">(.*?)</pre>', dom, re.DOTALL)
    assert found, dom[-2000:]
    return json.loads(html.unescape(found.group(1))), dom


def png_colours(data: bytes) -> int:
    """Distinct pixel colours of an 8-bit RGB/RGBA PNG (decoded with zlib and struct only)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", chunk[:10])
            assert depth == 8 and colour in (2, 6)
            bpp = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    raw, stride = zlib.decompress(idat), width * bpp
    prev, colours = bytearray(stride), set()
    for y in range(height):
        filt, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if filt == 1:
                line[i] = (line[i] + a) & 255
            elif filt == 2:
                line[i] = (line[i] + b) & 255
            elif filt == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif filt == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        colours.update(bytes(line[i:i + 3]) for i in range(0, stride, bpp * 7))  # every 7th pixel
        prev = line
    return len(colours)


def corpus_pick() -> list[Path]:
    folder = CORPUS / "claude_code_jsonl"
    if not folder.is_dir():
        return []
    return sorted(folder.glob("*.jsonl"), key=lambda p: p.stat().st_size)[-1:] + sorted(
        (CORPUS / "codex_rollout").glob("*.jsonl"))[:1]


@needs_chromium
def test_screenshot_is_not_blank(example: tuple[Any, str], tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    page.write_text(example[1], encoding="utf-8")
    png = browser.screenshot(page, tmp_path / "shot.png", 640, 480)
    assert png_colours(png.read_bytes()) > 40


@needs_chromium
def test_expanding_cuts_shows_their_text_and_nothing_is_fetched(example: tuple[Any, str], tmp_path: Path) -> None:
    result, page = example
    seen, dom = probe(page, tmp_path)
    n = page.count('<details class="cut"')
    assert n == len(seen["closed"]) == len(seen["opened"]) > 0
    assert seen["closed"] == [False] * n  # hidden until opened
    assert all(k > 0 for k in seen["opened"])
    thinking = next(p.original for v in result.views for p in v.parts if p.meta.get("replaced_kind") == "thinking")
    assert html.escape(thinking[:120], quote=False) in dom
    assert seen["resources"] == []
    assert seen["shown"][""] == result.report.messages
    cut_messages = {p.message for v in result.views for p in v.parts if p.changed}
    assert seen["shown"]["*"] == len(cut_messages)
    for name, st_ in result.report.rules.items():
        if st_.hits:
            assert 0 < seen["shown"][name] <= len(cut_messages)


@needs_chromium
@pytest.mark.parametrize("path", corpus_pick() or [pytest.param(None, marks=pytest.mark.skip(
    reason="../shared/corpus is absent (real transcripts are read in place beside the clone)"))],
    ids=lambda p: p.name if p else "no-corpus")
def test_corpus_sessions_render_in_the_browser(path: Path, tmp_path: Path) -> None:
    result = Sanitizer().sanitize_file(path)
    page = render_html(result)
    assert references(page) == []
    seen, _ = probe(page, tmp_path)
    assert seen["resources"] == []
    assert seen["shown"][""] == result.report.messages == len(sections(page))
    assert all(k > 0 for k in seen["opened"]) or not seen["opened"]


def test_each_conversation_of_a_dataset_gets_a_heading() -> None:
    lines = "\n".join(json.dumps({"messages": chat(3, body=f"episode {k}")}) for k in range(3))
    result = Sanitizer(count_tokens=False).sanitize_text(lines)
    page = render_html(result)
    assert len(result.views) == 3
    assert re.findall(r'<h2 class="conv">conversation (\d+)</h2>', page) == ["1", "2", "3"]
    assert [c for _, c, _, _, _ in sections(page)] == [c for c, v in enumerate(result.views) for _ in v.messages]


def test_cuts_outside_the_messages_are_listed_without_their_text() -> None:
    text = EXAMPLE.read_text(encoding="utf-8") + f'{{"type": "user", broken line GITHUB_TOKEN={SECRET}\n'
    result = Sanitizer(count_tokens=False).sanitize_text(text, "session.jsonl")
    page = render_html(result)
    assert SECRET not in result.dumps() and SECRET not in page
    rows = re.findall(r"<tr><td title=\"[^\"]*\">([^<]*)</td><td>(\d*)</td>", page.split('id="elsewhere"')[1])
    last = len(text.splitlines())
    assert ("redact-secrets", str(last)) in rows
