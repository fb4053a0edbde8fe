"""What a slot answer says about the calendars it rests on: :class:`SlotAnswer`.

A calendar read with ``skip_invalid_events=True`` may miss events
(:func:`cerebri.ics.calendar_incomplete`); a slot found over it may collide with an event
that was left out. Such an answer keeps its candidates but claims neither optimality nor an
exhausted search: its assessment is ``BestFound``, which makes no optimality claim
(planner.md section 8; docs/decisions/0014-lenient-reading.md).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from icalendar import Component

from cerebri._json import JSONValue
from cerebri.cpir import Assessment, PlanningResult
from cerebri.ics import CalendarWarning, calendar_incomplete, warnings_of
from cerebri.temporal import Instant

__all__ = ["SlotAnswer", "SlotDetail", "answer_for", "rests_on_incomplete"]


@dataclass(frozen=True, slots=True)
class SlotDetail:
    """What find-slot ranked one candidate by (docs/decisions/0026).

    Attributes:
        start, end: the slot, UTC instants.
        preference_distance_seconds: its daily-preference distance in seconds
            (:func:`cerebri.calendars.ranking.preference_distance`), None without one.
        free, busy, unknown: the optional attendees (calendar ids, in the order given)
            whose calendars leave the slot free, make it busy, or do not describe it.
    """

    start: Instant
    end: Instant
    preference_distance_seconds: int | None
    free: tuple[str, ...] = ()
    busy: tuple[str, ...] = ()
    unknown: tuple[str, ...] = ()

    def to_wire(self) -> dict[str, JSONValue]:
        """``{"start", "end", "preference_distance_seconds", "optional_free",
        "optional_busy", "optional_unknown"}``; instants in the CPIR wire form."""
        return {
            "start": self.start.format(),
            "end": self.end.format(),
            "preference_distance_seconds": self.preference_distance_seconds,
            "optional_free": list(self.free),
            "optional_busy": list(self.busy),
            "optional_unknown": list(self.unknown),
        }


class SlotAnswer(tuple[dict[str, JSONValue], PlanningResult]):
    """``(request, result)`` of a slot search, plus what the calendars' reading noticed.

    Unpacks as the pair it always was (``request, result = find_slot(...)``) and compares
    as that pair; the extra attributes are:

    Attributes:
        warnings: every :class:`~cerebri.ics.CalendarWarning` of the calendars, sorted.
        complete: ``False`` when an event of some calendar was left out (then the result's
            assessment is ``BestFound``).
        slots: one :class:`SlotDetail` per candidate of the result, in the same order
            (daily-preference distance, optional attendees).
        below_min_attendance: the feasible slots left out because too few attendees are
            free in them (``SlotQuery.min_attendance``), in start order.
        zones: ``(calendar id, IANA zone)`` of every attendee whose zone is known, in
            calendar order, when the query gives attendee hours (else empty): the zones the
            answer shows each slot in (docs/decisions/0053).
    """

    warnings: tuple[CalendarWarning, ...]
    complete: bool
    slots: tuple[SlotDetail, ...]
    below_min_attendance: tuple[SlotDetail, ...]
    zones: tuple[tuple[str, str], ...]

    def __new__(
        cls,
        request: dict[str, JSONValue],
        result: PlanningResult,
        *,
        warnings: tuple[CalendarWarning, ...] = (),
        complete: bool = True,
        slots: tuple[SlotDetail, ...] = (),
        below_min_attendance: tuple[SlotDetail, ...] = (),
        zones: tuple[tuple[str, str], ...] = (),
    ) -> SlotAnswer:
        answer = super().__new__(cls, (request, result))
        answer.warnings = warnings
        answer.complete = complete
        answer.slots = slots
        answer.below_min_attendance = below_min_attendance
        answer.zones = zones
        return answer

    @property
    def request(self) -> dict[str, JSONValue]:
        """The CPIR request that was planned."""
        return self[0]

    @property
    def result(self) -> PlanningResult:
        """The planner's result (assessment downgraded when not :attr:`complete`)."""
        return self[1]

    def warnings_wire(self) -> list[JSONValue]:
        """The warnings as JSON objects (:meth:`CalendarWarning.to_wire`), sorted."""
        return [dict(warning.to_wire()) for warning in self.warnings]


def rests_on_incomplete(calendars: Sequence[Component]) -> bool:
    """Whether any of ``calendars`` had events left out while it was read."""
    return any(calendar_incomplete(calendar) for calendar in calendars)


def answer_for(
    request: dict[str, JSONValue],
    result: PlanningResult,
    calendars: Sequence[Component],
    *,
    slots: tuple[SlotDetail, ...] = (),
    below_min_attendance: tuple[SlotDetail, ...] = (),
    zones: tuple[tuple[str, str], ...] = (),
) -> SlotAnswer:
    """The :class:`SlotAnswer` for ``result`` planned over ``calendars`` (``zones``: the
    attendee zones, :attr:`SlotAnswer.zones`).

    When a calendar is incomplete, ``ProvenOptimal`` and ``Complete`` become ``BestFound``
    (outcome, candidates and everything else unchanged).
    """
    complete = not rests_on_incomplete(calendars)
    if not complete and result.assessment is not Assessment.BEST_FOUND:
        result = dataclasses.replace(result, assessment=Assessment.BEST_FOUND)
    return SlotAnswer(
        request,
        result,
        warnings=warnings_of(calendars),
        complete=complete,
        slots=slots,
        below_min_attendance=below_min_attendance,
        zones=zones,
    )
