"""``find-slot --ics-out``: write the picked candidate as an .ics invitation.

The options live here so that ``cli/_calendars.py`` only names them; the event itself is
:func:`cerebri.calendars.slot_event` (docs/decisions/0028-an-event-out.md).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from icalendar import Component

from cerebri._files import check_output_path, write_output
from cerebri.calendars import SlotAnswer
from cerebri.calendars.event_out import invitation
from cerebri.cli._app import printable
from cerebri.clock import SystemClock
from cerebri.errors import CerebriError, InvalidArgumentError
from cerebri.temporal import Instant

__all__ = [
    "DEFAULT_TITLE",
    "AtOption",
    "AttendeeOption",
    "IcsOutOption",
    "OrganizerOption",
    "PickOption",
    "TitleOption",
    "UidOption",
    "check_event_options",
    "to_stdout",
    "write_event",
]

DEFAULT_TITLE = "Meeting"
"""The ``SUMMARY`` when neither ``--title`` nor ``--create`` names the event."""

IcsOutOption = Annotated[
    Path | None,
    typer.Option(
        "--ics-out",
        metavar="FILE",
        readable=False,  # cerebri._files judges the path (input.unwritable)
        help="Write candidate --pick as an iCalendar invitation (METHOD:REQUEST) to FILE "
        "(- for stdout; an existing FILE is replaced, an input calendar is refused).",
    ),
]
PickOption = Annotated[
    int,
    typer.Option("--pick", help="With --ics-out: the candidate to write, 1 = the best."),
]
TitleOption = Annotated[
    str | None,
    typer.Option(
        "--title",
        metavar="TEXT",
        help=f"With --ics-out: the event's title (default: --create's title, else "
        f"{DEFAULT_TITLE!r}).",
    ),
]
AttendeeOption = Annotated[
    list[str] | None,
    typer.Option(
        "--attendee",
        metavar="EMAIL",
        help="With --ics-out: an attendee besides the calendars' owners (repeatable).",
    ),
]
OrganizerOption = Annotated[
    str | None,
    typer.Option(
        "--organizer",
        metavar="EMAIL",
        help="With --ics-out: the organizer (default: the owner of the --calendar or first "
        "calendar that names one).",
    ),
]
UidOption = Annotated[
    str | None,
    typer.Option("--uid", help="With --ics-out: the event's UID (default: from the slot)."),
]
AtOption = Annotated[
    str | None,
    typer.Option(
        "--at",
        metavar="INSTANT",
        help="With --ics-out: RFC 3339 instant for DTSTAMP instead of the system clock.",
    ),
]


def to_stdout(path: Path) -> bool:
    """Whether ``--ics-out`` names standard output (``-``)."""
    return str(path) == "-"


def check_event_options(
    ics_out: Path | None, *, pick: int, extras: dict[str, object]
) -> Instant | None:
    """Refuse event options without ``--ics-out`` and an unwritable ``--ics-out`` before
    any calendar is read (``input.invalid_option``, ``input.unwritable``). Returns the
    ``--at`` instant (``extras["--at"]``) parsed, or None."""
    if ics_out is None:
        given = [name for name, value in extras.items() if value not in (None, [])]
        if pick != 1:
            given.insert(0, "--pick")
        if given:
            verb = "describes" if len(given) == 1 else "describe"
            raise CerebriError(
                f"{', '.join(given)} {verb} the event --ics-out writes; pass --ics-out FILE",
                code="input.invalid_option",
            )
        return None
    if not to_stdout(ics_out):
        check_output_path(ics_out, what="--ics-out file")
    at = extras.get("--at")
    if not isinstance(at, str):
        return None
    try:
        return Instant.parse(at)
    except ValueError as exc:
        raise CerebriError(f"--at: {exc}", code="input.invalid_option") from None


def write_event(
    path: Path,
    answer: SlotAnswer,
    sources: list[tuple[str, Component]],
    calendar: str | None,
    *,
    pick: int,
    title: str,
    attendees: list[str] | None,
    organizer: str | None,
    uid: str | None,
    at: Instant | None,
) -> None:
    """Write candidate ``pick`` of ``answer`` to ``path``
    (:func:`cerebri.calendars.event_out.invitation`): attendees are the owners of the
    calendars read plus ``attendees``; the organizer is ``organizer``, else the owner of
    ``calendar``, else of the first calendar with a known owner. DTSTAMP is ``at`` or the
    system clock (read here, in the shell). Errors are :class:`CerebriError`
    (``calendars.*`` codes of an unusable option value become ``input.invalid_option``)."""
    stamp = at if at is not None else SystemClock().now()
    try:
        made = invitation(
            answer,
            sources,
            pick=pick,
            title=title,
            dtstamp=stamp,
            calendar=calendar,
            organizer=organizer,
            attendees=attendees or (),
            uid=uid,
        )
    except InvalidArgumentError as exc:
        raise CerebriError(exc.message, code="input.invalid_option") from None
    start = answer.result.candidates[pick - 1].start.format()
    if made.organizer is None and not made.attendees:
        sys.stderr.write(
            "note: no organizer or attendee is known (no calendar names its owner); the "
            "invitation has neither: pass --organizer and --attendee to send it\n"
        )
    if to_stdout(path):
        sys.stdout.flush()
        sys.stdout.buffer.write(made.data)  # the exact bytes (CRLF lines), no newline translation
        sys.stdout.buffer.flush()
        return
    existed = path.exists()
    write_output(path, made.data, what="--ics-out file")
    verb = "replaced" if existed else "wrote"
    sys.stderr.write(printable(f"{verb} {path}: candidate {pick} (start {start})") + "\n")
