"""``cerebri find-slot`` and ``cerebri freebusy`` over .ics files and CalDAV calendars."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, TypeVar

import typer
from icalendar import Component
from rich.console import Console
from rich.markup import escape
from rich.progress import Progress

from cerebri._json import pretty
from cerebri.calendars import FIND_SLOT_LIMITS, SlotQuery
from cerebri.calendars import freebusy as freebusy_view
from cerebri.calendars.slot_options import (
    SlotOptions,
    option_name,
    read_window,
    refuse_two_preferences,
    slot_query,
)
from cerebri.calendars.slot_search import SlotSearch, SlotsFound, SourceLoader, search_slots
from cerebri.calendars.sources import CalDAVReader, load_sources
from cerebri.calendars.wire import find_slot_document, freebusy_wire, ranked_beyond_planner
from cerebri.cli._app import DEFAULT_TOP, TopOption, app, fail, printable, table_console
from cerebri.cli._caldav_logins import CredentialsOption, caldav_logins
from cerebri.cli._durations import DURATION_FORMS
from cerebri.cli._event_out import (
    DEFAULT_TITLE,
    AtOption,
    AttendeeOption,
    IcsOutOption,
    OrganizerOption,
    PickOption,
    TitleOption,
    UidOption,
    check_event_options,
    to_stdout,
    write_event,
)
from cerebri.cli._planning import ExplainOption
from cerebri.cli._slot_inputs import (
    refuse_output_over_input,
    refuse_repeated_calendars,
    replay_note,
)
from cerebri.cli.render import render_result
from cerebri.cli.render_calendars import (
    busy_label,
    render_freebusy,
    render_local_times,
    render_slots,
    series_label,
    slot_columns,
)
from cerebri.cpir import parse_request
from cerebri.errors import CerebriError
from cerebri.ics import DEFAULT_MAX_OCCURRENCES, CalendarWarning, object_id
from cerebri.temporal import Instant

if TYPE_CHECKING:
    from cerebri.integrations.credentials import CalDAVLogins

__all__ = ["EXIT_INCOMPLETE", "find_slot", "freebusy"]

EXIT_INCOMPLETE = 3
"""Exit status of ``find-slot --emit-request`` when the request was built from incomplete
calendars (``--skip-invalid-events`` left events out): the request is printed, but a replay
cannot know what was left out (docs/decisions/0014)."""

_ANSWER_INCOMPLETE = (
    "incomplete: events were left out (--skip-invalid-events); "
    "the answer claims no optimality and may miss busy time"
)
_REQUEST_INCOMPLETE = (
    "incomplete: events were left out (--skip-invalid-events) and the request cannot record "
    "it: a replay with `cerebri plan` does not know, may claim optimality and may offer the "
    f"left-out busy time as free (exit status {EXIT_INCOMPLETE})"
)

T = TypeVar("T")


IcsOption = Annotated[
    list[Path] | None,
    typer.Option(
        "--ics",
        readable=False,  # cerebri._files judges the path: input.unreadable, not a usage box
        help="An .ics file (repeat for several calendars/attendees).",
    ),
]
CalDAVOption = Annotated[
    list[str] | None,
    typer.Option("--caldav", help="A CalDAV calendar or principal URL (repeatable)."),
]
ZoneOption = Annotated[
    str, typer.Option("--tz", help="IANA zone for local times, working hours and floating times.")
]
BetweenOption = Annotated[
    str,
    typer.Option(
        "--between",
        help="Window START/END, e.g. 2026-10-05T08:00/2026-10-09T18:00 (local in --tz).",
    ),
]
DurationOption = Annotated[
    str,
    typer.Option("--duration", help=f"Meeting length ({DURATION_FORMS}, PT1H30M; whole seconds)."),
]
GranularityOption = Annotated[
    str,
    typer.Option("--granularity", help=f"Grid step ({DURATION_FORMS}; whole seconds)."),
]
WorkingHoursOption = Annotated[
    str | None, typer.Option("--working-hours", help="Local working hours, e.g. 09:00-17:00.")
]
WorkingDaysOption = Annotated[
    str | None, typer.Option("--working-days", help="Open weekdays, e.g. Mon-Fri.")
]
BufferOption = Annotated[
    str | None,
    typer.Option(
        "--buffer",
        help=f"Minimum gap to other events ({DURATION_FORMS}; whole seconds; 0: none).",
    ),
]
PreferOption = Annotated[
    str | None,
    typer.Option(
        "--prefer", help="Preferred local start time on every day of the window, e.g. 10:30."
    ),
]
UserOption = Annotated[
    str | None, typer.Option("--caldav-user", envvar="CEREBRI_CALDAV_USER", help="CalDAV user.")
]
SkipOption = Annotated[
    bool,
    typer.Option(
        "--skip-invalid-events",
        help="Leave out events that cannot be read (listed as warnings; the answer is then "
        "marked incomplete) instead of refusing the whole calendar.",
    ),
]
PasswordOption = Annotated[
    str | None,
    typer.Option(
        "--caldav-password",
        envvar="CEREBRI_CALDAV_PASSWORD",
        help="CalDAV password (prefer the CEREBRI_CALDAV_PASSWORD variable).",
    ),
]

NoCacheOption = Annotated[
    bool,
    typer.Option(
        "--no-cache",
        help="Read CalDAV calendars in full and leave the local cache untouched.",
    ),
]


HoursOption = Annotated[
    list[str] | None,
    typer.Option(
        "--hours",
        metavar="ID=HOURS",
        help="An attendee's own working hours and zone, ID=[DAYS ]HH:MM-HH:MM[@ZONE], e.g. "
        "alice=09:00-17:00@America/New_York or 'bob=Mon-Fri 08:00-16:00@Europe/Berlin' "
        "(repeatable; ID is the calendar id find-slot gives the source, e.g. the file name "
        "without .ics; ZONE defaults to --tz; ID=@ZONE only sets the zone; 22:00-06:00 "
        "runs into the next day). Required "
        "attendees' hours block, optional attendees' count for attendance; slots are then "
        "also shown in each attendee's local time.",
    ),
]

OptionalCalDAVOption = Annotated[
    list[str] | None,
    typer.Option("--optional-caldav", help="An optional attendee's CalDAV URL (repeatable)."),
]
MaxCandidatesOption = Annotated[
    int,
    typer.Option(
        "--max-candidates", min=0, max=100_000, help="Grid positions to evaluate at most."
    ),
]

MaxOccurrencesOption = Annotated[
    int,
    typer.Option(
        "--max-occurrences",
        min=0,
        help="Most recurrence instances generated per query (per calendar and window); "
        "more is refused with ics.expansion_limit.",
    ),
]


def attendee_logins(
    credentials: tuple[Path | None, str | None, str | None],
    caldav: list[str] | None,
    optional_caldav: list[str] | None,
) -> CalDAVLogins | None:
    """The logins for every ``--caldav`` and ``--optional-caldav`` URL
    (:func:`~cerebri.cli._caldav_logins.caldav_logins` over ``(--caldav-credentials,
    --caldav-user, --caldav-password)``); its errors name both options."""
    path, user, password = credentials
    return caldav_logins(
        path,
        user,
        password,
        [*(caldav or ()), *(optional_caldav or ())],
        url_options="--caldav or --optional-caldav",
    )


def _sources(
    ics: list[Path] | None,
    caldav: list[str] | None,
    window: tuple[Instant, Instant],
    logins: CalDAVLogins | None,
    *,
    ids: list[str] | None = None,
    skip_invalid_events: bool = False,
    use_cache: bool = True,
) -> list[tuple[str, Component]]:
    ics_paths, urls = ics or [], caldav or []
    if not ics_paths and not urls:
        raise CerebriError(
            "name at least one calendar with --ics or --caldav", code="input.missing"
        )
    total = len(ics_paths) + len(urls)
    err = Console(stderr=True)

    reader = _caldav_reader(logins, cache=use_cache) if urls else None

    def load(step: Callable[[str], None] | None) -> list[tuple[str, Component]]:
        return load_sources(
            ics_paths,
            urls,
            window,
            read_caldav=reader,
            ids=ids,
            step=step,
            skip_invalid_events=skip_invalid_events,
        )

    if err.is_terminal and total > 1:
        with Progress(transient=True, console=err) as progress:
            task = progress.add_task("reading calendars", total=total)

            def step(label: str) -> None:
                progress.update(task, advance=1, description=f"reading {escape(label)}")

            return load(step)
    return load(None)


def _caldav_reader(logins: CalDAVLogins | None, *, cache: bool) -> CalDAVReader:
    """The CalDAV reader of the command's URLs (the network stack loads only for them)."""
    from cerebri.integrations.caldav_reader import caldav_reader  # noqa: PLC0415 - network edge

    return caldav_reader(logins=logins, cache=cache)


