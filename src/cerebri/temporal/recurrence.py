"""Recurrence expansion over a horizon with DST policies and budgets (temporal.md section 3).

Every instant is UTC (:class:`~cerebri.temporal.instant.Instant`, nanoseconds); durations
are whole seconds; dates and wall-clock times are local to the rule's IANA zone.

Python's ``datetime`` (and therefore ``zoneinfo``) only covers years 1..9999. Whenever a
computation needs a wall clock or a zone offset outside that span the expansion is refused
with ``Overflow``: the reference (chrono) would still answer for, say, year 12000, but every
instant the spec pins down near the limits (``Instant.MIN``/``Instant.MAX``) is ``Overflow``
there as well.

Rules are :class:`~cerebri.temporal.rule.Recurrence` values; the public functions also take
anything with ``to_recurrence()`` (the CPIR ``RecurrenceDefinition``), without importing it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import Final
from zoneinfo import ZoneInfo

from cerebri._guard import arguments
from cerebri._json import JSONValue
from cerebri.temporal.calendar import NS_PER_DAY, NS_PER_SECOND, LocalDate, LocalTime
from cerebri.temporal.errors import TemporalError, TemporalRejected, invalid_argument
from cerebri.temporal.instant import MAX_NS, MIN_NS, Instant
from cerebri.temporal.policies import FoldPolicy, GapPolicy
from cerebri.temporal.rule import Recurrence, RecurrenceSource, as_recurrence
from cerebri.temporal.zones import zone

__all__ = [
    "MAX_DATES",
    "MAX_OCCURRENCES",
    "Expansion",
    "Occurrence",
    "Resolution",
    "SkippedDate",
    "expand",
    "resolve_local",
    "sequence_of",
]

MAX_OCCURRENCES: Final = 10_000
"""Largest ``max_occurrences`` budget :func:`expand` accepts (``/v1/temporal`` cap)."""
MAX_DATES: Final = 36_600
"""Largest ``max_dates`` budget :func:`expand` accepts."""

_EPOCH_ORDINAL: Final = LocalDate(1970, 1, 1).ordinal()
_NS_PER_MICROSECOND: Final = 1_000
_ONE_MICROSECOND: Final = timedelta(microseconds=1)


class Resolution(StrEnum):
    """How an occurrence's local start became an instant."""

    UNIQUE = "Unique"
    EARLIER_FOLD = "EarlierFold"
    LATER_FOLD = "LaterFold"


def _range_wire(start: Instant, end: Instant) -> dict[str, JSONValue]:
    return {"start": start.format(), "end": end.format()}


@dataclass(frozen=True, slots=True)
class Occurrence:
    """One produced occurrence: ``[start, end)`` in full and clipped to the horizon (UTC)."""

    sequence: int
    date: LocalDate
    local_time: LocalTime
    start: Instant
    end: Instant
    visible_start: Instant
    visible_end: Instant
    resolution: Resolution

    def to_wire(self) -> dict[str, JSONValue]:
        """The occurrence object of temporal.md 2.2 (``range`` and ``visible_range``)."""
        return {
            "sequence": self.sequence,
            "date": self.date.format(),
            "local_time": self.local_time.format(),
            "range": _range_wire(self.start, self.end),
            "visible_range": _range_wire(self.visible_start, self.visible_end),
            "resolution": self.resolution.value,
        }


@dataclass(frozen=True, slots=True)
class SkippedDate:
    """A scheduled date whose local start time falls in a DST gap (``Skip`` policy)."""

    sequence: int
    date: LocalDate

    def to_wire(self) -> dict[str, JSONValue]:
        """``{"sequence", "date", "reason": "NonexistentLocalTime"}``."""
        return {
            "sequence": self.sequence,
            "date": self.date.format(),
            "reason": TemporalError.NONEXISTENT_LOCAL_TIME.value,
        }


