"""A whole-series or this-and-future reschedule checked at every instance it moves, at plan
time (docs/decisions/0063).

The planner places one object, the anchor instance, and checks that one range. A series
move writes many: :func:`fit_series` takes the planner's candidates and keeps a start only
when every instance the move would write (:func:`cerebri.calendars.series_instances.
moved_instances`, the resources :func:`~cerebri.calendars.changes.apply_change` returns,
expanded) that starts within :data:`~cerebri.calendars.series_instances.
SERIES_CHECK_HORIZON_SECONDS` of it is as free as the anchor had to be:

* no busy period of a required attendee's calendar (the event's own instances left out as
  the use-case leaves them out) within the buffer of it;
* not in the query's closed time (working hours and days), nor outside a required
  attendee's own hours, nor in time an attendee's availability (RFC 7953) excludes: the
  blockers the request holds for the window, made the same way over the horizon.

A start that fails is not silently dropped: it becomes a :class:`SeriesRejection` naming
the first instance in the way (by start), the calendar and what holds it. The anchor itself
was checked by the planner and is not checked again. Busy time is read from the calendars
as loaded, up to :attr:`SeriesCheck.until`: cerebri's readers load whole files and whole
CalDAV collections (decision 0015); a loader that hands over less leaves the time it left
out looking free.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Final

from icalendar import Calendar, Component

from cerebri._json import JSONValue
from cerebri.calendars._change_series import series_of
from cerebri.calendars._change_times import Kind, floating, rule_of
from cerebri.calendars.availability import unavailable_ranges
from cerebri.calendars.changes import ChangeError, ChangeScope, EventChange, apply_change
from cerebri.calendars.closed_time import closed_block
from cerebri.calendars.query import SlotQuery, attendee_off_hours, off_hours
from cerebri.calendars.series_instances import (
    SERIES_CHECK_HORIZON_SECONDS,
    horizon_end,
    moved_instances,
)
from cerebri.calendars.slot_search import NamedCalendars
from cerebri.cpir import PlanningResult, RankedCandidate
from cerebri.ics import BusyPeriod, CalendarError, busy_periods
from cerebri.planner.search import outcome_of
from cerebri.temporal import Instant, Interval

__all__ = ["SeriesCheck", "SeriesRejection", "fit_series"]

_KEY: Final = "cerebri-plan-time-series-check"
"""The idempotency key of the trial change (only the split-off ``UID`` depends on it)."""

NS: Final = 1_000_000_000


@dataclass(frozen=True, slots=True)
class SeriesRejection:
    """A start rejected because a later instance of the moved series is not free.

    Attributes:
        start: the candidate start (the anchor's new start), UTC instant.
        instance_start, instance_end: the first instance in the way, as the move would
            write it, UTC instants.
        calendar_id: the attendee whose time it is; ``None`` for the query's own working
            hours and days, or availability.
        reason: ``busy`` (an event of ``calendar_id``), ``outside_hours`` (the attendee's
            hours or the query's working hours and days), ``unavailable`` (RFC 7953
            availability) or ``cannot_write`` (the change itself is refused, e.g.
            ``change.unsupported_rule``).
        blocker: what is in the way: the busy event's ``UID``, the closed-time blocker id,
            or the refusal's message.
    """

    start: Instant
    instance_start: Instant
    instance_end: Instant
    calendar_id: str | None
    reason: str
    blocker: str

    def message(self) -> str:
        """One sentence for a person."""
        where = f"[{self.instance_start.format()}, {self.instance_end.format()})"
        who = "" if self.calendar_id is None else f" for {self.calendar_id}"
        said = {
            "busy": f"event {self.blocker!r} is busy",
            "outside_hours": f"it lies outside hours ({self.blocker})",
            "unavailable": "availability excludes it",
            "cannot_write": f"the move cannot be written: {self.blocker}",
        }[self.reason]
        return f"{self.start.format()}: the series instance moved to {where}: {said}{who}"

    def to_wire(self) -> dict[str, JSONValue]:
        """``{start, instance: {start, end}, calendar_id, reason, blocker, message}``."""
        return {
            "start": self.start.format(),
            "instance": {
                "start": self.instance_start.format(),
                "end": self.instance_end.format(),
            },
            "calendar_id": self.calendar_id,
            "reason": self.reason,
            "blocker": self.blocker,
            "message": self.message(),
        }


@dataclass(frozen=True, slots=True)
class SeriesCheck:
    """What :func:`fit_series` looked at and what it left out.

    Attributes:
        horizon_seconds: instances starting within this many seconds of a candidate's
            start were checked (:data:`~cerebri.calendars.series_instances.
            SERIES_CHECK_HORIZON_SECONDS`).
        until: the end of the busy time read for the check (the window's end plus the
            horizon and the buffer), UTC instant: nothing after it was looked at.
        rejected: the starts left out, by start.
        request_ranks: for each candidate kept, in the answer's order, its rank (1 = best)
            in the request's own ranking: the request does not carry the check, so
            ``cerebri plan`` of the emitted request still ranks the starts left out, and
            ``cerebri propose --candidate N`` takes the number given here.
    """

    horizon_seconds: int
    until: Instant
    rejected: tuple[SeriesRejection, ...]
    request_ranks: tuple[int, ...] = ()

    def to_wire(self) -> dict[str, JSONValue]:
        """``{horizon_seconds, until, rejected: [...], request_ranks: [...]}``
        (:meth:`SeriesRejection.to_wire`)."""
        return {
            "horizon_seconds": self.horizon_seconds,
            "until": self.until.format(),
            "rejected": [r.to_wire() for r in self.rejected],
            "request_ranks": list(self.request_ranks),
        }


@dataclass(frozen=True, slots=True)
class _Blockers:
    """Everything an instance must keep clear of, as ``(calendar id, reason, name, span)``."""

    items: tuple[tuple[str | None, str, str, Interval], ...]
    pad: int

    def first(self, start: Instant, end: Instant) -> tuple[str | None, str, str] | None:
        low, high = start.ns - self.pad, end.ns + self.pad
        for calendar_id, reason, name, span in self.items:
            if span.start < high and span.end > low:
                return calendar_id, reason, name
        return None


def _blockers(
    query: SlotQuery,
    busy: Sequence[tuple[str, Sequence[BusyPeriod]]],
    parsed: Sequence[Component],
    read: tuple[Instant, Instant],
    max_occurrences: int,
) -> _Blockers:
    """The busy periods ``busy`` of the required calendars, and the closed time the request
    holds for the window (working hours and days, each required attendee's own hours,
    availability) made again over ``read``."""
    required = {name for name, _ in busy}
    pad = query.buffer_seconds * NS
    items: list[tuple[str | None, str, str, Interval]] = []
    for name, periods in busy:
        items.extend(
            (name, "busy", p.uid, Interval(p.start.ns, p.end.ns))
            for p in periods
            if p.start < p.end
        )
    wide = dataclasses.replace(query, window_end=Instant(read[1].ns - pad))
    items.extend((None, "outside_hours", name, span) for name, span in off_hours(wide))
    for entry in query.attendee_hours:
        if entry.calendar_id in required:
            blocks = attendee_off_hours(wide, (entry.calendar_id,))
            items.extend((entry.calendar_id, "outside_hours", n, s) for n, s, _ in blocks)
    window = Interval(wide.window_start.ns, wide.window_end.ns)
    for span in unavailable_ranges(
        parsed, read[0], read[1], floating_zone=query.zone, max_occurrences=max_occurrences
    ):
        piece = closed_block(span, pad, window)
        if piece is not None:
            items.append((None, "unavailable", "availability", piece))
    return _Blockers(tuple(items), pad)


@dataclass(frozen=True, slots=True)
class _Pattern:
    """The moved series' instances relative to its anchor, as wall-time offsets in the
    series' frame (``kind``): a move by any delta writes ``anchor wall + offset`` for each."""

    kind: Kind
    offsets: tuple[tuple[timedelta, timedelta], ...]

    def instances(self, start: Instant) -> tuple[tuple[Instant, Instant], ...]:
        wall = self.kind.wall_of(start)
        until = horizon_end(start)
        spans = (
            (self.kind.instant(wall + first), self.kind.instant(wall + last))
            for first, last in self.offsets
        )
        return tuple((a, b) for a, b in spans if a < until)


def _uniform(resource: Calendar, uid: str, zone_name: str) -> Kind | None:
    """The series' :class:`Kind` when every delta shifts it the same way (module doc of
    :mod:`cerebri.calendars.changes`: every value moves by the wall-time delta): its
    ``RRULE`` (if any) has no part a date or time-of-day change rewrites or refuses, and no
    ``RANGE`` override; else None."""
    series = series_of(resource, uid, floating(zone_name))
    if series is None or series.master is None:
        return None
    rule = rule_of(series.master)
    if rule is not None:
        if any(part in rule for part in (*_BOUND_PARTS, *_BOUND_PARTS_TIME)):
            return None
        if any(str(day).upper() not in _WEEKDAYS for day in rule.get("BYDAY", [])):
            return None
    if any("RANGE" in event["RECURRENCE-ID"].params for event in series.overrides):
        return None
    return series.kind


_BOUND_PARTS: Final = ("BYMONTHDAY", "BYYEARDAY", "BYWEEKNO", "BYMONTH", "BYSETPOS")
_BOUND_PARTS_TIME: Final = ("BYHOUR", "BYMINUTE", "BYSECOND")
_WEEKDAYS: Final = ("MO", "TU", "WE", "TH", "FR", "SA", "SU")


@dataclass(frozen=True, slots=True)
class _Trial:
    """The move of ``uid`` tried in memory: :func:`~cerebri.calendars.changes.apply_change`
    of ``resource`` with a range, then :func:`moved_instances` of what it writes."""

    resource: Calendar
    uid: str
    scope: ChangeScope
    recurrence_id: Instant | None
    zone: str

    def __call__(
        self, first: Instant, last: Instant, until: Instant | None = None
    ) -> tuple[tuple[Instant, Instant], ...]:
        moved = EventChange(
            action="move",
            uid=self.uid,
            scope=self.scope,
            recurrence_id=self.recurrence_id,
            start=first,
            end=last,
            idempotency_key=_KEY,
        )
        outcome = apply_change(self.resource, moved, stamp=first, floating_zone=self.zone)
        return moved_instances(outcome, moved, self.zone, until=until)

    def pattern(self, start: Instant, end: Instant, until: Instant) -> _Pattern | None:
        """The :class:`_Pattern` of the move from one exact trial (to ``[start, end)``, its
        instances up to a day past ``until`` so that every candidate's horizon is covered)
        when the series shifts uniformly (:func:`_uniform`); None otherwise, or when that
        trial is refused: each candidate is then tried on its own."""
        kind = _uniform(self.resource, self.uid, self.zone)
        if kind is None:
            return None
        try:
            spans = self(start, end, until.plus_seconds(86_400) or until)
        except (ChangeError, CalendarError):
            return None
        anchor = kind.wall_of(start)
        offsets = tuple((kind.wall_of(a) - anchor, kind.wall_of(b) - anchor) for a, b in spans)
        return _Pattern(kind, offsets)

    def conflict(
        self, candidate: RankedCandidate, pattern: _Pattern | None, blockers: _Blockers
    ) -> SeriesRejection | None:
        """The first instance of ``candidate``'s move in the way of ``blockers`` (by
        ``pattern`` when there is one, else by a trial of its own), or None."""
        span = candidate.proposed.placements[0].range
        start, end = span.start, span.end
        try:
            spans = pattern.instances(start) if pattern is not None else self(start, end)
        except (ChangeError, CalendarError) as error:
            message = getattr(error, "message", str(error))
            return SeriesRejection(start, start, end, None, "cannot_write", message)
        for first, last in spans:
            if first == start:  # the anchor: the planner checked it
                continue
            hit = blockers.first(first, last)
            if hit is not None:
                return SeriesRejection(start, first, last, hit[0], hit[1], hit[2])
        return None


def fit_series(
    result: PlanningResult,
    *,
    resource: Calendar,
    uid: str,
    scope: ChangeScope,
    recurrence_id: Instant | None,
    query: SlotQuery,
    sources: NamedCalendars,
    leave_out: Callable[[BusyPeriod], bool],
    max_occurrences: int,
) -> tuple[PlanningResult, SeriesCheck]:
    """``result`` with the starts whose moved series is not free left out, and the check
    (module doc).

    Args:
        result: the planner's result of the reschedule request.
        resource: the organizer's calendar object resource holding the event.
        uid, scope, recurrence_id: the move as the request's change names it (scope
            ``SERIES`` or ``THIS_AND_FUTURE``); each candidate's range is tried in turn.
        query: the find-slot query of the reschedule (window, zone, buffer, hours).
        sources: the required attendees' calendars, by calendar id.
        leave_out: whether a busy period is the event itself (left out of busy time).
        max_occurrences: the expansion bound of the busy-time reads.

    Returns:
        The result (its ``outcome`` and ``assessment`` re-derived when no candidate is left;
        ``rejections`` and ``search_space`` are the planner's) and the :class:`SeriesCheck`.

    Raises:
        CalendarError: a calendar cannot be expanded over the horizon (``ics.*`` codes).
    """
    pad = query.buffer_seconds
    until = horizon_end(query.window_end).plus_seconds(pad) or horizon_end(query.window_end)
    start = query.window_start.plus_seconds(-pad) or query.window_start
    busy = [
        (
            name,
            tuple(
                p
                for p in busy_periods(
                    calendar,
                    start,
                    until,
                    floating_zone=query.zone,
                    max_occurrences=max_occurrences,
                )
                if not leave_out(p)
            ),
        )
        for name, calendar in sources
    ]
    parsed = [calendar for _, calendar in sources]
    blockers = _blockers(query, busy, parsed, (start, until), max_occurrences)

    trial = _Trial(resource, uid, scope, recurrence_id, query.zone)
    pattern = None
    if result.candidates:  # one exact trial, shifted for the others (decision 0063)
        first = result.candidates[0].proposed.placements[0].range
        pattern = trial.pattern(first.start, first.end, until)
    kept: list[RankedCandidate] = []
    ranks: list[int] = []
    rejected: list[SeriesRejection] = []
    for rank, candidate in enumerate(result.candidates, start=1):
        conflict = trial.conflict(candidate, pattern, blockers)
        if conflict is None:
            kept.append(candidate)
            ranks.append(rank)
        else:
            rejected.append(conflict)
    check = SeriesCheck(
        SERIES_CHECK_HORIZON_SECONDS,
        until,
        tuple(sorted(rejected, key=lambda r: r.start.ns)),
        tuple(ranks),
    )
    if not rejected:
        return result, check
    fitted = dataclasses.replace(result, candidates=tuple(kept))
    if not kept:
        outcome, assessment = outcome_of(0, result.search_space.exhausted)
        fitted = dataclasses.replace(fitted, outcome=outcome, assessment=assessment)
    return fitted, check
