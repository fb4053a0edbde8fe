"""Changes to events already on a calendar: move, cancel and update (issue #23, decision 0050).

Pure functions over icalendar objects: no I/O, no clock (the ``DTSTAMP`` instant is passed
in), no store. One *resource* is one calendar object resource (RFC 4791 section 4.1): a
``VCALENDAR`` holding the ``VEVENT`` components of one ``UID`` (a master and its
``RECURRENCE-ID`` overrides) and the ``VTIMEZONE`` components they use::

    view = find_event(resource, "standup@example.com", recurrence_id)   # EventView | None
    etag = resource_etag(resource)                                     # "sha256:<hex>"
    change = EventChange(action="move", uid=..., scope=ChangeScope.INSTANCE,
                         recurrence_id=..., start=..., end=..., idempotency_key=key)
    if not already_applied(resource, change):
        outcome = apply_change(resource, change, stamp=clock.now())
        for uid, content in outcome.writes:   # content None: delete the resource of uid
            ...
        for notice in outcome.notices:        # what the attendees must be told (iTIP)
            ...

Rules (each from the RFC named):

* Instances are resolved as RFC 5545 section 3.8.4.4 says: the master's ``DTSTART``,
  ``RRULE``, ``RDATE`` and ``EXDATE`` (sections 3.8.5.1-3.8.5.3) give the instances, a
  ``RECURRENCE-ID`` override replaces the instance it names. A ``recurrence_id`` is the UTC
  instant of the instance's original start; for an all-day or floating series it is the
  original start read in ``floating_zone``.
* ``INSTANCE``: a move or update writes (or rewrites) the ``RECURRENCE-ID`` override of the
  instance, whose ``RECURRENCE-ID`` has the value type and ``TZID`` of the master's
  ``DTSTART`` (a new override copies the master's properties and alarms), with the next
  ``SEQUENCE`` (below); a cancel adds an ``EXDATE`` to the master (RFC 5545 section 3.8.5.1)
  and drops the instance's override, the master taking the next ``SEQUENCE``.
* ``SERIES``: the master and every override change, all to the next ``SEQUENCE``. A move shifts
  the whole series by the wall-time difference between the anchor instance's *original* start
  (``recurrence_id``, or the first instance) and ``start``, in the series' own zone, so "every
  Monday 09:00 Berlin" stays at one wall-clock time across DST; weekday ``BYDAY`` entries,
  ``UNTIL``, ``EXDATE``, ``RDATE``, the overrides' ``RECURRENCE-ID`` and their times shift with
  it (overrides keep their own length, except an update's new length). A cancel deletes the
  resource.
* ``THIS_AND_FUTURE``: the series is split (decision 0050, chosen by experiment over
  ``RANGE=THISANDFUTURE``): the old series is trimmed to the instances before
  ``recurrence_id`` (``UNTIL`` just before it, or the ``COUNT`` of the occurrences before
  it), its later ``RDATE``/``EXDATE`` values and overrides go to a new series with the
  ``UID`` :func:`split_uid` (deterministic), shifted and changed, at ``SEQUENCE:0``; the old
  one's kept components get the next ``SEQUENCE``. The new series is written
  first. A cancel only trims. From the first remaining instance on it is ``SERIES``.
* New times keep the event's kind: an all-day event keeps ``VALUE=DATE`` (``start``/``end``
  must then be midnights in ``floating_zone``), an event with a ``TZID`` is written in that
  zone, a UTC event in UTC, a floating event as floating local time (in ``floating_zone``).
  ``UNTIL`` is in UTC when ``DTSTART`` has a zone or is UTC, a date for all-day series and
  floating local time for floating ones (RFC 5545 section 3.3.10).
* One rule for ``SEQUENCE`` (RFC 5546 section 2.1.4; RFC 5545 section 3.8.7.4; decision
  0050): the event's revision is :func:`resource_sequence`, the highest ``SEQUENCE`` over
  the master and every override of its ``UID`` (calendars raise moved instances above the
  master), and every change writes that plus one on each component it touches, so it never
  goes down and the messages carry the number stored. ``DTSTAMP`` and
  ``LAST-MODIFIED`` are ``stamp``. Missing ``VTIMEZONE`` components are added from zoneinfo
  covering every instance, endless series included (:mod:`cerebri.calendars.vtimezones`).
* ``ORGANIZER`` and ``ATTENDEE`` are stamped when the change gives them (RFC 5545 sections
  3.8.4.3 and 3.8.4.1; RFC 5546 section 3.2.2): ``ROLE=REQ-PARTICIPANT`` or
  ``OPT-PARTICIPANT``, ``CUTYPE=INDIVIDUAL``, ``RSVP=TRUE``, ``CN`` when named, and the
  ``PARTSTAT`` an attendee already had (``NEEDS-ACTION`` for a new one). The addresses are
  checked as :mod:`cerebri.calendars.itip` checks them.
* The change's idempotency key is written in ``X-CEREBRI-IDEMPOTENCY-KEY`` on every
  component it wrote, so :func:`already_applied` tells a replay. The stored object never
  carries ``METHOD`` (RFC 4791 section 4.1). Events of other UIDs in the resource are kept.
* :attr:`ChangeOutcome.notices` say whom to tell: a ``REQUEST`` with each written component
  (the new split series at ``SEQUENCE:0``, the shortened one), a ``CANCEL`` for a cancelled
  instance or event (to the change's attendees when it names them), and a ``CANCEL`` to the
  attendees an update removed.

Refusals are :class:`ChangeError` (also a ``ValueError``): ``calendar.not_found`` (no event
with that ``UID`` in the resource, or no instance at ``recurrence_id``), ``change.invalid``
(fields that do not fit the action and scope: a move without ``start``/``end``, ``end`` not
after ``start``, an ``INSTANCE`` scope without ``recurrence_id``...), ``change.not_recurring``
(``INSTANCE`` or ``THIS_AND_FUTURE`` on an event that does not recur),
``change.not_whole_days`` (an all-day event moved to times that are not midnights),
``change.unsupported_rule`` (a whole-series move that would need an ``RRULE`` rewritten beyond
shifting weekly ``BYDAY`` days: ``BYMONTHDAY``, ``BYHOUR``..., or ``BYSETPOS``) and
``change.bad_event`` (the stored event cannot be read: no ``DTSTART``, a ``DTEND`` before
it, an unreadable ``RRULE``), ``change.bad_address`` and ``change.duplicate_attendee`` (as
``itip.bad_address`` and ``itip.duplicate_attendee``). Wrong-typed arguments are
``calendars.invalid_argument``.
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
from datetime import date

from icalendar import Calendar, Event

from cerebri._guard import arguments
from cerebri.calendars._change_answers import asks_again
from cerebri.calendars._change_apply import (
    Edit,
    cancel_future,
    cancel_instance,
    cancel_series,
    change_instance,
    change_series,
    highest_sequence,
    split,
)
from cerebri.calendars._change_model import (
    IDEMPOTENCY_PROPERTY,
    ChangeAction,
    ChangeError,
    ChangeNotice,
    ChangeOutcome,
    ChangeScope,
    EventChange,
    EventView,
    Participant,
)
from cerebri.calendars._change_people import check_people
from cerebri.calendars._change_series import Series, sequence_of, series_of
from cerebri.calendars._change_times import floating, instant_of
from cerebri.calendars.arguments import invalid_argument
from cerebri.calendars.vtimezones import add_zones
from cerebri.temporal import Instant

__all__ = [
    "IDEMPOTENCY_PROPERTY",
    "ChangeAction",
    "ChangeError",
    "ChangeNotice",
    "ChangeOutcome",
    "ChangeScope",
    "EventChange",
    "EventView",
    "Participant",
    "already_applied",
    "apply_change",
    "find_event",
    "reschedules",
    "resource_etag",
    "resource_sequence",
    "split_uid",
]


@arguments(invalid_argument, uid=str, recurrence_id=Instant, idempotency_key=str)
def split_uid(uid: str, recurrence_id: Instant, idempotency_key: str) -> str:
    """The ``UID`` of the new series when ``uid`` is split at ``recurrence_id`` by the change
    with ``idempotency_key``: ``"<32 hex digits>-split@cerebri"``, the first 128 bits of
    SHA-256 over the three values, so a replay names the same series."""
    digest = hashlib.sha256(
        "\x00".join((uid, recurrence_id.format(), idempotency_key)).encode()
    ).hexdigest()
    return f"{digest[:32]}-split@cerebri"


@arguments(invalid_argument, resource=Calendar)
def resource_etag(resource: Calendar) -> str:
    """A stable digest of one calendar object resource, ``"sha256:<64 hex digits>"`` of its
    serialised bytes (``to_ical()``), used as the ETag of an ``.ics``-file resource: equal
    for equal content, different after any change :func:`apply_change` makes."""
    return "sha256:" + hashlib.sha256(bytes(resource.to_ical())).hexdigest()


@arguments(invalid_argument, resource=Calendar, uid=str)
def resource_sequence(resource: Calendar, uid: str) -> int:
    """The revision of event ``uid`` in ``resource``: the highest ``SEQUENCE`` (RFC 5545
    section 3.8.7.4; absent counts 0) over every ``VEVENT`` with that ``UID``, master and
    overrides alike (a calendar may raise a moved instance above its master). Every change
    :func:`apply_change` makes writes this plus one on the components it touches (RFC 5546
    section 2.1.4; decision 0050); 0 when ``resource`` holds no such component.

    Raises:
        InvalidArgumentError: ``calendars.invalid_argument`` for arguments of the wrong type.
    """
    return max(
        (
            sequence_of(event)
            for event in resource.walk("VEVENT")
            if str(event.get("UID", "")) == uid
        ),
        default=0,
    )


@arguments(invalid_argument, event=Event, previous=(Calendar, type(None)))
def reschedules(event: Event, previous: Calendar | None) -> bool:
    """Whether writing ``event`` (one ``VEVENT``: a master or an override) moves the
    instance(s) it describes away from where ``previous`` (a resource holding its ``UID``
    before, or ``None``) had them: the component of the same ``RECURRENCE-ID``, else the
    master's instance there (RFC 6638 section 3.2.8's reschedule: ``DTSTART`` or the end
    changed, or an instance the series did not have). Then the attendees' answers no longer
    hold and go back to ``PARTSTAT=NEEDS-ACTION`` (decision 0073). Dates and floating times
    are compared as read in UTC. ``True`` when ``previous`` is ``None`` or lacks the ``UID``.

    Raises:
        ChangeError: ``change.bad_event`` (unreadable times in either).
        InvalidArgumentError: ``calendars.invalid_argument``.
    """
    utc = floating("UTC")
    before = None if previous is None else series_of(previous, str(event.get("UID", "")), utc)
    rid = getattr(event.get("RECURRENCE-ID"), "dt", None)
    at = instant_of(rid, utc) if isinstance(rid, date) else None
    return asks_again(event, before, at)


def _text_argument(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise invalid_argument(f"{what} must be a text, got {type(value).__name__}")
    return value


@arguments(invalid_argument, calendar=Calendar, floating_zone=str)
def find_event(
    calendar: Calendar,
    uid: str,
    recurrence_id: Instant | None = None,
    *,
    floating_zone: str = "UTC",
) -> EventView | None:
    """The event ``uid``, or its instance at ``recurrence_id`` (UTC original start), as it is
    now: master plus override resolution (RFC 5545 section 3.8.4.4), ``RRULE``/``RDATE``
    instances less ``EXDATE``s. ``calendar`` may hold other events too (an ``.ics`` file).

    Returns ``None`` when there is no such event or instance (an excluded instance is not
    found). With ``recurrence_id`` ``None`` the series as a whole: the master's range.
    Floating times and dates are read in ``floating_zone`` (an IANA name). An instance
    after a ``RANGE=THISANDFUTURE`` override another program wrote takes that override's
    wall-time shift, length and properties (RFC 5545 section 3.8.4.4).

    Raises:
        ChangeError: ``change.bad_event`` (the event cannot be read).
        InvalidArgumentError: ``calendars.invalid_argument``.
    """
    _text_argument(uid, "uid")
    if recurrence_id is not None and not isinstance(recurrence_id, Instant):
        raise invalid_argument("recurrence_id must be an Instant or None")
    series = series_of(calendar, uid, floating(floating_zone))
    return None if series is None else series.view(recurrence_id)


@arguments(invalid_argument, change=EventChange)
def already_applied(resource: Calendar | None, change: EventChange) -> bool:
    """Whether ``change`` was applied already: a ``VEVENT`` of ``change.uid`` in ``resource``
    carries its idempotency key (``X-CEREBRI-IDEMPOTENCY-KEY``; every component a change
    writes carries it, and a resource is written whole). ``None`` (no resource) answers
    ``False``: whether a missing resource means "cancelled by this change" is the caller's
    call (it knows whether it deleted it). For a split, ``resource`` is the old series: it
    is written last, so it carries the key only when both writes were made."""
    if resource is None:
        return False
    if not isinstance(resource, Calendar):
        raise invalid_argument("resource must be an icalendar Calendar or None")
    return any(
        isinstance(component, Event)
        and str(component.get("UID", "")) == change.uid
        and str(component.get(IDEMPOTENCY_PROPERTY, "")) == change.idempotency_key
        for component in resource.subcomponents
    )


def _check_types(change: EventChange) -> None:
    """Wrong Python types in ``change``: ``calendars.invalid_argument``."""
    if not isinstance(change.scope, ChangeScope):
        raise invalid_argument("scope must be a ChangeScope")
    for name in ("recurrence_id", "start", "end"):
        if getattr(change, name) is not None and not isinstance(getattr(change, name), Instant):
            raise invalid_argument(f"{name} must be an Instant or None")
    if change.attendees is not None and not isinstance(change.attendees, (tuple, list)):
        raise invalid_argument("attendees must be a tuple of Participant or None")


def _problems(change: EventChange) -> list[str]:
    """What does not fit the action and scope."""
    problems: list[str] = []
    if change.action not in ("move", "cancel", "update"):
        problems.append(f"action {change.action!r} is not move, cancel or update")
    for name in ("uid", "idempotency_key"):
        value = getattr(change, name)
        if not isinstance(value, str) or not value.strip():
            problems.append(f"{name} must be a non-empty text")
    if change.scope is not ChangeScope.SERIES and change.recurrence_id is None:
        problems.append(f"scope {change.scope} needs recurrence_id")
    timed = (change.start is not None, change.end is not None)
    wanted = {"move": {(True, True)}, "cancel": {(False, False)}}
    if timed not in wanted.get(change.action, {(True, True), (False, False)}):
        problems.append(
            "a move needs start and end, a cancel takes neither, an update both or neither"
        )
    if change.action != "update" and (change.title is not None or change.location is not None):
        problems.append("title and location change only by an update")
    if change.start is not None and change.end is not None and change.end <= change.start:
        problems.append("end must be after start")
    fields = (change.start, change.title, change.location, change.organizer, change.attendees)
    if change.action == "update" and all(value is None for value in fields):
        problems.append("an update changes at least one of the times, title, location or people")
    return problems


def _check(change: EventChange) -> None:
    """Refuse a change whose fields do not fit (``change.invalid``), bad addresses."""
    _check_types(change)
    problems = _problems(change)
    if problems:
        raise ChangeError("; ".join(problems), code="change.invalid")
    check_people(change.organizer, change.attendees)


@arguments(
    invalid_argument, resource=Calendar, change=EventChange, stamp=Instant, floating_zone=str
)
def apply_change(
    resource: Calendar,
    change: EventChange,
    *,
    stamp: Instant,
    floating_zone: str = "UTC",
) -> ChangeOutcome:
    """``resource`` (one calendar object resource holding ``change.uid``; not modified) after
    ``change``: the resources to write and the notices to send (module doc for the rules).
    A change already applied (:func:`already_applied`) answers ``replayed=True`` and writes
    nothing.

    Args:
        resource: the stored object as read (a ``VCALENDAR``).
        change: the :class:`EventChange`.
        stamp: ``DTSTAMP`` and ``LAST-MODIFIED`` of the written components (UTC instant).
        floating_zone: the zone floating times and dates are read in (IANA name).

    Raises:
        ChangeError: ``calendar.not_found``, ``change.invalid``, ``change.not_recurring``,
            ``change.not_whole_days``, ``change.unsupported_rule``, ``change.bad_event``,
            ``change.bad_address`` (an organizer or attendee that is not ``name@domain``)
            and ``change.duplicate_attendee`` (one address named twice).
        InvalidArgumentError: ``calendars.invalid_argument``.
    """
    _check(change)
    zone = floating(floating_zone)
    moment = stamp.to_datetime()
    if moment is None:
        raise invalid_argument("stamp must lie within the years 1-9999")
    calendar = copy.deepcopy(resource)
    calendar.pop("METHOD", None)  # RFC 4791 section 4.1: never in a stored object
    series = series_of(calendar, change.uid, zone)
    if series is None:
        raise ChangeError(f"no event {change.uid} in the resource", code="calendar.not_found")
    new_uid = (
        split_uid(change.uid, change.recurrence_id, change.idempotency_key)
        if change.scope is ChangeScope.THIS_AND_FUTURE and change.recurrence_id is not None
        else None
    )
    if already_applied(resource, change):
        return _replayed(series, change, new_uid)
    change = _point_kept(series, change)
    before = series_of(resource, change.uid, zone)
    assert before is not None  # the copy has the UID, so has the resource
    outcome = _dispatch(Edit(calendar, series, change, moment, before), new_uid)
    for _, written in outcome.writes:
        if written is not None:
            add_zones(written)
    return outcome


_POINT_NS = 1_000_000_000


def _point_kept(series: Series, change: EventChange) -> EventChange:
    """``change`` without its range when it is an update of an event without length (RFC
    5545 section 3.6.1: a date-time ``DTSTART`` alone ends where it starts) over the one
    second after its start, the range such an event is planned with (CPIR ranges are not
    empty; decision 0074): its times stay as they are. Any other range is written."""
    start, end = change.start, change.end
    if change.action != "update" or start is None or end is None or end - start != _POINT_NS:
        return change
    view = series.view(change.recurrence_id)
    if view is None or view.all_day or not view.start == view.end == start:
        return change
    return dataclasses.replace(change, start=None, end=None)


def _replayed(series: Series, change: EventChange, new_uid: str | None) -> ChangeOutcome:
    """The outcome of a change found applied: nothing to write, the stored revision (the
    highest ``SEQUENCE``, which the change wrote)."""
    at = change.recurrence_id
    sequence = highest_sequence(series)
    split = new_uid is not None and change.action != "cancel" and at is not None
    return ChangeOutcome((), (), sequence, new_uid if split else None, replayed=True)


def _dispatch(edit: Edit, new_uid: str | None) -> ChangeOutcome:
    change, series = edit.change, edit.series
    at = change.recurrence_id
    if change.scope is not ChangeScope.SERIES and not series.recurring:
        raise ChangeError(
            f"event {series.uid} does not recur: scope {change.scope} applies to series only",
            code="change.not_recurring",
        )
    if at is not None and not series.exists(at):
        raise ChangeError(f"event {series.uid} has no instance at {at}", code="calendar.not_found")
    scope = change.scope
    if (
        scope is ChangeScope.THIS_AND_FUTURE
        and at is not None
        and series.master is not None
        and not series.has_instance_before(at)
    ):
        scope = ChangeScope.SERIES  # this and future from the first instance on: all of it
    if change.action == "cancel":
        if scope is ChangeScope.INSTANCE and at is not None:
            return cancel_instance(edit, at)
        if scope is ChangeScope.THIS_AND_FUTURE and at is not None:
            return cancel_future(edit, at)
        return cancel_series(edit)
    if scope is ChangeScope.INSTANCE and at is not None:
        return change_instance(edit, at)
    if scope is ChangeScope.THIS_AND_FUTURE and at is not None and new_uid is not None:
        return split(edit, at, new_uid)
    return change_series(edit, at if at is not None else series.first_start())
