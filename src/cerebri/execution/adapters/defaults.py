"""The adapter table a real executor starts with."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Final

from cerebri._guard import arguments
from cerebri.clock import Clock
from cerebri.execution.adapters.base import Adapters, adapter_argument_error
from cerebri.execution.adapters.ics_file import CALENDAR_CAPABILITIES, IcsFileCalendar
from cerebri.execution.adapters.service_status import ServiceStatusAdapter

__all__ = ["default_adapters"]

_NO_CALENDARS: Final[Mapping[str, Path]] = MappingProxyType({})


@arguments(adapter_argument_error, clock=Clock, ics_calendars=Mapping)
def default_adapters(
    clock: Clock, *, ics_calendars: Mapping[str, Path] = _NO_CALENDARS
) -> Adapters:
    """The adapters a real executor starts with: ``service.status`` (systemd) always, and
    the calendar capabilities (:data:`CALENDAR_CAPABILITIES`) over ``ics_calendars``
    (calendar id to ``.ics`` file) when it names at least one calendar. ``clock`` stamps
    calendar writes (``DTSTAMP``)."""
    adapters = Adapters().with_adapter("service.status", ServiceStatusAdapter())
    if ics_calendars:
        calendar = IcsFileCalendar(ics_calendars, clock)
        for name in CALENDAR_CAPABILITIES:
            adapters = adapters.with_adapter(name, calendar)
    return adapters
