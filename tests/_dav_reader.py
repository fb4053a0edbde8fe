"""An independent reader of CalDAV calendars for the end-to-end tests: the ``caldav`` library,
``icalendar`` and ``recurring-ical-events`` only, never cerebri's own code.

:class:`DavReader` reads one calendar collection (its URL, with an optional login):

* :meth:`DavReader.objects`: every calendar object resource below the URL (a ``PROPFIND``
  listing, RFC 4918 9.1, then a ``GET`` of each, RFC 4791 5.3.4), with its ETag and raw text;
* :meth:`DavReader.events`: every ``VEVENT`` of those objects (a master and its overrides
  are separate rows), with UID, SUMMARY, SEQUENCE, DTSTART/DTEND, RECURRENCE-ID (and its
  RANGE), STATUS, RRULE, EXDATE, ORGANIZER and ATTENDEE;
* the instances over a range ``[start, end)``, read three ways that tests may compare:
  :meth:`DavReader.instances_by_search` (a ``calendar-query`` time-range REPORT,
  RFC 4791 7.8, through ``caldav``'s ``search(expand=True)``, which expands client-side),
  :meth:`DavReader.instances_by_server` (the server's own expansion, ``CALDAV:expand``,
  RFC 4791 9.6.5) and :meth:`DavReader.instances_by_oracle` (``recurring-ical-events`` over
  every stored object, whatever the server's query engine thinks);
* :meth:`DavReader.seed` puts a calendar object as given (``PUT`` with ``If-None-Match: *``,
  RFC 4791 5.3.2), byte for byte: no SEQUENCE bump, unlike ``caldav``'s ``save()``.

Instants are normalised for comparison: a time with a zone becomes UTC, a floating time
stays naive, a date stays a date. SEQUENCE absent reads as 0 (RFC 5545 3.8.7.4).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Final, TypeAlias
from urllib.parse import quote

import recurring_ical_events
from caldav.calendarobjectresource import CalendarObjectResource
from caldav.collection import Calendar
from caldav.davclient import DAVClient
from icalendar import Calendar as ICalendar
from icalendar import Component

__all__ = ["DavReader", "Instance", "StoredEvent", "StoredObject", "When"]

TIMEOUT_SECONDS: Final = 30

When: TypeAlias = dt.datetime | dt.date
"""A normalised instant: UTC ``datetime``, naive (floating) ``datetime``, or ``date``."""


def _when(value: object) -> When:
    if isinstance(value, dt.datetime):
        return value.astimezone(dt.UTC) if value.tzinfo is not None else value
    if isinstance(value, dt.date):
        return value
    raise TypeError(f"not a date or date-time: {value!r}")


def _decoded(component: Component, name: str) -> When | None:
    prop = component.get(name)
    return None if prop is None else _when(prop.dt)


def _text(component: Component, name: str) -> str | None:
    value = component.get(name)
    return None if value is None else str(value)


def _sequence(component: Component) -> int:
    value = component.get("SEQUENCE")
    return 0 if value is None else int(value)


def _end(component: Component) -> When | None:
    if "DTEND" in component:
        return _decoded(component, "DTEND")
    start = component.get("DTSTART")
    duration = component.get("DURATION")
    if start is None or duration is None:
        return None
    return _when(start.dt + duration.dt)


def _exdates(component: Component) -> tuple[When, ...]:
    found = component.get("EXDATE")
    if found is None:
        return ()
    lists = found if isinstance(found, list) else [found]
    return tuple(sorted((_when(item.dt) for group in lists for item in group.dts), key=str))


@dataclass(frozen=True)
class StoredEvent:
    """One ``VEVENT`` as stored: ``href`` and ``etag`` are its resource's."""

    href: str
    etag: str | None
    uid: str
    summary: str | None
    sequence: int
    start: When | None
    start_tzid: str | None
    end: When | None
    recurrence_id: When | None
    recurrence_range: str | None
    status: str | None
    rrule: str | None
    exdates: tuple[When, ...]
    has_rdate: bool
    organizer: str | None
    attendees: tuple[tuple[str, str | None, str | None], ...]
    """``(address, ROLE, PARTSTAT)`` per ATTENDEE, sorted by address."""

    @classmethod
    def of(cls, href: str, etag: str | None, component: Component) -> StoredEvent:
        """Read one ``VEVENT``."""
        start = component.get("DTSTART")
        recurrence = component.get("RECURRENCE-ID")
        rrule = component.get("RRULE")
        attendees = component.get("ATTENDEE")
        attendee_list = [] if attendees is None else attendees
        if not isinstance(attendee_list, list):
            attendee_list = [attendee_list]
        return cls(
            href=href,
            etag=etag,
            uid=str(component.get("UID")),
            summary=_text(component, "SUMMARY"),
            sequence=_sequence(component),
            start=None if start is None else _when(start.dt),
            start_tzid=None if start is None else start.params.get("TZID"),
            end=_end(component),
            recurrence_id=None if recurrence is None else _when(recurrence.dt),
            recurrence_range=None if recurrence is None else recurrence.params.get("RANGE"),
            status=_text(component, "STATUS"),
            rrule=None if rrule is None else rrule.to_ical().decode("ascii"),
            exdates=_exdates(component),
            has_rdate="RDATE" in component,
            organizer=_text(component, "ORGANIZER"),
            attendees=tuple(
                sorted(
                    (str(a), a.params.get("ROLE"), a.params.get("PARTSTAT")) for a in attendee_list
                )
            ),
        )


