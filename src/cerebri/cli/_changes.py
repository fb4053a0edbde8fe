"""``cerebri reschedule``, ``cerebri cancel-event`` and ``cerebri update-event``: change an
event already on the calendars (issue #23; docs/decisions/0055).

Each reads the calendars as ``find-slot`` does (``--ics``, ``--caldav``, ``--optional-*``),
finds the event by ``UID`` in the organizer's calendar (``--calendar``, else the calendar
whose owner is the event's ``ORGANIZER``, decision 0074) and plans the change with
:func:`cerebri.calendars.event_change.plan_event_change`. ``--emit-request`` prints the CPIR
request (``cerebri plan --limits local`` replays it to the same answer), ``--json`` the
answer (:func:`cerebri.calendars.change_wire.change_document`); otherwise the event before,
the candidates (after) with their reasons, and the rejected starts.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, TypeVar

import typer

from cerebri._json import pretty
from cerebri.calendars.change_request import ChangeOperation
from cerebri.calendars.change_wire import change_document
from cerebri.calendars.changes import ChangeScope, Participant
from cerebri.calendars.event_change import (
    EventChangeAsk,
    EventChangeFound,
    plan_event_change,
)
from cerebri.calendars.options import (
    parse_buffer,
    parse_duration,
    parse_window,
    parse_working_days,
    parse_working_hours,
)
from cerebri.calendars.slot_options import option_name, read_hours
from cerebri.calendars.slot_search import SlotSearch
from cerebri.cli._app import DEFAULT_TOP, TopOption, app, fail
from cerebri.cli._caldav_logins import CredentialsOption
from cerebri.cli._calendars import (
    BufferOption,
    CalDAVOption,
    GranularityOption,
    HoursOption,
    IcsOption,
    MaxCandidatesOption,
    MaxOccurrencesOption,
    NoCacheOption,
    OptionalCalDAVOption,
    PasswordOption,
    SkipOption,
    UserOption,
    WorkingDaysOption,
    WorkingHoursOption,
    ZoneOption,
    _check_inputs,
    _loader,
    _print_warnings,
    attendee_logins,
)
from cerebri.cli._durations import DURATION_FORMS
from cerebri.cli._planning import ExplainOption
from cerebri.cli.render_changes import render_change
from cerebri.errors import CerebriError
from cerebri.ics import DEFAULT_MAX_OCCURRENCES
from cerebri.temporal import Instant
from cerebri.temporal.zones import check_zone_name

__all__ = ["cancel_event", "reschedule", "update_event"]

T = TypeVar("T")
DAY = 86_400

UidArg = Annotated[str, typer.Argument(metavar="UID", help="The event's UID.")]
InstanceOption = Annotated[
    str | None,
    typer.Option(
        "--instance",
        metavar="INSTANT",
        help="One instance of a series, by its original start (RFC 3339, or local in --tz).",
    ),
]
FutureOption = Annotated[
    str | None,
    typer.Option(
        "--this-and-future",
        metavar="INSTANT",
        help="The instance at this original start and every later one.",
    ),
]
SeriesOption = Annotated[
    bool, typer.Option("--series", help="The whole series (the default without --instance).")
]
CalendarOption = Annotated[
    str | None,
    typer.Option(
        "--calendar",
        metavar="ID",
        help="The organizer's calendar id, where the event is (default: the calendar whose "
        "owner is the event's ORGANIZER).",
    ),
]
OptionalIcsOption = Annotated[
    list[Path] | None,
    typer.Option(
        "--optional-ics", readable=False, help="An optional attendee's .ics file (repeatable)."
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print the answer as JSON.")]
EmitOption = Annotated[
    bool, typer.Option("--emit-request", help="Print the CPIR request built, for replay.")
]
NewDurationOption = Annotated[
    str | None,
    typer.Option(
        "--duration",
        help=f"The new length ({DURATION_FORMS}; whole seconds; default: the event's own).",
    ),
]
OptionalBetween = Annotated[
    str | None,
    typer.Option(
        "--between",
        help="Window START/END (local in --tz): where to read CalDAV calendars, and with "
        "--series the first instance in it is the one shown and checked.",
    ),
]


@dataclass(frozen=True, slots=True)
class _Reading:
    """The options every change command shares (how to read the calendars): ``sources``
    is ``(--ics, --caldav, --optional-ics, --optional-caldav)``, ``credentials``
    ``(--caldav-credentials, --caldav-user, --caldav-password)``."""

    sources: tuple[list[Path] | None, list[str] | None, list[Path] | None, list[str] | None]
    calendar: str | None
    max_occurrences: int
    credentials: tuple[Path | None, str | None, str | None]
    skip: bool
    no_cache: bool

    @property
    def caldav(self) -> list[str] | None:
        return self.sources[1]

    @property
    def optional_caldav(self) -> list[str] | None:
        return self.sources[3]


@dataclass(frozen=True, slots=True)
class _Output:
    as_json: bool
    emit_request: bool
    top: int = DEFAULT_TOP
    explain: bool = False


@dataclass(frozen=True, slots=True)
class _Scope:
    instance: str | None
    this_and_future: str | None
    series: bool
    extras: dict[str, object] = field(default_factory=dict)


def _read(option: str, reader: Callable[..., T], *values: str) -> T:
    """``reader(*values)``; a ``ValueError`` becomes ``input.invalid_option`` naming
    ``option``."""
    try:
        return reader(*values)
    except ValueError as exc:
        reason = exc.message if isinstance(exc, CerebriError) else str(exc)
        raise CerebriError(f"{option}: {reason}", code="input.invalid_option") from None


def _instant(text: str, tz: str) -> Instant:
    """RFC 3339, or a local date-time in ``tz``: the instant of a one-second window."""
    start, _ = parse_window(f"{text}/9999-12-30T00:00", tz)
    return start


def _scope(scope: _Scope, tz: str) -> tuple[ChangeScope | None, Instant | None]:
    given = [
        name
        for name, value in (
            ("--instance", scope.instance),
            ("--this-and-future", scope.this_and_future),
            ("--series", scope.series or None),
        )
        if value is not None
    ]
    if len(given) > 1:
        raise CerebriError(
            f"{' and '.join(given)} are alternatives; pass one of them",
            code="input.invalid_option",
        )
    if scope.instance is not None:
        return ChangeScope.INSTANCE, _read("--instance", _instant, scope.instance, tz)
    if scope.this_and_future is not None:
        at = _read("--this-and-future", _instant, scope.this_and_future, tz)
        return ChangeScope.THIS_AND_FUTURE, at
    return (ChangeScope.SERIES if scope.series else None), None


def _load_window(
    between: tuple[Instant, Instant] | None, at: Instant | None, reading: _Reading
) -> tuple[Instant, Instant]:
    """The window CalDAV calendars are read over: ``--between`` widened to the instance
    named (a day from its original start)."""
    spans = [] if between is None else [between]
    if at is not None:
        day = at.plus_seconds(DAY)
        spans.append((at, day if day is not None else at))
    if not spans:
        if reading.caldav or reading.optional_caldav:
            raise CerebriError(
                "--between START/END is needed to read CalDAV calendars (the time the event "
                "lies in)",
                code="input.missing",
            )
        return Instant(0), Instant(DAY * 1_000_000_000)
    return min(s for s, _ in spans), max(e for _, e in spans)


def _run(
    ask: EventChangeAsk, reading: _Reading, between: tuple[Instant, Instant] | None
) -> EventChangeFound:
    ics, caldav, optional_ics, optional_caldav = reading.sources
    _check_inputs(ics, optional_ics, caldav, optional_caldav, None)
    logins = attendee_logins(reading.credentials, caldav, optional_caldav)
    search = SlotSearch(
        ics or (),
        caldav or (),
        optional_ics or (),
        optional_caldav or (),
        calendar=reading.calendar,
        max_occurrences=reading.max_occurrences,
    )
    window = _load_window(between, ask.at, reading)
    load = _loader(window, logins, reading.skip, use_cache=not reading.no_cache)
    return plan_event_change(ask, search, load)


def _answer(
    ask: EventChangeAsk,
    reading: _Reading,
    between: tuple[Instant, Instant] | None,
    output: _Output,
) -> None:
    """Plan and print (module doc)."""
    try:
        if output.as_json and output.emit_request:
            raise CerebriError(
                "--json and --emit-request print different documents; pass one of them",
                code="input.invalid_option",
            )
        found = _run(ask, reading, between)
    except CerebriError as error:
        raise fail(error) from None
    answer = found.answer
    if output.emit_request:
        sys.stdout.write(pretty(answer.request))
        _print_warnings(answer.warnings, complete=answer.complete)
        return
    if output.as_json:
        sys.stdout.write(pretty(change_document(found)))
        return
    _print_warnings(answer.warnings, complete=answer.complete)
    render_change(found, top=output.top, explain=output.explain)


def _zone(tz: str) -> str:
    _read("--tz", check_zone_name, tz)
    return tz


def _seconds(option: str, text: str | None, reader: Callable[[str], int]) -> int | None:
    return None if text is None else _read(option, reader, text)


@app.command(short_help="Find a new time for an event already on the calendars.")
def reschedule(  # noqa: PLR0917 - typer maps every option to a parameter
    uid: UidArg,
    between: Annotated[
        str,
        typer.Option("--between", help="Window START/END to search (local in --tz)."),
    ],
    ics: IcsOption = None,
    caldav: CalDAVOption = None,
    instance: InstanceOption = None,
    this_and_future: FutureOption = None,
    series: SeriesOption = False,
    duration: NewDurationOption = None,
    granularity: GranularityOption = "15m",
    tz: ZoneOption = "UTC",
    working_hours: WorkingHoursOption = None,
    working_days: WorkingDaysOption = None,
    buffer: BufferOption = None,
    hours: HoursOption = None,
    optional_ics: OptionalIcsOption = None,
    optional_caldav: OptionalCalDAVOption = None,
    calendar: CalendarOption = None,
    top: TopOption = DEFAULT_TOP,
    max_candidates: MaxCandidatesOption = 100_000,
    as_json: JsonOption = False,
    emit_request: EmitOption = False,
    explain: ExplainOption = False,
    max_occurrences: MaxOccurrencesOption = DEFAULT_MAX_OCCURRENCES,
    caldav_user: UserOption = None,
    caldav_password: PasswordOption = None,
    caldav_credentials: CredentialsOption = None,
    skip: SkipOption = False,
    no_cache: NoCacheOption = False,
) -> None:
    """Find a new time for an event already on the calendars: every attendee free, the
    event's own time left out, least disruption first (same day, then same time of day,
    then nearest). The CPIR request is a RESCHEDULE that `cerebri propose` accepts."""
    try:
        zone_name = _zone(tz)
        window = _read("--between", parse_window, between, zone_name)
        scope, at = _scope(_Scope(instance, this_and_future, series), zone_name)
        ask = EventChangeAsk(
            ChangeOperation.RESCHEDULE,
            uid,
            scope=scope,
            at=at,
            window=window,
            zone=zone_name,
            granularity_seconds=_read("--granularity", parse_duration, granularity),
            duration_seconds=_seconds("--duration", duration, parse_duration),
            buffer_seconds=_seconds("--buffer", buffer, parse_buffer) or 0,
            working_hours=None
            if working_hours is None
            else _read("--working-hours", parse_working_hours, working_hours),
            working_days=None
            if working_days is None
            else _read("--working-days", parse_working_days, working_days),
            max_candidates=max_candidates,
            attendee_hours=read_hours(hours or (), zone_name, name=option_name),
        )
    except CerebriError as error:
        raise fail(error) from None
    sources = (ics, caldav, optional_ics, optional_caldav)
    credentials = (caldav_credentials, caldav_user, caldav_password)
    reading = _Reading(sources, calendar, max_occurrences, credentials, skip, no_cache)
    _answer(ask, reading, window, _Output(as_json, emit_request, top, explain))


@app.command("cancel-event", short_help="Cancel an event or one instance of a series.")
def cancel_event(  # noqa: PLR0917 - typer maps every option to a parameter
    uid: UidArg,
    ics: IcsOption = None,
    caldav: CalDAVOption = None,
    instance: InstanceOption = None,
    this_and_future: FutureOption = None,
    series: SeriesOption = False,
    between: OptionalBetween = None,
    tz: ZoneOption = "UTC",
    optional_ics: OptionalIcsOption = None,
    optional_caldav: OptionalCalDAVOption = None,
    calendar: CalendarOption = None,
    as_json: JsonOption = False,
    emit_request: EmitOption = False,
    max_occurrences: MaxOccurrencesOption = DEFAULT_MAX_OCCURRENCES,
    caldav_user: UserOption = None,
    caldav_password: PasswordOption = None,
    caldav_credentials: CredentialsOption = None,
    skip: SkipOption = False,
    no_cache: NoCacheOption = False,
) -> None:
    """Cancel an event, one instance, this and future instances, or a whole series. The
    CPIR request is a CANCEL (one DELETE_EVENT, approval required)."""
    try:
        zone_name = _zone(tz)
        window = None if between is None else _read("--between", parse_window, between, tz)
        scope, at = _scope(_Scope(instance, this_and_future, series), zone_name)
        ask = EventChangeAsk(
            ChangeOperation.CANCEL, uid, scope=scope, at=at, window=window, zone=zone_name
        )
    except CerebriError as error:
        raise fail(error) from None
    sources = (ics, caldav, optional_ics, optional_caldav)
    credentials = (caldav_credentials, caldav_user, caldav_password)
    reading = _Reading(sources, calendar, max_occurrences, credentials, skip, no_cache)
    _answer(ask, reading, window, _Output(as_json, emit_request))


def _people(required: list[str] | None, optional: list[str] | None) -> tuple[Participant, ...]:
    return (
        *(Participant(a, None, True) for a in required or ()),
        *(Participant(a, None, False) for a in optional or ()),
    )


@app.command("update-event", short_help="Change an event's title, length, place or people.")
def update_event(  # noqa: PLR0917 - typer maps every option to a parameter
    uid: UidArg,
    ics: IcsOption = None,
    caldav: CalDAVOption = None,
    instance: InstanceOption = None,
    this_and_future: FutureOption = None,
    series: SeriesOption = False,
    title: Annotated[str | None, typer.Option("--title", help="The new title.")] = None,
    duration: NewDurationOption = None,
    location: Annotated[str | None, typer.Option("--location", help="The new place.")] = None,
    attendee: Annotated[
        list[str] | None,
        typer.Option("--attendee", metavar="EMAIL", help="Add a required attendee (repeatable)."),
    ] = None,
    optional_attendee: Annotated[
        list[str] | None,
        typer.Option(
            "--optional-attendee", metavar="EMAIL", help="Add an optional attendee (repeatable)."
        ),
    ] = None,
    remove_attendee: Annotated[
        list[str] | None,
        typer.Option("--remove-attendee", metavar="EMAIL", help="Remove an attendee (repeatable)."),
    ] = None,
    between: OptionalBetween = None,
    tz: ZoneOption = "UTC",
    hours: HoursOption = None,
    optional_ics: OptionalIcsOption = None,
    optional_caldav: OptionalCalDAVOption = None,
    calendar: CalendarOption = None,
    as_json: JsonOption = False,
    emit_request: EmitOption = False,
    explain: ExplainOption = False,
    max_occurrences: MaxOccurrencesOption = DEFAULT_MAX_OCCURRENCES,
    caldav_user: UserOption = None,
    caldav_password: PasswordOption = None,
    caldav_credentials: CredentialsOption = None,
    skip: SkipOption = False,
    no_cache: NoCacheOption = False,
) -> None:
    """Change an event's title, length, place or attendees. A new length is checked against
    every required attendee's calendar: a conflict is refused and named. The CPIR request is
    an UPDATE (one UPDATE_EVENT, approval required)."""
    try:
        zone_name = _zone(tz)
        window = None if between is None else _read("--between", parse_window, between, tz)
        scope, at = _scope(_Scope(instance, this_and_future, series), zone_name)
        ask = EventChangeAsk(
            ChangeOperation.UPDATE,
            uid,
            scope=scope,
            at=at,
            window=window,
            zone=zone_name,
            duration_seconds=_seconds("--duration", duration, parse_duration),
            title=title,
            location=location,
            add_attendees=_people(attendee, optional_attendee),
            remove_attendees=tuple(remove_attendee or ()),
            attendee_hours=read_hours(hours or (), zone_name, name=option_name),
        )
    except CerebriError as error:
        raise fail(error) from None
    sources = (ics, caldav, optional_ics, optional_caldav)
    credentials = (caldav_credentials, caldav_user, caldav_password)
    reading = _Reading(sources, calendar, max_occurrences, credentials, skip, no_cache)
    _answer(ask, reading, window, _Output(as_json, emit_request, DEFAULT_TOP, explain))
