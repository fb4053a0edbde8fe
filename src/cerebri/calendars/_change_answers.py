"""When a change asks the attendees to answer again (decision 0073).

RFC 6638 section 3.2.8: a change of ``DTSTART``, ``DTEND`` or ``DURATION`` of a component
(or a rule change that moves or adds instances) reschedules it, and every ``ATTENDEE`` but
the organizer's goes back to ``PARTSTAT=NEEDS-ACTION``: their answer was to the old time
(RFC 5546 section 3.2.2.1, rescheduling). A change of anything else (``SUMMARY``,
``LOCATION``, the attendee list, a shorter series, a cancelled instance) keeps every answer.

:func:`asks_again` compares one component as it is written with the same instance before
the change: the component of the same ``RECURRENCE-ID``, else the master's instance there
(its start, the master's exact length: RFC 5545 section 3.8.5.3); an instance the series did
not have is new, and asked. The organizer's copy (:mod:`cerebri.calendars.changes`) and an
attendee's copy (``cerebri.execution.adapters._copies``, compared with the attendee's current
copy) use this one rule, and the REQUEST carries the organizer's lines as stored, so the
three agree. :func:`ask_again` rewrites the lines.
"""

from __future__ import annotations

from datetime import date, datetime

from icalendar import Component

from cerebri.calendars._change_clock import exact_end
from cerebri.calendars._change_model import ChangeError
from cerebri.calendars._change_people import email, organizer_of
from cerebri.calendars._change_series import Series, span_of
from cerebri.calendars._change_times import instant_of, kind_of
from cerebri.temporal import Instant

__all__ = ["ask_again", "asks_again"]


def _start(event: Component) -> date | datetime:
    value = getattr(event.get("DTSTART"), "dt", None)
    if not isinstance(value, date):
        raise ChangeError(f"event {event.get('UID')} has no DTSTART", code="change.bad_event")
    return value


def _span(timed: Component, length_of: Component, series: Series) -> tuple[Instant, Instant]:
    """The start of ``timed`` and its end with the length of ``length_of`` (itself, or the
    master of an instance), as UTC instants: dates and floating times read in the series'
    floating zone; a timed end exact (``DTEND - DTSTART`` in seconds, or ``DURATION``)."""
    zone = series.kind.floating_zone
    value = _start(timed)
    start = instant_of(value, zone)
    if not isinstance(value, datetime):  # whole days: DTEND, DURATION or one day
        kind = kind_of(timed, zone)
        return start, kind.instant(span_of(timed, kind)[1])
    return start, exact_end(start, length_of, kind_of(length_of, zone))


def asks_again(event: Component, before: Series | None, at: Instant | None) -> bool:
    """Whether writing ``event`` moves the instance(s) it describes away from ``before``
    (the same ``UID`` before the change, ``None`` when there was none): compared with
    ``before``'s master when ``at`` is ``None``, else with its instance at ``at`` (the
    override of that ``RECURRENCE-ID``, else the master's instance). ``True`` when
    ``before`` has no such component or instance. ``change.bad_event`` for unreadable
    times."""
    if before is None:
        return True
    now = _span(event, event, before)
    if at is None:
        master = before.master
        return master is None or _span(master, master, before) != now
    old = before.override_at(at)
    if old is not None:
        return _span(old, old, before) != now
    instance = before.master_instance(at)
    if instance is None or before.master is None:
        return True
    return _span(instance, before.master, before) != now


def ask_again(event: Component) -> None:
    """Every ``ATTENDEE`` line of ``event`` but the organizer's to ``PARTSTAT=NEEDS-ACTION``
    and ``RSVP=TRUE`` (RFC 6638 section 3.2.8); other parameters kept."""
    organizer = organizer_of(event)
    boss = None if organizer is None else _key(organizer)
    found = event.get("ATTENDEE")
    for line in [] if found is None else found if isinstance(found, list) else [found]:
        if _key(str(line)) == boss:
            continue
        line.params["PARTSTAT"] = "NEEDS-ACTION"
        line.params["RSVP"] = "TRUE"


def _key(address: str) -> str | None:
    try:
        return email(address)
    except ChangeError:
        return None
