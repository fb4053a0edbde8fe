"""Calendar object resources inside one ``.ics`` file (decision 0051).

A CalDAV collection stores one calendar object resource per ``UID`` (RFC 4791 4.1): the
``VEVENT`` components of that ``UID`` (a master and its ``RECURRENCE-ID`` overrides) and the
``VTIMEZONE`` components they use. An ``.ics`` file holds many ``UID``\\ s in one
``VCALENDAR``. :func:`file_resource` cuts the resource of one ``UID`` out of the file's
calendar, so both adapters hand :mod:`cerebri.calendars.changes` the same kind of value and
an ``.ics`` resource has an ETag (:func:`cerebri.calendars.changes.resource_etag` of it).
:func:`put_resource` puts a changed resource back (or removes it).

The resource of ``uid`` is a new ``VCALENDAR`` with the file's own calendar properties
(``PRODID``, ``VERSION``, ``CALSCALE``...) as they are, then, in file order, every component
that has no ``UID`` (the ``VTIMEZONE``\\ s) and every one whose ``UID`` is ``uid``. That cut
is :func:`cerebri.calendars.event_instances.event_resource`, the one the planner makes when
it reads an ``.ics`` file (issue #23); this module calls it rather than repeating it
(docs/decisions/0061), so the digest the planner plans on is the digest the adapter finds
when nothing changed. A change to anything in it changes the ETag, while a change to
another ``UID`` of the file does not.
"""

from __future__ import annotations

import copy

from icalendar import Calendar, Component

from cerebri.calendars.event_instances import event_resource

__all__ = ["file_resource", "put_resource", "uid_events"]


def uid_events(calendar: Calendar, uid: str) -> list[Component]:
    """The ``VEVENT`` components of ``calendar`` whose ``UID`` is ``uid``, in file order."""
    return [c for c in calendar.subcomponents if c.name == "VEVENT" and str(c.get("UID")) == uid]


def _zones(calendar: Calendar) -> dict[str, Component]:
    return {
        str(c.get("TZID")): c
        for c in calendar.subcomponents
        if c.name == "VTIMEZONE" and "TZID" in c
    }


def file_resource(calendar: Calendar, uid: str) -> Calendar | None:
    """The calendar object resource of ``uid`` in the file's ``calendar`` (module doc), a
    new value (``calendar`` is not changed); ``None`` when no ``VEVENT`` has that ``UID``.
    Cutting a resource again gives the same resource."""
    if not uid_events(calendar, uid):
        return None
    return copy.deepcopy(event_resource(calendar, uid))  # shares nothing with the file


def put_resource(calendar: Calendar, uid: str, content: Calendar | None) -> None:
    """Replace, in the file's ``calendar`` (changed in place), the events of ``uid`` with
    the ``VEVENT``\\ s of ``content`` (where the first of them stood, else at the end), and
    add its ``VTIMEZONE``\\ s whose ``TZID`` the file lacks (before the first event);
    ``content`` ``None`` removes the events of ``uid``."""
    old = uid_events(calendar, uid)
    kept = [c for c in calendar.subcomponents if all(c is not o for o in old)]
    at = len(kept)
    if old:
        first = calendar.subcomponents.index(old[0])
        at = sum(1 for c in calendar.subcomponents[:first] if all(c is not o for o in old))
    if content is None:
        calendar.subcomponents = kept
        return
    have = _zones(calendar)
    zones = [z for tzid, z in _zones(content).items() if tzid not in have]
    events = [c for c in content.subcomponents if c.name == "VEVENT"]
    kept[at:at] = events
    first_event = next((i for i, c in enumerate(kept) if c.name == "VEVENT"), len(kept))
    kept[first_event:first_event] = zones
    calendar.subcomponents = kept
