"""Asking the server through the ``caldav`` client: connect, probe a URL, find the
calendars to read. What is read from each calendar is in :mod:`cerebri.integrations._sync`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final
from urllib.parse import unquote, urlsplit

from caldav.collection import Calendar as DAVCalendar
from caldav.collection import CalendarSet, Principal
from caldav.davclient import DAVClient
from caldav.lib import error as dav_error

from cerebri.integrations._deadline import BoundedClient
from cerebri.integrations._target import _shown, _Target

_CALENDAR_TYPE: Final = "{urn:ietf:params:xml:ns:caldav}calendar"
_RESOURCE_TYPE: Final = "{DAV:}resourcetype"
_DISPLAY_NAME: Final = "{DAV:}displayname"


def _connect(
    target: _Target, username: str | None, password: str | None, timeout_seconds: float
) -> DAVClient:
    """A client whose requests each finish within ``timeout_seconds`` (connect and each socket
    read too): see :mod:`cerebri.integrations._deadline`."""
    return BoundedClient(
        request_seconds=timeout_seconds,
        url=target.url,
        username=username,
        password=password,
        timeout=timeout_seconds,  # niquests' connect and per-read timeout, float seconds
        enable_rfc6764=False,  # the URL is used as given: no DNS service discovery
        rate_limit_handle=False,  # HTTP 429/503 is reported, never slept on and retried
    )


@dataclass(frozen=True, slots=True)
class _Probe:
    """What a depth-0 ``PROPFIND`` said about the URL."""

    is_calendar: bool
    display_name: str | None


def _probe(client: DAVClient, target: _Target) -> _Probe:
    response = client.propfind(str(client.url), props=[_RESOURCE_TYPE, _DISPLAY_NAME], depth=0)
    if response.status in (404, 410):
        target.fail("caldav.not_found", f"{target.shown} was not found (HTTP {response.status})")
    if response.status >= 400:
        target.fail(
            "caldav.protocol", f"{target.shown} answered PROPFIND with HTTP {response.status}"
        )
    for result in response.results or ():
        properties = getattr(result, "properties", None)
        if isinstance(properties, dict):
            types = properties.get(_RESOURCE_TYPE) or []
            name = properties.get(_DISPLAY_NAME)
            return _Probe(
                _CALENDAR_TYPE in types if isinstance(types, list) else False,
                name if isinstance(name, str) else None,
            )
    target.fail("caldav.protocol", f"{target.shown} did not answer PROPFIND as a WebDAV server")


def _display_name(collection: DAVCalendar) -> str | None:
    name = collection.props.get(_DISPLAY_NAME)
    return name if isinstance(name, str) else None


def _last_segment(url: str) -> str:
    return unquote(urlsplit(url).path.rstrip("/").rpartition("/")[2])


def _matches(collection: DAVCalendar, wanted: str) -> bool:
    return wanted in (_display_name(collection), _last_segment(str(collection.url)))


def _collections(client: DAVClient, target: _Target, wanted: str | None) -> list[DAVCalendar]:
    """The calendars to read: the URL itself if it is a calendar; else the calendars of the
    principal or calendar home *at that URL* (never silently the logged-in user's own, which
    a shared server would return for someone else's principal URL); the server root means
    the logged-in user's calendars."""
    probe = _probe(client, target)
    if probe.is_calendar:
        props = {} if probe.display_name is None else {_DISPLAY_NAME: probe.display_name}
        found = [DAVCalendar(client=client, url=client.url, props=props)]
    elif urlsplit(str(client.url)).path.strip("/") == "":
        found = list(client.get_calendars())
    else:
        found = _calendars_at(client, target)
    if wanted is not None:
        found = [collection for collection in found if _matches(collection, wanted)]
        if not found:
            target.fail(
                "caldav.not_found",
                f"no calendar named {wanted!r} (display name or URL segment) at {target.shown}",
            )
    return sorted(found, key=lambda collection: _shown(collection.url))


def _calendars_at(client: DAVClient, target: _Target) -> list[DAVCalendar]:
    """Calendars of the principal at the URL (its calendar-home-set, RFC 4791 6.2.1), or,
    when the URL is no principal, the calendar collections directly below it."""
    listed: object
    try:
        listed = Principal(client=client, url=client.url).get_calendars()
    except dav_error.DAVError:
        listed = CalendarSet(client=client, url=client.url).calendars()
    # The synchronous client returns lists; the async variant shares these signatures.
    found = [c for c in listed if isinstance(c, DAVCalendar)] if isinstance(listed, list) else []
    if not found:
        target.fail("caldav.not_found", f"no calendar at or below {target.shown}")
    return found
