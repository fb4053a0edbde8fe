"""Duration options on the command line, one rule for all (docs/decisions/0039).

Every option whose value is a duration (metavar ``DURATION``) reads its text with the one
grammar of :mod:`cerebri.durations` (``90`` seconds, ``30s``, ``10m``, ``1h30m``, ``2d``,
``PT1H``...) and then checks its own range here, before the command does anything else.
Both refusals are :class:`~cerebri.errors.CerebriError` ``input.invalid_option`` with the
message ``"<option>: <reason>"``, the form find-slot's options have always used
(:mod:`cerebri.calendars.slot_options`), so a bad form reads the same on every command.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Final

from cerebri.durations import read_seconds
from cerebri.errors import CerebriError

__all__ = ["DURATION_FORMS", "parse_duration"]

DURATION_FORMS: Final = "seconds, or e.g. 30s, 10m, 1h30m, 2d"
"""What every duration option's help says it takes (the unit: seconds)."""


def _shown(seconds: Decimal) -> str:
    """``seconds`` in the largest unit it fills exactly: ``86400`` → ``1d``."""
    for unit, size in (("d", 86_400), ("h", 3_600), ("m", 60)):
        if seconds >= size and seconds % size == 0:
            return f"{seconds // size}{unit}"
    return f"{seconds.normalize():f}s"


def parse_duration(
    text: str,
    *,
    option: str,
    minimum: Decimal | int = 0,
    above_minimum: bool = False,
    maximum: Decimal | int | None = None,
    whole: bool = False,
) -> Decimal:
    """The seconds of option ``option``'s ``text`` (:mod:`cerebri.durations`), exactly.

    The option's own range: at least ``minimum`` (more than it with ``above_minimum``), at
    most ``maximum`` when given, a whole number of seconds with ``whole``. Raises
    :class:`~cerebri.errors.CerebriError` ``input.invalid_option``, message
    ``"<option>: <reason>"``, for text the grammar cannot read and for a value out of range.
    """
    try:
        seconds = read_seconds(text)
    except ValueError as error:
        raise CerebriError(f"{option}: {error}", code="input.invalid_option") from None
    low = Decimal(minimum)
    too_low = seconds <= low if above_minimum else seconds < low
    too_high = maximum is not None and seconds > maximum
    if too_low or too_high or (whole and seconds != seconds.to_integral_value()):
        lower = f"more than {_shown(low)}" if above_minimum else f"at least {_shown(low)}"
        upper = "" if maximum is None else f" and at most {_shown(Decimal(maximum))}"
        kind = " whole seconds," if whole else ""
        raise CerebriError(
            f"{option}: duration {text!r} is out of range; it takes{kind} {lower}{upper}",
            code="input.invalid_option",
        )
    return seconds
