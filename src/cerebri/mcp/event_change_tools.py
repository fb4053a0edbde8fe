"""``reschedule_event``, ``cancel_event`` and ``update_event``: an event change planned over
the attendees' calendars, and proposed when asked (docs/decisions/0058).

Calendars are named as for ``find_slot`` (:mod:`cerebri.mcp.calendar_tools`): ``.ics`` names
or paths the operator allows, and configured CalDAV source names; an agent never passes a
URL or a credential. The options are the command line's (``cerebri reschedule``,
``cancel-event``, ``update-event``) as JSON members, read by
:func:`cerebri.calendars.change_surface.change_ask`; the answer is
:func:`cerebri.calendars.change_surface.change_answer` (the ``--json`` document plus the CPIR
``request``), the same document ``POST /v1/events/...`` answers.

With ``propose`` the answer also carries ``proposal``: what the ``propose`` tool answers for
that request (:func:`cerebri.mcp.tools.propose_tool`, so :func:`cerebri.proposals.make_proposal`
with the server's key, author and object store; ``limits`` ``local``, the limits the change
was planned with), or ``null`` when the change has no candidate (an update into a conflict:
the answer says why). A proposal grants nothing: a human other than its author approves it,
never a tool. Errors of proposing point into ``/propose`` (``/propose/expires_in`` for a
validity that ends before the slot, ``/propose/submit`` without key and store).

``hours`` (``reschedule_event`` and ``update_event``, decision 0061) are ``find_slot``'s
entries with the calendar ids the answer gives the sources; an entry that cannot be read or
names no calendar is ``input.invalid_option`` at ``/hours/<i>``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from icalendar import Component

from cerebri._json import JSONValue
from cerebri.calendars.change_request import ChangeOperation
from cerebri.calendars.change_surface import (
    ChangeOptions,
    change_answer,
    change_ask,
    check_hours,
    located,
    read_window,
)
from cerebri.calendars.event_change import plan_event_change
from cerebri.calendars.slot_search import NamedCalendars, SlotSearch
from cerebri.errors import CerebriError
from cerebri.ics import DEFAULT_MAX_OCCURRENCES
from cerebri.mcp.arguments import (
    CancelEventArgs,
    ChangeProposal,
    ProposeArgs,
    RescheduleEventArgs,
    UpdateEventArgs,
)
from cerebri.mcp.calendar_tools import _load
from cerebri.mcp.settings import McpSettings
from cerebri.mcp.tools import propose_tool

__all__ = ["cancel_event_tool", "reschedule_event_tool", "update_event_tool"]

_Args = RescheduleEventArgs | CancelEventArgs | UpdateEventArgs


def _plan(operation: ChangeOperation, args: _Args, settings: McpSettings) -> dict[str, JSONValue]:
    """The change answer (module doc); calendars read after the options are checked."""
    ask = change_ask(operation, ChangeOptions.of(args.model_dump()))
    if not args.ics and not args.caldav:
        raise CerebriError(
            "name at least one calendar in ics (paths) or caldav (configured sources)",
            code="input.missing",
            path="/ics",
        )
    window = read_window(ask.window, ask.at, remote=bool(args.caldav or args.optional_caldav))
    skip = args.skip_invalid_events
    taken: set[str] = set()
    required = _load(args.ics, args.caldav, window, settings, skip=skip, taken=taken)
    optional: list[tuple[str, Component]] = []
    if args.optional_ics or args.optional_caldav:
        members = ("optional_ics", "optional_caldav")
        optional = _load(
            args.optional_ics,
            args.optional_caldav,
            window,
            settings,
            skip=skip,
            members=members,
            taken=taken,
        )
    files = len(args.ics)
    search = SlotSearch(
        ics=[Path(name) for name, _ in required[:files]],
        caldav=[name for name, _ in required[files:]],
        optional_ics=[Path(name) for name, _ in optional[: len(args.optional_ics)]],
        optional_caldav=[name for name, _ in optional[len(args.optional_ics) :]],
        calendar=args.calendar,
        max_occurrences=DEFAULT_MAX_OCCURRENCES,
    )

    def load(paths: Sequence[Path], urls: Sequence[str], ids: Sequence[str]) -> NamedCalendars:
        # the calendars were read above; the use-case asks for the required ones first
        return list(required) if paths is search.ics and urls is search.caldav else optional

    check_hours(ask, search)
    try:
        found = plan_event_change(ask, search, load)
    except CerebriError as error:
        raise located(error) from None
    return change_answer(found)


def _proposal(
    document: dict[str, JSONValue], asked: ChangeProposal, settings: McpSettings
) -> JSONValue:
    """The ``propose`` tool's answer for the document's request, or None without candidate."""
    if not document.get("candidates"):
        return None
    arguments = ProposeArgs(
        request=document["request"],
        candidate=asked.candidate,
        wrap=asked.wrap,
        expires_in=asked.expires_in,
        limits="local",
        submit=asked.submit,
    )
    try:
        return propose_tool(arguments, settings)
    except CerebriError as error:
        own = error.path in {"/expires_in", "/submit"}
        error.path = "/propose" + (error.path if own and error.path else "")
        raise


def _answer(operation: ChangeOperation, args: _Args, settings: McpSettings) -> dict[str, JSONValue]:
    document = _plan(operation, args, settings)
    if args.propose is not None:
        document["proposal"] = _proposal(document, args.propose, settings)
    return document


def reschedule_event_tool(args: RescheduleEventArgs, settings: McpSettings) -> dict[str, JSONValue]:
    """``cerebri reschedule --json`` plus ``request`` (and ``proposal`` when asked)."""
    return _answer(ChangeOperation.RESCHEDULE, args, settings)


def cancel_event_tool(args: CancelEventArgs, settings: McpSettings) -> dict[str, JSONValue]:
    """``cerebri cancel-event --json`` plus ``request`` (and ``proposal`` when asked)."""
    return _answer(ChangeOperation.CANCEL, args, settings)


def update_event_tool(args: UpdateEventArgs, settings: McpSettings) -> dict[str, JSONValue]:
    """``cerebri update-event --json`` plus ``request`` (and ``proposal`` when asked)."""
    return _answer(ChangeOperation.UPDATE, args, settings)
