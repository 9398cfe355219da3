"""What one run of the command asks for, as plain data the run layer reads (no click here)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sanitizer.errors import UsageError
from sanitizer.tokens.counter import DEFAULT_ENCODING

__all__ = ["RunOptions", "UsageError"]


@dataclass
class RunOptions:
    """Everything a worker needs to process one input (picklable for --jobs)."""

    preset: str = "default"
    user_config: dict[str, Any] | None = None
    user_source: str = "<config>"
    enable: tuple[str, ...] = ()
    disable: tuple[str, ...] = ()
    keep_recent: int | None = None
    encoding: str = DEFAULT_ENCODING
    count_tokens: bool = True
    format: str | None = None
    to: str = "same"
    mode: str = "copy"  # copy | check | summary
    budget: int | None = None
    session: str | None = None
    repair_pairs: str = "report"
    html: str | None = None  # --html: write the report page of the (single) input here
    cuts: str | None = None  # --cuts: the sidecar file (one input) or folder (`cuts_dir`)
    cuts_dir: bool = False  # --cuts names a folder: one `<input name>.cuts.jsonl` per input
    cuts_secrets: bool = False  # --cuts-include-secrets: the sidecar keeps credentials
    extra: dict[str, Any] = field(default_factory=dict)
