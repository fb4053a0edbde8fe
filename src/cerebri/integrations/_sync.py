"""Bringing one collection's cached state up to date with the server.

The server is asked *which members changed*, never which events touch a time range:

1. ``sync-collection`` REPORT (RFC 6578) with the stored sync token: the members added or
   changed since (with their ``ETag``) and those removed. Without a token, or when the
   server refuses the token (RFC 6578 section 3.2 ``DAV:valid-sync-token``, HTTP 403/409/412),
   the REPORT without a token lists every member: a full resync.
2. When the server offers no ``sync-collection`` REPORT (or it fails, or its reply was
   truncated, RFC 6578 section 3.6), a depth-1 ``PROPFIND`` of ``DAV:getetag`` lists every
   member; members whose ``ETag`` differs from the stored one, or that are new, are changed,
   and stored members not listed are removed.

The changed members' iCalendar text is then fetched with ``calendar-multiget`` (RFC 4791
section 7.9, which every CalDAV server must support), in batches, and kept exactly as the
server sent it (never rewritten by the library's ``vcal.fix()``). A member listed as changed
that the multiget no longer finds was deleted meanwhile and is dropped; one sent without
calendar data is kept with empty text.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final
from urllib.parse import unquote, urlsplit

from caldav.collection import Calendar as DAVCalendar
from caldav.collection import SynchronizableCalendarObjectCollection
from caldav.elements import cdav, dav
from caldav.lib import error as dav_error
from caldav.lib.url import URL
from lxml import etree  # type: ignore[import-untyped]  # the parser caldav itself uses

from cerebri.integrations._target import _shown, _Target
from cerebri.integrations.cache import CachedCalendar, CachedObject
from cerebri.integrations.report import SyncMethod

_ETAG: Final = "{DAV:}getetag"
_RESOURCE_TYPE: Final = "{DAV:}resourcetype"
_COLLECTION_TYPE: Final = "{DAV:}collection"
_CALENDAR_DATA: Final = "{urn:ietf:params:xml:ns:caldav}calendar-data"
_NO_SYNC_STATUSES: Final = frozenset({400, 403, 404, 405, 409, 412, 415, 422, 501})
"""Answers to ``sync-collection`` that mean "not offered here" or "token refused" (RFC 6578
section 3.2 names 403/409 with ``DAV:valid-sync-token``; Xandikos sends 412)."""
MULTIGET_BATCH: Final = 100
"""Most hrefs asked for in one ``calendar-multiget`` REPORT."""


def object_key(url: object) -> str:
    """How members are matched: the URL's path, percent-decoded (servers and the library
    spell ``@`` and spaces differently in hrefs of one member)."""
    return unquote(urlsplit(str(url)).path)


@dataclass(frozen=True, slots=True)
class _Listing:
    """What the server said: changed or current members ``key -> (url, etag)``, the keys
    it reported removed, the new sync token, and whether it listed every member."""

    members: dict[str, tuple[str, str | None]]
    removed: set[str]
    sync_token: str | None
    full: bool
    method: SyncMethod


@dataclass(frozen=True, slots=True)
class Refresh:
    """The collection's objects now, and what changed relative to the stored state."""

    objects: dict[str, CachedObject]
    changed: list[CachedObject]
    removed: list[str]  # keys
    removed_urls: list[str]
    fetched: list[str]  # URLs
    sync_token: str | None
    full: bool
    method: SyncMethod


def refresh(
    collection: DAVCalendar, target: _Target, base: CachedCalendar, *, use_sync: bool
) -> Refresh:
    """Ask the server what changed since ``base`` and fetch the changed objects.

    Raises:
        CalDAVError: ``caldav.protocol`` for an HTTP error answer to the multiget; HTTP
            and library failures propagate to the caller's translation.
    """
    listing = None
    if use_sync and base.sync_token is not None:
        listing = _sync_listing(collection, base.sync_token)
    if use_sync and listing is None:
        listing = _sync_listing(collection, None)
    if listing is None:
        listing = _etag_listing(collection, target)
    removed = {key for key in listing.removed if key in base.objects}
    if listing.full:
        removed |= set(base.objects) - set(listing.members)
    wanted = {
        key: url
        for key, (url, etag) in listing.members.items()
        if etag is None or key not in base.objects or base.objects[key].etag != etag
    }
    got = _multiget(collection, target, wanted, listing.members)
    removed |= set(wanted) - set(got)  # gone between the listing and the multiget
    objects = {key: item for key, item in base.objects.items() if key not in removed}
    objects.update(got)
    return Refresh(
        objects=objects,
        changed=[got[key] for key in sorted(got)],
        removed=sorted(removed),
        removed_urls=sorted(base.objects[key].url for key in removed if key in base.objects),
        fetched=sorted(item.url for item in got.values()),
        sync_token=listing.sync_token,
        full=listing.full,
        method=listing.method,
    )


def _is_member(collection_key: str, key: str) -> bool:
    return key != collection_key and not key.endswith("/")