def _print_warnings(
    warnings: tuple[CalendarWarning, ...], *, complete: bool, note: str = _ANSWER_INCOMPLETE
) -> None:
    """A short ``warnings:`` section on stderr (plain text, input made printable), and
    ``note`` when the calendars are incomplete."""
    if warnings:
        sys.stderr.write(f"warnings ({len(warnings)}):\n")
    for warning in warnings:
        where = f"{warning.source or '<calendar>'}:{warning.line}" if warning.line else ""
        parts = [part for part in (where, f"UID {warning.uid}" if warning.uid else "") if part]
        place = f" ({', '.join(parts)})" if parts else ""
        sys.stderr.write(printable(f"  {warning.code}{place}: {warning.message}") + "\n")
    if not complete:
        sys.stderr.write(note + "\n")


def _reason(exc: ValueError) -> str:
    """The message of a refused value, without the code a CerebriError prints first."""
    return exc.message if isinstance(exc, CerebriError) else str(exc)


def _check_inputs(
    ics: list[Path] | None,
    optional_ics: list[Path] | None,
    caldav: list[str] | None,
    optional_caldav: list[str] | None,
    ics_out: Path | None,
) -> None:
    """Refuse a calendar given twice and an ``--ics-out`` over an input (``cli/_slot_inputs``)."""
    files = [
        *(("--ics", p) for p in ics or ()),
        *(("--optional-ics", p) for p in optional_ics or ()),
    ]
    urls = [
        *(("--caldav", u) for u in caldav or ()),
        *(("--optional-caldav", u) for u in optional_caldav or ()),
    ]
    refuse_repeated_calendars(files, urls)
    refuse_output_over_input(ics_out, files)


