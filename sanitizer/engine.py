"""Apply configured rules to a view: select parts, ask actions for changes, keep the contract.

The engine is the only place that changes parts.  It enforces what no action may break: a
signed thinking block is never edited in place, a change must make the text shorter in tokens,
the latest user message and protected messages are out of scope (redaction alone reaches the
latest user message), and linked copies of an output receive the same treatment as the output
itself (while redaction is on, a copy's own credentials go before any other change to it).
"""

from __future__ import annotations

import dataclasses
import fnmatch
import hashlib
import json
from collections.abc import Collection
from typing import Any

from sanitizer.actions.base import Change, Context
from sanitizer.config import Config, Rule
from sanitizer.model import Part, View
from sanitizer.pairs import Pairs
from sanitizer.report import Cut, RuleStats
from sanitizer.scope import Scopes, compute
from sanitizer.secrets import scan as _secrets
from sanitizer.secrets.contract import follows
from sanitizer.textkit.images import label_of
from sanitizer.textkit.markers import id_room
from sanitizer.textkit.tags import ALWAYS_PROTECTED, find_blocks, outermost
from sanitizer.tokens.counter import WORD_BOUND_ENCODINGS, TokenCounter
from sanitizer.tokens.pretokens import changed_window


def _decoded(text: str) -> str:
    """JSON text with its string escapes decoded (`\\u65e5` → 日), or the text itself."""
    try:
        return json.dumps(json.loads(text), ensure_ascii=False)
    except ValueError:
        return text


