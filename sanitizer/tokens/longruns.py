"""Exact counts through long runs: a giant pre-token cut where both sides still count alike.

tiktoken's BPE is super-linear inside one giant pre-token (about 40 s for a 5 MB CJK run), so
such runs are cut every `RUN_STEP` chars (`run_cuts`) at places where both halves still
pre-tokenize as the whole did, and each cut is kept only where the last token before it and the
first token after it are *compatible* (BPE of their two byte strings gives back exactly those
two tokens).  A sequence of tokens whose neighbours are all compatible is the BPE encoding of its
bytes, so the counts add up exactly; a cut that never becomes compatible within its window is
dropped (exact, just slower).  `tests/test_fast_paths.py` checks all of this against unsplit
encoding with hypothesis.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import tiktoken

__all__ = ["RUN_SLACK", "LongRuns"]

# How far (chars) a run cut may move right to find a compatible token pair before it is dropped
# (more than the longest token, so a run of one repeated character always lines up).
RUN_SLACK = 256


class LongRuns:
    """The long-run half of `TokenCounter`: it brings the encoding, the summaries and the threads."""

    enc: tiktoken.Encoding
    threads: int
    _compatible_memo: dict[tuple[int, int], bool]
    _summaries: Callable[[list[str]], list[tuple[int, int, int]]]

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
