"""The modes a job runs besides the plain copy, imported when a run first asks for one.

Budget mode (with its summary marker), the fallback summary and the HTML page bring in a third
of the package; a plain copy needs none of them, so a job looks them up here (module
`__getattr__`, keyed by name) and pays for a mode's import only when that mode runs.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the real dependencies, for readers, type checkers and the import-loop test
    from sanitizer.budget.fit import fit_document, repair_result
    from sanitizer.html import render_html
    from sanitizer.summary.from_input import fallback_summaries

MODULES = {"fit_document": "sanitizer.budget.fit", "repair_result": "sanitizer.budget.fit",
           "render_html": "sanitizer.html", "fallback_summaries": "sanitizer.summary.from_input"}

__all__ = ["fallback_summaries", "fit_document", "render_html", "repair_result"]


def __getattr__(name: str) -> Any:
    module = MODULES.get(name)
    if module is None:
        raise AttributeError(f"module 'sanitizer.run.modes' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
