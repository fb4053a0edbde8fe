"""Durations on the command line: ``30`` or ``30s`` (seconds), ``500ms``, ``2m``, ``1h``.

A number (whole or decimal, no sign, no exponent) followed by an optional unit: ``ms``
milliseconds, ``s`` seconds (the default), ``m`` minutes, ``h`` hours. Anything else is
:class:`~cerebri.execution.ExecutionError` ``execution.invalid_argument``.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Final

from cerebri.execution.errors import ExecutionError

__all__ = ["parse_duration"]

_PATTERN: Final = re.compile(r"(\d{1,9}(?:\.\d{1,9})?)(ms|s|m|h)?")
_SECONDS_PER_UNIT: Final = {
    "ms": Decimal("0.001"),
    "s": Decimal(1),
    "m": Decimal(60),
    "h": Decimal(3600),
}


def parse_duration(text: str, *, option: str) -> float:
    """``text`` in seconds. ``option`` names the option in the error (``--lease``)."""
    found = _PATTERN.fullmatch(text.strip())
    if found is None:
        raise ExecutionError(
            f"{option} takes a duration such as 30, 30s, 500ms, 2m or 1h, not {text!r}",
            code="execution.invalid_argument",
        )
    number, unit = found.groups()
    return float(Decimal(number) * _SECONDS_PER_UNIT[unit or "s"])
