"""The HTML document of a report: every text escaped, no external resource, linear in size."""

from __future__ import annotations

import html
import re

from sanitizer.html.assets import CSS, JS
from sanitizer.html.data import MessageRow, Page, PartRow, reason_of, roles

_SURROGATE = re.compile("[\ud800-\udfff]")


def esc(text: str) -> str:
    """`text` escaped for HTML content and attributes (lone surrogates become U+FFFD)."""
    return html.escape(_SURROGATE.sub("\ufffd", text), quote=True)


def _marked(text: str, spans: list[tuple[int, int]]) -> str:
    """`text` escaped, its kept `<key_info>` blocks wrapped in <mark class="kept">."""
    out: list[str] = []
    at = 0
    for start, end in spans:
        out.append(esc(text[at:start]))
        out.append('<mark class="kept" title="key_info: kept verbatim">' + esc(text[start:end]) + "</mark>")
        at = end
    out.append(esc(text[at:]))
    return "".join(out)


def _removed(text: str, cut_id: str | None) -> str:
    """The text a cut removed, in a <pre> that names its cut id when it has one."""
    attr = f' data-cut="{esc(cut_id)}"' if cut_id else ""
    return f'<pre class="removed"{attr}>{_lead(text)}{esc(text)}</pre>'


def _lead(text: str) -> str:
    """A newline for a <pre> whose text starts with one: HTML drops the first newline after `<pre>`."""
    return "\n" if text.startswith(("\n", "\r")) else ""


def _part(p: PartRow) -> str:
    label = p.kind + (f" · {p.tool}" if p.tool else "")
    changed = p.removed is not None or p.dropped or bool(p.cuts)
    out = [f'<div class="part{" changed" if changed else ""}" data-kind="{esc(p.kind)}">',
           f'<div class="kind">{esc(label)}</div>']
    if p.dropped:
        out.append('<pre class="text dropped">(dropped: the summarizer does not read this part)</pre>')
    else:
        out.append(f'<pre class="text">{_lead(p.text)}{_marked(p.text, p.kept)}</pre>')
    rules = list(dict.fromkeys(c.rule for c in p.cuts))
    if changed:
        why = "; ".join(f"{r}: {reason_of(r)}" for r in rules) or "changed by a rule"
        # a cut in a linked copy (Claude Code's toolUseResult) removes the same text again: not counted twice
        removed = sum(c.removed_chars for c in p.cuts if not c.copy) or sum(c.removed_chars for c in p.cuts)
        name = ", ".join(rules) or "changed"
        body = ("(image data, not shown)" if p.image else p.removed or "")
        ids = " ".join(p.cut_ids)  # `sanitize expand SIDECAR ID` gives the same text back
        out.append(f'<details class="cut" data-rules="{esc(" ".join(rules))}"'
                   + (f' id="cut-{esc(p.cut_ids[0])}" data-cut="{esc(ids)}"' if ids else "")
                   + f'><summary title="{esc(why)}">✂ {esc(name)} · {removed:,} chars removed'
                   + (f' · {esc(", ".join(p.cut_ids))}' if ids else "") + ' · show original</summary>'
                   + _removed(body, p.cut_ids[0] if ids and len(p.cut_ids) > len(p.copies) else None)
                   + "".join(f'<div class="kind">linked copy · {esc(cid)}</div>{_removed(text, cid)}'
                             for cid, text in p.copies) + "</details>")
    out.append("</div>")
    return "".join(out)


def _message(m: MessageRow, top: int, unit: str) -> str:
    badges = []
    if m.latest:
        badges.append('<span class="badge kept" title="the latest user ask is always kept verbatim">'
                      "latest ask · kept</span>")
    if m.has_kept:
        badges.append('<span class="badge kept" title="&lt;key_info&gt; blocks are never cut">key_info · kept</span>')
    if m.injected:
        badges.append('<span class="badge inj">injected</span>')
    before = 100 * m.before / top if top else 0
    after = 100 * m.after / top if top else 0
    classes = "msg" + (" latest" if m.latest else "") + (" haskept" if m.has_kept else "")
    head = (f'<div class="head"><span class="role">{esc(m.role)}</span><span>#{m.index}</span>{"".join(badges)}'
            f'<span class="bar" title="{m.before:,} → {m.after:,} {unit}"><i style="width:{before:.2f}%"></i>'
            f'<b style="width:{after:.2f}%"></b></span><span>{m.before:,} → {m.after:,} {unit}</span></div>')
    parts = "".join(_part(p) for p in m.parts)
    return (f'<section class="{classes}" id="c{m.conversation}m{m.index}" data-role="{esc(m.role)}" '
            f'data-rules="{esc(" ".join(m.rules))}" data-before="{m.before}" data-after="{m.after}">'
            f"{head}{parts}</section>")


