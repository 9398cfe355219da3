"""Fidelity: how much `--to text` cuts, and which facts a summary needs it still carries.

    python bench/fidelity.py                  # corpus (../shared/corpus) + generated probes, default pack
    python bench/fidelity.py --preset hermes  # another pack
    python bench/fidelity.py --lost 20        # also print up to 20 lost facts per category
    python bench/fidelity.py --all-packs      # also check that no pack's output is larger than its input

Facts are extracted from the ORIGINAL conversation (read with no rule), with extraction written
here, not borrowed from the code under test; each fact is then looked up in the sanitized text
(`--to text` of the pack), whitespace-normalized.  Categories:

- ask: each text part of the latest user ask, verbatim;
- key_info: the body of every `<key_info>` block;
- constraints: sentences of typed user text with a constraint cue (must, never, always, ...);
- tool calls: each call's tool name and its main target (command, path, URL, query, pattern; for a
  patch, `*** Begin Patch` …, the files it names: its body is code, not a target);
- first error (failed): the first error-looking line (a Traceback's exception line, not its header) (else the first line) of each output whose
  status says it failed (is_error, a non-zero exit code);
- first error (any): the first error-looking line of every output that has one;
- error lines: every distinct error-looking line of every output;
- URLs: URLs in user and assistant text.

Tool output a format carries as user text (`Part.meta["tool_output"]`: Cline results, SWE-agent
and mini-swe-agent observations) counts as an output (its error lines), not as a person's text.

Reduction is in tokens (cl100k_base) of `--to text` of the pack against `--preset none --to text`,
per conversation; "tool-heavy" means 20 tool calls or more.
"""

from __future__ import annotations

import argparse
import datetime
import json
import statistics
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import regex

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from probes import PROBES  # noqa: E402

from sanitizer import Sanitizer  # noqa: E402
from sanitizer.config import pack_names  # noqa: E402
from sanitizer.digest.outputs import decode_output, exit_code_of  # noqa: E402
from sanitizer.model import View  # noqa: E402
from sanitizer.scope import is_user_ask  # noqa: E402
from sanitizer.tokens.counter import DEFAULT_ENCODING, TokenCounter  # noqa: E402
from sanitizer.transcript import strip_ansi, to_text  # noqa: E402

CATEGORIES = ("ask", "key_info", "constraints", "tool calls", "first error (failed)", "first error (any)",
              "error lines", "URLs")
TOOL_HEAVY = 20
FACT_CHARS = 100  # a line fact is looked up by its first 100 normalized chars

CUE = regex.compile(r"(?i)\b(?:must|never|always|don'?t|do not|make sure|prefer|only|avoid|should ?n[o']t|"
                    r"ensure|required?|forbidden|no longer)\b")
SENTENCE_END = regex.compile(r"(?<=[.!?])\s++(?=[A-Z\"'`(])|\n++")
KEY_INFO = regex.compile(r"<key_info>(.*?)</key_info>", regex.DOTALL)
URL = regex.compile(r"https?://[^\s<>\"'`)\]}|\\]++")
ERROR_START = regex.compile(
    r"[ \t>|+]*+(?:"
    r"(?:E[ \t]++)?[\w.]*(?:Error|Exception)(?::|$)|"
    r"\*\* \((?:[A-Z][\w.]*+|exit|throw)\)[ \t]|"
    r"(?i:error|fatal|panic)(?:\[\w+\])?:|"
    r"(?:FAILED|ERROR)\b|"
    r"npm ERR!|"
    r"CategoryInfo[ \t]*+:|"
    r"[\w./\\-]++:\d++(?::\d++)?:[ \t]*+(?:fatal )?error\b)"
)
ERROR_INSIDE = regex.compile(r"(?<![\w.])[A-Z]\w*(?:Error|Exception): ")
EXIT_WORDS = regex.compile(r"(?i)^\s*(?:exit code|\[the command)")
SPACES = regex.compile(r"\s++")
PYTEST_E = regex.compile(r"^E\s++")
_ESCAPE = regex.compile(r'\\(["\\nt])')  # one pass, left to right: `\\n` is a backslash and an n
_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\"}


def norm(text: str) -> str:
    """ANSI codes gone, runs of white space as one space."""
    return SPACES.sub(" ", strip_ansi(text)).strip()


def line_fact(line: str) -> str:
    return norm(PYTEST_E.sub("", line.strip()))[:FACT_CHARS].strip()


@dataclass
class Tally:
    kept: int = 0
    total: int = 0
    lost: list[str] = field(default_factory=list)

    def add(self, ok: bool, fact: str, where: str) -> None:
        self.total += 1
        self.kept += ok
        if not ok:
            self.lost.append(f"{where}: {fact[:140]!r}")

    def pct(self) -> str:
        return f"{100 * self.kept / self.total:.1f}% ({self.kept}/{self.total})" if self.total else "n/a"