@dataclass(frozen=True, slots=True)
class Expansion:
    """Result of expanding one rule over ``[horizon_start, horizon_end)`` (UTC instants).

    ``occurrences`` are sorted by ``(start, sequence)``; ``skipped`` is in date order;
    ``examined_dates`` counts every date looked at, including the two-day margins.
    """

    horizon_start: Instant
    horizon_end: Instant
    timezone: str
    occurrences: tuple[Occurrence, ...]
    skipped: tuple[SkippedDate, ...]
    examined_dates: int

    def to_wire(self) -> dict[str, JSONValue]:
        """The ExpansionReport of temporal.md 2.2."""
        return {
            "horizon": _range_wire(self.horizon_start, self.horizon_end),
            "timezone": self.timezone,
            "occurrences": [item.to_wire() for item in self.occurrences],
            "skipped": [item.to_wire() for item in self.skipped],
            "examined_dates": self.examined_dates,
        }


# --------------------------------------------------------------------------- sequence numbers


@arguments(invalid_argument, date=LocalDate)
def sequence_of(rule: Recurrence | RecurrenceSource, date: LocalDate) -> int | None:
    """:func:`_sequence_of` for callers: raises :class:`~cerebri.errors.InvalidArgumentError`
    (``temporal.invalid_argument``) unless ``rule`` is a :class:`Recurrence` (or a
    ``RecurrenceDefinition``, which maps onto one) and ``date`` a :class:`LocalDate`."""
    return _sequence_of(as_recurrence(rule, "sequence_of"), date)


def _sequence_of(rule: Recurrence, date: LocalDate) -> int | None:
    """Nominal 1-based sequence number of ``date`` under ``rule`` (temporal.md 3.4).

    Returns ``None`` when the pattern does not schedule ``date`` (also for any date before
    ``start_date``). ``until`` and ``count`` are *not* applied here; :func:`expand` does that.
    """
    days = date.ordinal() - rule.start_date.ordinal()
    if days < 0:
        return None
    if rule.frequency == "DAILY":
        if days % rule.every:
            return None
        return days // rule.every + 1
    anchor = rule.start_date.weekday()
    week, _ = divmod(days + anchor, 7)
    weekday = date.weekday()
    numbers = rule.weekdays
    if week % rule.every or weekday not in numbers:
        return None
    excluded = sum(1 for number in numbers if number < anchor)
    current = sum(1 for number in numbers if number <= weekday)
    return week // rule.every * len(numbers) + current - excluded


# --------------------------------------------------------------------------- wall clock


def _overflow() -> TemporalRejected:
    return TemporalRejected(TemporalError.OVERFLOW)


def _wall_ns(date: LocalDate, time_ns: int) -> int:
    """A local date and time of day as naive nanoseconds since 1970-01-01T00:00 (wall)."""
    return (date.ordinal() - _EPOCH_ORDINAL) * NS_PER_DAY + time_ns


