"""sanitizer: rule-based, copy-safe cleaning of LLM-agent conversations before summarization."""

from __future__ import annotations

from .api import Result, Sanitizer, read_conversations, sanitize
from .config import ConfigError
from .fallback import fallback_summary, summarize_with_fallback
from .fit import fit
from .formats import FormatError
from .loader import InputError
from .validate import validate

__version__ = "0.1.0"

__all__ = ["ConfigError", "FormatError", "InputError", "Result", "Sanitizer", "__version__",
           "fallback_summary", "fit", "read_conversations", "sanitize", "summarize_with_fallback",
           "validate"]
