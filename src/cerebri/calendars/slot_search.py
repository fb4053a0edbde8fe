"""The find-slot use-case over calendars named by path or URL: ``cerebri find-slot``.

::

    found = search_slots(query, SlotSearch(ics=[Path("alice.ics")], create="Sync"), load)
    request, result = found.answer

:func:`search_slots` gives every source its calendar id (:func:`~cerebri.calendars.sources.
source_ids` over the required and optional sources together, docs/decisions/0037), reads
the required calendars, settles the event a CREATE asks for, reads the optional attendees'
calendars, and plans (:meth:`~cerebri.calendars.ImportedCalendars.find_slot`). Reading is
the caller's ``load`` (a :data:`SourceLoader`, e.g. over
:func:`~cerebri.calendars.sources.load_sources` with a progress display): this module does
no I/O of its own.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from icalendar import Component

from cerebri.calendars.answer import SlotAnswer
from cerebri.calendars.attendee_hours import check_hours_ids
from cerebri.calendars.imported import ImportedCalendars, NamedBusy
from cerebri.calendars.query import NewEvent, SlotQuery
from cerebri.calendars.sources import source_ids
from cerebri.errors import CerebriError, InvalidArgumentError
from cerebri.ics import DEFAULT_MAX_OCCURRENCES

__all__ = ["SlotSearch", "SlotsFound", "SourceLoader", "new_event_for", "search_slots"]

NamedCalendars = list[tuple[str, Component]]

SourceLoader = Callable[[Sequence[Path], Sequence[str], Sequence[str]], NamedCalendars]
"""``load(ics_paths, caldav_urls, ids)``: the parsed calendars of those sources paired with
``ids`` (one per file, then per URL), in that order (see
:func:`~cerebri.calendars.sources.load_sources`)."""


@dataclass(frozen=True, slots=True)
class SlotSearch:
    """Which calendars to search, and the event to ask for.

    Attributes:
        ics, caldav: the required attendees' .ics files and CalDAV URLs.
        optional_ics, optional_caldav: the optional attendees' (never block a slot).
        create: the title of an event to create in the slot (a CREATE request), or None.
        calendar: the calendar id that gets it (default: the first calendar read).
        max_occurrences: most recurrence instances expanded per calendar and window.
    """

    ics: Sequence[Path] = ()
    caldav: Sequence[str] = ()
    optional_ics: Sequence[Path] = ()
    optional_caldav: Sequence[str] = ()
    create: str | None = None
    calendar: str | None = None
    max_occurrences: int = DEFAULT_MAX_OCCURRENCES


@dataclass(frozen=True, slots=True)
class SlotsFound:
    """A search's answer and what it rests on.

    Attributes:
        answer: the :class:`~cerebri.calendars.SlotAnswer` (request, result, warnings...).
        sources: the required calendars read, by id, in the order given.
        optional: the optional attendees' calendars read, by id.
        busy: each required calendar's busy periods over the query's window.
    """

    answer: SlotAnswer
    sources: NamedCalendars
    optional: NamedCalendars
    busy: NamedBusy


def new_event_for(
    title: str, calendar: str | None, sources: NamedCalendars, ics_count: int
) -> NewEvent:
    """The event ``--create`` asks for, on ``--calendar`` or by default the first calendar
    read (the first --ics file's, else the first --caldav calendar's: .ics files are read
    first). Integration ``ics`` for a file (one of the first ``ics_count`` sources),
    ``caldav`` for a CalDAV calendar.

    Raises:
        CerebriError: ``calendars.no_calendar`` when there is no calendar to write to (none
            was read, or ``calendar`` names none of those read); ``input.invalid_option``
            for an empty or too long title.
    """
    names = list(dict.fromkeys(name for name, _ in sources))
    chosen = calendar if calendar is not None else (names[0] if names else None)
    if chosen is None or chosen not in names:
        known = ", ".join(names) or "none"
        raise CerebriError(
            f"--create needs a calendar to write to: --calendar {chosen!r} is not one of the "
            f"calendars read ({known}); pass --calendar with one of them"
            if chosen is not None
            else "--create needs a calendar to write to, and no calendar was read",
            code="calendars.no_calendar",
        )
    from_file = {name for name, _ in sources[:ics_count]}
    integration = "ics" if chosen in from_file else "caldav"
    try:
        return NewEvent(title, chosen, integration)
    except InvalidArgumentError as exc:
        raise CerebriError(f"--create: {exc.message}", code="input.invalid_option") from None


def _ids(search: SlotSearch) -> tuple[list[str], list[str]]:
    """The ids of the required sources and of the optional ones, made together so they are
    all distinct."""
    required: list[Path | str] = [*search.ics, *search.caldav]
    optional: list[Path | str] = [*search.optional_ics, *search.optional_caldav]
    ids = source_ids([*required, *optional])
    return ids[: len(required)], ids[len(required) :]


def search_slots(query: SlotQuery, search: SlotSearch, load: SourceLoader) -> SlotsFound:
    """Read the calendars of ``search`` with ``load`` and find ``query``'s slots (module
    docstring). The required calendars are read first, then the event to create is settled
    (:func:`new_event_for`), then the optional calendars are read (only when there are
    some). ``query.attendee_hours`` must name the sources' ids, checked before anything
    is read.

    Raises:
        CerebriError: ``input.invalid_option`` for ``--hours`` of an id no source has
            (the message lists the ids); whatever ``load`` raises; :func:`new_event_for`'s
            codes; the planner's and the calendars' codes (``ics.expansion_limit``...).
    """
    required_ids, optional_ids = _ids(search)
    problem = check_hours_ids(query.attendee_hours, [*required_ids, *optional_ids])
    if problem is not None:
        raise CerebriError(f"--hours: {problem}", code="input.invalid_option")
    sources = load(search.ics, search.caldav, required_ids)
    new_event = (
        None
        if search.create is None
        else new_event_for(search.create, search.calendar, sources, len(search.ics))
    )
    optional = (
        load(search.optional_ics, search.optional_caldav, optional_ids) if optional_ids else []
    )
    calendars = ImportedCalendars(
        sources, floating_zone=query.zone, max_occurrences=search.max_occurrences
    )
    answer = calendars.find_slot(query, create=new_event, optional=optional)
    busy = calendars.busy(query.window_start, query.window_end)
    return SlotsFound(answer, sources, optional, busy)