@dataclass(frozen=True)
class StoredObject:
    """One calendar object resource: its URL, ETag, text as the server sent it, and the
    parsed calendar."""

    href: str
    etag: str | None
    text: str
    calendar: ICalendar

    @property
    def has_method(self) -> bool:
        """Whether the stored object carries ``METHOD`` (RFC 4791 4.1 forbids it)."""
        return "METHOD" in self.calendar

    def events(self) -> tuple[StoredEvent, ...]:
        """Its ``VEVENT`` components, in the order stored."""
        return tuple(
            StoredEvent.of(self.href, self.etag, component)
            for component in self.calendar.walk("VEVENT")
        )


@dataclass(frozen=True)
class Instance:
    """One occurrence over a range: ``recurrence_id`` is ``None`` for an event that does
    not recur. No SEQUENCE: ``recurring-ical-events`` gives every occurrence of a series the
    series' highest SEQUENCE, so the readings would differ; read SEQUENCE per stored
    component from :meth:`DavReader.events`."""

    uid: str
    start: When
    end: When | None
    recurrence_id: When | None
    summary: str | None
    status: str | None

    @classmethod
    def of(cls, component: Component) -> Instance:
        """Read one expanded occurrence."""
        start = _decoded(component, "DTSTART")
        if start is None:
            raise ValueError(f"an instance of {component.get('UID')} has no DTSTART")
        return cls(
            uid=str(component.get("UID")),
            start=start,
            end=_end(component),
            recurrence_id=_decoded(component, "RECURRENCE-ID"),
            summary=_text(component, "SUMMARY"),
            status=_text(component, "STATUS"),
        )


def _sorted(instances: Iterable[Instance]) -> tuple[Instance, ...]:
    return tuple(sorted(instances, key=lambda i: (i.uid, str(i.start), str(i.recurrence_id))))


