"""sanitizer: rule-based, copy-safe cleaning of LLM-agent conversations before summarization.

The names below load their modules on first use (module `__getattr__`), so that `import
sanitizer` (and the command line, which imports it first) pays only for what a run needs: budget
mode, the fallback summary and the pipeline are imported when first asked for.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from sanitizer.errors import ConfigError, FormatError, InputError
from sanitizer.validate import validate  # eager: `sanitizer.validate` is also the module's name

if TYPE_CHECKING:
    from sanitizer.pipeline import Sanitizer, fit, read_conversations, sanitize
    from sanitizer.result import Result
    from sanitizer.summarize import summarize_with_fallback
    from sanitizer.summary.from_input import fallback_summary

__version__ = "0.1.0"

_LAZY = {"fit": "sanitizer.pipeline", "Result": "sanitizer.result", "Sanitizer": "sanitizer.pipeline",
         "read_conversations": "sanitizer.pipeline", "sanitize": "sanitizer.pipeline",
         "fallback_summary": "sanitizer.summary.from_input", "summarize_with_fallback": "sanitizer.summarize"}

__all__ = ["ConfigError", "FormatError", "InputError", "Result", "Sanitizer", "__version__",
           "fallback_summary", "fit", "read_conversations", "sanitize", "summarize_with_fallback",
           "validate"]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'sanitizer' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later look-ups find it directly
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