@dataclass
class Conversation:
    name: str
    calls: int
    tokens_before: int
    tokens_after: int


def facts(view: View) -> Iterator[tuple[str, str]]:
    """(category, fact) pairs of one original conversation."""
    latest = next((m for m in reversed(view.messages) if is_user_ask(view, m)), None)
    for msg in view.messages:
        parts = [p for p in view.parts_of(msg) if p.kind != "other"]
        for part in parts:
            text = strip_ansi(part.text)
            for m in KEY_INFO.finditer(text):
                if m.group(1).strip():
                    yield "key_info", m.group(1).strip()
            output = "tool_output" in part.meta  # tool output a format carries as user text
            if part.kind == "text" and part.role in ("user", "assistant") and not output:
                for url in dict.fromkeys(u.rstrip(".,;:!?*") for u in URL.findall(text)):
                    yield "URLs", url
            if part.kind == "tool_call":
                yield "tool calls", json.dumps([part.tool or "tool", main_target(part.text)])
            if part.kind == "tool_result" or part.role == "tool" or output:
                yield from output_facts(part.text, part.meta.get("is_error"))
        if msg is latest:
            for part in parts:
                if part.kind == "text" and part.role == "user" and part.text.strip():
                    yield "ask", strip_ansi(part.text).strip()
        if msg.role == "user" and is_user_ask(view, msg):
            for part in parts:
                if part.kind == "text" and part.role == "user":
                    yield from constraint_facts(strip_ansi(part.text))


def constraint_facts(text: str) -> Iterator[tuple[str, str]]:
    for sentence in SENTENCE_END.split(text):
        s = sentence.strip()
        if 8 <= len(s) <= 300 and CUE.search(s):
            yield "constraints", s


PATCH_FILE = regex.compile(r"(?m)^\*\*\* (?:Update|Add|Delete) File: ?(.+?)[ \t\r]*$")


def patch_target(text: str) -> str | None:
    """The files a `*** Begin Patch` text names, as `*** Update File: a` lines, or None."""
    if "*** Begin Patch" not in text:
        return None
    return "\n".join(m.group(0).strip() for m in PATCH_FILE.finditer(text))[:FACT_CHARS] or None


def main_target(args: str) -> str:
    try:
        value = json.loads(args)
    except ValueError:
        return patch_target(args) or args.strip()[:FACT_CHARS]
    if isinstance(value, dict):
        for key in ("command", "cmd", "file_path", "path", "url", "query", "pattern", "file", "filename"):
            v = value.get(key)
            if isinstance(v, list) and v and all(isinstance(x, str) for x in v):
                v = v[-1] if v[0] in ("bash", "sh", "zsh", "powershell", "pwsh") else " ".join(v)
            if isinstance(v, str) and v.strip():
                return patch_target(v) or v.strip()
    return ""


def output_facts(output: str, is_error: Any) -> Iterator[tuple[str, str]]:
    dec = decode_output(output)
    text = dec.text
    code = dec.exit_code if dec.exit_code is not None else exit_code_of(text)
    failed = is_error is True or dec.is_error is True or (code is not None and code != 0)
    lines = [line_fact(x) for x in text.split("\n") if ERROR_START.match(x) or ERROR_INSIDE.search(x)]
    lines = [x for x in dict.fromkeys(lines) if len(x) >= 4]
    if failed:
        first = lines[0] if lines else next(
            (line_fact(x) for x in text.split("\n", 40)[:40] if line_fact(x) and not EXIT_WORDS.match(x)), "")
        if first:
            yield "first error (failed)", first
    if lines:
        yield "first error (any)", lines[0]
    for line in lines:
        yield "error lines", line


def unescaped(text: str) -> str:
    """`text` with the JSON escapes of call arguments and stored outputs undone, left to right
    (`\\\\n` is a backslash and an n, not a line break), for lookups only."""
    return norm(_ESCAPE.sub(lambda m: _ESCAPES[m.group(1)], text))


def present(category: str, fact: str, text: str, flats: tuple[str, str]) -> bool:
    if category == "tool calls":
        name, target = json.loads(fact)
        target = norm(target)[:60].strip()
        return name in text and (not target or any(target in f for f in flats))
    if category == "URLs":
        return fact in text or any(fact in f for f in flats)
    f = norm(fact)
    return any(f in flat for flat in flats)


