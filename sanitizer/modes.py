"""The modules of the modes besides the plain copy, imported when a run first asks for one.

Budget mode (its stages and turn-drop marker, which writes a summary), the fallback summary and
the HTML page bring in a third of the package; a plain copy needs none of them, so the pipeline
and the run job look them up here (module `__getattr__`, keyed by name) and pay for a mode's
import only when that mode runs.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the real dependencies, for readers, type checkers and the import-loop tests
    from sanitizer.budget.fit import Fitting, check_budget, fit_views, measure, measured_texts
    from sanitizer.html import render_html
    from sanitizer.summary.from_input import fallback_summaries

MODULES = {"Fitting": "sanitizer.budget.fit", "check_budget": "sanitizer.budget.fit",
           "fit_views": "sanitizer.budget.fit", "measure": "sanitizer.budget.fit",
           "measured_texts": "sanitizer.budget.fit", "render_html": "sanitizer.html",
           "fallback_summaries": "sanitizer.summary.from_input"}

__all__ = ["Fitting", "check_budget", "fallback_summaries", "fit_views", "measure", "measured_texts", "render_html"]


def __getattr__(name: str) -> Any:
    module = MODULES.get(name)
    if module is None:
        raise AttributeError(f"module 'sanitizer.modes' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
