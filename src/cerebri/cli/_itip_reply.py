"""``cerebri itip-reply``: apply attendees' iTIP ``REPLY`` messages to the organizer's copy
of the event (RFC 5546 section 3.2.3; decision 0068).

Each FILE is an ``.ics`` file or an e-mail (``.eml``) with ``text/calendar`` parts; the
organizer's calendar is the one ``--ics-calendar ID=PATH`` or ``--caldav-calendar ID=URL``
names (exactly one, with the worker's login options). Per reply, the stored object is read
with its ``ETag`` (an ``.ics`` file: the digest of the event's resource), the answer applied
by :func:`cerebri.calendars.itip_reply.apply_reply`, and the object written back with
``If-Match`` (``calendar.revision_mismatch`` on a change in between: read again and tried
again, three times at most). Replies are applied in the order given; a stale one is reported
and skipped. A refused reply (``itip.reply_*``) stops the command with exit 2 and its code;
the replies before it stay applied.

Output: one line per reply component (``updated``, ``unchanged`` or ``stale`` with its
reason), or with ``--json`` ``{"replies": [...]}`` (the fields of
:class:`~cerebri.calendars.itip_reply.ReplyOutcome` plus ``file``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Final

import typer

from cerebri._files import read_bounded
from cerebri._json import JSONValue, pretty
from cerebri.cli._app import app
from cerebri.cli._caldav_logins import CredentialsOption, caldav_logins
from cerebri.cli._calendars import PasswordOption, UserOption
from cerebri.cli._execution_common import errors_to_exit
from cerebri.errors import CerebriError

if TYPE_CHECKING:
    from icalendar import Calendar

    from cerebri.execution.adapters.itip_copies import CopyStore as _Store

__all__ = ["itip_reply"]

_TRIES: Final = 3
MAX_REPLY_BYTES: Final = 16 * 1024 * 1024
"""Largest REPLY file (.ics or .eml) read, in bytes: input.too_large above it."""
"""Reads and writes of one reply when the object changes in between (``412``)."""


def _calendar(
    ics: list[str] | None,
    dav: list[str] | None,
    user: str | None,
    password: str | None,
    credentials: Path | None,
) -> tuple[str, _Store]:
    """The organizer's calendar id and its adapter (``IcsFileCalendar`` or
    ``CalDavCalendar``); exactly one calendar, else ``input.invalid_option``."""
    from cerebri.cli._execution import (  # noqa: PLC0415 - fast CLI start
        caldav_calendars_option_value,
        calendars_option_value,
    )
    from cerebri.clock import SystemClock  # noqa: PLC0415
    from cerebri.execution.adapters.caldav_calendar import CalDavCalendar  # noqa: PLC0415
    from cerebri.execution.adapters.ics_file import IcsFileCalendar  # noqa: PLC0415

    files = calendars_option_value(ics)
    urls = caldav_calendars_option_value(dav, ics)
    if len(files) + len(urls) != 1:
        raise CerebriError(
            "give the organizer's calendar: exactly one --ics-calendar ID=PATH or "
            "--caldav-calendar ID=URL",
            code="input.invalid_option",
        )
    clock = SystemClock()
    if files:
        return next(iter(files)), IcsFileCalendar(files, clock)
    logins = caldav_logins(
        credentials, user, password, list(urls.values()), url_options="--caldav-calendar"
    )
    return next(iter(urls)), CalDavCalendar(urls, clock, logins=logins)


def _apply_one(
    store: _Store, calendar_id: str, reply: Calendar, sender: str | None
) -> list[dict[str, JSONValue]]:
    from icalendar import Calendar  # noqa: PLC0415

    from cerebri.calendars.itip_reply import apply_reply  # noqa: PLC0415
    from cerebri.execution.adapters import AdapterError  # noqa: PLC0415

    uids = sorted({str(c.get("UID", "")) for c in reply.walk("VEVENT")})
    uid = uids[0] if uids else ""
    for attempt in range(_TRIES):
        found = store.read_copy(calendar_id, uid) if uid else None
        stored = Calendar() if found is None else found.calendar
        updated, outcomes = apply_reply(stored, reply, sender=sender)
        if updated is not stored:
            try:
                store.write_copy(calendar_id, uid, updated, found)
            except AdapterError as error:
                if error.code == "calendar.revision_mismatch" and attempt + 1 < _TRIES:
                    continue
                raise
        return [
            {
                "uid": o.uid,
                "recurrence_id": o.recurrence_id,
                "attendee": o.attendee,
                "partstat": o.partstat,
                "sequence": o.sequence,
                "outcome": o.outcome,
                "reason": o.reason,
            }
            for o in outcomes
        ]
    raise AssertionError("unreachable: the last try returns or raises")


@app.command("itip-reply", short_help="Apply attendees' iTIP REPLYs to the organizer's event.")
def itip_reply(  # noqa: PLR0917 - typer maps every option to a parameter
    files: Annotated[
        list[Path],
        typer.Argument(
            metavar="FILE",
            readable=False,  # cerebri._files judges the path: input.unreadable, not a usage box
            help="REPLY messages: .ics files or e-mails (.eml) with a text/calendar part.",
        ),
    ],
    ics_calendars: Annotated[
        list[str] | None,
        typer.Option(
            "--ics-calendar",
            metavar="ID=PATH",
            help="The organizer's calendar as an .ics file.",
        ),
    ] = None,
    caldav_calendars: Annotated[
        list[str] | None,
        typer.Option(
            "--caldav-calendar",
            metavar="ID=URL",
            help="The organizer's calendar as a CalDAV collection (login as for worker).",
        ),
    ] = None,
    caldav_user: UserOption = None,
    caldav_password: PasswordOption = None,
    caldav_credentials: CredentialsOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the outcomes as JSON.")] = False,
) -> None:
    """Apply attendees' answers (METHOD:REPLY, RFC 5546 3.2.3) to the organizer's copy of
    each event: the replying attendee's PARTSTAT is updated with If-Match. A reply to an
    older SEQUENCE is ignored (said why); one from an address that is not an attendee is
    refused (itip.reply_not_an_attendee, exit 2). Applying a reply twice changes nothing."""
    from cerebri.calendars.itip_reply import reply_messages  # noqa: PLC0415

    with errors_to_exit(as_json):
        calendar_id, store = _calendar(
            ics_calendars, caldav_calendars, caldav_user, caldav_password, caldav_credentials
        )
        done: list[JSONValue] = []
        for path in files:
            replies, sender = reply_messages(
                read_bounded(path, limit=MAX_REPLY_BYTES, what="reply"), str(path)
            )
            for reply in replies:
                for row in _apply_one(store, calendar_id, reply, sender):
                    done.append({"file": str(path), **row})
                    if not as_json:
                        which = "" if row["recurrence_id"] is None else f" {row['recurrence_id']}"
                        reason = f": {row['reason']}" if row["reason"] else ""
                        typer.echo(
                            f"{row['outcome']}: {row['uid']}{which} {row['attendee']} "
                            f"{row['partstat']} (SEQUENCE {row['sequence']}){reason}"
                        )
        if as_json:
            typer.echo(pretty({"replies": done}))
