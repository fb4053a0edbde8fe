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
section 7.9, which every CalDAV server must support), in batches. A member listed as changed
that the multiget no longer finds was deleted meanwhile and is dropped.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final
from urllib.parse import unquote, urlsplit

from caldav.collection import Calendar as DAVCalendar
from caldav.collection import SynchronizableCalendarObjectCollection
from caldav.lib import error as dav_error
from caldav.lib.url import URL

from cerebri.integrations._target import _shown, _Target
from cerebri.integrations.cache import CachedCalendar, CachedObject
from cerebri.integrations.report import SyncMethod

_ETAG: Final = "{DAV:}getetag"
_RESOURCE_TYPE: Final = "{DAV:}resourcetype"
_COLLECTION_TYPE: Final = "{DAV:}collection"
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
        CalDAVError: ``caldav.protocol`` for a reply without calendar data; HTTP and
            library failures propagate to the caller's translation.
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
    """The iCalendar text and ``ETag`` of the ``wanted`` members (``key -> url``)."""
    got: dict[str, CachedObject] = {}
    keys = sorted(wanted)
    for batch in _batches(keys, MULTIGET_BATCH):
        found: object = collection.multiget([URL.objectify(wanted[key]) for key in batch])
        if not isinstance(found, list):
            target.fail("caldav.protocol", "the caldav client answered asynchronously")
        for item in found:
            key = object_key(item.url)
            if key not in wanted:
                continue
            text = item.data
            if not isinstance(text, str) or not text:
                target.fail("caldav.protocol", f"{wanted[key]}: the server sent no calendar data")
            etag = item.props.get(_ETAG)
            if not isinstance(etag, str):
                etag = listed[key][1]
            got[key] = CachedObject(key, wanted[key], etag, text)
    return got


def _batches(keys: list[str], size: int) -> Iterable[list[str]]:
    for index in range(0, len(keys), size):
        yield keys[index : index + size]
