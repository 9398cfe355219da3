"""sanitizer: rule-based, copy-safe cleaning of LLM-agent conversations before summarization."""

from __future__ import annotations

from sanitizer.config import ConfigError
from sanitizer.document.loader import InputError
from sanitizer.formats import FormatError
from sanitizer.pipeline import Result, Sanitizer, fit, read_conversations, sanitize
from sanitizer.summarize import summarize_with_fallback
from sanitizer.summary.from_input import fallback_summary
from sanitizer.validate import validate

__version__ = "0.1.0"

__all__ = ["ConfigError", "FormatError", "InputError", "Result", "Sanitizer", "__version__",
           "fallback_summary", "fit", "read_conversations", "sanitize", "summarize_with_fallback",
           "validate"]
