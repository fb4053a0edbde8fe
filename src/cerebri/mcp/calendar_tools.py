"""``find_slot`` and ``freebusy``: the ``cerebri find-slot --json`` and ``cerebri freebusy
--json`` documents over .ics paths and the server's configured CalDAV sources.

Calendars are ``.ics`` paths (read with the CLI's limits) or names of CalDAV sources the
operator configured (``cerebri mcp --caldav NAME=URL``); an agent never passes a URL or a
credential. Options are the command line's, with the same defaults; a refused value is
``input.invalid_option`` with the pointer of the argument (``/between``, ``/duration``...);
an unknown source name is ``mcp.not_configured`` at ``/caldav/<i>``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from icalendar import Component

from cerebri._json import JSONValue
from cerebri.calendars import ImportedCalendars, SlotQuery
from cerebri.calendars import freebusy as freebusy_view
from cerebri.calendars.slot_options import SlotOptions, pointer_name, read_window, slot_query
from cerebri.calendars.sources import calendar_id_for, load_sources
from cerebri.calendars.wire import find_slot_document, freebusy_wire, ranked_beyond_planner
from cerebri.errors import CerebriError
from cerebri.ics import DEFAULT_MAX_OCCURRENCES, CalendarError
from cerebri.mcp.arguments import FindSlotArgs, FreeBusyArgs
from cerebri.mcp.calendar_files import read_calendars
from cerebri.mcp.settings import McpSettings
from cerebri.temporal import Instant

__all__ = ["find_slot_tool", "freebusy_tool"]

T = TypeVar("T")


def _window(args: FreeBusyArgs | FindSlotArgs) -> tuple[Instant, Instant]:
    return read_window(args.tz, args.between, name=pointer_name)


def _urls(names: Sequence[str], settings: McpSettings, member: str) -> list[str]:
    urls = []
    for index, name in enumerate(names):
        if name not in settings.caldav:
            known = ", ".join(sorted(settings.caldav)) or "none"
            raise CerebriError(
                f"no CalDAV source named {name!r} is configured (configured: {known})",
                code="mcp.not_configured",
                path=f"/{member}/{index}",
            )
        urls.append(settings.caldav[name])
    return urls


def _load(
    ics: Sequence[str],
    caldav: Sequence[str],
    window: tuple[Instant, Instant],
    settings: McpSettings,
    *,
    skip: bool,
    members: tuple[str, str] = ("ics", "caldav"),
    taken: set[str] | None = None,
) -> list[tuple[str, Component]]:
    """The calendars of the ``ics`` (:mod:`cerebri.mcp.calendar_files`) and ``caldav``
    arguments, in that order, with ids unique among ``taken``."""
    urls = _urls(caldav, settings, members[1])
    taken = set() if taken is None else taken
    loaded = read_calendars(ics, members[0], settings.ics, settings.ics_root, taken, skip=skip)
    if not urls:
        return loaded
    from cerebri.integrations.caldav_reader import caldav_reader  # noqa: PLC0415 - network edge

    reader = caldav_reader(
        logins=settings.caldav_logins,
        username=settings.caldav_user,
        password=settings.caldav_password,
        cache=settings.use_cache,
    )
    for index, url in enumerate(urls):
        try:
            fetched = load_sources([], [url], window, read_caldav=reader, skip_invalid_events=skip)
        except CerebriError as error:
            error.path = f"/{members[1]}/{index}"
            if isinstance(error, CalendarError):  # quote nothing of the fetched objects
                raise CerebriError(
                    f"CalDAV source {caldav[index]!r} holds an object cerebri cannot read: "
                    f"{error.code}",
                    code=error.code,
                    path=error.path,
                ) from None
            raise
        name = calendar_id_for(caldav[index], taken)
        loaded.extend((name, calendar) for _, calendar in fetched)
    return loaded


def _query(args: FindSlotArgs) -> SlotQuery:
    options = SlotOptions.of(args.model_dump())
    try:
        return slot_query(options, name=pointer_name)
    except ValueError as exc:  # calendars.invalid_argument: a combination the query refuses
        reason = exc.message if isinstance(exc, CerebriError) else str(exc)
        raise CerebriError(reason, code="input.invalid_option", path="") from None


def _no_calendar(args: FreeBusyArgs | FindSlotArgs) -> None:
    if not args.ics and not args.caldav:
        raise CerebriError(
            "name at least one calendar in ics (paths) or caldav (configured sources)",
            code="input.missing",
            path="/ics",
        )


def _check_hours(query: SlotQuery, calendars: Sequence[tuple[str, Component]]) -> None:
    """``input.invalid_option`` at ``/hours/<i>`` for hours of an id no calendar has."""
    ids = list(dict.fromkeys(name for name, _ in calendars))
    for index, entry in enumerate(query.attendee_hours):
        if entry.calendar_id not in ids:
            raise CerebriError(
                f"hours/{index}: no calendar has id {entry.calendar_id!r} "
                f"(calendar ids: {', '.join(ids)})",
                code="input.invalid_option",
                path=f"/hours/{index}",
            )


def find_slot_tool(args: FindSlotArgs, settings: McpSettings) -> dict[str, JSONValue]:
    """The ``find-slot --json`` document: the PlanningResult, ``warnings``, and ``slots``
    when ranked beyond the planner (a daily preference, optional attendees, min attendance).
    """
    _no_calendar(args)
    window = _window(args)
    query = _query(args)
    sources = _load(args.ics, args.caldav, window, settings, skip=args.skip_invalid_events)
    optional: list[tuple[str, Component]] = []
    if args.optional_ics or args.optional_caldav:
        loaded = _load(
            args.optional_ics,
            args.optional_caldav,
            window,
            settings,
            skip=args.skip_invalid_events,
            members=("optional_ics", "optional_caldav"),
            taken={name for name, _ in sources},
        )
        optional = loaded
    _check_hours(query, [*sources, *optional])
    calendars = ImportedCalendars(
        sources, floating_zone=args.tz, max_occurrences=DEFAULT_MAX_OCCURRENCES
    )
    answer = calendars.find_slot(query, optional=optional)
    ranked = ranked_beyond_planner(query, optional=bool(optional))
    return find_slot_document(answer, ranked=ranked)


def freebusy_tool(args: FreeBusyArgs, settings: McpSettings) -> dict[str, JSONValue]:
    """The ``freebusy --json`` document: busy, free and unknown time in UTC and ``tz``."""
    _no_calendar(args)
    window = _window(args)
    calendars = _load(args.ics, args.caldav, window, settings, skip=args.skip_invalid_events)
    view = freebusy_view(
        [calendar for _, calendar in calendars],
        window[0],
        window[1],
        floating_zone=args.tz,
        max_occurrences=DEFAULT_MAX_OCCURRENCES,
    )
    return freebusy_wire(view, args.tz)
