"""``RRULE`` checks and counted rule expansion (RFC 5545 section 3.3.10).

:func:`check_rule` refuses rules that cannot be evaluated; :func:`count_instances` walks a
rule instance by instance with ``dateutil`` (the engine ``recurring-ical-events`` uses) and
charges every generated instance to a counter, so expansion work is bounded by a count,
never by a clock. ``UNTIL`` is applied by the walk itself (with one day of slack, so the
count never under-estimates what the recurrence engine generates later): ``dateutil``
refuses an ``UNTIL`` whose type differs from ``DTSTART``'s, which real files often have
(``issue_4``: a date ``UNTIL`` with a zoned ``DTSTART``).

A rule whose parts never match (``FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30``) generates no
instance and costs nothing here; ``dateutil`` stops such a search at the year 9999.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from typing import Any, Final

from dateutil.rrule import rrulestr  # type: ignore[import-untyped]  # dateutil ships no types
from icalendar.prop import vRecur

__all__ = [
    "FREQUENCIES",
    "UNSUPPORTED_PARTS",
    "check_rule",
    "count_instances",
    "is_empty_rule",
    "plain_gregorian",
    "rule_text",
    "unsupported_part",
]

FREQUENCIES: Final = frozenset(
    {"SECONDLY", "MINUTELY", "HOURLY", "DAILY", "WEEKLY", "MONTHLY", "YEARLY"}
)
_SLACK: Final = timedelta(days=1)
_LAST: Final = datetime.max.replace(tzinfo=UTC)
_BY_RANGES: Final = {
    "BYSECOND": (0, 60, True),
    "BYMINUTE": (0, 59, True),
    "BYHOUR": (0, 23, True),
    "BYMONTH": (1, 12, True),
    "BYMONTHDAY": (1, 31, False),
    "BYYEARDAY": (1, 366, False),
    "BYWEEKNO": (1, 53, False),
    "BYSETPOS": (1, 366, False),
}
"""Allowed values per rule part (RFC 5545 section 3.3.10): ``(low, high, positive_only)``;
the signed parts also accept ``-high..-low``."""


UNSUPPORTED_PARTS: Final = {
    "RSCALE": "RSCALE (RFC 7529 non-Gregorian recurrence)",
    "SKIP": "SKIP (RFC 7529 handling of invalid dates)",
}
"""Valid rule parts cerebri does not implement (``ics.unsupported``, not
``ics.invalid_rrule``): the recurrence engine would reject or misread them."""


def unsupported_part(rule: object) -> str | None:
    """What ``rule`` uses that is valid but not implemented (:data:`UNSUPPORTED_PARTS`)."""
    if not isinstance(rule, vRecur):
        return None
    for part, text in UNSUPPORTED_PARTS.items():
        if part in rule:
            return text
    return None


def _upper_texts(values: object) -> list[str]:
    items = values if isinstance(values, list) else [values]
    return [str(getattr(item, "value", item)).upper() for item in items]


def plain_gregorian(rule: object) -> object:
    """``rule`` without ``RSCALE=GREGORIAN`` and ``SKIP=OMIT`` when those are all it
    says of RFC 7529, else ``rule`` itself.

    RFC 7529 section 3.1: ``SKIP`` defaults to ``OMIT`` (invalid dates are left out, as
    RFC 5545 does), so a Gregorian ``RSCALE`` with no ``SKIP`` or ``SKIP=OMIT`` is a plain
    RFC 5545 rule; the value is compared case-insensitively. Other ``RSCALE`` or ``SKIP``
    values are kept (and refused by :func:`unsupported_part`).
    """
    if not isinstance(rule, vRecur) or "RSCALE" not in rule:
        return rule
    if _upper_texts(rule["RSCALE"]) != ["GREGORIAN"]:
        return rule
    if "SKIP" in rule and _upper_texts(rule["SKIP"]) != ["OMIT"]:
        return rule
    return vRecur({key: value for key, value in rule.items() if key not in UNSUPPORTED_PARTS})


def is_empty_rule(rule: object) -> bool:
    """``RRULE:`` with no value (seen in real exports): treated as no rule at all."""
    return isinstance(rule, vRecur) and len(rule) == 0


def rule_text(rule: vRecur) -> str:
    """The rule without ``UNTIL``, as ``dateutil`` reads it."""
    kept = vRecur({key: value for key, value in rule.items() if key != "UNTIL"})
    text: bytes = kept.to_ical()  # type: ignore[no-untyped-call]  # icalendar leaves it untyped
    return text.decode()


def _single_int(rule: vRecur, part: str) -> int | None:
    values = rule.get(part)
    if values is None:
        return None
    value = values[0] if isinstance(values, list) and len(values) == 1 else values
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"{part} must be a single integer")
    return value


def _as_datetime(value: date | datetime) -> datetime:
    if isinstance(value, datetime):
        return value
    return datetime(value.year, value.month, value.day)  # noqa: DTZ001 - floating on purpose


def _build(rule: vRecur, start: date | datetime) -> Any:
    return rrulestr(rule_text(rule), dtstart=_as_datetime(start))


def check_rule(rule: object, start: date | datetime) -> str | None:
    """Why ``rule`` cannot be evaluated from ``start``, or ``None`` when it can."""
    if not isinstance(rule, vRecur):
        return "the value is not a recurrence rule"
    freq = rule.get("FREQ")
    freqs = freq if isinstance(freq, list) else [freq]
    if len(freqs) != 1 or str(freqs[0]).upper() not in FREQUENCIES:
        return "FREQ must be exactly one of " + ", ".join(sorted(FREQUENCIES))
    try:
        count = _single_int(rule, "COUNT")
        interval = _single_int(rule, "INTERVAL")
    except ValueError as exc:
        return str(exc)
    if count is not None and count < 1:
        return f"COUNT must be at least 1, got {count}"
    if interval is not None and interval < 1:
        return f"INTERVAL must be at least 1, got {interval}"
    if count is not None and "UNTIL" in rule:
        return "COUNT and UNTIL must not both occur (RFC 5545 section 3.3.10)"
    problem = _check_parts(rule)
    if problem is not None:
        return problem
    until = rule.get("UNTIL")
    if until is not None and (
        not isinstance(until, list) or len(until) != 1 or not isinstance(until[0], date)
    ):
        return "UNTIL must be a single date or date-time"
    try:
        _build(rule, start)
    except (ValueError, TypeError, OverflowError, KeyError, IndexError) as exc:
        return f"the recurrence engine rejects it: {exc}"
    return None


def _check_parts(rule: vRecur) -> str | None:
    for part, (low, high, positive_only) in _BY_RANGES.items():
        values = rule.get(part)
        if values is None:
            continue
        for value in values if isinstance(values, list) else [values]:
            if not isinstance(value, int) or isinstance(value, bool):
                return f"{part} must list integers"
            magnitude = value if positive_only else abs(value)
            if not low <= magnitude <= high or (positive_only and value < 0):
                return f"{part} value {value} is outside the range RFC 5545 allows"
    return None


def _stop_in_domain(moment: datetime, *, aware: bool) -> datetime:
    """``moment`` (aware UTC) in the comparison domain of the rule's start, plus slack
    (the last representable time when that overflows)."""
    try:
        if aware:
            return moment + _SLACK
        return moment.astimezone(UTC).replace(tzinfo=None) + _SLACK
    except OverflowError:
        return _LAST if aware else _LAST.replace(tzinfo=None)


def _low_in_domain(moment: datetime, *, aware: bool) -> datetime | None:
    """``moment`` (aware UTC) in the comparison domain of the rule's start, minus slack;
    ``None`` when that is before the first representable time."""
    try:
        if aware:
            return moment - _SLACK
        return moment.astimezone(UTC).replace(tzinfo=None) - _SLACK
    except OverflowError:
        return None


def _until_in_domain(until: date | datetime, *, aware: bool) -> datetime:
    if isinstance(until, datetime) and until.tzinfo is not None:
        return _stop_in_domain(until, aware=aware)
    try:
        naive = _as_datetime(until) + _SLACK  # a date UNTIL covers its whole day
        return naive.replace(tzinfo=UTC) + _SLACK if aware else naive
    except OverflowError:
        return _LAST if aware else _LAST.replace(tzinfo=None)


def count_instances(
    rule: vRecur,
    start: date | datetime,
    low: datetime,
    stop: datetime,
    *,
    spend: Callable[[], None],
    walk: Callable[[], None],
) -> None:
    """Call ``spend()`` once per instance ``rule`` generates from ``low`` until ``stop``
    and ``walk()`` once per instance before ``low``.

    ``low`` and ``stop`` are aware UTC datetimes; the walk ends at ``stop`` (or the rule's
    ``UNTIL``, or its ``COUNT``), and ``low`` is moved a day earlier and ``stop`` a day
    later, so the count is never too small. ``spend`` and ``walk`` raise to abort.
    ``rule`` must have passed :func:`check_rule`.
    """
    begin = _as_datetime(start)
    aware = begin.tzinfo is not None
    limit = _stop_in_domain(stop, aware=aware)
    first = _low_in_domain(low, aware=aware)
    until = rule.get("UNTIL")
    if isinstance(until, list) and until and isinstance(until[0], date):
        limit = min(limit, _until_in_domain(until[0], aware=aware))
    for moment in _build(rule, start):
        if moment > limit:
            return
        if first is not None and moment < first:
            walk()
        else:
            spend()
