"""The one grammar of durations people type (docs/decisions/0039).

Every duration option of the command line (``find-slot --duration``, ``worker --lease``,
``propose --expires-in``, ``serve --body-timeout``...) and the ``duration``, ``granularity``
and ``buffer`` fields of the service and MCP find-slot bodies read their text here. Forms,
case-insensitive, surrounding blanks ignored:

* a plain number of seconds: ``90``, ``0.5``;
* numbers with units, largest unit first, each unit at most once: ``d`` (86 400 s), ``h``
  (3 600 s), ``m`` (60 s), ``s``, ``ms`` (0.001 s): ``30s``, ``10m``, ``2h``, ``7d``,
  ``1h30m``, ``1m30s``, ``500ms``, ``1.5h``;
* an ISO 8601 duration with weeks, days, hours, minutes and seconds (``PT1H30M``, ``P1W``,
  ``P1DT2H``, ``PT0.5S``), read by pydantic's ``timedelta`` parser. Years and months
  (``P1Y``, ``P1M``) have no fixed length and are refused.

A number has at most 30 digits before and 9 after its decimal point; no sign, no exponent.
The value is at most :data:`cerebri.cpir.MAX_DURATION_SECONDS` (the CPIR limit). Whether
zero, fractions of a second or long values make sense is the caller's rule, not the
grammar's. No maintained library reads the ``1h30m`` form (ISO 8601 parsers need ``PT``),
hence the small pattern here (docs/decisions/0008).
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Final

from cerebri.cpir.scalars import MAX_DURATION_SECONDS

__all__ = ["DURATION_EXAMPLES", "read_seconds"]

DURATION_EXAMPLES: Final = "write e.g. 90 (seconds), 30s, 10m, 1h30m, 2d or PT1H30M"
"""The hint every unreadable duration's message ends with."""

_NUMBER: Final = r"(\d{1,30}(?:\.\d{1,9})?)"
_UNITS: Final = (
    ("d", Decimal(86_400)),
    ("h", Decimal(3_600)),
    ("m", Decimal(60)),
    ("s", Decimal(1)),
    ("ms", Decimal("0.001")),
)
_PLAIN: Final = re.compile(_NUMBER)
_HUMAN: Final = re.compile("".join(f"(?:{_NUMBER}{unit})?" for unit, _ in _UNITS))


def read_seconds(text: str) -> Decimal:
    """The seconds ``text`` stands for (module doc), exactly, at least 0.

    Raises ``ValueError`` whose message names the text: ``cannot read duration '<text>';
    write e.g. ...`` for any other form, ``... uses years or months ...`` for ``P1Y``/``P1M``,
    ``... is longer than the maximum ...`` above ``MAX_DURATION_SECONDS``.
    """
    value = text.strip().lower()
    if _PLAIN.fullmatch(value):
        seconds = Decimal(value)
    elif value.startswith("p"):
        seconds = _iso_seconds(text, value.upper())
    else:
        found = _HUMAN.fullmatch(value)
        if found is None or not any(found.groups()):
            raise _unreadable(text)
        seconds = sum(
            (
                Decimal(number) * size
                for number, (_, size) in zip(found.groups(), _UNITS, strict=True)
                if number
            ),
            Decimal(0),
        )
    if seconds > MAX_DURATION_SECONDS:
        raise ValueError(
            f"duration {text!r} is longer than the maximum, {MAX_DURATION_SECONDS} s "
            f"({MAX_DURATION_SECONDS // 86_400} days, the CPIR limit)"
        )
    return seconds


def _unreadable(text: str) -> ValueError:
    return ValueError(f"cannot read duration {text!r}; {DURATION_EXAMPLES}")


def _iso_seconds(text: str, value: str) -> Decimal:
    from datetime import timedelta  # noqa: PLC0415 - pydantic only for the ISO form

    from pydantic import TypeAdapter, ValidationError  # noqa: PLC0415

    date_part = value.partition("T")[0]
    if "Y" in date_part or "M" in date_part:
        raise ValueError(
            f"duration {text!r} uses years or months, which have no fixed length; "
            "write weeks or days (P1W, P30D)"
        )
    if "-" in value or "+" in value or "," in value:
        raise _unreadable(text)
    try:
        delta = TypeAdapter(timedelta).validate_python(value)
    except (ValidationError, OverflowError):
        raise _unreadable(text) from None
    whole = Decimal(delta.days * 86_400 + delta.seconds)
    return whole + Decimal(delta.microseconds) / Decimal(1_000_000)
