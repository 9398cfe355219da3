"""The HTML page of a run with cut ids, in a real headless chromium: every id of the sidecar is on
the page, opening a cut shows the sidecar's text, and the page sends no request anywhere (a proxy
on 127.0.0.1 that chromium must use for every request, loopback included, records each attempt)."""

from __future__ import annotations

import html
import json
import re
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import EXAMPLE
from test_html_report import corpus_pick, png_colours

from sanitizer import Sanitizer
from sanitizer.cuts import parse
from sanitizer.html import browser, render_html

needs_chromium = pytest.mark.skipif(not browser.available(),
                                    reason="needs Debian's chromium at /usr/bin/chromium (or SANITIZER_CHROMIUM=path)")


# Chromium's own background calls (network time, the component updater, account checks), made for
# any page, an empty one too, whatever --disable-* flag is given; nothing on a report page names them.
BROWSER_OWN = frozenset({"clients2.google.com", "update.googleapis.com", "accounts.google.com"})


def host_of(request_line: str) -> str:
    """The host a proxied request line asks for (`GET http://h/x HTTP/1.1`, `CONNECT h:443 HTTP/1.1`)."""
    target = request_line.split(" ")[1] if " " in request_line else request_line
    return target.split("://", 1)[-1].split("/", 1)[0].rsplit(":", 1)[0]


def page_requests(seen: list[str]) -> list[str]:
    """The recorded requests that are not the browser's own background calls."""
    return [line for line in seen if host_of(line) not in BROWSER_OWN]


class Recorder:
    """A proxy that answers nothing: it records the first line of every connection made to it."""

    def __init__(self) -> None:
        self.server = socket.create_server(("127.0.0.1", 0))
        self.server.settimeout(0.2)
        self.port = self.server.getsockname()[1]
        self.seen: list[str] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.server.accept()
            except TimeoutError:
                continue
            with conn:
                conn.settimeout(2)
                try:
                    first = conn.recv(4096).split(b"\r\n", 1)[0]
                    conn.sendall(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                except OSError:
                    first = b"(connection without a request line)"
                self.seen.append(first.decode("latin-1"))

    def close(self) -> None:
        self.stop.set()
        self.thread.join(timeout=5)
        self.server.close()


@pytest.fixture
def recorder() -> Iterator[Recorder]:
    rec = Recorder()
    try:
        yield rec
    finally:
        rec.close()


# Opens every cut and reports, per cut id, the text shown once it is open.
PROBE = """<script>(function(){
document.querySelectorAll('.msg').forEach(function(m){ m.style.contentVisibility='visible'; });
var shown={}, hidden={};
document.querySelectorAll('pre.removed[data-cut]').forEach(function(p){ hidden[p.dataset.cut]=p.checkVisibility(); });
document.querySelectorAll('details.cut').forEach(function(d){ d.open=true; });
document.querySelectorAll('pre.removed[data-cut]').forEach(function(p){
  shown[p.dataset.cut]=p.checkVisibility() ? p.textContent : null; });
var out=document.createElement('pre'); out.id='probe';
out.textContent=JSON.stringify({shown:shown, hidden:hidden, summaries:Array.prototype.map.call(
  document.querySelectorAll('details.cut summary'), function(s){ return s.textContent; })});
document.body.appendChild(out);
})();</script></body>"""


def probe(page: str, tmp_path: Path, port: int) -> dict[str, Any]:
    path = tmp_path / "probe.html"
    path.write_text(page.replace("</body>", PROBE, 1), encoding="utf-8")
    dom = browser.dump_dom(path, 5000, *browser.through_proxy(port))
    found = re.search(r'<pre id="probe">(.*?)</pre>', dom, re.DOTALL)
    assert found, dom[-2000:]
    return json.loads(html.unescape(found.group(1)))


@pytest.fixture(scope="module")
def example() -> tuple[Any, str, Any]:
    result = Sanitizer(cut_ids=True).sanitize_file(EXAMPLE)
    return result, render_html(result), parse(result.cuts_sidecar(), "<sidecar>")


def test_every_cut_id_of_the_sidecar_is_on_the_page(example: tuple[Any, str, Any]) -> None:
    _, page, side = example
    assert side.entries
    for cut_id in side.entries:
        assert f'data-cut="{cut_id}"' in page
        assert re.search(rf"chars removed · [c0-9, ]*\b{cut_id}\b", page)


def test_without_ids_the_page_is_as_before() -> None:
    page = render_html(Sanitizer().sanitize_file(EXAMPLE))
    assert "data-cut=" not in page and 'id="cut-' not in page


@needs_chromium
def test_opening_each_cut_shows_the_sidecar_text_and_nothing_is_requested(
        example: tuple[Any, str, Any], tmp_path: Path, recorder: Recorder) -> None:
    _, page, side = example
    seen = probe(page, tmp_path, recorder.port)
    assert set(seen["shown"]) == set(side.entries)
    assert not any(seen["hidden"].values())  # hidden until opened
    for cut_id, entry in side.entries.items():
        if entry["kind"] == "image":
            assert seen["shown"][cut_id] == "(image data, not shown)"  # the page never carries image data
        else:
            assert seen["shown"][cut_id] == entry["text"]
    assert all(re.search(r"· c[0-9]+", s) for s in seen["summaries"])
    assert page_requests(recorder.seen) == []


def as_the_page_shows(text: str) -> str:
    """A text as the DOM holds it: line breaks normalized, lone surrogates and NULs as U+FFFD."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "\ufffd")
    return re.sub("[\ud800-\udfff]", "\ufffd", text)


@needs_chromium
@pytest.mark.parametrize("path", corpus_pick() or [pytest.param(None, marks=pytest.mark.skip(
    reason="../shared/corpus is absent (real transcripts are read in place beside the clone)"))],
    ids=lambda p: p.name if p else "no-corpus")
def test_corpus_pages_show_every_cut_of_their_sidecar(path: Path, tmp_path: Path, recorder: Recorder) -> None:
    result = Sanitizer(cut_ids=True).sanitize_file(path)
    side = parse(result.cuts_sidecar(), str(path))
    seen = probe(render_html(result), tmp_path, recorder.port)
    assert set(seen["shown"]) == set(side.entries)
    for cut_id, entry in side.entries.items():
        if entry["kind"] != "image":
            assert seen["shown"][cut_id] == as_the_page_shows(entry["text"]), cut_id
    assert page_requests(recorder.seen) == []


@needs_chromium
def test_the_screenshot_of_a_page_with_ids_is_not_blank(example: tuple[Any, str, Any], tmp_path: Path) -> None:
    path = tmp_path / "report.html"
    path.write_text(example[1], encoding="utf-8")
    png = browser.screenshot(path, tmp_path / "shot.png", 640, 480)
    assert png_colours(png.read_bytes()) > 40


@needs_chromium
def test_the_recorder_sees_a_request_a_page_makes(tmp_path: Path, recorder: Recorder) -> None:
    """The check above is not vacuous: a page that loads an image and fetches a URL is caught."""
    page = ('<!DOCTYPE html><html><body><img src="http://outside.example.invalid/pixel.png">'
            '<script>fetch("https://api.example.invalid/x").catch(function(){});</script></body></html>')
    probe(page, tmp_path, recorder.port)
    hosts = {host_of(line) for line in page_requests(recorder.seen)}
    assert {"outside.example.invalid", "api.example.invalid"} <= hosts, recorder.seen
