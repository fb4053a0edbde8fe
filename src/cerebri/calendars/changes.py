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
  ``DTSTART``; a cancel adds an ``EXDATE`` to the master and drops the instance's override.
* ``SERIES``: the master (and every override) changes. A move shifts the whole series by the
  local-time difference between the anchor instance (``recurrence_id``, or the first
  instance) and ``start``, in the series' own zone, so "every Monday 09:00 Berlin" stays at
  one wall-clock time across DST; ``EXDATE``, ``RDATE``, overrides' ``RECURRENCE-ID`` and
  ``UNTIL`` shift with it. A cancel deletes the resource.
* ``THIS_AND_FUTURE``: the series is split (decision 0050): the old series is trimmed to the
  instances before ``recurrence_id`` (``UNTIL`` just before it, or a smaller ``COUNT``) and a
  new series with a new ``UID`` (:func:`split_uid`, deterministic) takes the rest, changed.
  A cancel only trims. At the first instance it is the same as ``SERIES``.
* New times keep the event's kind: an all-day event keeps ``VALUE=DATE`` (``start``/``end``
  must then be midnights in ``floating_zone``), an event with a ``TZID`` is written in that
  zone, a UTC event in UTC, a floating event as floating local time (in ``floating_zone``).
  ``UNTIL`` is in UTC when ``DTSTART`` has a zone or is UTC, a date for all-day series and
  floating local time for floating ones (RFC 5545 section 3.3.10).
* ``SEQUENCE`` grows by exactly one on every component whose change attendees must see
  (RFC 5546 section 2.1.4; RFC 5545 section 3.8.7.4), ``DTSTAMP`` and ``LAST-MODIFIED`` are
  ``stamp``. A new split series starts at ``SEQUENCE:0``.
* ``ORGANIZER`` and ``ATTENDEE`` are stamped when the change gives them (RFC 5545 sections
  3.8.4.3 and 3.8.4.1; RFC 5546 section 3.2.2): ``ROLE=REQ-PARTICIPANT`` or
  ``OPT-PARTICIPANT``, ``CUTYPE=INDIVIDUAL``, ``RSVP=TRUE``, ``CN`` when named, and the
  ``PARTSTAT`` an attendee already had (``NEEDS-ACTION`` for a new one). The addresses are
  checked as :mod:`cerebri.calendars.itip` checks them.
* The change's idempotency key is written in ``X-CEREBRI-IDEMPOTENCY-KEY`` on every
  component it wrote, so :func:`already_applied` tells a replay. The stored object never
  carries ``METHOD`` (RFC 4791 section 4.1).

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

import hashlib
from dataclasses import dataclass
from enum import StrEnum
from typing import Final, Literal

from icalendar import Calendar

from cerebri.errors import CerebriError
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
    "resource_etag",
    "split_uid",
]

IDEMPOTENCY_PROPERTY: Final = "X-CEREBRI-IDEMPOTENCY-KEY"
"""The property holding the idempotency key of the change that last wrote a component (the
name the adapters in :mod:`cerebri.execution.adapters` use too)."""

ChangeAction = Literal["move", "cancel", "update"]
"""``move`` (new times), ``cancel`` (remove) or ``update`` (title, location, attendees and,
when ``start``/``end`` are given, new times: a new duration)."""


class ChangeError(CerebriError, ValueError):
    """A change cannot be applied: codes ``calendar.not_found``, ``change.invalid``,
    ``change.not_recurring``, ``change.not_whole_days``, ``change.unsupported_rule``,
    ``change.bad_event``, ``change.bad_address`` and ``change.duplicate_attendee`` (see
    :mod:`cerebri.calendars.changes`)."""

    code = "change.invalid"


class ChangeScope(StrEnum):
    """Which instances of a recurring event a change touches (RFC 5545 section 3.8.4.4):
    one ``INSTANCE``, the instance at ``recurrence_id`` and every later one
    (``THIS_AND_FUTURE``), or the whole ``SERIES`` (also the only scope of a single event)."""

    INSTANCE = "INSTANCE"
    THIS_AND_FUTURE = "THIS_AND_FUTURE"
    SERIES = "SERIES"


@dataclass(frozen=True, slots=True)
class Participant:
    """One attendee: ``address`` (``mailto:a@b``, ``a@b`` or ``Name <a@b>``), ``name`` (the
    ``CN``, or ``None``) and whether they are ``required`` (``ROLE=REQ-PARTICIPANT``) or
    optional (``ROLE=OPT-PARTICIPANT``). Read back from an event, ``address`` is
    ``mailto:`` plus the address as written."""

    address: str
    name: str | None = None
    required: bool = True


@dataclass(frozen=True, slots=True, kw_only=True)
class EventChange:
    """One change to one event or series (the ``change`` field of CPIR, decision 0049).

    Attributes:
        action: ``"move"``, ``"cancel"`` or ``"update"``.
        uid: the event's ``UID``.
        scope: :class:`ChangeScope`; ``SERIES`` for a single event.
        recurrence_id: the UTC original start of the instance (``RECURRENCE-ID``); required
            for ``INSTANCE`` and ``THIS_AND_FUTURE``; for ``SERIES`` the anchor instance of a
            move (``None``: the first instance).
        start, end: the new range (UTC instants, ``end`` after ``start``) of the instance at
            ``recurrence_id`` (of the first instance for a ``SERIES`` change without one);
            required for a move, optional for an update (both or neither), ``None`` for a
            cancel. All-day events need midnights in ``floating_zone``.
        title: new ``SUMMARY`` (update only; ``None`` = unchanged).
        location: new ``LOCATION`` (update only; ``None`` = unchanged).
        organizer: the ``ORGANIZER`` to stamp (``mailto:a@b``), or ``None`` = unchanged.
        attendees: the ``ATTENDEE`` list to stamp (an update's new list), or ``None`` =
            unchanged.
        idempotency_key: the key of this change (the executor's effect key), non-empty.
    """

    action: ChangeAction
    uid: str
    scope: ChangeScope = ChangeScope.SERIES
    recurrence_id: Instant | None = None
    start: Instant | None = None
    end: Instant | None = None
    title: str | None = None
    location: str | None = None
    organizer: str | None = None
    attendees: tuple[Participant, ...] | None = None
    idempotency_key: str


