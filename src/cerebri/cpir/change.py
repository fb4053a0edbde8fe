"""The optional ``change`` member of a planning request: which calendar event a
``RESCHEDULE``, ``CANCEL`` or ``UPDATE`` changes, or who a ``CREATE`` invites
(docs/decisions/0049-cpir-change-operations.md; a cerebri extension of cpir-0.2.md 3).

The planner does not plan with it; it checks it against the operation and the target
(:func:`cerebri.planner.validate_request`) and carries it, so that whoever turns the answer
into calendar writes and iTIP messages (RFC 5546) knows the event's iCalendar identity::

    "change": {
      "uid": "3f2a…@example.com",            // UID (RFC 5545 3.8.4.7)
      "scope": "INSTANCE",                   // INSTANCE | THIS_AND_FUTURE | SERIES
      "recurrence_id": "2026-10-07T08:00:00Z",  // RECURRENCE-ID (3.8.4.4), UTC, or null
      "etag": "\\"abc\\"",                    // ETag read (RFC 4791 / RFC 9110 8.8.3) or null
      "sequence": 2,                         // SEQUENCE read (RFC 5545 3.8.7.4)
      "title": null, "location": null,       // UPDATE: new values; null = unchanged
      "organizer": "mailto:ann@example.com",
      "attendees": [{"address": "mailto:bob@example.com", "name": "Bob",
                     "required": true, "calendar_id": "bob"}],
      "previous_attendees": [...]            // optional, UPDATE only: the list as read
    }

Like every CPIR record it is strict: unknown keys, wrong types and out-of-range values are
parse errors (``cpir.unknown_field``, ``cpir.invalid_value``, ``cpir.invalid_enum``).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

from pydantic import Field, StringConstraints

from cerebri.cpir._base import WireModel
from cerebri.cpir.scalars import U32, Identifier
from cerebri.temporal.instant import Instant

__all__ = [
    "Change",
    "ChangeAttendee",
    "ChangeScope",
    "EventUid",
    "MailtoAddress",
]

EventUid = Annotated[str, StringConstraints(pattern=r"^[^\x00-\x1F\x7F]{1,1024}$")]
"""An iCalendar ``UID`` (RFC 5545 3.8.4.7): 1 to 1024 characters, no control characters."""

MailtoAddress = Annotated[
    str, StringConstraints(pattern=r"^[Mm][Aa][Ii][Ll][Tt][Oo]:[^\x00-\x20\x7F]{1,1017}$")
]
"""A calendar user address as a ``mailto:`` URI (RFC 5545 3.3.3, RFC 6068): the scheme in
any case, then 1 to 1017 characters without spaces or control characters."""

_Text = Annotated[str, StringConstraints(pattern=r"^[^\x00-\x1F\x7F]{0,1024}$")]
"""A one-line text value (SUMMARY, LOCATION, CN): at most 1024 characters, no control
characters (a line break in a title is almost always a paste mistake)."""

_ETag = Annotated[str, StringConstraints(pattern=r"^[\x21-\x7E]{1,1024}$")]
"""An entity tag as the server sent it (``"abc"``, ``W/"abc"``, cerebri's ``sha256:…``):
1 to 1024 visible ASCII characters."""


def _is_none(value: object) -> bool:
    return value is None


class ChangeScope(StrEnum):
    """Which part of a recurring event a change applies to (RFC 5545 3.8.4.4)."""

    INSTANCE = "INSTANCE"
    """One occurrence: the one whose original start is ``recurrence_id``."""
    THIS_AND_FUTURE = "THIS_AND_FUTURE"
    """The occurrence at ``recurrence_id`` and every later one (``RANGE=THISANDFUTURE``)."""
    SERIES = "SERIES"
    """The whole event (a non-recurring event is a series of one)."""

    @property
    def needs_recurrence_id(self) -> bool:
        """True for ``INSTANCE`` and ``THIS_AND_FUTURE``."""
        return self is not ChangeScope.SERIES


class ChangeAttendee(WireModel):
    """One attendee (RFC 5545 3.8.4.1): ``required`` false is ``OPT-PARTICIPANT``.

    ``calendar_id`` names the attendee's calendar in the request (its busy time), or null.
    """

    address: MailtoAddress
    name: _Text | None = None
    required: bool
    calendar_id: Identifier | None = None


class Change(WireModel):
    """The iCalendar identity of the changed event and the new values of an ``UPDATE``.

    ``recurrence_id`` is the UTC original start of the instance (``RECURRENCE-ID``): required
    for ``INSTANCE`` and ``THIS_AND_FUTURE`` (else the issue ``RequiredRecurrenceId``); with
    ``SERIES`` it may name the instance whose range the target carries (null: the first one,
    or an event that does not recur). ``sequence`` is the ``SEQUENCE`` read, equal to the
    target's ``revision``. ``title``, ``location`` and ``attendees`` are the new values of an
    ``UPDATE`` (null = unchanged); for the other operations they describe the event, for the
    messages. With ``CREATE``: ``scope`` SERIES, ``recurrence_id`` and ``etag`` null,
    ``sequence`` 0.

    ``previous_attendees`` (optional, ``UPDATE`` only; docs/decisions/0061) is the event's
    attendee list as read, so that the plan graph can send a ``CANCEL`` to everyone the
    update removes (RFC 5546 section 3.2.5). Null or omitted: unknown; it is then left out
    of the request's serialisation, so a change without it keeps its bytes and plan ids.
    """

    uid: EventUid
    scope: ChangeScope
    recurrence_id: Instant | None = None
    etag: _ETag | None = None
    sequence: U32
    title: _Text | None = None
    location: _Text | None = None
    organizer: MailtoAddress | None = None
    attendees: tuple[ChangeAttendee, ...] | None = None
    previous_attendees: tuple[ChangeAttendee, ...] | None = Field(
        default=None,
        exclude_if=_is_none,
        description=(
            "UPDATE only (decision 0061): the event's attendees as read, so that the "
            "attendees the update removes get a CANCEL. Omitted or null: unknown."
        ),
    )