class Engine:
    """Runs the active rules of a `Config` over views; reusable and stateless between views."""

    def __init__(self, config: Config, counter: TokenCounter) -> None:
        self.config = config
        self.counter = counter

    def scopes(self, view: View) -> Scopes:
        def count(msg: Any) -> int:
            return sum(self.counter.count_many([p.text for p in view.parts_of(msg)]))

        return compute(view, self.config.keep_recent, self.config.tail_tokens, count)

    def run(self, view: View, stats: dict[str, RuleStats], cuts: list[Cut], clean: Collection[str] = ()) -> Scopes:
        """Run the active rules on `view` (`clean`: texts known to hold no credential)."""
        scopes = self.scopes(view)
        for part in view.parts:
            if part.original is None:
                part.original = part.text
        ctx = Context(view=view, protected_messages=scopes.protected)
        # Protected tag names are known before any rule runs, whether or not a rule selects parts.
        ctx.cache["protected_tags"] = set(self.config.protected_tags)
        # The redaction rule's name while one is active: linked copies are redacted under it.
        ctx.cache["redacting"] = next((r.name for r in self.config.active if r.action.redacts), None)
        ctx.cache["redacted_parts"] = set()
        ctx.cache["clean_texts"] = clean
        pairs = Pairs(view)
        ctx.calls, ctx.results = pairs.first_calls(), pairs.results
        in_scope: dict[tuple[str, bool], list[Part]] = {}  # rules share a few scopes: each is listed once
        for rule in self.config.active:
            key = (rule.scope, rule.action.redacts)
            if (parts := in_scope.get(key)) is None:
                members = scopes.members(rule.scope, with_latest_user=rule.action.redacts)
                parts = in_scope[key] = [p for p in view.parts if p.message in members]
            selected = self._select(rule, parts, ctx)
            if not selected:
                continue
            if rule.action.run_batch is not None:
                changes = rule.action.run_batch(selected, rule.options, ctx)
                items = [(selected[i], ch) for i, ch in sorted(changes.items())]
            else:
                assert rule.action.run is not None
                items = [(p, rule.action.run(p, rule.options, ctx)) for p in selected]
            if rule.action.redacts:  # a copy that follows a scanned part holds no credential of its own
                ctx.cache["redacted_parts"].update(map(id, selected))
            st = stats.setdefault(rule.name, RuleStats())
            for part, change in items:
                if change is not None:
                    self._apply(rule, part, change, ctx, st, cuts, view)
            if rule.action.redacts:
                self._redact_copies(selected, ctx, view, cuts)
        if ctx.cache.get("copy_hits"):
            stats.setdefault(ctx.cache["redacting"], RuleStats()).hits += ctx.cache["copy_hits"]
        return scopes

    @staticmethod
    def _keep_protected(old: str, change: Change, ctx: Context, is_json: bool) -> Change | None:
        """A change that would lose a protected block (`<key_info>` …) gets it appended back.

        Whole-part replacements (digests, thinking placeholders) do not look inside the text;
        this is where "key_info is never cut, whatever else applies" is enforced for them.
        Tool arguments are JSON: compared decoded, and a change losing a block is refused
        (appending would break the JSON).  While redaction is on, blocks are compared and put
        back redacted: a block is kept verbatim except for its credentials, never re-added in clear.
        """
        if "<" not in old:
            return change
        names = sorted(ctx.cache.get("protected_tags") or ALWAYS_PROTECTED)
        kept = "" if change.drop else change.text
        if is_json:
            old, kept = _decoded(old), _decoded(kept)
        # Closed blocks first, then the outermost of them: a closed block inside an unclosed one
        # (`<key_info>a … <key_info>b</key_info>`) is kept too.
        blocks = [old[b.start:b.end] for b in outermost(b for b in find_blocks(old, names) if b.closed)]
        lost = [b for b in blocks if b not in kept]
        if lost and ctx.cache.get("redacting"):
            lost = [r for r in (_secrets.redact(b)[0] for b in lost) if r not in kept]
        if not lost:
            return change
        if is_json:
            return None
        if change.drop:
            return Change(text="\n".join(lost), removed=change.removed, replace=True)
        return dataclasses.replace(change, text="\n".join([change.text, *lost]))

    @staticmethod
    def _select(rule: Rule, parts: list[Part], ctx: Context) -> list[Part]:
        """The parts a rule applies to, of `parts` (those in its scope): live, of its kinds, then
        its roles, tags, tools."""
        kinds = rule.kinds
        out = [p for p in parts if p.kind in kinds and not p.dropped]
        if rule.roles:
            out = [p for p in out if p.role in rule.roles]
        if rule.tags:
            needles = [f"<{t}" for t in rule.tags]
            out = [p for p in out if "<" in p.text and any(n in p.text for n in needles)]
        if rule.tools:
            def tool_of(p: Part) -> str:
                return p.tool or (c.tool if (c := ctx.call_for(p)) else None) or ""

            out = [p for p in out if any(fnmatch.fnmatchcase(tool_of(p), g) for g in rule.tools)]
        return out

    def shrinks(self, old: str, new: str) -> bool:
        """True when `new` has fewer tokens than `old`: exact, encoding only what bounds leave open.

        Only the changed window counts: the head and tail both texts share, up to a place where
        the pre-tokenizer ends a pre-token in both, tokenize alike and cancel out (a cut that
        keeps 4,000 + 1,500 chars is decided on its removed middle and its marker, mostly from
        bounds, so a `--no-tokens` run rarely loads the encoding at all).  Where no exact count
        can be had, an edit the bounds do not prove is not made.
        """
        if len(new) >= len(old):
            return False
        counter = self.counter
        most = counter.at_most(new)
        least = counter.at_least(old, enough=most)
        if least > most:
            return True
        start, old_end, new_end = changed_window(old, new, counter.encoding_name in WORD_BOUND_ENCODINGS)
        old, new = old[start:old_end], new[start:new_end]
        most = counter.at_most(new)
        least = counter.at_least(old, enough=most, fine=True)
        if least > most:
            return True
        if not counter.exact:  # no count can tell (tiktoken not installed): not made, never larger
            return False
        return counter.fewer(new, old, least)

    def _apply(self, rule: Rule, part: Part, change: Change, ctx: Context, st: RuleStats,
               cuts: list[Cut], view: View) -> None:
        old = part.text
        structural = change.replace or change.drop
        if change.text == old and not structural:
            return
        if not structural and part.signed:
            return  # a signed block is kept byte-exact or replaced whole, never edited
        # Protected blocks are put back first, so the size check below sees the text as written.
        if not rule.action.redacts:  # a redaction only replaces values: it never loses a block
            kept = self._keep_protected(old, change, ctx, part.kind == "tool_call")
            if kept is None:
                return
            change = kept
        room = id_room(change.text, change.replace)  # with --cuts: the ids this change will carry
        new = change.text + room if room else change.text
        if part.kind != "image" and not change.drop and not rule.action.always and not self.shrinks(old, new):
            return
        removed = change.removed or (part.meta.get("data") if part.kind == "image" else None) or old
        part.text = change.text
        part.dropped = part.dropped or change.drop
        if change.replace:
            # The whole block is plain, unsigned content from now on, of the kind the adapter will
            # read it back as (a text block; a thinking field stays thinking), so later rules in
            # this run see what a second run would see.
            part.replaced = True
            part.meta["image"] = part.meta.get("image") or part.kind == "image"
            part.meta["replaced_kind"] = part.meta.get("replaced_kind") or part.kind
            part.meta["signed"] = False
            part.kind = part.meta.get("replaced_as") or (
                "text" if part.block is not None and not part.meta.get("field") else part.kind)
        if part.copies:
            self._carry_to_copies(rule, part, old, change, ctx, view, cuts)
        st.hits += 1
        shown = label_of(part.meta) if part.meta.get("image") else old  # an image reads as its label
        st.chars_saved += len(shown) - len(change.text)
        st.pairs.append((shown, change.text))
        cuts.append(Cut(rule=rule.name, record=part.record, line=view.doc.line_of(part.record),
                        path=list(part.block if structural and part.block is not None else part.path),
                        original_chars=len(old), new_chars=len(change.text), removed_chars=len(removed),
                        sha256=hashlib.sha256(removed.encode("utf-8", "surrogatepass")).hexdigest()))

    def _carry_to_copies(self, rule: Rule, part: Part, old: str, change: Change, ctx: Context, view: View,
                         cuts: list[Cut]) -> None:
        texts = part.meta.get("copy_texts") or [None] * len(part.copies)
        redacting = ctx.cache.get("redacting")
        for i, (record, path) in enumerate(part.copies):
            current = texts[i] if texts[i] is not None else view.doc.get(record, path)
            if not isinstance(current, str):
                continue
            if current == old or change.replace or change.drop:
                texts[i] = change.text
                continue
            if redacting and i not in part.meta.setdefault("copies_redacted", set()) and not (
                    id(part) in ctx.cache.get("redacted_parts", ()) and follows(current, old)):
                # A copy's own credentials go before any other change to it: a cut never splits one.
                part.meta["copies_redacted"].add(i)
                new, removed = _secrets.redact(current)
                if removed and new != current:
                    self._copy_cut(redacting, part, i, current, new, "\n".join(removed), view, cuts)
                    ctx.cache["copy_hits"] = ctx.cache.get("copy_hits", 0) + 1
                    current = texts[i] = new
                if rule.action.redacts:
                    continue
            clone = Part(part.kind, part.role, part.message, record, path, current, tool=part.tool, call_id=part.call_id,
                         meta={k: v for k, v in part.meta.items() if k not in ("copy_texts", "copies_redacted")})
            assert rule.action.run is not None or rule.action.run_batch is not None
            if rule.action.run is not None:
                sub = rule.action.run(clone, rule.options, ctx)
            else:
                sub = rule.action.run_batch([clone], rule.options, ctx).get(0)
            # (a redaction marker may be longer than the secret: it applies all the same)
            if sub is not None and not (sub.replace or sub.drop) and (
                    rule.action.always or len(sub.text) < len(current)):
                texts[i] = sub.text
        part.meta["copy_texts"] = texts

    def _redact_copies(self, parts: list[Part], ctx: Context, view: View, cuts: list[Cut]) -> None:
        """Right after redaction, before any cut: each linked copy of the scanned parts that holds
        more than its part gets its own credentials redacted (all copies in one batch)."""
        todo: list[tuple[Part, int, str]] = []
        for part in parts:
            if not part.copies:
                continue
            texts = part.meta.get("copy_texts") or [None] * len(part.copies)
            part.meta["copy_texts"] = texts
            done = part.meta.setdefault("copies_redacted", set())
            for i, (record, path) in enumerate(part.copies):
                current = texts[i] if texts[i] is not None else view.doc.get(record, path)
                if i in done or not isinstance(current, str):
                    continue
                done.add(i)
                if not follows(current, part.text):
                    todo.append((part, i, current))
        for (part, i, current), (new, removed) in zip(todo, _secrets.redact_many([t for *_, t in todo]), strict=True):
            if removed and new != current:
                part.meta["copy_texts"][i] = new
                self._copy_cut(ctx.cache["redacting"], part, i, current, new, "\n".join(removed), view, cuts)
                ctx.cache["copy_hits"] = ctx.cache.get("copy_hits", 0) + 1

    @staticmethod
    def _copy_cut(rule: str, part: Part, i: int, old: str, new: str, removed: str, view: View,
                  cuts: list[Cut]) -> None:
        """The provenance of a credential redacted in a linked copy (a hit of the redaction rule)."""
        record, path = part.copies[i]
        cuts.append(Cut(rule=rule, record=record, line=view.doc.line_of(record), path=list(path),
                        original_chars=len(old), new_chars=len(new), removed_chars=len(removed),
                        sha256=hashlib.sha256(removed.encode("utf-8", "surrogatepass")).hexdigest()))
