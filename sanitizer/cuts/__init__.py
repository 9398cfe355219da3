"""Recoverable cuts: a short id per cut in the output, and a sidecar that gives each cut's text back.

`Sanitizer(cut_ids=True)` numbers the cuts of a run (`c1`, `c2`, … in document order) and writes
each id into the markers and placeholders it left; `Result.expand(id)` and `sanitize expand
SIDECAR ID` return the text before the cut, byte-exact (redacted unless secrets are asked for).
"""

from sanitizer.cuts.ids import RecoverableCut, assign, id_width
from sanitizer.cuts.sidecar import Sidecar, digest, dumps, parse, records, to_bytes

__all__ = ["RecoverableCut", "Sidecar", "assign", "digest", "dumps", "id_width", "parse", "records", "to_bytes"]
