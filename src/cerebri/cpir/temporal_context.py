"""CPIR 0.2 temporal source state: recurring series that block time
(cpir-0.2.md section 8, temporal.md section 3).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BeforeValidator, Field, PlainSerializer, field_validator, model_validator

from cerebri.cpir._base import WireModel
from cerebri.cpir.enums import Coverage, FoldPolicy, GapPolicy, Provenance, Weekday
from cerebri.cpir.scalars import U32, DurationSeconds, Identifier, Revision, TimeRange
from cerebri.temporal.calendar import LocalDate, LocalTime
from cerebri.temporal.rule import Recurrence
from cerebri.temporal.zones import TimeZoneId

__all__ = [
    "DailyPattern",
    "ExistingSeries",
    "ExpansionLimits",
    "ProspectiveSeries",
    "RecurrenceDefinition",
    "RecurrencePattern",
    "SeriesState",
    "TemporalContext",
    "TemporalSeries",
    "WeeklyPattern",
]

_WEEKDAY_NAMES: dict[str, Weekday] = {}
for _day, _long in zip(
    Weekday,
    ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"),
    strict=True,
):
    _WEEKDAY_NAMES[_day.value.lower()] = _day
    _WEEKDAY_NAMES[_long] = _day


def _weekday(value: object) -> object:
    # The reference accepts short and long English names in any case (cpir-0.2.md 1.4).
    if isinstance(value, str):
        return _WEEKDAY_NAMES.get(value.lower(), value)
    return value


WeekdayName = Annotated[
    Weekday, BeforeValidator(_weekday), PlainSerializer(lambda d: d.value, return_type=str)
]

NonZeroU16 = Annotated[int, Field(ge=1, le=0xFFFF)]
NonZeroU32 = Annotated[int, Field(ge=1, le=0xFFFF_FFFF)]


class DailyPattern(WireModel):
    """Every ``every``-th day from the start date."""

    frequency: Literal["DAILY"]
    every: NonZeroU16


class WeeklyPattern(WireModel):
    """The listed weekdays of every ``every``-th week (weeks start on Monday)."""

    frequency: Literal["WEEKLY"]
    every: NonZeroU16
    weekdays: tuple[WeekdayName, ...]

    @field_validator("weekdays")
    @classmethod
    def _normalise(cls, days: tuple[Weekday, ...]) -> tuple[Weekday, ...]:
        if not days:
            raise ValueError("weekdays must not be empty")
        if len(set(days)) != len(days):
            raise ValueError("weekdays must not repeat a day")
        return tuple(sorted(days, key=lambda day: day.number))


RecurrencePattern = Annotated[DailyPattern | WeeklyPattern, Field(discriminator="frequency")]


class RecurrenceDefinition(WireModel):
    """A small recurrence rule in local wall-clock time (temporal.md 3.1).

    ``duration`` is elapsed seconds; ``until`` is an inclusive local date; ``count`` counts
    nominal dates including skipped DST-gap dates.
    Raises (as a parse error): ``until`` before ``start_date``, a leap-second local time,
    an empty or repeating weekday list, ``every`` or ``count`` of zero.
    """

    start_date: LocalDate
    local_time: LocalTime
    timezone: TimeZoneId
    duration: DurationSeconds
    pattern: RecurrencePattern
    until: LocalDate | None = None
    count: NonZeroU32 | None = None
    gap_policy: GapPolicy
    fold_policy: FoldPolicy

    @model_validator(mode="after")
    def _consistent(self) -> RecurrenceDefinition:
        if self.until is not None and self.until < self.start_date:
            raise ValueError("until must not be before start_date")
        if self.local_time.is_leap_second:
            raise ValueError("local_time may not be a leap second")
        return self

    def to_recurrence(self) -> Recurrence:
        """This rule as the temporal core reads it (:class:`~cerebri.temporal.rule.Recurrence`;
        weekdays as numbers, 0 for Monday)."""
        pattern = self.pattern
        weekdays = pattern.weekdays if isinstance(pattern, WeeklyPattern) else ()
        return Recurrence(
            start_date=self.start_date,
            local_time=self.local_time,
            timezone=self.timezone,
            duration=self.duration,
            frequency=pattern.frequency,
            every=pattern.every,
            weekdays=tuple(day.number for day in weekdays),
            until=self.until,
            count=self.count,
            gap_policy=self.gap_policy,
            fold_policy=self.fold_policy,
        )


class ExistingSeries(WireModel):
    """A series that exists in a source at ``revision``."""

    kind: Literal["Existing"]
    revision: Revision


class ProspectiveSeries(WireModel):
    """A series that does not exist yet (rejected by the compiler)."""

    kind: Literal["Prospective"]


SeriesState = Annotated[ExistingSeries | ProspectiveSeries, Field(discriminator="kind")]


class TemporalSeries(WireModel):
    """A recurring series whose occurrences block time."""

    id: Identifier
    state: SeriesState
    provenance: Provenance
    evidence: tuple[Identifier, ...]
    rule: RecurrenceDefinition


class ExpansionLimits(WireModel):
    """Shared budgets for recurrence expansion: occurrences produced and dates examined."""

    max_occurrences: U32
    max_dates: U32


class TemporalContext(WireModel):
    """Recurring series supplied with a CPIR 0.2 context."""

    horizon: TimeRange
    coverage: Coverage
    limits: ExpansionLimits
    series: tuple[TemporalSeries, ...]
