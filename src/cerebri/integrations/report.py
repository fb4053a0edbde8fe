"""What a CalDAV read fetched: :class:`CollectionFetch` per calendar, :class:`FetchResult`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from icalendar import Calendar

from cerebri.integrations.cache import CacheState

__all__ = ["CollectionFetch", "FetchResult", "SyncMethod"]

SyncMethod = Literal["sync-collection", "etag"]
"""How a collection's changes were found: ``sync-collection`` (the RFC 6578 REPORT with the
stored sync token, or without one for a full listing) or ``etag`` (a depth-1 ``PROPFIND`` of
every member's ``getetag``, compared with the stored ETags)."""


@dataclass(frozen=True, slots=True)
class CollectionFetch:
    """What reading one calendar collection did.

    Attributes:
        calendar_url: the collection URL, without credentials.
        method: how changes were found (:data:`SyncMethod`).
        full: the server listed every member (no usable sync token: first read, no cache,
            an invalid or expired token, or the ``etag`` method, which always lists all).
        fetched: URLs of the objects whose iCalendar text was downloaded
            (``calendar-multiget``), sorted.
        removed: URLs of the objects dropped from the cache because the server no longer
            has them, sorted.
        cache: how the cache was found (:data:`~cerebri.integrations.cache.CacheState`).
        stored: whether the new state was written to the cache.
    """

    calendar_url: str
    method: SyncMethod
    full: bool
    fetched: tuple[str, ...]
    removed: tuple[str, ...]
    cache: CacheState
    stored: bool


@dataclass(frozen=True, slots=True)
class FetchResult:
    """The calendars read and, per collection, how they were read.

    Attributes:
        calendars: as :func:`~cerebri.integrations.fetch_calendars` returns them.
        collections: one :class:`CollectionFetch` per collection, by calendar URL.
    """

    calendars: tuple[Calendar, ...]
    collections: tuple[CollectionFetch, ...]
