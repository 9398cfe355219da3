"""Numbers JSON has no finite float for (`1e999`, `NaN`, `Infinity`, `-Infinity`), kept as written.

Python reads them as `inf`/`nan` and would write them back as `Infinity`/`NaN` (invalid JSON for
`1e999`, and a change either way).  When the raw text may hold one (`may_hold`, a cheap scan),
the reader keeps each as a `RawNumber`: a float with its literal text, which `dumps` writes back
verbatim.  Text without them pays only for that scan.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Callable
from typing import Any

# An exponent of three digits or more can overflow a float; the constants are Python's.
_MAY_HOLD = re.compile(r"Infinity|NaN|[0-9][eE][+]?+[0-9]{3}")


class RawNumber(float):
    """A float read from a literal JSON cannot write back as such; `text` is that literal."""

    text: str

    def __new__(cls, text: str) -> RawNumber:
        obj = super().__new__(cls, float(text))
        obj.text = text
        return obj

    def __reduce__(self) -> tuple[Any, ...]:
        return (RawNumber, (self.text,))

    def __deepcopy__(self, memo: dict) -> RawNumber:
        return self


def may_hold(text: str) -> bool:
    """True when `text` may hold a non-finite number (a string holding `NaN` also says yes)."""
    return _MAY_HOLD.search(text) is not None


def _float(text: str) -> float:
    value = float(text)
    return RawNumber(text) if math.isinf(value) else value


HOOKS: dict[str, Callable[[str], Any]] = {"parse_float": _float, "parse_constant": RawNumber}
decoder = json.JSONDecoder(**HOOKS)


def dumps(dump: Callable[[Any], str], value: Any) -> str:
    """`dump(value)`, with every RawNumber in `value` written as its literal text."""
    text = dump(value)
    if "Infinity" not in text and "NaN" not in text:
        return text
    raws: list[str] = []
    tag = os.urandom(8).hex()  # (the `secrets` module's import is 5-10 ms of every start)

    def swap(node: Any) -> Any:
        if isinstance(node, dict):
            return {k: swap(v) for k, v in node.items()}
        if isinstance(node, list | tuple):
            return [swap(v) for v in node]
        if isinstance(node, RawNumber):
            raws.append(node.text)
            return f"\x00{tag}:{len(raws) - 1}\x00"
        return node

    swapped = swap(value)
    if not raws:
        return text
    marker = re.compile(r'"\\u0000' + tag + r':([0-9]++)\\u0000"')
    return marker.sub(lambda m: raws[int(m.group(1))], dump(swapped))
