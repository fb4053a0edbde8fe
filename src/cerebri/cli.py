"""The ``cerebri`` command line. Every command has a Python API twin.

Exit codes: 0 for any planning answer (a refusal is an answer), 2 for input that cannot be
read or parsed (a one-line typed error on stderr: ``error <code> at <path>: <message>``).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from typing import Annotated, TypeVar

import typer
from icalendar import Component
from rich.console import Console
from rich.progress import Progress

from cerebri import __version__
from cerebri._json import pretty
from cerebri.calendars import FIND_SLOT_LIMITS, ImportedCalendars, SlotQuery
from cerebri.calendars import freebusy as freebusy_view
from cerebri.calendars.options import (
    parse_duration,
    parse_time_of_day,
    parse_window,
    parse_working_days,
    parse_working_hours,
)
from cerebri.calendars.sources import load_sources
from cerebri.cpir import PlanningRequest, parse_request
from cerebri.cpir.schema import request_json_schema, temporal_json_schema
from cerebri.errors import CerebriError, InputTooLargeError
from cerebri.ics import object_id
from cerebri.planner import DEFAULT_LIMITS, PlannerLimits
from cerebri.planner import plan as plan_request
from cerebri.planner import validate as validate_request
from cerebri.render import render_result
from cerebri.render_calendars import busy_label, freebusy_wire, render_freebusy
from cerebri.temporal import Instant, temporal_report
from cerebri.temporal.zones import check_zone_name

__all__ = ["MAX_INPUT_BYTES", "app", "main"]

MAX_INPUT_BYTES = 64 * 1024 * 1024
"""Largest input the CLI reads, in bytes; larger files fail with ``input.too_large``."""

EXIT_INPUT = 2
T = TypeVar("T")

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="cerebri: deterministic, explained calendar planning over CPIR requests.",
)


class LimitSet(StrEnum):
    """Which admission limits ``plan``/``validate`` apply."""

    REFERENCE = "reference"
    LOCAL = "local"


LimitsOption = Annotated[
    LimitSet,
    typer.Option(
        "--limits",
        help="reference: the CPIR service limits (256 objects, 4096 positions); local: the "
        "find-slot limits (100 000 objects and positions), e.g. to replay --emit-request.",
    ),
]


def _limits(choice: LimitSet) -> PlannerLimits:
    return FIND_SLOT_LIMITS if choice is LimitSet.LOCAL else DEFAULT_LIMITS


FileArg = Annotated[
    str, typer.Argument(metavar="FILE", help="CPIR request JSON file, or - for stdin.")
]


def _version(value: bool) -> None:
    if value:
        sys.stdout.write(f"cerebri {__version__}\n")
        raise typer.Exit


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version."),
    ] = False,
) -> None:
    """cerebri: deterministic, explained calendar planning over CPIR requests."""


def _fail(error: CerebriError) -> typer.Exit:
    where = "" if error.path is None else " at " + (error.path or "(document root)")
    message = error.message.replace("\n", " ")
    sys.stderr.write(f"error {error.code}{where}: {message}\n")
    return typer.Exit(EXIT_INPUT)


def _read(source: str) -> bytes:
    if source == "-":
        data = sys.stdin.buffer.read(MAX_INPUT_BYTES + 1)
    else:
        path = Path(source)
        try:
            with path.open("rb") as handle:
                data = handle.read(MAX_INPUT_BYTES + 1)
        except OSError as exc:
            raise CerebriError(
                f"cannot read {source}: {exc.strerror or exc}", code="input.unreadable", path=None
            ) from None
    if len(data) > MAX_INPUT_BYTES:
        raise InputTooLargeError(f"input is larger than {MAX_INPUT_BYTES} bytes")
    return data


def _load(source: str) -> PlanningRequest:
    return parse_request(_read(source))


@app.command()
def plan(
    file: FileArg,
    table: Annotated[
        bool, typer.Option("--table", help="Print a readable ranked table instead of JSON.")
    ] = False,
    top: Annotated[
        int, typer.Option("--top", min=0, help="With --table: show at most N candidates (0 = all).")
    ] = 20,
    limits: LimitsOption = LimitSet.REFERENCE,
) -> None:
    """Plan a CPIR request and print the PlanningResult JSON (stable, byte-identical)."""
    try:
        request = _load(file)
        result = plan_request(request, limits=_limits(limits))
    except CerebriError as error:
        raise _fail(error) from None
    if table:
        render_result(result, request, _table_console(), top=top or None, limits=_limits(limits))
    else:
        sys.stdout.write(pretty(result.to_wire()))


@app.command()
def validate(file: FileArg, limits: LimitsOption = LimitSet.REFERENCE) -> None:
    """Validate a CPIR request and print the ValidationReport JSON."""
    try:
        report = validate_request(_load(file), limits=_limits(limits))
    except CerebriError as error:
        raise _fail(error) from None
    sys.stdout.write(pretty(report.to_wire()))


@app.command()
def temporal(file: FileArg) -> None:
    """Expand recurrences and compute free/busy (the /v1/temporal report; input format:
    `cerebri schema --temporal`). A rejected expansion (limits, DST policy, overflow) is an
    answer: exit 0 with status Rejected."""
    try:
        result = temporal_report(_read(file))
    except CerebriError as error:
        raise _fail(error) from None
    sys.stdout.write(pretty(result.to_wire()))


IcsOption = Annotated[
    list[Path] | None,
    typer.Option("--ics", help="An .ics file (repeat for several calendars/attendees)."),
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
UserOption = Annotated[
    str | None, typer.Option("--caldav-user", envvar="CEREBRI_CALDAV_USER", help="CalDAV user.")
]
PasswordOption = Annotated[
    str | None,
    typer.Option(
        "--caldav-password",
        envvar="CEREBRI_CALDAV_PASSWORD",
        help="CalDAV password (prefer the CEREBRI_CALDAV_PASSWORD variable).",
    ),
]


def _sources(
    ics: list[Path] | None,
    caldav: list[str] | None,
    window: tuple[Instant, Instant],
    user: str | None,
    password: str | None,
) -> list[tuple[str, Component]]:
    ics_paths, urls = ics or [], caldav or []
    if not ics_paths and not urls:
        raise CerebriError(
            "name at least one calendar with --ics or --caldav", code="input.missing"
        )
    total = len(ics_paths) + len(urls)
    err = Console(stderr=True)
    if err.is_terminal and total > 1:
        with Progress(transient=True, console=err) as progress:
            task = progress.add_task("reading calendars", total=total)

            def step(label: str) -> None:
                progress.update(task, advance=1, description=f"reading {label}")

            return load_sources(
                ics_paths, urls, window, caldav_username=user, caldav_password=password, step=step
            )
    return load_sources(ics_paths, urls, window, caldav_username=user, caldav_password=password)


def _value(reader: Callable[..., T], *args: str) -> T:
    try:
        return reader(*args)
    except ValueError as exc:
        raise CerebriError(str(exc), code="input.invalid_option") from None


@app.command("find-slot")
def find_slot(  # noqa: PLR0917 - typer maps every option to a parameter
    duration: Annotated[
        str, typer.Option("--duration", help="Meeting length: 30m, 1h30m, 90 (s).")
    ],
    between: BetweenOption,
    ics: IcsOption = None,
    caldav: CalDAVOption = None,
    granularity: Annotated[str, typer.Option("--granularity", help="Grid step.")] = "15m",
    tz: ZoneOption = "UTC",
    working_hours: Annotated[
        str | None, typer.Option("--working-hours", help="Local working hours, e.g. 09:00-17:00.")
    ] = None,
    working_days: Annotated[
        str | None, typer.Option("--working-days", help="Open weekdays, e.g. Mon-Fri.")
    ] = None,
    buffer: Annotated[
        str | None, typer.Option("--buffer", help="Minimum gap to other events, e.g. 10m.")
    ] = None,
    prefer: Annotated[
        str | None, typer.Option("--prefer", help="Preferred local start time, e.g. 10:30.")
    ] = None,
    top: Annotated[
        int, typer.Option("--top", min=0, help="Show at most N candidates (0 = all).")
    ] = 10,
    max_candidates: Annotated[
        int,
        typer.Option(
            "--max-candidates", min=0, max=100_000, help="Grid positions to evaluate at most."
        ),
    ] = 100_000,
    as_json: Annotated[bool, typer.Option("--json", help="Print the PlanningResult JSON.")] = False,
    emit_request: Annotated[
        bool, typer.Option("--emit-request", help="Print the CPIR request built, for replay.")
    ] = False,
    caldav_user: UserOption = None,
    caldav_password: PasswordOption = None,
) -> None:
    """Find free slots for a meeting across calendars (every attendee's busy time)."""
    try:
        _value(check_zone_name, tz)
        window = _value(parse_window, between, tz)
        query = SlotQuery(
            window_start=window[0],
            window_end=window[1],
            duration_seconds=_value(parse_duration, duration),
            granularity_seconds=_value(parse_duration, granularity),
            zone=tz,
            working_hours=None
            if working_hours is None
            else _value(parse_working_hours, working_hours),
            buffer_seconds=0 if buffer is None else _value(parse_duration, buffer),
            prefer=None if prefer is None else _value(parse_time_of_day, prefer),
            max_candidates=max_candidates,
            working_days=None if working_days is None else _value(parse_working_days, working_days),
        )
        calendars = ImportedCalendars(
            _sources(ics, caldav, window, caldav_user, caldav_password), floating_zone=tz
        )
        request, result = calendars.find_slot(query)
        busy = calendars.busy(window[0], window[1])
    except CerebriError as error:
        raise _fail(error) from None
    if emit_request:
        sys.stdout.write(pretty(request))
        return
    if as_json:
        sys.stdout.write(pretty(result.to_wire()))
        return
    parsed = parse_request(request)
    labels = {o.id: o.id for o in parsed.context.objects}
    for _, periods in busy:
        for period in periods:
            labels[object_id(period)] = busy_label(period)
    render_result(
        result,
        parsed,
        _table_console(),
        top=top or None,
        limits=FIND_SLOT_LIMITS,
        labels=labels,
        budget_option="--max-candidates",
    )


@app.command()
def freebusy(  # noqa: PLR0917 - typer maps every option to a parameter
    between: BetweenOption,
    ics: IcsOption = None,
    caldav: CalDAVOption = None,
    tz: ZoneOption = "UTC",
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")] = False,
    caldav_user: UserOption = None,
    caldav_password: PasswordOption = None,
) -> None:
    """Print busy (with UID and RECURRENCE-ID), free and unknown time, in UTC and in --tz."""
    try:
        _value(check_zone_name, tz)
        window = _value(parse_window, between, tz)
        calendars = _sources(ics, caldav, window, caldav_user, caldav_password)
        view = freebusy_view([c for _, c in calendars], window[0], window[1], floating_zone=tz)
    except CerebriError as error:
        raise _fail(error) from None
    if as_json:
        sys.stdout.write(pretty(freebusy_wire(view, tz)))
    else:
        render_freebusy(view, tz, _table_console())


def _table_console() -> Console:
    console = Console(highlight=False)
    return console if console.is_terminal else Console(highlight=False, width=140)


@app.command()
def schema(
    temporal_request: Annotated[
        bool, typer.Option("--temporal", help="The schema of a `cerebri temporal` request.")
    ] = False,
) -> None:
    """Print the JSON Schema of a CPIR planning request (or, with --temporal, of a
    recurrence/free-busy request)."""
    document = temporal_json_schema() if temporal_request else request_json_schema()
    sys.stdout.write(json.dumps(document, indent=2, ensure_ascii=False) + "\n")


@app.command()
def serve(
    host: Annotated[str, typer.Option("--host", help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[
        int, typer.Option("--port", min=0, max=65535, help="TCP port (0 = any free port).")
    ] = 3000,
    allow_remote: Annotated[
        bool,
        typer.Option(
            "--allow-remote", help="Permit a non-loopback --host (requires the token variable)."
        ),
    ] = False,
    token_env: Annotated[
        str,
        typer.Option("--token-env", help="Environment variable holding the bearer token (if set)."),
    ] = "CEREBRI_API_TOKEN",  # noqa: S107 - a variable name, not a secret
) -> None:
    """Run the HTTP API (/health, /v1/plan, /v1/validate, /v1/temporal, /v1/integration/*,
    /lab/). Prints CEREBRI_LISTEN_ADDR=<ip>:<port> once listening. Non-loopback hosts exit 2
    (serve.requires_loopback) unless --allow-remote and a token is set; a configured token
    is required on every request as Authorization: Bearer <token>."""
    from cerebri.service import serve as run_server  # noqa: PLC0415 - keep CLI start fast

    token = os.environ.get(token_env) or None
    try:
        run_server(host, port, allow_remote=allow_remote, token=token)
    except CerebriError as error:
        raise _fail(error) from None


def main() -> None:
    """Entry point of the ``cerebri`` console script."""
    app()
