"""The adapter table a real executor starts with."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Final

from icalendar import Calendar

from cerebri._guard import arguments
from cerebri._json import JSONValue
from cerebri.clock import Clock
from cerebri.execution.adapters.base import (
    Adapter,
    AdapterError,
    Adapters,
    Invocation,
    adapter_argument_error,
    configured_calendar,
)
from cerebri.execution.adapters.caldav_calendar import TIMEOUT_SECONDS, CalDavCalendar
from cerebri.execution.adapters.ics_file import CALENDAR_CAPABILITIES, IcsFileCalendar
from cerebri.execution.adapters.itip_copies import COPY_CAPABILITIES, CopyDelivery
from cerebri.execution.adapters.itip_delivery import read_resource_of, scheduling_probe_of
from cerebri.execution.adapters.service_status import ServiceStatusAdapter
from cerebri.integrations.credentials import CalDAVLogins

__all__ = ["default_adapters"]

_NO_CALENDARS: Final[Mapping[str, Path]] = MappingProxyType({})
_NO_URLS: Final[Mapping[str, str]] = MappingProxyType({})


class _ByCalendar:
    """Sends each invocation to the adapter of its calendar: ``params.calendar_id``, or for
    ``calendar.freebusy`` the ``calendar_ids`` (all of them must be served by one adapter)."""

    __slots__ = ("_routes",)

    def __init__(self, routes: Mapping[str, Adapter]) -> None:
        self._routes = MappingProxyType(dict(routes))

    def invoke(self, invocation: Invocation) -> dict[str, JSONValue]:
        params = invocation.params
        ids = params.get("calendar_ids", [params.get("calendar_id")])
        chosen = {
            id(self._routes[i]): self._routes[i]
            for i in (ids if isinstance(ids, list) else [ids])
            if isinstance(i, str) and i in self._routes
        }
        if len(chosen) > 1:
            raise AdapterError(
                "calendar.freebusy over .ics and CalDAV calendars at once is not served: "
                "ask each kind separately",
                code="adapter.invalid_params",
            )
        if not chosen:  # unknown ids: the first adapter names them (calendar.unknown_calendar)
            return next(iter(self._routes.values())).invoke(invocation)
        return next(iter(chosen.values())).invoke(invocation)

    def read_resource(self, calendar_id: str, uid: str) -> Calendar | None:
        """The stored object ``uid`` of ``calendar_id`` (``None``: none), read by the adapter
        of that calendar (for ``message.itip.send``, decision 0052)."""
        return read_resource_of(configured_calendar(self._routes, calendar_id))(calendar_id, uid)

    def schedules(self, calendar_id: str, organizer: str) -> bool:
        """Whether the server of ``calendar_id`` schedules ``organizer``'s events itself
        (RFC 6638, decision 0068): asked of that calendar's adapter; ``False`` for one that
        cannot tell (an ``.ics`` file)."""
        probe = scheduling_probe_of(configured_calendar(self._routes, calendar_id))
        return probe is not None and probe(calendar_id, organizer)


@arguments(
    adapter_argument_error,
    clock=Clock,
    ics_calendars=Mapping,
    caldav_calendars=Mapping,
    caldav_username=(str, type(None)),
    caldav_password=(str, type(None)),
    caldav_logins=(CalDAVLogins, type(None)),
    caldav_timeout_seconds=(int, float),
    client_schedules=bool,
)
def default_adapters(
    clock: Clock,
    *,
    ics_calendars: Mapping[str, Path] = _NO_CALENDARS,
    caldav_calendars: Mapping[str, str] = _NO_URLS,
    caldav_username: str | None = None,
    caldav_password: str | None = None,
    caldav_logins: CalDAVLogins | None = None,
    caldav_timeout_seconds: float = TIMEOUT_SECONDS,
    client_schedules: bool = False,
) -> Adapters:
    """The adapters a real executor starts with: ``service.status`` (systemd) always, and the
    calendar capabilities (:data:`CALENDAR_CAPABILITIES`) when at least one calendar is
    named, with ``calendar.itip.deliver`` (:class:`CopyDelivery`: an attendee's copy of a
    changed event, decision 0057) over the same calendars: over ``ics_calendars``
    (calendar id to ``.ics`` file, :class:`IcsFileCalendar`) and ``caldav_calendars``
    (calendar id to CalDAV collection URL, :class:`CalDavCalendar` with a per-request
    limit of ``caldav_timeout_seconds``; each URL's login picked by
    ``caldav_logins`` when given, else ``caldav_username``/``caldav_password`` for all).
    Each invocation goes to the adapter of its ``calendar_id``. ``clock`` stamps calendar
    writes (``DTSTAMP``). ``client_schedules`` (the worker's ``--no-server-schedules``):
    every CalDAV write marks the attendees of an event the server would schedule
    ``SCHEDULE-AGENT=CLIENT`` (RFC 6638 7.1, decision 0068).

    Raises:
        AdapterError: ``adapter.invalid_argument`` for a calendar id in both maps, a URL
            that is not http(s), ``caldav_logins`` with a username or password, or a
            wrong-typed argument.
        CredentialsError: ``credentials.*``, a netrc file ``caldav_logins`` cannot use.
    """
    both = sorted(set(ics_calendars) & set(caldav_calendars))
    if both:
        raise adapter_argument_error(
            f"calendar {both[0]!r} is named both as an .ics file and as a CalDAV collection"
        )
    adapters = Adapters().with_adapter("service.status", ServiceStatusAdapter())
    routes: dict[str, Adapter] = {}
    if ics_calendars:
        files = IcsFileCalendar(ics_calendars, clock)
        routes.update(dict.fromkeys(ics_calendars, files))
    if caldav_calendars:
        dav = CalDavCalendar(
            caldav_calendars,
            clock,
            username=caldav_username,
            password=caldav_password,
            logins=caldav_logins,
            timeout_seconds=caldav_timeout_seconds,
            client_schedules=client_schedules,
        )
        routes.update(dict.fromkeys(caldav_calendars, dav))
    if routes:
        kinds = {id(a): a for a in routes.values()}
        calendar: Adapter = next(iter(kinds.values())) if len(kinds) == 1 else _ByCalendar(routes)
        for name in CALENDAR_CAPABILITIES:
            adapters = adapters.with_adapter(name, calendar)
        served = MappingProxyType(routes)  # attendees' copies (decision 0057)
        delivery = CopyDelivery(lambda calendar_id: configured_calendar(served, calendar_id))
        for name in COPY_CAPABILITIES:
            adapters = adapters.with_adapter(name, delivery)
    return adapters