def measure(name: str, load: Callable[[Sanitizer], Any], plain: Sanitizer, pack: Sanitizer,
            counter: TokenCounter, tallies: dict[str, Tally], rows: list[Conversation]) -> None:
    before = load(plain)
    after = load(pack)
    for k, (v0, v1) in enumerate(zip(before.views, after.views, strict=True)):
        where = name if len(before.views) == 1 else f"{name}#{k}"
        t0, t1 = to_text(v0), to_text(v1)
        flats = (norm(t1), unescaped(t1))
        for category, fact in facts(v0):
            tallies[category].add(present(category, fact, t1, flats), fact, where)
        calls = sum(p.kind == "tool_call" for p in v0.parts)
        n0, n1 = counter.count_many([t0, t1])
        rows.append(Conversation(where, calls, n0, n1))


def reduction(rows: list[Conversation]) -> str:
    if not rows:
        return "n/a"
    med = statistics.median(1 - r.tokens_after / r.tokens_before for r in rows if r.tokens_before)
    total = 1 - sum(r.tokens_after for r in rows) / max(1, sum(r.tokens_before for r in rows))
    return f"median {100 * med:.1f}%, total {100 * total:.1f}% ({len(rows)} conversations)"


def run_group(title: str, items: list[tuple[str, Callable[[Sanitizer], Any]]], preset: str,
              lost: int, counter: TokenCounter) -> list[str]:
    plain = Sanitizer("none", count_tokens=False)
    pack = Sanitizer(preset, count_tokens=False)
    tallies = {c: Tally() for c in CATEGORIES}
    rows: list[Conversation] = []
    for name, load in items:
        try:
            measure(name, load, plain, pack, counter, tallies, rows)
        except Exception as exc:  # a reader that rejects a file is reported, not fatal to the table
            print(f"skipped {name}: {type(exc).__name__}: {exc}", file=sys.stderr)
    heavy = [r for r in rows if r.calls >= TOOL_HEAVY]
    grown = [r.name for r in rows if r.tokens_after > r.tokens_before]
    out = [f"### {title}", "", "| measure | value |", "|---|---|",
           f"| reduction, tool-heavy (≥{TOOL_HEAVY} calls) | {reduction(heavy)} |",
           f"| reduction, all | {reduction(rows)} |",
           f"| outputs larger than input | {len(grown)}{': ' + ', '.join(grown) if grown else ''} |"]
    out += [f"| {c} | {tallies[c].pct()} |" for c in CATEGORIES]
    if lost:
        for c in CATEGORIES:
            for line in tallies[c].lost[:lost]:
                out.append(f"<!-- lost {c}: {line} -->")
    return out + [""]


def corpus_items(corpus: Path = CORPUS) -> list[tuple[str, Callable[[Sanitizer], Any]]]:
    if not corpus.is_dir():
        print(f"corpus not found at {corpus}: corpus table skipped", file=sys.stderr)
        return []
    files = sorted(p for p in corpus.rglob("*") if p.is_file() and p.name != "SOURCES.md")
    return [(f"{p.parent.name}/{p.name}", lambda s, p=p: s.sanitize_file(p)) for p in files]


def probe_items() -> list[tuple[str, Callable[[Sanitizer], Any]]]:
    return [(name, lambda s, make=make: s.sanitize(make())) for name, make in PROBES.items()]


def grown_under_packs(counter: TokenCounter, corpus: Path) -> list[str]:
    plain = Sanitizer("none", count_tokens=False)
    out = []
    for preset in pack_names():
        pack = Sanitizer(preset, count_tokens=False)
        grown = []
        for name, load in corpus_items(corpus) + probe_items():
            try:
                b, a = load(plain), load(pack)
            except Exception:
                continue
            for v0, v1 in zip(b.views, a.views, strict=True):
                n0, n1 = counter.count_many([to_text(v0), to_text(v1)])
                if n1 > n0:
                    grown.append(name)
        out.append(f"- {preset}: {len(grown)} conversations larger than input {sorted(set(grown))}")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--preset", default="default")
    ap.add_argument("--lost", type=int, default=0, help="print up to N lost facts per category")
    ap.add_argument("--corpus", type=Path, default=CORPUS, help="corpus folder (default ../shared/corpus)")
    ap.add_argument("--all-packs", action="store_true", help="check every pack for outputs larger than input")
    args = ap.parse_args(argv)
    counter = TokenCounter(DEFAULT_ENCODING)
    print(f"## Fidelity, preset {args.preset}, {datetime.date.today().isoformat()}", "",
          "`python bench/fidelity.py" + (f" --preset {args.preset}" if args.preset != "default" else "") + "`", "",
          sep="\n")
    print("\n".join(run_group("corpus (../shared/corpus)", corpus_items(args.corpus), args.preset, args.lost, counter)))
    print("\n".join(run_group("generated probes", probe_items(), args.preset, args.lost, counter)))
    if args.all_packs:
        print("\n".join(grown_under_packs(counter, args.corpus)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
