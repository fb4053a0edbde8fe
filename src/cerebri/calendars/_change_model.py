"""The values of :mod:`cerebri.calendars.changes` (kept apart so its private helpers can
import them; see that module for the rules)."""

from __future__ import annotations

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
        replayed: the change was found applied already (:func:`already_applied`): nothing
            to write (``writes`` and ``notices`` empty), ``sequence`` the stored one.
    """

    writes: tuple[tuple[str, Calendar | None], ...]
    notices: tuple[ChangeNotice, ...]
    sequence: int
    new_uid: str | None = None
    replayed: bool = False
