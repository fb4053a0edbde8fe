"""``cerebri plan``, ``validate``, ``temporal`` and ``schema``."""

from __future__ import annotations

import json
import sys
from typing import Annotated

import typer

from cerebri._json import pretty
from cerebri.cli._app import (
    DEFAULT_TOP,
    FileArg,
    LimitSet,
    LimitsOption,
    TopOption,
    app,
    fail,
    limits_for,
    load_request,
    printable,
    read_input,
    table_console,
)
from cerebri.cli._plan_text import limit_hint, print_notes, write_plan_json
from cerebri.cli.render import render_result
from cerebri.cpir.schema import request_json_schema, temporal_json_schema
from cerebri.cpir.temporal_report import temporal_report
from cerebri.errors import CerebriError, InvalidArgumentError
from cerebri.optimize import plan as plan_request
from cerebri.optimize import validate as validate_request

__all__ = ["ExplainOption", "optimize", "plan", "schema", "temporal", "validate"]

ExplainOption = Annotated[
    bool,
    typer.Option(
        "--explain",
        help="With the readable table: list every rejected start and its causes after the "
        "summary by cause.",
    ),
]


@app.command(short_help="Plan a CPIR request and print the PlanningResult JSON.")
def plan(
    file: FileArg,
    table: Annotated[
        bool, typer.Option("--table", help="Print a readable ranked table instead of JSON.")
    ] = False,
    top: TopOption = DEFAULT_TOP,
    limits: LimitsOption = LimitSet.REFERENCE,
    explain: ExplainOption = False,
) -> None:
    """Plan a CPIR request and print the PlanningResult JSON (stable, byte-identical)."""
    try:
        request = load_request(file)
        result = plan_request(request, limits=limits_for(limits))
    except CerebriError as error:
        raise fail(error) from None
    if table:
        render_result(
            result,
            request,
            table_console(),
            top=top or None,
            limits=limits_for(limits),
            explain=explain,
            limit_hint=limit_hint(request, reference=limits is LimitSet.REFERENCE),
        )
    else:
        write_plan_json(request, result, reference=limits is LimitSet.REFERENCE)


IcsCalendarOption = Annotated[
    list[str] | None,
    typer.Option(
        "--ics-calendar",
        metavar="ID=PATH",
        help="The .ics file of calendar ID (a person's or room's calendar_id in the batch "
        "file; repeatable). With it, FILE is a batch file, not a CPIR request.",
    ),
]
MovableOption = Annotated[
    list[str] | None,
    typer.Option(
        "--movable",
        metavar="TEXT",
        help="With --ics-calendar: an event repairs may move, by UID (repeatable; also the "
        "batch file's `movable` and X-CEREBRI-MOVABLE:TRUE on the event).",
    ),
]


@app.command(short_help="Optimise a batch of meetings (OPTIMIZE) and print it.")
def optimize(
    file: FileArg,
    as_json: Annotated[
        bool,
        typer.Option("--json", help="Print the PlanningResult JSON, as `cerebri plan` does."),
    ] = False,
    ics_calendars: IcsCalendarOption = None,
    movable: MovableOption = None,
    emit_request: Annotated[
        bool,
        typer.Option(
            "--emit-request",
            help="With --ics-calendar: print the OPTIMIZE request built from the calendars "
            "(for `cerebri propose`) instead of planning it.",
        ),
    ] = False,
) -> None:
    """Optimise a CPIR OPTIMIZE request (many meetings at once, decision 0070) and print
    the batch: status (proven optimal, best found within the budget with its bound, proven
    infeasible with the conflicting rules, unknown), score (hard/medium/soft), one row per
    meeting (start-end in UTC and in the request's zone, room, new/moved/kept) and the named
    cost terms. --json prints the PlanningResult bytes `cerebri plan` prints. A request
    whose operation is not OPTIMIZE is refused (input.invalid_argument at /operation).
    Validation warnings (e.g. budget.max_repairs with no existing meeting to move) go to
    stderr, as `cerebri validate` prints them.

    With --ics-calendar ID=FILE (repeatable), FILE is a batch file (decision 0081: the
    window, the new meetings, people, rooms and repairs) and the request is built from the
    calendars: their busy time, and the events marked movable (--movable UID, the batch
    file's `movable`, X-CEREBRI-MOVABLE:TRUE) that repairs may move. --emit-request prints
    that request."""
    from cerebri.cli.render_batch import batch_text  # noqa: PLC0415 - fast CLI start
    from cerebri.cpir import Operation, parse_request  # noqa: PLC0415 - fast CLI start

    notes: tuple[str, ...] = ()
    try:
        if ics_calendars or movable or emit_request:
            from cerebri.cli._optimize_calendars import (  # noqa: PLC0415 - fast CLI start
                calendars_request,
                check_calendar_options,
            )

            paths = check_calendar_options(
                ics_calendars, movable, emit_request=emit_request, as_json=as_json
            )
            built = calendars_request(file, paths, movable)
            notes = built.warnings
            if emit_request:
                sys.stdout.write(pretty(built.request))
                _warn(notes)
                return
            request = parse_request(built.request)
        else:
            request = load_request(file)
        if request.operation is not Operation.OPTIMIZE:
            raise InvalidArgumentError(
                f"cerebri optimize answers OPTIMIZE requests only, not "
                f"{request.operation.value}; use cerebri plan",
                path="/operation",
            )
        result = plan_request(request)
    except CerebriError as error:
        raise fail(error) from None
    _warn(notes)
    if as_json:
        write_plan_json(request, result, reference=True, warnings=True)
        return
    sys.stdout.write(batch_text(request, result.to_wire()))
    print_notes(request, result.validation.issues, warnings=True)


def _warn(notes: tuple[str, ...]) -> None:
    """What reading the calendars noticed, one ``warning:`` line each on stderr."""
    for note in notes:
        sys.stderr.write(f"warning: {printable(note)}\n")


@app.command()
def validate(file: FileArg, limits: LimitsOption = LimitSet.REFERENCE) -> None:
    """Validate a CPIR request and print the ValidationReport JSON."""
    try:
        request = load_request(file)
        report = validate_request(request, limits=limits_for(limits))
    except CerebriError as error:
        raise fail(error) from None
    sys.stdout.write(pretty(report.to_wire()))
    print_notes(request, report.issues, warnings=True)


@app.command(short_help="Expand recurrences and compute free/busy (/v1/temporal).")
def temporal(file: FileArg) -> None:
    """Expand recurrences and compute free/busy (the /v1/temporal report; input format:
    `cerebri schema --temporal`). A rejected expansion (limits, DST policy, overflow) is an
    answer: exit 0 with status Rejected."""
    try:
        result = temporal_report(read_input(file))
    except CerebriError as error:
        raise fail(error) from None
    sys.stdout.write(pretty(result.to_wire()))


@app.command(short_help="Print the JSON Schema of a CPIR (or --temporal) request.")
def schema(
    temporal_request: Annotated[
        bool, typer.Option("--temporal", help="The schema of a `cerebri temporal` request.")
    ] = False,
) -> None:
    """Print the JSON Schema of a CPIR planning request (or, with --temporal, of a
    recurrence/free-busy request)."""
    document = temporal_json_schema() if temporal_request else request_json_schema()
    sys.stdout.write(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
