"""Times of one series for :mod:`cerebri.calendars.changes`: its kind (all-day, zoned, UTC,
floating), wall-clock arithmetic in its own zone, and the rewriting of ``RRULE`` parts a
move or a split needs (RFC 5545 sections 3.3.5, 3.3.10 and 3.8.5.3)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from typing import Any, Final
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from icalendar import Component
from icalendar.prop import vRecur

from cerebri.calendars._change_model import ChangeError
from cerebri.calendars.arguments import invalid_argument
from cerebri.temporal import Instant

__all__ = [
    "Kind",
    "floating",
    "instant_of",
    "kind_of",
    "rule_of",
    "shift_rule",
    "until_before",
    "value_list",
]

_DAY: Final = timedelta(days=1)
_SECOND: Final = timedelta(seconds=1)
_WEEKDAYS: Final = ("MO", "TU", "WE", "TH", "FR", "SA", "SU")
_DAY_PARTS: Final = ("BYMONTHDAY", "BYYEARDAY", "BYWEEKNO", "BYMONTH", "BYSETPOS")
_TIME_PARTS: Final = ("BYHOUR", "BYMINUTE", "BYSECOND")


def floating(zone: str) -> ZoneInfo:
    """The IANA zone floating times and dates are read in; else ``calendars.invalid_argument``."""
    try:
        return ZoneInfo(zone)
    except (ZoneInfoNotFoundError, ValueError):
        raise invalid_argument(f"floating_zone {zone!r} is not an IANA zone name") from None


@dataclass(frozen=True, slots=True)
class Kind:
    """How a series writes its times: ``all_day`` (``VALUE=DATE``), ``zone`` (its ``TZID``
    or UTC; ``None`` for floating times and dates) and the zone floating values are read in.
    Wall times are naive datetimes in the series' own frame."""

    all_day: bool
    zone: tzinfo | None
    floating_zone: ZoneInfo

    @property
    def frame(self) -> tzinfo:
        """The zone wall times are read in."""
        return self.zone if self.zone is not None else self.floating_zone

    def wall(self, value: date | datetime) -> datetime:
        """``value`` (a property value of any kind) as wall time in this frame."""
        if not isinstance(value, datetime):
            return datetime.combine(value, time())
        if value.tzinfo is None:
            return value
        return value.astimezone(self.frame).replace(tzinfo=None)

    def wall_of(self, instant: Instant) -> datetime:
        """The wall time of a UTC instant in this frame."""
        moment = instant.to_datetime()
        if moment is None:
            raise invalid_argument(f"instant {instant} lies outside the years 1-9999")
        return moment.astimezone(self.frame).replace(tzinfo=None)

    def value(self, wall: datetime) -> date | datetime:
        """The property value to write for a wall time (a date for an all-day series)."""
        if self.all_day:
            return wall.date()
        return wall if self.zone is None else wall.replace(tzinfo=self.zone)

    def instant(self, wall: datetime) -> Instant:
        """The UTC instant of a wall time in this frame."""
        return Instant.from_datetime(wall.replace(tzinfo=self.frame))

    def until(self, wall: datetime) -> date | datetime:
        """An ``UNTIL`` value for a wall time: a date for an all-day series, UTC when the
        series has a zone, floating otherwise (RFC 5545 section 3.3.10)."""
        if self.all_day:
            return wall.date()
        if self.zone is None:
            return wall
        return wall.replace(tzinfo=self.zone).astimezone(UTC)


def kind_of(event: Component, floating_zone: ZoneInfo) -> Kind:
    """The :class:`Kind` of ``event``'s ``DTSTART``; ``change.bad_event`` when it has none."""
    value = getattr(event.get("DTSTART"), "dt", None)
    if not isinstance(value, date):
        raise ChangeError(f"event {event.get('UID')} has no DTSTART", code="change.bad_event")
    if not isinstance(value, datetime):
        return Kind(True, None, floating_zone)
    return Kind(False, value.tzinfo, floating_zone)


def instant_of(value: date | datetime, floating_zone: ZoneInfo) -> Instant:
    """The UTC instant of a property value: dates at midnight and floating times read in
    ``floating_zone``."""
    if not isinstance(value, datetime):
        value = datetime.combine(value, time())
    if value.tzinfo is None:
        value = value.replace(tzinfo=floating_zone)
    return Instant.from_datetime(value)