class DavReader:
    """Reads one calendar collection at ``url`` (ends with ``/``), logged in as
    ``username``/``password`` when given. Each method opens its own client."""

    def __init__(self, url: str, *, username: str | None = None, password: str | None = None):
        self.url = url if url.endswith("/") else f"{url}/"
        self._username = username
        self._password = password

    def _client(self) -> DAVClient:
        return DAVClient(
            url=self.url,
            username=self._username,
            password=self._password,
            auth_type=None if self._username is None else "basic",
            timeout=TIMEOUT_SECONDS,
        )

    def objects(self) -> tuple[StoredObject, ...]:
        """Every calendar object resource in the collection, sorted by URL."""
        found: list[StoredObject] = []
        with self._client() as client:
            calendar = Calendar(client, url=self.url)
            children = calendar.children()
            if not isinstance(children, list):  # a synchronous client answers a list
                raise TypeError("the caldav client answered asynchronously")
            for child_url, kind, _name in children:
                if kind is not None and "collection" in str(kind):
                    continue
                resource = CalendarObjectResource(client, url=child_url, parent=calendar)
                resource.load()
                raw = resource.raw_data
                if raw is None:
                    raise ValueError(f"GET {child_url} gave no calendar data")
                text = raw.decode("utf-8") if isinstance(raw, bytes) else str(raw)
                found.append(
                    StoredObject(str(child_url), resource.etag, text, ICalendar.from_ical(text))
                )
        return tuple(sorted(found, key=lambda stored: stored.href))

    def events(self) -> tuple[StoredEvent, ...]:
        """Every ``VEVENT`` of :meth:`objects`, sorted by (UID, RECURRENCE-ID)."""
        return tuple(
            sorted(
                (event for stored in self.objects() for event in stored.events()),
                key=lambda e: (e.uid, e.recurrence_id is not None, str(e.recurrence_id)),
            )
        )

    def _search(self, start: dt.datetime, end: dt.datetime, *, server: bool) -> list[Instance]:
        with self._client() as client:
            calendar = Calendar(client, url=self.url)
            results = calendar.search(
                event=True, start=start, end=end, expand=True, server_expand=server
            )
            if not isinstance(results, list):  # a synchronous client answers a list
                raise TypeError("the caldav client answered asynchronously")
            return [
                Instance.of(component)
                for result in results
                for component in result.icalendar_instance.walk("VEVENT")
            ]

    def instances_by_search(self, start: dt.datetime, end: dt.datetime) -> tuple[Instance, ...]:
        """The occurrences over ``[start, end)`` (aware datetimes) that a time-range
        ``calendar-query`` finds, expanded by the ``caldav`` library."""
        return _sorted(self._search(start, end, server=False))

    def instances_by_server(self, start: dt.datetime, end: dt.datetime) -> tuple[Instance, ...]:
        """The occurrences over ``[start, end)`` as the server expands them
        (``CALDAV:expand``, RFC 4791 9.6.5).

        RFC 4791 9.6.5 does not require ``RECURRENCE-ID`` on every returned instance, and
        Cyrus leaves it out on the series' own first occurrence; such an instance of a
        recurring event (its stored master has RRULE or RDATE) is given its start as
        ``recurrence_id``, as the other readings do (RFC 5545 3.8.4.4)."""
        recurring = {
            event.uid
            for event in self.events()
            if event.recurrence_id is None and (event.rrule is not None or event.has_rdate)
        }
        return _sorted(
            replace(instance, recurrence_id=instance.start)
            if instance.recurrence_id is None and instance.uid in recurring
            else instance
            for instance in self._search(start, end, server=True)
        )

    def instances_by_oracle(self, start: dt.datetime, end: dt.datetime) -> tuple[Instance, ...]:
        """The occurrences over ``[start, end)`` that ``recurring-ical-events`` computes from
        every stored object (no server query involved).

        A ``RANGE=THISANDFUTURE`` override is applied to every later instance here, which
        then carries the override's ``RECURRENCE-ID``; the servers' own expansion applies it
        to its one instance only (decision 0054)."""
        return _sorted(
            Instance.of(component)
            for stored in self.objects()
            for component in recurring_ical_events.of(stored.calendar).between(start, end)
        )

    def seed(self, ics_text: str, name: str | None = None) -> str:
        """Store ``ics_text`` as a new resource (``name``, default ``<first UID>.ics``) and
        return its URL; ``ValueError`` when the server does not answer 201/204."""
        if name is None:
            uid = str(ICalendar.from_ical(ics_text).walk("VEVENT")[0].get("UID"))
            name = f"{quote(uid, safe='')}.ics"
        target = f"{self.url}{name}"
        headers = {"Content-Type": "text/calendar; charset=utf-8", "If-None-Match": "*"}
        with self._client() as client:
            response = client.put(target, ics_text, headers)
        if response.status not in (201, 204):
            raise ValueError(f"PUT {target} answered HTTP {response.status}")
        return target