def _wall_date(wall_ns: int, shift_days: int) -> LocalDate:
    """Local date of a naive wall-clock value moved by ``shift_days``; ``Overflow`` if none."""
    try:
        return LocalDate.from_ordinal(wall_ns // NS_PER_DAY + _EPOCH_ORDINAL + shift_days)
    except OverflowError:
        raise _overflow() from None


def _local_wall_ns(instant: Instant, tz: ZoneInfo) -> int:
    """Wall clock of ``instant`` in ``tz`` (offset in force at the instant), as naive ns.

    Raises ``TemporalRejected(Overflow)`` outside ``datetime``'s years 1..9999.
    """
    moment = instant.to_datetime()
    if moment is None:
        raise _overflow()
    try:
        offset = moment.astimezone(tz).utcoffset()
    except OverflowError:
        raise _overflow() from None
    if offset is None:  # pragma: no cover - ZoneInfo always reports an offset
        raise _overflow()
    wall = instant.ns + offset // _ONE_MICROSECOND * _NS_PER_MICROSECOND
    if not MIN_NS <= wall <= MAX_NS:
        raise _overflow()
    return wall


@arguments(invalid_argument, date=LocalDate, time=LocalTime, zone_name=str)
def resolve_local(date: LocalDate, time: LocalTime, zone_name: str) -> tuple[Instant, ...]:
    """:func:`_resolve_local` for callers: raises :class:`~cerebri.errors.InvalidArgumentError`
    (``temporal.invalid_argument``) for a wrong-typed argument, ``ValueError`` for an unknown
    zone name."""
    return _resolve_local(date, time, zone_name)


def _resolve_local(date: LocalDate, time: LocalTime, zone_name: str) -> tuple[Instant, ...]:
    """UTC instants at which the wall clock of ``zone_name`` reads ``date`` ``time``.

    Returns no instant for a DST gap, one for an ordinary time and two (earlier first) for a
    DST fold, following the zoneinfo recipe of temporal.md 3.5: try ``fold=0`` and ``fold=1``
    and keep each instant that converts back to the same wall time. Nanoseconds below the
    microsecond are carried over exactly (zone transitions fall on whole seconds).

    Raises:
        TemporalRejected: ``Overflow`` when the date or a converted instant lies outside
            ``datetime``'s years 1..9999.
        ValueError: ``time`` is a leap second, or ``zone_name`` is not a known zone.
    """
    if time.is_leap_second:
        raise ValueError("a leap-second local time cannot be resolved in a time zone")
    tz = zone(zone_name)
    if not 1 <= date.year <= 9999:
        raise _overflow()
    micros, sub_micro = divmod(time.ns, _NS_PER_MICROSECOND)
    naive = datetime(date.year, date.month, date.day) + timedelta(microseconds=micros)  # noqa: DTZ001
    found: set[int] = set()
    for fold in (0, 1):
        aware = naive.replace(tzinfo=tz, fold=fold)
        try:
            utc = aware.astimezone(UTC)
            back = utc.astimezone(tz).replace(tzinfo=None)
        except OverflowError:
            raise _overflow() from None
        if back == naive:
            found.add(Instant.from_datetime(utc).ns + sub_micro)
    return tuple(Instant(ns) for ns in sorted(found))


# --------------------------------------------------------------------------- expansion


@dataclass(slots=True)
class _Window:
    """The horizon in nanoseconds plus the local wall-clock window of the examined dates."""

    start: int
    end: int
    duration_ns: int
    lower_wall: int
    upper_wall: int

    def touches(self, start_ns: int) -> bool:
        """``[start, start + duration)`` starts before the horizon end and overlaps it."""
        return start_ns < self.end and start_ns + self.duration_ns > self.start


def _pick(
    rule: Recurrence, instants: tuple[Instant, ...], window: _Window
) -> tuple[Instant, Resolution] | None:
    """Choose the start of a scheduled date (None: silently ignored fold)."""
    if len(instants) == 1:
        return instants[0], Resolution.UNIQUE
    if not any(window.touches(instant.ns) for instant in instants):
        return None  # a fold that cannot affect the horizon is ignored
    if rule.fold_policy is FoldPolicy.REJECT:
        raise TemporalRejected(TemporalError.AMBIGUOUS_LOCAL_TIME)
    if rule.fold_policy is FoldPolicy.EARLIER:
        return instants[0], Resolution.EARLIER_FOLD
    return instants[1], Resolution.LATER_FOLD


def _window_of(rule: Recurrence, horizon_start: Instant, horizon_end: Instant) -> _Window:
    """The horizon of an expansion and its local wall-clock bounds (the lower one looks back
    by the duration, so an occurrence that starts before the horizon and overlaps it counts).

    Raises:
        TemporalRejected: ``Overflow``, the look-back is out of range.
    """
    tz = zone(rule.timezone)
    lookback = horizon_start.plus_seconds(-rule.duration)
    if lookback is None:
        raise _overflow()
    return _Window(
        start=horizon_start.ns,
        end=horizon_end.ns,
        duration_ns=rule.duration * NS_PER_SECOND,
        lower_wall=_local_wall_ns(lookback, tz),
        upper_wall=_local_wall_ns(horizon_end, tz),
    )


def _examined_ordinals(rule: Recurrence, window: _Window) -> range:
    """The ordinals of the examined dates: the local dates of the window widened by two days
    on each side, from the rule's start date and up to its ``until``."""
    first_ordinal = max(_wall_date(window.lower_wall, -2), rule.start_date).ordinal()
    last_ordinal = _wall_date(window.upper_wall, 2).ordinal()
    if rule.until is not None:
        last_ordinal = min(last_ordinal, rule.until.ordinal())
    return range(first_ordinal, last_ordinal + 1)


def _gap_in_window(rule: Recurrence, date: LocalDate, window: _Window) -> bool:
    """Whether the nonexistent local time of ``date`` lies in the window (the date is then
    skipped and reported).

    Raises:
        TemporalRejected: ``NonexistentLocalTime``, it does and the gap policy is ``Reject``.
    """
    wall = _wall_ns(date, rule.local_time.ns)
    if not window.lower_wall <= wall < window.upper_wall:
        return False
    if rule.gap_policy is GapPolicy.REJECT:
        raise TemporalRejected(TemporalError.NONEXISTENT_LOCAL_TIME)
    return True


@arguments(
    invalid_argument,
    horizon_start=Instant,
    horizon_end=Instant,
    max_occurrences=int,
    max_dates=int,
)
def expand(
    rule: Recurrence | RecurrenceSource,
    horizon_start: Instant,
    horizon_end: Instant,
    *,
    max_occurrences: int,
    max_dates: int,
) -> Expansion:
    """Occurrences of ``rule`` that overlap ``[horizon_start, horizon_end)`` (UTC instants).

    Implements temporal.md 3.3. ``max_occurrences`` caps the occurrences produced and
    ``max_dates`` the local dates examined (both are the *remaining* shared budgets); going
    over either rejects the whole expansion, nothing is truncated.

    Raises:
        TemporalRejected: ``InputLimit`` (a budget is negative or above 10 000 occurrences /
            36 600 dates), ``InvalidRange`` (``horizon_start >= horizon_end``), ``Overflow``
            (instant or calendar arithmetic out of range, see module doc),
            ``AmbiguousLocalTime`` / ``NonexistentLocalTime`` (``Reject`` policies hit a
            relevant fold / a gap inside the window), ``OccurrenceLimitExceeded``,
            ``DateLimitExceeded``.
    """
    rule = as_recurrence(rule, "expand")
    if not (0 <= max_occurrences <= MAX_OCCURRENCES and 0 <= max_dates <= MAX_DATES):
        raise TemporalRejected(TemporalError.INPUT_LIMIT)
    if not horizon_start < horizon_end:
        raise TemporalRejected(TemporalError.INVALID_RANGE)
    window = _window_of(rule, horizon_start, horizon_end)
    occurrences: list[Occurrence] = []
    skipped: list[SkippedDate] = []
    examined = 0
    for ordinal in _examined_ordinals(rule, window):
        if examined >= max_dates:
            raise TemporalRejected(TemporalError.DATE_LIMIT_EXCEEDED)
        examined += 1
        date = LocalDate.from_ordinal(ordinal)
        sequence = _sequence_of(rule, date)
        if sequence is None:
            continue
        if rule.count is not None and sequence > rule.count:
            break
        instants = _resolve_local(date, rule.local_time, rule.timezone)
        if not instants:
            if _gap_in_window(rule, date, window):
                skipped.append(SkippedDate(sequence, date))
            continue
        picked = _pick(rule, instants, window)
        if picked is None:
            continue
        start, resolution = picked
        if not window.touches(start.ns):
            continue
        end = start.plus_seconds(rule.duration)
        if end is None:
            raise _overflow()
        if len(occurrences) >= max_occurrences:
            raise TemporalRejected(TemporalError.OCCURRENCE_LIMIT_EXCEEDED)
        visible = (max(start, horizon_start), min(end, horizon_end))
        occurrences.append(
            Occurrence(sequence, date, rule.local_time, start, end, *visible, resolution)
        )
    occurrences.sort(key=lambda item: (item.start.ns, item.sequence))
    return Expansion(
        horizon_start, horizon_end, rule.timezone, tuple(occurrences), tuple(skipped), examined
    )