@dataclass(frozen=True, slots=True)
class EventView:
    """An event or one instance of a series as it is now (:func:`find_event`).

    Attributes:
        uid: the ``UID``.
        recurrence_id: the instance's UTC original start, or ``None`` for a single event or
            the series as a whole.
        start, end: the current range, UTC instants (all-day and floating times read in
            ``floating_zone``).
        all_day: ``DTSTART`` is a date (``VALUE=DATE``).
        timezone: the ``TZID`` of ``DTSTART`` (``"UTC"`` for a UTC time, ``None`` for
            floating times and dates).
        sequence: the ``SEQUENCE`` of the component that defines the instance (the override
            when there is one, else the master), 0 when absent.
        title, location: ``SUMMARY`` and ``LOCATION`` or ``None``.
        organizer: the ``ORGANIZER`` (``mailto:...``) or ``None``.
        attendees: the ``ATTENDEE`` lines, in the order written.
        recurring: the event is a series (has ``RRULE``/``RDATE``, or is an override).
        overridden: the instance is defined by a ``RECURRENCE-ID`` override.
        status: ``STATUS`` (``CONFIRMED``, ``TENTATIVE``, ``CANCELLED``) or ``None``.
    """

    uid: str
    recurrence_id: Instant | None
    start: Instant
    end: Instant
    all_day: bool
    timezone: str | None
    sequence: int
    title: str | None
    location: str | None
    organizer: str | None
    attendees: tuple[Participant, ...]
    recurring: bool
    overridden: bool
    status: str | None


@dataclass(frozen=True, slots=True)
class ChangeNotice:
    """What the attendees must be told about one change (one ``message.itip.send`` per
    recipient, C4 of issue #23): ``method`` ``REQUEST`` (send the stored component of
    ``uid``/``recurrence_id`` read back) or ``CANCEL``; ``sequence`` the ``SEQUENCE`` the
    message carries (the stored one after the change); ``recipients`` the attendees to tell,
    the organizer left out."""

    uid: str
    recurrence_id: Instant | None
    method: Literal["REQUEST", "CANCEL"]
    sequence: int
    recipients: tuple[Participant, ...]


@dataclass(frozen=True, slots=True)
class ChangeOutcome:
    """The result of :func:`apply_change`.

    Attributes:
        writes: ``(uid, resource)`` pairs in the order to write them; ``resource`` ``None``
            means delete the resource of ``uid``. A split writes the new series first, then
            the trimmed old one (decision 0050), so a crash between the two leaves the old
            resource untouched (same ETag) and a replay writes the same two again.
        notices: the iTIP notices of the change, in order (:class:`ChangeNotice`).
        sequence: the ``SEQUENCE`` of the changed component of ``change.uid`` after the
            change (the C4 ``sequence`` of its messages).
        new_uid: the ``UID`` of the new series of a split, else ``None``.
    """

    writes: tuple[tuple[str, Calendar | None], ...]
    notices: tuple[ChangeNotice, ...]
    sequence: int
    new_uid: str | None = None


def split_uid(uid: str, recurrence_id: Instant, idempotency_key: str) -> str:
    """The ``UID`` of the new series when ``uid`` is split at ``recurrence_id`` by the change
    with ``idempotency_key``: ``"<32 hex digits>-split@cerebri"``, the first 128 bits of
    SHA-256 over the three values, so a replay names the same series."""
    digest = hashlib.sha256(
        "\x00".join((uid, recurrence_id.format(), idempotency_key)).encode()
    ).hexdigest()
    return f"{digest[:32]}-split@cerebri"


def resource_etag(resource: Calendar) -> str:
    """A stable digest of one calendar object resource, ``"sha256:<64 hex digits>"`` of its
    serialised bytes (``to_ical()``), used as the ETag of an ``.ics``-file resource: equal
    for equal content, different after any change :func:`apply_change` makes."""
    return "sha256:" + hashlib.sha256(bytes(resource.to_ical())).hexdigest()


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
    Floating times and dates are read in ``floating_zone`` (an IANA name).

    Raises:
        ChangeError: ``change.bad_event`` (the event cannot be read).
        InvalidArgumentError: ``calendars.invalid_argument``.
    """
    raise ChangeError("not implemented yet", code="change.bad_event")


def already_applied(resource: Calendar | None, change: EventChange) -> bool:
    """Whether ``change`` was applied already: the component(s) it writes in ``resource``
    carry its idempotency key (``X-CEREBRI-IDEMPOTENCY-KEY``). ``None`` (no resource) answers
    ``False``: whether a missing resource means "cancelled by this change" is the caller's
    call (it knows whether it deleted it)."""
    return False


def apply_change(
    resource: Calendar,
    change: EventChange,
    *,
    stamp: Instant,
    floating_zone: str = "UTC",
) -> ChangeOutcome:
    """``resource`` (one calendar object resource holding ``change.uid``; not modified) after
    ``change``: the resources to write and the notices to send (module doc for the rules).

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
    raise ChangeError("not implemented yet", code="change.bad_event")