def _rule(event: Component) -> vRecur | None:
    rule = event.get("RRULE")
    if rule is None:
        return None
    if isinstance(rule, list):
        raise ChangeError(
            f"event {event.get('UID')} has more than one RRULE (RFC 5545 section 3.8.5.3 "
            "allows one)",
            code="change.unsupported_rule",
        )
    if not isinstance(rule, vRecur):
        raise ChangeError(
            f"event {event.get('UID')} has an unreadable RRULE", code="change.bad_event"
        )
    return rule


def rule_of(event: Component) -> vRecur | None:
    """A copy of ``event``'s ``RRULE`` (``None`` without one); ``change.unsupported_rule``
    for several."""
    rule = _rule(event)
    return None if rule is None else vRecur({key: list(values) for key, values in rule.items()})


def _shift_day(entry: object, days: int) -> str:
    text = str(entry).upper()
    if text not in _WEEKDAYS:  # an ordinal ("1MO", "-1SU") moves with the month, not by days
        raise ChangeError(
            f"cannot move BYDAY {text} by {days} days", code="change.unsupported_rule"
        )
    return _WEEKDAYS[(_WEEKDAYS.index(text) + days) % 7]


def shift_rule(rule: vRecur, first: datetime, delta: timedelta, kind: Kind) -> vRecur:
    """``rule`` for a series whose first instance (wall time ``first``) moves by the wall
    time ``delta``: weekday ``BYDAY`` entries move with the date, ``UNTIL`` moves by
    ``delta`` (kept in its RFC 5545 section 3.3.10 form). ``change.unsupported_rule`` when a
    date change meets ``BYMONTHDAY``, ``BYYEARDAY``, ``BYWEEKNO``, ``BYMONTH``, ``BYSETPOS``
    or an ordinal ``BYDAY``, or a time-of-day change meets ``BYHOUR``/``BYMINUTE``/
    ``BYSECOND``."""
    moved = first + delta
    out = vRecur({key: list(values) for key, values in rule.items()})
    if moved.time() != first.time() and any(part in rule for part in _TIME_PARTS):
        raise ChangeError(
            "cannot move a series whose RRULE fixes the time of day (BYHOUR/BYMINUTE/BYSECOND) "
            "to another time of day",
            code="change.unsupported_rule",
        )
    day_shift = (moved.date() - first.date()).days
    if day_shift:
        if any(part in rule for part in _DAY_PARTS):
            raise ChangeError(
                f"cannot move a series by {day_shift} days when its RRULE names days of the "
                "month or year, weeks, months or positions",
                code="change.unsupported_rule",
            )
        if "BYDAY" in rule:
            out["BYDAY"] = [_shift_day(entry, day_shift) for entry in rule["BYDAY"]]
    if "UNTIL" in rule:
        out["UNTIL"] = [kind.until(kind.wall(value) + delta) for value in rule["UNTIL"]]
    return out


def until_before(rule: vRecur, wall: datetime, kind: Kind, count: int | None) -> vRecur:
    """``rule`` ended before the instance at ``wall``: ``COUNT`` becomes ``count`` (the
    occurrences before it) when the rule has a ``COUNT``, else ``UNTIL`` is one second (one
    day for an all-day series) before it (RFC 5545 sections 3.3.10 and 3.8.5.3)."""
    out = vRecur({key: list(values) for key, values in rule.items()})
    if "COUNT" in rule and count is not None:
        out["COUNT"] = [count]
        return out
    out.pop("COUNT", None)
    out["UNTIL"] = [kind.until(wall - (_DAY if kind.all_day else _SECOND))]
    return out


def value_list(event: Component, name: str) -> list[Any]:
    """Every value of the ``EXDATE``/``RDATE`` lines of ``event`` (dates, datetimes, or
    ``(start, end)`` periods of an ``RDATE``), in order."""
    lines = event.get(name)
    if lines is None:
        return []
    out: list[Any] = []
    for line in lines if isinstance(lines, list) else [lines]:
        out.extend(item.dt for item in getattr(line, "dts", []))
    return out
