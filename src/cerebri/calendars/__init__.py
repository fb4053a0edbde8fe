"""Calendars in, answers out: free/busy views and slot finding over real calendars.

::

    view = freebusy(calendars, start, end, floating_zone="Europe/Berlin")
    request, result = find_slot(named_calendars, SlotQuery(start, end, 1800, zone="Europe/Berlin"))
    request, result = find_slot(named_calendars, query, create=NewEvent("Sync", "alice"))  # CREATE

``find_slot`` answers unpack as ``(request, result)`` and also carry ``warnings`` and
``complete`` (:class:`SlotAnswer`); ``FreeBusyView`` has the same two fields.
``slot_event(request, result, title=..., dtstamp=clock.now())`` writes a chosen candidate
as an iCalendar invitation (:mod:`cerebri.calendars.event_out`; attendees from
:func:`calendar_owners`); ``new_request(query, busy)`` builds the same request from busy
intervals alone (``cerebri request new``).
``calendars`` are parsed iCalendar objects (:func:`cerebri.ics.parse_calendar`, or fetched
with :mod:`cerebri.integrations`). The request is plain CPIR, so any answer can be replayed.
:func:`context_objects` turns busy periods into CPIR ``EVENT`` context objects.
Changes to events already there (move, cancel, update; one instance, this and future or the
whole series) are :func:`apply_change` over one calendar object resource
(:mod:`cerebri.calendars.changes`, decision 0050). ``plan_event_change(EventChangeAsk(...),
search, load)`` plans a reschedule, cancel or update of an event found by UID in the calendars
read, as a CPIR request with its ``change`` (:mod:`cerebri.calendars.event_change`, 0055).
Each attendee's own zone and working hours are :class:`AttendeeHours` in
``SlotQuery(attendee_hours=...)`` (docs/decisions/0053); the answer's ``zones`` name the
zones each slot is shown in.
A Python argument of the wrong type is refused with ``calendars.invalid_argument``
(:mod:`cerebri.calendars.arguments`) before any calendar is expanded.
"""

from cerebri.calendars.answer import SlotAnswer
from cerebri.calendars.attendee_hours import AttendeeHours
from cerebri.calendars.change_request import ChangeOperation
from cerebri.calendars.changes import (
    ChangeError,
    ChangeNotice,
    ChangeOutcome,
    ChangeScope,
    EventChange,
    EventView,
    Participant,
    already_applied,
    apply_change,
    find_event,
    resource_etag,
    resource_sequence,
    split_uid,
)
from cerebri.calendars.coverage import observed_ranges, unobserved_ranges
from cerebri.calendars.event_change import EventChangeAsk, EventChangeFound, plan_event_change
from cerebri.calendars.event_out import SlotEventError, slot_event
from cerebri.calendars.imported import ImportedCalendars, NamedBusy
from cerebri.calendars.objects import context_objects
from cerebri.calendars.owners import calendar_owner, calendar_owners
from cerebri.calendars.planning import FIND_SLOT_LIMITS, find_slot
from cerebri.calendars.query import TARGET_ID, NewEvent, SlotQuery, build_request
from cerebri.calendars.request_new import new_request
from cerebri.calendars.view import FreeBusyView, freebusy

__all__ = [
    "FIND_SLOT_LIMITS",
    "TARGET_ID",
    "AttendeeHours",
    "ChangeError",
    "ChangeNotice",
    "ChangeOperation",
    "ChangeOutcome",
    "ChangeScope",
    "EventChange",
    "EventChangeAsk",
    "EventChangeFound",
    "EventView",
    "FreeBusyView",
    "ImportedCalendars",
    "NamedBusy",
    "NewEvent",
    "Participant",
    "SlotAnswer",
    "SlotEventError",
    "SlotQuery",
    "already_applied",
    "apply_change",
    "build_request",
    "calendar_owner",
    "calendar_owners",
    "context_objects",
    "find_event",
    "find_slot",
    "freebusy",
    "new_request",
    "observed_ranges",
    "plan_event_change",
    "resource_etag",
    "resource_sequence",
    "slot_event",
    "split_uid",
    "unobserved_ranges",
]