@app.command("find-slot", short_help="Find free slots for a meeting across attendees' calendars.")
def find_slot(  # noqa: PLR0917 - typer maps every option to a parameter
    duration: DurationOption,
    between: BetweenOption,
    ics: IcsOption = None,
    caldav: CalDAVOption = None,
    granularity: GranularityOption = "15m",
    tz: ZoneOption = "UTC",
    working_hours: WorkingHoursOption = None,
    working_days: WorkingDaysOption = None,
    buffer: BufferOption = None,
    prefer: PreferOption = None,
    prefer_between: Annotated[
        str | None,
        typer.Option(
            "--prefer-between",
            help="Preferred local start range on every day, e.g. 10:00-12:00 (no cost inside).",
        ),
    ] = None,
    prefer_earliest: Annotated[
        bool, typer.Option("--prefer-earliest", help="Rank early local times of day first.")
    ] = False,
    prefer_latest: Annotated[
        bool, typer.Option("--prefer-latest", help="Rank late local times of day first.")
    ] = False,
    optional_ics: Annotated[
        list[Path] | None,
        typer.Option(
            "--optional-ics",
            readable=False,
            help="An optional attendee's .ics file (repeatable): never blocks a slot; slots "
            "where more optional attendees are free rank first.",
        ),
    ] = None,
    optional_caldav: OptionalCalDAVOption = None,
    min_attendance: Annotated[
        str | None,
        typer.Option(
            "--min-attendance",
            metavar="FRACTION",
            help="Offer only slots where at least this fraction (0-1, e.g. 0.8) of all "
            "attendees, required and optional, is free.",
        ),
    ] = None,
    top: TopOption = DEFAULT_TOP,
    max_candidates: MaxCandidatesOption = 100_000,
    as_json: Annotated[bool, typer.Option("--json", help="Print the PlanningResult JSON.")] = False,
    emit_request: Annotated[
        bool,
        typer.Option(
            "--emit-request",
            help="Print the CPIR request built, for replay (not with --json; exit status "
            f"{EXIT_INCOMPLETE} when events were left out by --skip-invalid-events).",
        ),
    ] = False,
    max_occurrences: MaxOccurrencesOption = DEFAULT_MAX_OCCURRENCES,
    caldav_user: UserOption = None,
    caldav_password: PasswordOption = None,
    caldav_credentials: CredentialsOption = None,
    skip: SkipOption = False,
    no_cache: NoCacheOption = False,
    create: Annotated[
        str | None,
        typer.Option(
            "--create",
            metavar="TITLE",
            help="Ask to create an event with this title in the slot: the request becomes a "
            "CREATE (approval required) that `cerebri propose` and `plan-graph from-request` "
            "accept.",
        ),
    ] = None,
    explain: ExplainOption = False,
    calendar: Annotated[
        str | None,
        typer.Option(
            "--calendar",
            metavar="ID",
            help="With --create: the calendar id that gets the event (default: the first "
            "--ics file's calendar, else the first --caldav calendar).",
        ),
    ] = None,
    ics_out: IcsOutOption = None,
    pick: PickOption = 1,
    title: TitleOption = None,
    attendee: AttendeeOption = None,
    organizer: OrganizerOption = None,
    uid: UidOption = None,
    at: AtOption = None,
    hours: HoursOption = None,
) -> None:
    """Find free slots for a meeting across calendars (every attendee's busy time)."""
    try:
        stamp = _check_options(
            as_json=as_json,
            emit_request=emit_request,
            create=create,
            calendar=calendar,
            preferences=(prefer, prefer_between, prefer_earliest, prefer_latest),
            ics_out=ics_out,
            pick=pick,
            extras={
                "--title": title,
                "--attendee": attendee,
                "--organizer": organizer,
                "--uid": uid,
                "--at": at,
            },
            inputs=(ics, optional_ics, caldav, optional_caldav),
        )
        query = slot_query(
            SlotOptions(
                duration=duration,
                between=between,
                tz=tz,
                granularity=granularity,
                working_hours=working_hours,
                working_days=working_days,
                buffer=buffer,
                prefer=prefer,
                prefer_between=prefer_between,
                prefer_earliest=prefer_earliest,
                prefer_latest=prefer_latest,
                min_attendance=min_attendance,
                max_candidates=max_candidates,
                hours=hours,
            ),
            name=option_name,
        )
        logins = attendee_logins(
            (caldav_credentials, caldav_user, caldav_password), caldav, optional_caldav
        )
        search = SlotSearch(
            ics or (),
            caldav or (),
            optional_ics or (),
            optional_caldav or (),
            create=create,
            calendar=calendar,
            max_occurrences=max_occurrences,
        )
        window = (query.window_start, query.window_end)
        found = search_slots(query, search, _loader(window, logins, skip, use_cache=not no_cache))
        if ics_out is not None:
            write_event(
                ics_out,
                found.answer,
                found.sources,
                calendar,
                pick=pick,
                title=title or create or DEFAULT_TITLE,
                attendees=attendee,
                organizer=organizer,
                uid=uid,
                at=stamp,
            )
    except CerebriError as error:
        raise fail(error) from None
    if emit_request:
        _print_request(found, query)
        return
    ranked = ranked_beyond_planner(query, optional=bool(found.optional))
    if as_json:
        sys.stdout.write(pretty(find_slot_document(found.answer, ranked=ranked)))
        return
    _print_warnings(found.answer.warnings, complete=found.answer.complete)
    if ics_out is not None and to_stdout(ics_out):
        return  # stdout holds the event alone
    _render_found(found, create=create, top=top, explain=explain, ranked=ranked, tz=tz)


