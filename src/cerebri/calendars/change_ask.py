"""What an event change asks for: :class:`EventChangeAsk` and its checks
(docs/decisions/0055; used by :mod:`cerebri.calendars.event_change`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import time

from cerebri.calendars.arguments import invalid_argument
from cerebri.calendars.attendee_hours import AttendeeHours
from cerebri.calendars.change_request import ChangeOperation
from cerebri.calendars.changes import ChangeScope, Participant
from cerebri.errors import CerebriError
from cerebri.temporal import Instant

__all__ = ["MAX_UID_LENGTH", "EventChangeAsk", "check_ask", "invalid_option"]

MAX_UID_LENGTH = 1024
"""Longest ``UID`` accepted, in characters (the ``change.uid`` of contract C1)."""


def invalid_option(message: str) -> CerebriError:
    """The ``input.invalid_option`` refusal of an option that does not fit the change."""
    return CerebriError(message, code="input.invalid_option")


@dataclass(frozen=True, slots=True)
class EventChangeAsk:
    """What to change, and how to search.

    Attributes:
        operation: ``RESCHEDULE``, ``CANCEL`` or ``UPDATE``.
        uid: the event's ``UID`` (1-1024 characters, no control characters).
        scope: ``INSTANCE``, ``THIS_AND_FUTURE`` or ``SERIES``; None: ``INSTANCE`` when
            ``at`` is given, else ``SERIES`` (a single event, or the whole series).
        at: the instance's original start (UTC instant, its ``RECURRENCE-ID``), for
            ``INSTANCE`` and ``THIS_AND_FUTURE``.
        window: the ``RESCHEDULE`` search window (UTC instants); for every operation on a
            whole series that began before it, its first instance is the anchor.
        zone: IANA zone of local times, working hours and floating times.
        granularity_seconds: distance between candidate starts (> 0).
        duration_seconds: the new length (seconds, > 0); None keeps the event's.
        buffer_seconds, working_hours, working_days, max_candidates: as in
            :class:`~cerebri.calendars.SlotQuery` (``RESCHEDULE`` only).
        title, location: an update's new ``SUMMARY``/``LOCATION`` (None: unchanged).
        add_attendees: an update's attendees to add (or whose role to set).
        remove_attendees: an update's attendee addresses to remove.
        attendee_hours: each attendee's own zone and working hours
            (:class:`~cerebri.calendars.AttendeeHours`, docs/decisions/0053 and 0061): a
            ``RESCHEDULE`` searches inside every required attendee's hours; an optional
            attendee outside theirs counts as busy; every operation's answer shows each
            candidate in each known attendee zone. ``UPDATE`` and ``CANCEL`` keep the
            event where it is, so the hours block nothing there (as ``working_hours``).
    """

    operation: ChangeOperation
    uid: str
    scope: ChangeScope | None = None
    at: Instant | None = None
    window: tuple[Instant, Instant] | None = None
    zone: str = "UTC"
    granularity_seconds: int = 900
    duration_seconds: int | None = None
    buffer_seconds: int = 0
    working_hours: tuple[time, time] | None = None
    working_days: frozenset[int] | None = None
    max_candidates: int = 100_000
    title: str | None = None
    location: str | None = None
    add_attendees: tuple[Participant, ...] = ()
    remove_attendees: tuple[str, ...] = ()
    attendee_hours: tuple[AttendeeHours, ...] = ()

    def __post_init__(self) -> None:
        kinds: dict[str, type | tuple[type, ...]] = {
            "operation": ChangeOperation,
            "uid": str,
            "scope": (ChangeScope, type(None)),
            "at": (Instant, type(None)),
            "window": (tuple, type(None)),
            "zone": str,
            "granularity_seconds": int,
            "duration_seconds": (int, type(None)),
            "buffer_seconds": int,
            "max_candidates": int,
            "title": (str, type(None)),
            "location": (str, type(None)),
            "add_attendees": tuple,
            "remove_attendees": tuple,
            "attendee_hours": tuple,
        }
        for name, kind in kinds.items():
            value = getattr(self, name)
            if not isinstance(value, kind) or isinstance(value, bool):
                raise invalid_argument(f"EventChangeAsk needs {name} of another type")
        window = self.window
        if window is not None and not (
            len(window) == 2 and all(isinstance(i, Instant) for i in window)
        ):
            raise invalid_argument("EventChangeAsk needs window as (Instant, Instant) or None")
        if not all(isinstance(p, Participant) for p in self.add_attendees) or not all(
            isinstance(a, str) for a in self.remove_attendees
        ):
            raise invalid_argument(
                "EventChangeAsk needs add_attendees as Participants, remove_attendees as str"
            )
        if not all(isinstance(h, AttendeeHours) for h in self.attendee_hours):
            raise invalid_argument("EventChangeAsk needs attendee_hours as AttendeeHours")

    def settled_scope(self) -> ChangeScope:
        """The scope asked for, or the default (see :attr:`scope`)."""
        if self.scope is not None:
            return self.scope
        return ChangeScope.SERIES if self.at is None else ChangeScope.INSTANCE


def check_ask(ask: EventChangeAsk) -> None:
    """``input.invalid_option`` for options that do not fit together (module doc)."""
    uid = ask.uid
    if not 1 <= len(uid) <= MAX_UID_LENGTH or any(ord(c) < 32 or ord(c) == 127 for c in uid):
        raise invalid_option(
            f"UID must be 1-{MAX_UID_LENGTH} characters without control characters"
        )
    scope = ask.settled_scope()
    if scope is ChangeScope.SERIES and ask.at is not None:
        raise invalid_option("--series changes the whole series: leave out --instance")
    if scope is not ChangeScope.SERIES and ask.at is None:
        raise invalid_option(f"scope {scope.value} needs the instance's original start")
    op = ask.operation
    if op is ChangeOperation.RESCHEDULE and ask.window is None:
        raise invalid_option("a reschedule needs a window to search: pass --between START/END")
    edits = (
        ask.title is not None,
        ask.location is not None,
        bool(ask.add_attendees),
        bool(ask.remove_attendees),
    )
    if op is not ChangeOperation.UPDATE and any(edits):
        raise invalid_option(
            "--title, --location, --attendee and --remove-attendee belong to update-event"
        )
    if op is ChangeOperation.CANCEL and ask.duration_seconds is not None:
        raise invalid_option("--duration does not apply to a cancel")
    if op is ChangeOperation.UPDATE and not any(edits) and ask.duration_seconds is None:
        raise invalid_option(
            "update-event changes nothing: pass --title, --duration, --location, --attendee "
            "or --remove-attendee"
        )
    if ask.title is not None and not ask.title.strip():
        raise invalid_option("--title must not be empty")
