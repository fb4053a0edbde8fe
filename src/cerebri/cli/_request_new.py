"""``cerebri request new``: a CPIR request from options, no JSON written by hand.

The request is the one ``find-slot`` builds (:func:`cerebri.calendars.request_new.new_request`),
with ``--busy`` intervals instead of calendars; it passes ``cerebri validate`` and
``cerebri plan`` as printed (docs/decisions/0028-an-event-out.md).
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer

from cerebri._files import check_output_path, write_output
from cerebri._json import pretty
from cerebri.calendars.options import parse_window
from cerebri.calendars.request_new import new_request
from cerebri.calendars.slot_options import SlotOptions, option_name, slot_query
from cerebri.cli._app import app, fail
from cerebri.cli._calendars import (
    BetweenOption,
    BufferOption,
    DurationOption,
    GranularityOption,
    PreferOption,
    WorkingDaysOption,
    WorkingHoursOption,
    ZoneOption,
)
from cerebri.errors import CerebriError
from cerebri.planner import DEFAULT_LIMITS
from cerebri.temporal import Instant

__all__ = ["REFERENCE_MAX_CANDIDATES", "new", "request_app"]

REFERENCE_MAX_CANDIDATES = DEFAULT_LIMITS.max_candidates
"""The default ``budget.max_candidates`` never exceeds this (4096, the reference limit), so
the request plans under ``cerebri plan``'s default limits."""

request_app = typer.Typer(
    no_args_is_help=True, help="CPIR requests: build one from options (request new)."
)
app.add_typer(request_app, name="request")


def _busy(texts: list[str], tz: str) -> list[tuple[Instant, Instant]]:
    """Each ``--busy START/END`` (local in ``tz`` without an offset) as UTC instants."""
    spans: list[tuple[Instant, Instant]] = []
    for text in texts:
        try:
            spans.append(parse_window(text, tz))
        except ValueError as exc:
            reason = exc.message if isinstance(exc, CerebriError) else str(exc)
            raise CerebriError(f"--busy: {reason}", code="input.invalid_option") from None
    return spans


@request_app.command("new")
def new(  # noqa: PLR0917 - typer maps every option to a parameter
    duration: DurationOption,
    between: BetweenOption,
    busy: Annotated[
        list[str] | None,
        typer.Option(
            "--busy",
            help="Busy time, e.g. 2026-10-05T09:00/2026-10-05T10:00 (local in --tz; repeatable).",
        ),
    ] = None,
    tz: ZoneOption = "UTC",
    granularity: GranularityOption = "15m",
    working_hours: WorkingHoursOption = None,
    working_days: WorkingDaysOption = None,
    buffer: BufferOption = None,
    prefer: PreferOption = None,
    max_candidates: Annotated[
        int | None,
        typer.Option(
            "--max-candidates",
            min=1,
            max=100_000,
            help="Grid positions to evaluate at most (default: every start the window "
            f"holds, at most {REFERENCE_MAX_CANDIDATES}, the reference limit).",
        ),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out", metavar="FILE", readable=False, help="Write the request to FILE, not stdout."
        ),
    ] = None,
) -> None:
    """Build a CPIR 0.2 find-slot request from options (replay it with `cerebri plan`)."""
    try:
        if out is not None:
            check_output_path(out, what="--out file")
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
            ),
            name=option_name,
        )
        span = query.window_end - query.window_start
        positions = span // (query.granularity_seconds * 1_000_000_000) + 1
        query = replace(
            query, max_candidates=max_candidates or min(positions, REFERENCE_MAX_CANDIDATES)
        )
        text = pretty(new_request(query, _busy(busy or [], tz)))
        if out is not None:
            write_output(out, text.encode("utf-8"), what="--out file")
    except CerebriError as error:
        raise fail(error) from None
    if out is None:
        sys.stdout.write(text)