def _check_options(
    *,
    as_json: bool,
    emit_request: bool,
    create: str | None,
    calendar: str | None,
    preferences: tuple[str | None, str | None, bool, bool],
    ics_out: Path | None,
    pick: int,
    extras: dict[str, object],
    inputs: tuple[list[Path] | None, list[Path] | None, list[str] | None, list[str] | None],
) -> Instant | None:
    """Refuse find-slot options that do not go together, before any calendar is read
    (``input.invalid_option``; ``cli/_slot_inputs`` for repeated calendars and an
    ``--ics-out`` over an input). Returns ``--at`` parsed (:func:`check_event_options`)."""
    if as_json and emit_request:
        raise CerebriError(
            "--json and --emit-request print different documents; pass one of them",
            code="input.invalid_option",
        )
    if calendar is not None and create is None:
        raise CerebriError(
            "--calendar names the calendar --create writes to; pass --create TITLE too",
            code="input.invalid_option",
        )
    refuse_two_preferences(*preferences, name=option_name)
    stamp = check_event_options(ics_out, pick=pick, extras=extras)
    _check_inputs(*inputs, ics_out)
    if ics_out is not None and to_stdout(ics_out) and (as_json or emit_request):
        raise CerebriError(
            "--ics-out - and --json/--emit-request would both print to stdout; "
            "write the event to a file",
            code="input.invalid_option",
        )
    return stamp


