"""The argument guard of :mod:`cerebri.calendars`: code ``calendars.invalid_argument``.

A wrong-typed argument to a public function (``SlotQuery(window_start=None)``,
``freebusy("text", ...)``) raises :class:`~cerebri.errors.InvalidArgumentError` with this
code before anything is read (decision 0017).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from icalendar import Component

from cerebri._guard import items_of, package_argument_error

__all__ = ["calendar_items", "invalid_argument", "named_calendar_items", "optional_items"]

invalid_argument: Final = package_argument_error("calendars")
"""Factory of the ``calendars.invalid_argument`` error (see :mod:`cerebri._guard`)."""


def calendar_items(calendars: Iterable[object], where: str) -> tuple[Any, ...]:
    """``calendars`` as a tuple of icalendar ``Component``; else ``calendars.invalid_argument``."""
    if isinstance(calendars, (str, bytes)) or not isinstance(calendars, Iterable):
        raise invalid_argument(f"{where} must be a sequence of calendars")
    return items_of(calendars, Component, invalid_argument, where)


def named_calendar_items(calendars: Iterable[object], where: str) -> tuple[Any, ...]:
    """``calendars`` as ``(str, Component)`` pairs; else ``calendars.invalid_argument``."""
    if isinstance(calendars, (str, bytes)) or not isinstance(calendars, Iterable):
        raise invalid_argument(f"{where} must be a sequence of (id, calendar) pairs")
    pairs = items_of(calendars, tuple, invalid_argument, where)
    for index, pair in enumerate(pairs):
        if len(pair) != 2 or not isinstance(pair[0], str) or not isinstance(pair[1], Component):
            raise invalid_argument(f"{where}[{index}] must be a (str, Component) pair")
    return pairs


def optional_items(
    required: Iterable[str], optional: Iterable[object], where: str
) -> tuple[Any, ...]:
    """Optional attendees' ``(str, Component)`` pairs, none of them under a required
    calendar's id (each slot reports attendees by id); else ``calendars.invalid_argument``.
    Pairs sharing an id are one attendee's calendars (a CalDAV collection's objects)."""
    pairs = named_calendar_items(optional, where)
    taken = set(required)
    for name, _ in pairs:
        if name in taken:
            raise invalid_argument(
                f"{where}: calendar id {name!r} is also a required calendar's id (optional "
                "attendees are reported by id, so an optional id must differ from every "
                "required one)"
            )
    return pairs
