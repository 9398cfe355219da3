"""Sentence-level text helpers: splitting, and spotting constraints, decisions and asks.

All patterns are plain alternations over bounded character classes (no nested quantifiers), so
each scan is linear in the text.  What they can lose: a sentence hard-wrapped over two lines is
seen as two sentences, and `e.g.`-style abbreviations split a sentence early.
"""

from __future__ import annotations

import re

FENCE_RE = re.compile(r"^[ \t]*(`{3,}|~{3,})[^\n]*\n.*?(?:^[ \t]*\1[ \t]*$|\Z)", re.S | re.M)
BULLET_RE = re.compile(r"^\s*(?:[-*+•>]|\d{1,3}[.)])\s+(?:\[[ xX]\]\s+)?")
SPLIT_RE = re.compile(r"(?<=[.!?])\s+")
SPACE_RE = re.compile(r"\s+")

CONSTRAINT_RE = re.compile(
    r"\b(?:must(?:\s+not)?|mustn['’]t|never|always|don['’]t|do\s+not|make\s+sure|prefer(?:s|red)?|avoid)\b",
    re.I,
)
# "I don't know", "it doesn't", "that must be …" report a fact, not a rule for the agent.
NOT_A_RULE_RE = re.compile(
    r"\b(?:I|we|it|that|this|they|he|she|which|who|there)\s+(?:really\s+|just\s+|still\s+)?"
    r"(?:don['’]t|do\s+not|must|must\s+not)\b",
    re.I,
)
DECISION_RE = re.compile(
    r"\b(?:will\s+use|['’]ll\s+use|decided|decide\s+to|instead\s+of|switch(?:ed|ing)?\s+to|"
    r"chose|choosing|going\s+with|go\s+with|opted|settled\s+on)\b",
    re.I,
)
IMPERATIVE_START_RE = re.compile(
    r"^(?:please|pls|can\s+you|could\s+you|would\s+you|will\s+you|let['’]?s|i\s+want\s+you\s+to|"
    r"i\s+need\s+you\s+to|i['’]d\s+like\s+you\s+to|help\s+me|"
    r"add|adjust|analy[sz]e|apply|build|change|check|clean|commit|compare|configure|continue|convert|"
    r"copy|create|debug|delete|deploy|describe|document|download|draft|edit|enable|disable|explain|"
    r"export|extract|find|finish|fix|generate|get|implement|improve|install|investigate|list|look|"
    r"make|merge|migrate|move|open|optimi[sz]e|plan|port|push|read|rebase|refactor|remove|rename|"
    r"replace|research|restore|resume|review|revert|rewrite|run|search|set|setup|show|simplify|"
    r"split|start|stop|summari[sz]e|tell|test|try|update|upgrade|use|verify|write)\b",
    re.I,
)


def one_line(text: str) -> str:
    """Whitespace runs (newlines included) collapsed to one space, ends stripped."""
    return SPACE_RE.sub(" ", text).strip()


def clip(text: str, limit: int) -> str:
    """`text` on one line, cut to at most `limit` chars with a trailing `…`."""
    text = one_line(text)
    if len(text) <= limit:
        return text
    return text[: max(limit - 1, 0)].rstrip() + "…"


def strip_code(text: str) -> str:
    """The text without fenced code blocks (pasted code and logs are not prose)."""
    if "```" not in text and "~~~" not in text:
        return text
    return FENCE_RE.sub("\n", text)


def sentences(text: str) -> list[str]:
    """Prose sentences of `text`: code fences dropped, one list item or line at a time."""
    out: list[str] = []
    for line in strip_code(text).splitlines():
        line = BULLET_RE.sub("", line).strip()
        if not line or line.startswith(("#", "|", "```")):
            continue
        for piece in SPLIT_RE.split(line):
            piece = one_line(piece)
            if piece:
                out.append(piece)
    return out


def is_constraint(sentence: str) -> bool:
    if not CONSTRAINT_RE.search(sentence):
        return False
    # Keep the sentence if any constraint word in it is not merely part of a reported fact.
    return any(not _inside_fact(sentence, m.start()) for m in CONSTRAINT_RE.finditer(sentence))


def _inside_fact(sentence: str, start: int) -> bool:
    return any(m.start() <= start < m.end() for m in NOT_A_RULE_RE.finditer(sentence))


def is_decision(sentence: str) -> bool:
    return bool(DECISION_RE.search(sentence))


def is_question(sentence: str) -> bool:
    return sentence.rstrip("\"')]*_ ").endswith("?")


def is_imperative(sentence: str) -> bool:
    return bool(IMPERATIVE_START_RE.match(sentence.lstrip("\"'*_ ")))


def asks_in(text: str, limit: int = 3) -> list[str]:
    """The asks in one user message: its questions, else its first imperative sentence."""
    sents = sentences(text)
    questions = [s for s in sents if is_question(s)]
    if questions:
        return questions[:limit]
    for i, sentence in enumerate(sents):
        if is_imperative(sentence):
            # "Please fix it." says little alone: keep the sentence before it as context.
            if len(sentence) < 40 and i > 0:
                return [f"{sents[i - 1]} {sentence}"]
            return [sentence]
    return []


def first_sentence(text: str, min_chars: int = 25) -> str:
    """The first prose sentence of a reply (markdown emphasis and headings skipped); a short one
    ("Done!") is joined by the next so the answer says something."""
    out = ""
    for sentence in sentences(text):
        plain = sentence.replace("**", "").strip()
        if plain:
            out = f"{out} {plain}" if out else plain
            if len(out) >= min_chars:
                break
    return out or one_line(text)


def norm_key(text: str) -> str:
    """Dedupe key: case-folded, whitespace collapsed, trailing punctuation ignored."""
    return one_line(text).casefold().rstrip(".!;: ")