def _loader(
    window: tuple[Instant, Instant],
    logins: CalDAVLogins | None,
    skip: bool,
    *,
    use_cache: bool,
) -> SourceLoader:
    """Reads find-slot's sources (:func:`_sources`: a progress display on a terminal)."""

    def load(
        paths: Sequence[Path], urls: Sequence[str], ids: Sequence[str]
    ) -> list[tuple[str, Component]]:
        return _sources(
            list(paths),
            list(urls),
            window,
            logins,
            ids=list(ids),
            skip_invalid_events=skip,
            use_cache=use_cache,
        )

    return load


def _print_request(found: SlotsFound, query: SlotQuery) -> None:
    """``--emit-request``: the CPIR request on stdout, what a replay cannot know on stderr;
    exit :data:`EXIT_INCOMPLETE` when events were left out."""
    answer = found.answer
    sys.stdout.write(pretty(answer.request))
    note = replay_note(
        optional=bool(found.optional),
        min_attendance=query.min_attendance is not None,
        left_out=len(answer.below_min_attendance),
        first_choice=bool(answer.result.candidates),
    )
    if note is not None:
        sys.stderr.write(note + "\n")
    _print_warnings(answer.warnings, complete=answer.complete, note=_REQUEST_INCOMPLETE)
    if not answer.complete:
        raise typer.Exit(EXIT_INCOMPLETE)


def _render_found(
    found: SlotsFound, *, create: str | None, top: int, explain: bool, ranked: bool, tz: str
) -> None:
    """The candidates table (busy time labelled by event, a CREATE's target by its title)
    and, when ranked beyond the planner, what the ranking left out."""
    answer = found.answer
    parsed = parse_request(answer.request)
    labels = {o.id: o.id for o in parsed.context.objects}
    if create is not None:
        labels.update({target: f"{target} ({create})" for target in parsed.target_ids})
    groups: dict[str, str] = {}
    for _, periods in found.busy:
        for period in periods:
            labels[object_id(period)] = busy_label(period)
            groups[object_id(period)] = series_label(period)
    render_result(
        answer.result,
        parsed,
        table_console(),
        top=top or None,
        limits=FIND_SLOT_LIMITS,
        labels=labels,
        budget_option="--max-candidates",
        groups=groups,
        explain=explain,
        ranking=slot_columns(answer) if ranked else None,
        limit_hint="lower --max-candidates or shorten the window (--between); "
        "--working-days and a coarser --granularity also search fewer positions",
    )
    if ranked:
        render_slots(answer, tz, table_console(), top=top or None)
    if answer.zones:
        render_local_times(answer, table_console(), top=top or None)


@app.command(short_help="Print busy, free and unknown time of calendars (UTC and --tz).")
def freebusy(  # noqa: PLR0917 - typer maps every option to a parameter
    between: BetweenOption,
    ics: IcsOption = None,
    caldav: CalDAVOption = None,
    tz: ZoneOption = "UTC",
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")] = False,
    max_occurrences: MaxOccurrencesOption = DEFAULT_MAX_OCCURRENCES,
    caldav_user: UserOption = None,
    caldav_password: PasswordOption = None,
    caldav_credentials: CredentialsOption = None,
    skip: SkipOption = False,
    no_cache: NoCacheOption = False,
) -> None:
    """Print busy (with UID and RECURRENCE-ID), free and unknown time, in UTC and in --tz."""
    try:
        window = read_window(tz, between, name=option_name)
        calendars = _sources(
            ics,
            caldav,
            window,
            caldav_logins(
                caldav_credentials,
                caldav_user,
                caldav_password,
                caldav or (),
                url_options="--caldav",
            ),
            skip_invalid_events=skip,
            use_cache=not no_cache,
        )
        view = freebusy_view(
            [c for _, c in calendars],
            window[0],
            window[1],
            floating_zone=tz,
            max_occurrences=max_occurrences,
        )
    except CerebriError as error:
        raise fail(error) from None
    if as_json:
        sys.stdout.write(pretty(freebusy_wire(view, tz)))
    else:
        _print_warnings(view.warnings, complete=view.complete)
        render_freebusy(view, tz, table_console())
