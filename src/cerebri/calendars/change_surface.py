"""What every shell of the event changes shares: the options read as JSON members, and the
answer (docs/decisions/0058).

The HTTP routes ``POST /v1/events/reschedule|cancel|update``, the Node bridge's
``reschedule_event``/``cancel_event``/``update_event`` and the MCP tools ``reschedule_event``/
``cancel_event``/``update_event`` take the options of ``cerebri reschedule``,
``cancel-event`` and ``update-event`` as JSON members of the same names (``--this-and-future``
is ``this_and_future``, ``--optional-attendee`` ``optional_attendees``...) and answer
:func:`change_answer`: the ``--json`` document
(:func:`~cerebri.calendars.change_wire.change_document`: the PlanningResult, ``warnings``,
``event`` before, ``change``) plus ``request``, the CPIR request ``--emit-request`` prints,
which ``propose`` turns into a proposal.

:func:`change_ask` reads the options into an
:class:`~cerebri.calendars.event_change.EventChangeAsk`; a value that cannot be read is
``input.invalid_option`` with the JSON pointer of its member (``/instance``, ``/between``,
``/duration``...). :func:`located` gives the use-case's own refusals a pointer too:
``calendar.not_found`` at ``/uid``, ``calendars.no_calendar`` at ``/calendar``, any other
code without one at ``""`` (the body as a whole).

``hours`` (reschedule and update, decision 0061) is a list of ``find-slot --hours`` entries
``ID=[DAYS ][HH:MM-HH:MM][@ZONE]`` read by
:func:`~cerebri.calendars.slot_options.read_hours` (``input.invalid_option`` at
``/hours/<i>``); :func:`check_hours` refuses, at the same pointer, an id no calendar sent has.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any, TypeVar

from cerebri._json import JSONValue
from cerebri.calendars.change_request import ChangeOperation
from cerebri.calendars.change_wire import change_document
from cerebri.calendars.changes import ChangeScope, Participant
from cerebri.calendars.event_change import EventChangeAsk, EventChangeFound
from cerebri.calendars.options import (
    parse_buffer,
    parse_duration,
    parse_window,
    parse_working_days,
    parse_working_hours,
)
from cerebri.calendars.slot_options import pointer_name, read_hours
from cerebri.calendars.slot_search import SlotSearch
from cerebri.calendars.sources import source_ids
from cerebri.errors import CerebriError
from cerebri.temporal import Instant
from cerebri.temporal.zones import check_zone_name

__all__ = [
    "DAY_SECONDS",
    "ChangeOptions",
    "change_answer",
    "change_ask",
    "check_hours",
    "located",
    "read_window",
]

T = TypeVar("T")
DAY_SECONDS = 86_400

_PATHS = {"calendar.not_found": "/uid", "calendars.no_calendar": "/calendar"}


@dataclass(frozen=True, slots=True)
class ChangeOptions:
    """The options of a change, as JSON members (module doc). Strings are read with the
    command line's readers (:mod:`cerebri.calendars.options`); a duration may also be an
    integer of seconds. Members an operation does not take keep their defaults."""

    uid: str
    instance: str | None = None
    this_and_future: str | None = None
    series: bool = False
    between: str | None = None
    tz: str = "UTC"
    duration: str | int | None = None
    granularity: str | int = "15m"
    buffer: str | int | None = None
    working_hours: str | None = None
    working_days: str | None = None
    max_candidates: int = 100_000
    title: str | None = None
    location: str | None = None
    attendees: Sequence[str] = ()
    optional_attendees: Sequence[str] = ()
    remove_attendees: Sequence[str] = ()
    hours: Sequence[str] = ()

    @classmethod
    def of(cls, values: Mapping[str, Any]) -> ChangeOptions:
        """The options among ``values`` (e.g. a pydantic model's ``model_dump()``; other
        keys are ignored, ``None`` lists are empty)."""
        taken = {f.name: values[f.name] for f in fields(cls) if f.name in values}
        for name in ("attendees", "optional_attendees", "remove_attendees", "hours"):
            taken[name] = tuple(taken.get(name) or ())
        return cls(**taken)


def _read(member: str, reader: Callable[..., T], *values: str) -> T:
    """``reader(*values)``; a ``ValueError`` is ``input.invalid_option`` at ``/member``."""
    try:
        return reader(*values)
    except ValueError as exc:
        reason = exc.message if isinstance(exc, CerebriError) else str(exc)
        raise CerebriError(
            f"{member}: {reason}", code="input.invalid_option", path=f"/{member}"
        ) from None


def _seconds(member: str, value: str | int | None, reader: Callable[[str], int]) -> int | None:
    if value is None or isinstance(value, int):
        return value
    return _read(member, reader, value)


def _instant(text: str, tz: str) -> Instant:
    """RFC 3339, or a local date-time in ``tz`` (as ``cerebri reschedule --instance``)."""
    start, _ = parse_window(f"{text}/9999-12-30T00:00", tz)
    return start


def _scope(options: ChangeOptions) -> tuple[ChangeScope | None, Instant | None]:
    given = [
        name
        for name, value in (
            ("instance", options.instance),
            ("this_and_future", options.this_and_future),
            ("series", options.series or None),
        )
        if value is not None
    ]
    if len(given) > 1:
        raise CerebriError(
            f"{' and '.join(given)} are alternatives; pass one of them",
            code="input.invalid_option",
            path=f"/{given[1]}",
        )
    if options.instance is not None:
        return ChangeScope.INSTANCE, _read("instance", _instant, options.instance, options.tz)
    if options.this_and_future is not None:
        at = _read("this_and_future", _instant, options.this_and_future, options.tz)
        return ChangeScope.THIS_AND_FUTURE, at
    return (ChangeScope.SERIES if options.series else None), None


def _people(options: ChangeOptions) -> tuple[Participant, ...]:
    return (
        *(Participant(a, None, True) for a in options.attendees),
        *(Participant(a, None, False) for a in options.optional_attendees),
    )


def change_ask(operation: ChangeOperation, options: ChangeOptions) -> EventChangeAsk:
    """The :class:`EventChangeAsk` of ``options`` for ``operation``.

    Raises:
        CerebriError: ``input.invalid_option`` at the member's pointer for a value that
            cannot be read (zone, window, instant, duration...) or two scopes at once; a
            reschedule without ``between`` is ``input.missing`` at ``/between``; an
            ``hours`` entry that cannot be read, or repeats an id, at ``/hours/<i>``.
    """
    tz = _read("tz", check_zone_name, options.tz)
    if operation is ChangeOperation.RESCHEDULE and options.between is None:
        raise CerebriError(
            "a reschedule needs a window to search: between START/END",
            code="input.missing",
            path="/between",
        )
    window = (
        None if options.between is None else _read("between", parse_window, options.between, tz)
    )
    scope, at = _scope(options)
    granularity = _seconds("granularity", options.granularity, parse_duration)
    assert granularity is not None
    hours, days = options.working_hours, options.working_days
    return EventChangeAsk(
        operation,
        options.uid,
        scope=scope,
        at=at,
        window=window,
        zone=tz,
        granularity_seconds=granularity,
        duration_seconds=_seconds("duration", options.duration, parse_duration),
        buffer_seconds=_seconds("buffer", options.buffer, parse_buffer) or 0,
        working_hours=None if hours is None else _read("working_hours", parse_working_hours, hours),
        working_days=None if days is None else _read("working_days", parse_working_days, days),
        max_candidates=options.max_candidates,
        title=options.title,
        location=options.location,
        add_attendees=_people(options),
        remove_attendees=tuple(options.remove_attendees),
        attendee_hours=read_hours(options.hours, tz, name=pointer_name),
    )


def check_hours(ask: EventChangeAsk, search: SlotSearch) -> None:
    """``input.invalid_option`` at ``/hours/<i>`` for the first ``ask.attendee_hours``
    entry whose id is none of the calendar ids of ``search`` (required and optional, the
    ids the use-case gives them: :func:`~cerebri.calendars.sources.source_ids`)."""
    ids = source_ids([*search.ics, *search.caldav, *search.optional_ics, *search.optional_caldav])
    for index, entry in enumerate(ask.attendee_hours):
        if entry.calendar_id not in ids:
            raise CerebriError(
                f"hours/{index}: no calendar has id {entry.calendar_id!r} "
                f"(calendar ids: {', '.join(ids)})",
                code="input.invalid_option",
                path=f"/hours/{index}",
            )


def read_window(
    window: tuple[Instant, Instant] | None, at: Instant | None, *, remote: bool
) -> tuple[Instant, Instant]:
    """The window CalDAV calendars are read over (as ``cerebri reschedule``): ``window``
    widened to a day from the instance's original start ``at``. Without either, ``remote``
    (a CalDAV calendar is named) is ``input.missing`` at ``/between``; else the first day of
    the epoch (only .ics files are read, and they are read whole)."""
    spans = [] if window is None else [window]
    if at is not None:
        day = at.plus_seconds(DAY_SECONDS)
        spans.append((at, day if day is not None else at))
    if not spans:
        if remote:
            raise CerebriError(
                "between START/END is needed to read CalDAV calendars (the time the event lies in)",
                code="input.missing",
                path="/between",
            )
        return Instant(0), Instant(DAY_SECONDS * 1_000_000_000)
    return min(s for s, _ in spans), max(e for _, e in spans)


def located(error: CerebriError) -> CerebriError:
    """``error`` with a JSON pointer when it has none (module doc); code and class kept."""
    if error.path is None:
        error.path = _PATHS.get(error.code, "")
    return error


def change_answer(found: EventChangeFound) -> dict[str, JSONValue]:
    """The answer of every shell: :func:`~cerebri.calendars.change_wire.change_document`
    (the ``--json`` document) plus ``request``, the CPIR request of the change (what
    ``--emit-request`` prints; ``cerebri plan --limits local`` replays it to the same
    candidates, and ``propose`` accepts it)."""
    document = change_document(found)
    document["request"] = found.answer.request
    return document
