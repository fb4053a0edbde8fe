"""Reschedule, cancel or update an event already on the calendars read: the use-case below
``cerebri reschedule``, ``cerebri cancel-event`` and ``cerebri update-event``
(issue #23; docs/decisions/0055)::

    ask = EventChangeAsk(ChangeOperation.RESCHEDULE, "standup@x", at=instance_start,
                         window=(monday, friday), zone="Europe/Berlin")
    found = plan_event_change(ask, SlotSearch(ics=[Path("alice.ics"), Path("bob.ics")]), load)
    request, result = found.answer

:func:`plan_event_change` reads the calendars with the caller's ``load`` (a
:data:`~cerebri.calendars.slot_search.SourceLoader`, as find-slot does: this module does no
I/O), finds the event by ``UID`` in the organizer's calendar (``SlotSearch.calendar``, else
the calendar holding the ``UID`` whose owner is its ``ORGANIZER``, RFC 5546 section 2.1.2,
decision 0074) with :func:`cerebri.calendars.changes.find_event` (RFC 5545 section
3.8.4.4: master plus overrides), and builds the CPIR request of contract C1
(:mod:`cerebri.calendars.change_request`):

* scope: ``at`` alone names one ``INSTANCE`` (its original start, the ``RECURRENCE-ID``);
  ``THIS_AND_FUTURE`` and ``SERIES`` are asked for explicitly; without either, a single
  event or a whole series (``SERIES``). For ``SERIES`` the target is the instance a series
  move is anchored on (contract C2): the first instance starting in ``window`` when the
  series began before the window (its original start is then the ``change``'s recurrence
  id), else the first instance (recurrence id null); an instance moved on its own is never
  the anchor (``input.invalid_option`` when every one in the window was);
* a ``THIS_AND_FUTURE`` reschedule searches from the end of the last instance the old
  series keeps on (the new series never overlaps it; ``input.invalid_option`` naming that
  instant when nothing of the window is left), and from the series' first instance on it
  is a ``SERIES`` change (decision 0055);
* busy time: every calendar's busy periods (required attendees), less the event itself:
  the instance for ``INSTANCE``, every instance from ``at`` on for ``THIS_AND_FUTURE``, every
  instance of the ``UID`` for ``SERIES``; optional attendees' calendars likewise, for the
  free/busy/unknown each candidate reports;
* each attendee's own hours (``ask.attendee_hours``, docs/decisions/0053 and 0061): a
  ``RESCHEDULE`` searches inside every required attendee's hours; an optional attendee
  outside theirs counts as busy; the answer's ``zones`` give every candidate in each known
  attendee zone. An ``UPDATE`` or ``CANCEL`` keeps the event where it is: hours block
  nothing there (``working_hours`` do not either);
* the window: ``RESCHEDULE`` searches ``window``; ``CANCEL`` and ``UPDATE`` do not search:
  their window is the event's current start to its new end (an update's new duration);
* ``change``: the ``UID``, scope, recurrence id, the resource's ETag
  (:func:`cerebri.calendars.changes.resource_etag` of :func:`event_resource`; the CalDAV reader
  does not pass ETags on, so a CalDAV resource gets its digest too), the event's revision
  (:func:`cerebri.calendars.changes.resource_sequence`: the highest ``SEQUENCE`` over its master
  and overrides, also the target's revision; decision 0050), the organizer (the event's
  ``ORGANIZER``, else the organizer calendar's owner) and the attendees read from the event
  (each with the ``calendar_id`` whose owner has the address), an update's new list, title and
  location; a reschedule's or cancel's title and location are the event's own, for the approver
  and the messages (decision 0061).

Then the request is planned once (:func:`cerebri.planner.plan` with
:data:`~cerebri.calendars.FIND_SLOT_LIMITS`): the planner ranks a reschedule's candidates by
least disruption (contract C1), so ``cerebri plan`` of the request gives the same answer.
A ``SERIES`` or ``THIS_AND_FUTURE`` reschedule of a series is then checked at every instance
it moves (:func:`cerebri.calendars.series_fit.fit_series`, decision 0063): a start whose
later instance is not free is left out of the answer's candidates and listed in
``series_check``; the request does not change.

Refusals: ``calendar.not_found`` (no event with that ``UID``, or no instance at ``at``, in the
organizer's calendar), ``calendars.no_calendar`` (``calendar`` is not one of those read; no
``calendar`` and the organizer's copy cannot be told: two calendars of its owner hold it, or
only attendees' calendars do),
``input.invalid_option`` (options that do not fit the operation or the event: an instance
of an event that does not recur, a reschedule without a window, an update that changes
nothing...), and the codes of the readers, :mod:`cerebri.calendars.changes` and the planner.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, time

from icalendar import Calendar

from cerebri._guard import arguments
from cerebri._json import JSONValue
from cerebri.calendars._change_clock import local_reading
from cerebri.calendars.answer import SlotAnswer, answer_for
from cerebri.calendars.arguments import invalid_argument
from cerebri.calendars.attendee_hours import attendee_zones, check_hours_ids
from cerebri.calendars.availability import unavailable_ranges
from cerebri.calendars.change_ask import EventChangeAsk, check_ask, invalid_option
from cerebri.calendars.change_days import all_day_end, all_day_search
from cerebri.calendars.change_request import (
    ChangeAttendee,
    ChangeOperation,
    ChangeTarget,
    as_change_request,
    change_field,
)
from cerebri.calendars.changes import (
    ChangeScope,
    EventView,
    Participant,
    find_event,
    resource_etag,
    resource_sequence,
)
from cerebri.calendars.coverage import unobserved_ranges
from cerebri.calendars.event_instances import (
    Itself,
    disruption,
    event_resource,
    optional_time,
    original_start,
    slot_details,
    target_period,
)
from cerebri.calendars.event_out import address_email, calendar_address
from cerebri.calendars.owners import calendar_owners
from cerebri.calendars.planning import FIND_SLOT_LIMITS
from cerebri.calendars.query import SlotQuery, build_request, event_objects, expansion_window
from cerebri.calendars.series_fit import SeriesCheck, fit_series
from cerebri.calendars.slot_search import NamedCalendars, SlotSearch, SourceLoader
from cerebri.calendars.sources import MAX_WRITABLE_ICS_BYTES, source_ids
from cerebri.errors import CerebriError
from cerebri.ics import BusyPeriod, CalendarWarning, busy_periods, object_id
from cerebri.ics.warnings import add_warning
from cerebri.planner import plan
from cerebri.temporal import Instant, Interval, zone

__all__ = [
    "EventChangeAsk",
    "EventChangeFound",
    "disruption",
    "event_resource",
    "plan_event_change",
]


@dataclass(frozen=True, slots=True)
class EventChangeFound:
    """A change's answer and what it rests on.

    Attributes:
        answer: the :class:`~cerebri.calendars.SlotAnswer` (request, result, warnings,
            per-candidate details with the optional attendees' free/busy/unknown).
        event: the event (or instance) as it is now (before).
        scope: the scope settled.
        target: the request's target (object id, organizer calendar, current range).
        change: the request's ``change`` field.
        sources: the required calendars read, by id, in the order given.
        optional: the optional attendees' calendars read, by id.
        busy: each required calendar's busy periods over the query's window, the event
            itself left out.
        query: the :class:`~cerebri.calendars.SlotQuery` the request was built from.
        series_check: for a ``SERIES`` or ``THIS_AND_FUTURE`` reschedule of a series, how far
            every moved instance was checked and the starts left out for a later instance
            in the way (:class:`~cerebri.calendars.series_fit.SeriesCheck`, decision 0063);
            else None.
    """

    answer: SlotAnswer
    event: EventView
    scope: ChangeScope
    target: ChangeTarget
    change: dict[str, JSONValue]
    sources: NamedCalendars
    optional: NamedCalendars
    busy: tuple[tuple[str, tuple[BusyPeriod, ...]], ...]
    query: SlotQuery
    series_check: SeriesCheck | None = None


def _locate(
    sources: NamedCalendars, organizer: str, ask: EventChangeAsk
) -> tuple[Calendar, EventView]:
    """The organizer's resource holding ``ask.uid`` (:func:`event_resource`) and the event
    or instance asked for. The resource is read again from its own text before
    :func:`find_event` sees it: a plain icalendar reading, apart from what
    :func:`cerebri.ics.parse_calendar` attaches to the calendars it reads."""
    scope = ask.settled_scope()
    for name, calendar in sources:
        if name != organizer or not any(
            str(event.get("UID")) == ask.uid for event in calendar.walk("VEVENT")
        ):
            continue
        resource = event_resource(calendar, ask.uid)
        plain = Calendar.from_ical(resource.to_ical())
        series = find_event(plain, ask.uid, None, floating_zone=ask.zone)
        if series is None:
            continue
        if scope is ChangeScope.SERIES:
            return resource, _series_anchor(resource, plain, series, ask)
        if not series.recurring:
            raise invalid_option(
                f"event {ask.uid!r} does not recur: leave out --instance/--this-and-future"
            )
        view = find_event(plain, ask.uid, ask.at, floating_zone=ask.zone)
        if view is None:
            assert ask.at is not None  # a recurring event asked for without at is the series
            shown, gap = local_reading(ask.at, ask.zone)
            raise CerebriError(
                f"event {ask.uid!r} has no instance starting originally at {ask.at.format()} "
                f"({shown}) in calendar {organizer!r}" + ("" if gap is None else f": {gap}"),
                code="calendar.not_found",
            )
        if (
            scope is ChangeScope.THIS_AND_FUTURE
            and ask.operation is not ChangeOperation.CANCEL
            and ask.at is not None
            and view.start != ask.at
        ):
            # A this-and-future move or update measures the new series from this instance's
            # original start; an instance moved on its own would show one time and write
            # another (decision 0073).
            raise invalid_option(
                f"event {ask.uid!r}: the instance originally at {ask.at.format()} was moved on "
                f"its own (now {view.start.format()}); change it alone with --instance, or "
                "start --this-and-future at an instance that was not moved"
            )
        return resource, view
    raise CerebriError(
        f"no event with UID {ask.uid!r} in calendar {organizer!r}", code="calendar.not_found"
    )


def _series_anchor(
    resource: Calendar, plain: Calendar, series: EventView, ask: EventChangeAsk
) -> EventView:
    """The instance a whole-series change is measured from (its target): the first instance
    starting in ``ask.window`` that was not moved on its own (its start is its original
    start, the ``RECURRENCE-ID``) when the series began before the window, else the first
    instance (the series view). Moving it shifts the whole series by the same local-time
    delta (contract C2; :func:`cerebri.calendars.changes.apply_change` measures from the
    anchor's original start, so a moved anchor would show one shift and write another), so
    "move the weekly meeting" searches the weeks asked about. ``input.invalid_option`` when
    every instance in the window was moved on its own (decision 0055)."""
    if not series.recurring or ask.window is None or series.start >= ask.window[0]:
        return series
    start, end = ask.window
    periods = busy_periods(resource, start, end, floating_zone=ask.zone)
    moved = False
    for period in sorted(periods, key=BusyPeriod.sort_key):
        original = original_start(period, ask.zone)
        if period.uid != ask.uid or period.start < start or original is None:
            continue
        view = find_event(plain, ask.uid, original, floating_zone=ask.zone)
        if view is not None and view.start == original:
            return view
        moved = moved or view is not None
    if moved:
        raise invalid_option(
            f"event {ask.uid!r}: every instance of the series in the window was moved on its "
            "own; pick --instance or widen --between"
        )
    return series


def _kept_end(resource: Calendar, ask: EventChangeAsk) -> Instant | None:
    """The end of the last instance a this-and-future change keeps in the old series (every
    instance whose original start is before ``ask.at``), None when there is none (``at`` is
    the series' first instance). Read over the series' start to the end of ``ask.window``."""
    assert ask.at is not None and ask.window is not None
    plain = Calendar.from_ical(resource.to_ical())
    series = find_event(plain, ask.uid, None, floating_zone=ask.zone)
    first = None if series is None else series.start.plus_seconds(-7 * _DAY)
    if first is None or not first < ask.window[1]:
        return None
    kept = [
        period.end
        for period in busy_periods(resource, first, ask.window[1], floating_zone=ask.zone)
        if period.uid == ask.uid
        and (original := original_start(period, ask.zone)) is not None
        and original < ask.at
    ]
    return max(kept, default=None)


def _future_ask(resource: Calendar, ask: EventChangeAsk) -> EventChangeAsk:
    """A this-and-future reschedule as searched (decision 0055): from the series' first
    instance on it is the whole series (``SERIES``, anchored as a series move is); else
    the window starts no earlier than the end of the last instance the old series keeps, so
    the new series never overlaps it (``input.invalid_option`` naming that instant when
    nothing of the window is left)."""
    if ask.operation is not ChangeOperation.RESCHEDULE or ask.window is None:
        return ask
    if ask.settled_scope() is not ChangeScope.THIS_AND_FUTURE or ask.at is None:
        return ask
    kept = _kept_end(resource, ask)
    if kept is None:
        return replace(ask, scope=ChangeScope.SERIES, at=None)
    start, end = ask.window
    if kept >= end:
        raise invalid_option(
            f"event {ask.uid!r}: the old series keeps instances until {kept.format()}, and the "
            "new series cannot start before they end: --between must reach past it"
        )
    return ask if kept <= start else replace(ask, window=(kept, end))


def _organizer(search: SlotSearch, sources: NamedCalendars, uid: str) -> tuple[str, str]:
    """``(calendar id, integration id)`` of the organizer's calendar: ``search.calendar``,
    else :func:`_organizer_copy` of the calendars holding ``uid``."""
    names = list(dict.fromkeys(name for name, _ in sources))
    chosen = search.calendar if search.calendar is not None else _organizer_copy(sources, uid)
    if chosen is None or chosen not in names:
        raise CerebriError(
            f"--calendar {chosen!r} is not one of the calendars read ({', '.join(names)})"
            if chosen is not None
            else "no calendar was read",
            code="calendars.no_calendar",
        )
    files = {name for name, _ in sources[: len(search.ics)]}
    return chosen, "ics" if chosen in files else "caldav"


def _warn_unwritable(search: SlotSearch, sources: NamedCalendars, organizer: str) -> None:
    """Attach ``ics.too_large_to_write`` to the organizer's calendar when it is an .ics file
    larger than :data:`~cerebri.calendars.sources.MAX_WRITABLE_ICS_BYTES`: read for
    planning (up to 256 MiB), it is more than a worker writes (decision 0066)."""
    for (name, calendar), path in zip(sources, search.ics, strict=False):
        if name != organizer:
            continue
        size = path.stat().st_size
        if size > MAX_WRITABLE_ICS_BYTES:
            add_warning(
                calendar,
                CalendarWarning(
                    "ics.too_large_to_write",
                    f"{size} bytes: a worker changes .ics files of at most "
                    f"{MAX_WRITABLE_ICS_BYTES} bytes and would refuse this change "
                    "(calendar.unreadable); split the file or use a CalDAV calendar",
                    source=str(path),
                ),
            )
        return


def _organizer_copy(sources: NamedCalendars, uid: str) -> str | None:
    """The calendar holding the organizer's copy of ``uid`` (RFC 5546 section 2.1.2: only
    the organizer changes an event; decision 0074): of the calendars holding the ``UID``,
    the one whose owner (:func:`calendar_owners`, decision 0028) is its ``ORGANIZER``; else
    the first holder whose owner is unknown (a holder owned by someone else is an
    attendee's copy). An event without ``ORGANIZER`` is changed in the first calendar
    holding it. No holder: the first calendar read (``calendar.not_found`` follows).
    ``calendars.no_calendar`` when two holders are the organizer's, or every holder is
    someone else's."""
    holders = [
        (name, calendar)
        for name, calendar in sources
        if any(str(event.get("UID")) == uid for event in calendar.walk("VEVENT"))
    ]
    if not holders:
        return sources[0][0] if sources else None
    boss = next(
        (
            event["ORGANIZER"]
            for event in holders[0][1].walk("VEVENT")
            if str(event.get("UID")) == uid and "ORGANIZER" in event
        ),
        None,
    )
    if boss is None:
        return holders[0][0]
    address = _email(str(boss), "ORGANIZER")
    owners = {name: _email(owner, "owner") for name, owner in calendar_owners(holders).items()}
    mine = [name for name, _ in holders if owners.get(name) == address]
    unknown = [name for name, _ in holders if name not in owners]
    if len(mine) == 1 or (not mine and unknown):
        return (mine or unknown)[0]
    held = ", ".join(f"{name} ({owners.get(name, 'owner unknown')})" for name, _ in holders)
    why = "several of them are" if mine else "none of them is"
    raise CerebriError(
        f"event {uid!r} is in calendars {held}, and {why} the organizer's ({address}; only "
        "the organizer's copy is changed, RFC 5546 section 2.1.2): pass --calendar ID, or "
        "read the organizer's calendar",
        code="calendars.no_calendar",
    )


def _email(address: str, what: str) -> str:
    """The lower-case address of ``address`` (:func:`calendar_address`;
    ``input.invalid_option`` naming ``what`` for text that is not ``name@domain``)."""
    try:
        return address_email(calendar_address(address, what))
    except CerebriError as exc:
        raise invalid_option(exc.message) from None


def _wire_people(
    people: dict[str, Participant], owners: dict[str, str]
) -> tuple[ChangeAttendee, ...]:
    """``people`` (by lower-case address) as ``change`` attendees, each with the calendar
    whose owner has its address."""
    by_email = {_email(owner, "owner"): name for name, owner in owners.items()}
    return tuple(
        ChangeAttendee(
            str(calendar_address(p.address, "attendee")),
            p.name or str(calendar_address(p.address, "attendee").params.get("CN", "")) or None,
            p.required,
            by_email.get(key),
        )
        for key, p in people.items()
    )


def _attendees(
    view: EventView, ask: EventChangeAsk, owners: dict[str, str]
) -> tuple[tuple[ChangeAttendee, ...], tuple[ChangeAttendee, ...]]:
    """The event's attendees after the change (an update's new list: the event's, less
    ``remove_attendees``, then ``add_attendees`` added or their role set), in that order,
    and the event's attendees as read. An attendee the event names twice is kept once."""
    present = {_email(p.address, "attendee"): p for p in view.attendees}
    removed = {_email(address, "--remove-attendee") for address in ask.remove_attendees}
    for key in removed - set(present):
        raise invalid_option(f"--remove-attendee {key}: not an attendee of event {ask.uid!r}")
    people: dict[str, Participant] = {}
    for person in (*view.attendees, *ask.add_attendees):
        key = _email(person.address, "--attendee")
        if key not in removed:
            people[key] = person
    return _wire_people(people, owners), _wire_people(present, owners)


_DAY = 86_400
_LONGEST_TEXT = 1024  # a CPIR change's title and location (decision 0049)


def _display(text: str | None) -> str | None:
    """``text`` as a CPIR ``change`` title or location (one line of at most 1024
    characters): whitespace runs, line breaks included, become one space and other control
    characters go; None when nothing is left."""
    if text is None:
        return None
    kept = "".join(c for c in text if c.isspace() or (ord(c) >= 32 and ord(c) != 127))
    return " ".join(kept.split())[:_LONGEST_TEXT] or None


def _midnight(instant: Instant, zone_name: str) -> datetime | None:
    """The local midnight in ``zone_name`` that begins the day of ``instant``."""
    moment = instant.to_datetime()
    if moment is None:
        return None
    local = moment.astimezone(zone(zone_name))
    return datetime.combine(local.date(), time(0), local.tzinfo)


_POINT_SECONDS = 1


def _planned_end(view: EventView) -> Instant:
    """The end the plan gives ``view``: its own, or for an event without length (a
    date-time ``DTSTART`` without ``DTEND``/``DURATION``, RFC 5545 section 3.6.1) one second
    after its start: CPIR's ``TimeRange`` needs ``start < end`` and its ``Duration`` at least
    one second. An update over that second keeps the event's times
    (:func:`cerebri.calendars.changes.apply_change`; decision 0074)."""
    if view.end > view.start:
        return view.end
    end = view.start.plus_seconds(_POINT_SECONDS)
    if end is None:
        raise invalid_option(f"event {view.uid!r} starts at the end of the year 9999")
    return end


def _query(ask: EventChangeAsk, view: EventView) -> SlotQuery:
    """The find-slot query of the change (module doc: the window per operation; an all-day
    event is searched a day apart from a local midnight)."""
    duration = ask.duration_seconds or (_planned_end(view) - view.start) // 1_000_000_000
    moves = ask.operation is ChangeOperation.RESCHEDULE
    if moves and not view.end > view.start and ask.duration_seconds is None:
        raise invalid_option(f"event {ask.uid!r} has no length: pass --duration")  # (0074)
    if view.all_day and ask.duration_seconds is not None and duration % _DAY:
        raise invalid_option(  # DATE values count whole days (RFC 5545 3.3.4, 3.6.1)
            f"event {ask.uid!r} is an all-day event and an all-day event lasts whole days: "
            "--duration 1d, 2d..."
        )
    if ask.operation is ChangeOperation.RESCHEDULE:
        assert ask.window is not None
        start, end = ask.window
        granularity = ask.granularity_seconds
        if view.all_day:  # whole days only (RFC 5545 3.3.4): midnight starts, a day apart
            granularity = _DAY
            if start.to_datetime() != _midnight(start, ask.zone):
                raise invalid_option(
                    f"event {ask.uid!r} lasts whole days: --between must start at a local "
                    f"midnight in {ask.zone}"
                )
            duration = all_day_search(ask.uid, view, ask.duration_seconds, ask.window, ask.zone)
        return SlotQuery(
            start,
            end,
            duration,
            granularity_seconds=granularity,
            zone=ask.zone,
            working_hours=ask.working_hours,
            working_days=ask.working_days,
            buffer_seconds=ask.buffer_seconds,
            max_candidates=ask.max_candidates,
            attendee_hours=ask.attendee_hours,
        )
    new_end = view.start.plus_seconds(duration)
    if view.all_day:  # N local days, 23 to 25 hours each (decision 0064)
        new_end = all_day_end(view, ask.duration_seconds, ask.zone)
        duration = (new_end - view.start) // 1_000_000_000
    assert new_end is not None
    return SlotQuery(
        view.start,
        new_end,
        duration,
        granularity_seconds=duration,
        zone=ask.zone,
        attendee_hours=ask.attendee_hours,
    )


def _ids(search: SlotSearch) -> tuple[list[str], list[str]]:
    required: list[object] = [*search.ics, *search.caldav]
    optional: list[object] = [*search.optional_ics, *search.optional_caldav]
    ids = source_ids([*search.ics, *search.caldav, *search.optional_ics, *search.optional_caldav])
    return ids[: len(required)], ids[len(required) : len(required) + len(optional)]


@arguments(invalid_argument, ask=EventChangeAsk, search=SlotSearch)
def plan_event_change(
    ask: EventChangeAsk, search: SlotSearch, load: SourceLoader
) -> EventChangeFound:
    """Read the calendars of ``search`` (its ``create`` is not used; ``calendar`` names the
    organizer's calendar) with ``load``, find the event and plan ``ask`` (module doc).

    Raises:
        CerebriError: ``input.invalid_option``, ``calendar.not_found``,
            ``calendars.no_calendar``; whatever ``load`` raises;
            :mod:`cerebri.calendars.changes`' ``change.*`` codes; the planner's and the
            calendars' codes (``ics.expansion_limit``...).
        InvalidArgumentError: ``calendars.invalid_argument`` for an argument of the wrong
            Python type (``load`` not callable).
    """
    if not callable(load):
        raise invalid_argument("plan_event_change() needs load as a callable SourceLoader")
    check_ask(ask)
    required_ids, optional_ids = _ids(search)
    problem = check_hours_ids(ask.attendee_hours, [*required_ids, *optional_ids])
    if problem is not None:
        raise invalid_option(f"--hours: {problem}")
    sources = load(search.ics, search.caldav, required_ids)
    optional = (
        load(search.optional_ics, search.optional_caldav, optional_ids) if optional_ids else []
    )
    organizer, integration = _organizer(search, sources, ask.uid)
    resource, view = _locate(sources, organizer, ask)
    searched = _future_ask(resource, ask)
    if searched is not ask:
        ask = searched
        resource, view = _locate(sources, organizer, ask)
    scope = ask.settled_scope()
    query = _query(ask, view)
    period = target_period(resource, view, ask.zone)
    revision = resource_sequence(resource, ask.uid)  # every component's highest (0050)
    target = ChangeTarget(
        object_id(period),
        organizer,
        integration,
        view.start,
        _planned_end(view),
        revision,
        ask.zone,
    )
    itself = Itself(ask.uid, scope, target.object_id, ask.at, ask.zone)
    owners = calendar_owners([*sources, *optional])
    boss = view.organizer or (
        str(calendar_address(owners[organizer], "owner")) if organizer in owners else None
    )
    after, before = _attendees(view, ask, owners)
    update = ask.operation is ChangeOperation.UPDATE
    change = change_field(
        uid=ask.uid,
        scope=scope.value,
        recurrence_id=ask.at if scope is not ChangeScope.SERIES else view.recurrence_id,
        etag=resource_etag(resource),
        sequence=revision,
        # an update's new values; a move's or cancel's describe the event (decision 0061)
        title=ask.title if update else _display(view.title),
        location=ask.location if update else _display(view.location),
        organizer=boss,
        attendees=after,
        # an update's list as read: whoever it removes gets a CANCEL (decision 0061)
        previous_attendees=before
        if update and (ask.add_attendees or ask.remove_attendees)
        else None,
    )
    start, end = expansion_window(query)
    busy = tuple(
        (name, tuple(p for p in periods if not itself(p)))
        for name, periods in (
            (
                name,
                busy_periods(
                    calendar,
                    start,
                    end,
                    floating_zone=query.zone,
                    max_occurrences=search.max_occurrences,
                )
                if ask.operation is not ChangeOperation.CANCEL  # a cancel frees time (0074)
                else [],
            )
            for name, calendar in sources
        )
    )
    parsed = [calendar for _, calendar in sources]
    window = Interval(query.window_start.ns, query.window_end.ns)
    closed = unavailable_ranges(
        parsed, start, end, floating_zone=query.zone, max_occurrences=search.max_occurrences
    )
    moves = ask.operation is ChangeOperation.RESCHEDULE  # an update or cancel stays put
    found_slot = build_request(
        event_objects(busy, query.zone),
        unobserved_ranges(parsed, window),
        query,
        unavailable=closed,
        required=frozenset(required_ids) if moves else frozenset(),
    )
    request = as_change_request(found_slot, ask.operation, target, change)
    result = plan(request, limits=FIND_SLOT_LIMITS)
    series_check = None
    if moves and scope is not ChangeScope.INSTANCE and view.recurring:  # decision 0063
        result, series_check = fit_series(
            result,
            resource=resource,
            uid=ask.uid,
            scope=scope,
            recurrence_id=ask.at if scope is not ChangeScope.SERIES else view.recurrence_id,
            query=query,
            sources=sources,
            leave_out=itself,
            max_occurrences=search.max_occurrences,
        )
    attendees = optional_time(optional, query, itself, search.max_occurrences)
    _warn_unwritable(search, sources, organizer)
    answer = answer_for(
        request,
        result,
        [*parsed, *(c for _, c in optional)],
        slots=slot_details(result, query, attendees),
        zones=attendee_zones(query.attendee_hours, [*sources, *optional]),
    )
    return EventChangeFound(
        answer=answer,
        event=view,
        scope=scope,
        target=target,
        change=dict(change),
        sources=sources,
        optional=optional,
        busy=busy,
        query=query,
        series_check=series_check,
    )
