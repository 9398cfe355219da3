"""Sanitize datasets of conversations on an existing engine: Hugging Face `datasets` or Ray Data.

`SanitizeColumn` is the picklable, deterministic callable both engines call (`row`); `hf` and
`ray_data` read dataset JSONL lines byte for byte and run it (`pip install 'sanitizer[datasets]'`
or `'sanitizer[ray]'`); `sanitize FILE --engine datasets|ray --num-proc N` (in `sanitizer.cli.engines`) runs it from the command line.
Importing this package needs neither engine.
"""

from __future__ import annotations

from sanitizer.datasets.row import REPORT_COLUMNS, SanitizeColumn

ENGINES = ("datasets", "ray")

__all__ = ["ENGINES", "REPORT_COLUMNS", "SanitizeColumn"]