def _sync_listing(collection: DAVCalendar, token: str | None) -> _Listing | None:
    """The ``sync-collection`` REPORT's answer, or ``None`` when it cannot be used."""
    try:
        found = collection.get_objects_by_sync_token(
            sync_token=token, load_objects=False, disable_fallback=True
        )
    except dav_error.DAVError as exc:
        if exc.status is None or exc.status in _NO_SYNC_STATUSES:
            return None  # not offered, or the token was refused: the caller falls back
        raise  # a server failure (5xx ...) is reported, not hidden by a fallback
    if not isinstance(found, SynchronizableCalendarObjectCollection):
        return None
    if found.truncated or not isinstance(found.sync_token, str):
        return None
    home = object_key(collection.url)
    members: dict[str, tuple[str, str | None]] = {}
    removed: set[str] = set()
    for item in found.objects:
        key = object_key(item.url)
        if not _is_member(home, key):
            continue
        if item.url.canonical() in found.deleted_urls:
            removed.add(key)
            continue
        etag = item.props.get(_ETAG)
        members[key] = (_shown(item.url), etag if isinstance(etag, str) else None)
    return _Listing(members, removed, found.sync_token, token is None, "sync-collection")


def _etag_listing(collection: DAVCalendar, target: _Target) -> _Listing:
    """Every member with its ``ETag`` from a depth-1 ``PROPFIND``."""
    client, home_url = collection.client, collection.url
    if client is None or home_url is None:
        target.fail("caldav.protocol", "the caldav client lost its connection")
    response = client.propfind(str(collection.url), props=[_ETAG, _RESOURCE_TYPE], depth=1)
    if response.status >= 400:
        target.fail(
            "caldav.protocol",
            f"{_shown(collection.url)} answered PROPFIND with HTTP {response.status}",
        )
    home = object_key(collection.url)
    members: dict[str, tuple[str, str | None]] = {}
    for result in response.results or ():
        href = getattr(result, "href", None)
        properties = getattr(result, "properties", None)
        if not isinstance(href, str) or not isinstance(properties, dict):
            continue
        url = home_url.join(URL.objectify(href))
        key = object_key(url)
        types = properties.get(_RESOURCE_TYPE) or []
        if not _is_member(home, key) or (isinstance(types, list) and _COLLECTION_TYPE in types):
            continue
        etag = properties.get(_ETAG)
        members[key] = (_shown(url), etag if isinstance(etag, str) else None)
    return _Listing(members, set(), None, True, "etag")


def _multiget(
    collection: DAVCalendar,
    target: _Target,
    wanted: dict[str, str],
    listed: dict[str, tuple[str, str | None]],
) -> dict[str, CachedObject]:
    """The iCalendar text and ``ETag`` of the ``wanted`` members (``key -> url``).

    The text is the ``calendar-data`` element's content as the server sent it (XML-decoded
    only). A member the server answers with a ``404`` status is left out (deleted since the
    listing); one it answers without calendar data is kept with empty text, which
    :mod:`cerebri.integrations.caldav_source` reports.
    """
    got: dict[str, CachedObject] = {}
    keys = sorted(wanted)
    for batch in _batches(keys, MULTIGET_BATCH):
        for key, text, etag in _multiget_batch(collection, target, [wanted[key] for key in batch]):
            if key not in wanted:
                continue
            got[key] = CachedObject(key, wanted[key], etag or listed[key][1], text)
    return got


def _multiget_batch(
    collection: DAVCalendar, target: _Target, urls: list[str]
) -> list[tuple[str, str, str | None]]:
    """One ``calendar-multiget`` REPORT: ``(key, text, etag)`` per member found.

    Sent through the library's client (``DAVClient.report``) and read from its parsed XML
    reply, but not through ``Calendar.multiget``: that hands the text to the library's
    ``vcal.fix()``, which rewrites it (it drops the later of ``DTEND``/``DURATION``, and
    its bookkeeping restarts at every ``BEGIN:``, a ``VALARM`` included), so an event would
    be read differently over CalDAV than from an ``.ics`` file.
    """
    client, home_url = collection.client, collection.url
    if client is None or home_url is None:
        target.fail("caldav.protocol", "the caldav client lost its connection")
    query = (
        cdav.CalendarMultiGet()
        + (dav.Prop() + [dav.GetEtag(), cdav.CalendarData()])
        + [dav.Href(value=URL.objectify(url).path) for url in urls]
    )
    body = etree.tostring(query.xmlelement(), encoding="utf-8", xml_declaration=True)
    # RFC 4791 section 7.9: no Depth header on calendar-multiget.
    response = client.report(str(home_url), body.decode("utf-8"), depth=None)
    if response.status >= 400:
        target.fail(
            "caldav.protocol",
            f"{_shown(home_url)} answered calendar-multiget with HTTP {response.status}",
        )
    found = response.expand_simple_props([dav.GetEtag(), cdav.CalendarData()])
    rows: list[tuple[str, str, str | None]] = []
    for href, properties in found.items():
        status = response.statuses.get(href)
        if isinstance(status, str) and " 404" in status:
            continue  # deleted since the listing
        text = properties.get(_CALENDAR_DATA)
        etag = properties.get(_ETAG)
        rows.append(
            (
                object_key(home_url.join(URL.objectify(href))),
                text if isinstance(text, str) and text.strip() else "",
                etag if isinstance(etag, str) else None,
            )
        )
    return rows


def _batches(keys: list[str], size: int) -> Iterable[list[str]]:
    for index in range(0, len(keys), size):
        yield keys[index : index + size]