def _summary(page: Page) -> str:
    t = page.totals
    if t["tokens_before"] is not None:
        b, a = t["tokens_before"], t["tokens_after"] or 0
        size = f'tokens {b:,} → {a:,} ({100 * (b - a) / b if b else 0:.1f}% saved, {esc(str(t["encoding"]))})'
    else:
        b, a = t["chars_before"], t["chars_after"]
        size = f"chars {b:,} → {a:,} ({100 * (b - a) / b if b else 0:.1f}% saved)"
    return (f'{esc(str(t["source"]))} · {esc(str(t["format"]))} · preset {esc(str(t["preset"]))} · '
            f'{t["messages"]:,} messages · {t["cuts"]:,} cuts · {size}')


def _rules_table(page: Page) -> str:
    tokens = any(r[3] is not None for r in page.rules)
    head = "<tr><th>rule</th><th>hits</th><th>chars saved</th>" + ("<th>tokens saved</th>" if tokens else "") + "</tr>"
    rows = []
    for name, hits, chars, toks in page.rules:
        cells = f'<td title="{esc(reason_of(name))}">{esc(name)}</td><td>{hits:,}</td><td>{chars:,}</td>'
        if tokens:
            cells += f"<td>{(toks or 0):,}</td>"
        rows.append(f'<tr data-rule="{esc(name)}">{cells}</tr>')
    if not rows:
        rows.append('<tr><td colspan="4">no rule changed anything</td></tr>')
    return f'<table id="rules">{head}{"".join(rows)}</table>'


def _elsewhere(page: Page) -> str:
    if not page.elsewhere:
        return ""
    rows = "".join(f'<tr><td title="{esc(reason_of(rule))}">{esc(rule)}</td><td>{"" if line is None else line}</td>'
                   f"<td>{esc(path)}</td><td>{chars:,}</td></tr>" for rule, line, path, chars in page.elsewhere)
    return ('<h2 style="font-size:14px;margin:14px 0 6px">cuts outside the messages</h2>'
            f'<table id="elsewhere"><tr><th>rule</th><th>line</th><th>path</th><th>chars</th></tr>{rows}</table>')


def _tools(page: Page) -> str:
    boxes = "".join(f'<label><input type="checkbox" data-role="{esc(r)}" checked> {esc(r)}</label>'
                    for r in roles(page.messages))
    options = "".join(f'<option value="{esc(name)}">cut by {esc(name)}</option>' for name, *_ in page.rules)
    return (f'<div class="tools">{boxes}<select id="rule"><option value="">all messages</option>'
            f'<option value="*">any cut</option>{options}</select><span id="shown"></span>'
            f'<button id="theme" type="button">theme: auto</button></div>')


def render(page: Page) -> str:
    """The whole document of `page`."""
    top = max((max(m.before, m.after) for m in page.messages), default=0)
    many = len({m.conversation for m in page.messages}) > 1
    out: list[str] = []
    for m in page.messages:
        if many and m.index == 0:  # a dataset holds many conversations: each gets a heading
            out.append(f'<h2 class="conv">conversation {m.conversation + 1}</h2>')
        out.append(_message(m, top, page.unit))
    body = "\n".join(out)
    legend = (f'<p class="sum">bars: <span style="color:var(--mut)">grey</span> = {page.unit} before, '
              f'<span style="color:var(--after)">blue</span> = after; an orange edge marks a changed part.</p>')
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            '<meta name="viewport" content="width=device-width,initial-scale=1">'
            f"<title>{esc(page.title)}</title><style>{CSS}</style></head><body>"
            f'<header><h1>{esc(page.title)}</h1><div class="sum">{_summary(page)}</div>{_tools(page)}</header>'
            f'<main><div id="messages">\n{body}\n</div><aside><h2 style="font-size:14px;margin:0 0 6px">'
            f"totals per rule</h2>{_rules_table(page)}{_elsewhere(page)}{legend}</aside></main>"
            f"<script>{JS}</script></body></html>\n")
