"""Capability adapters: how the executor acts (issue #12).

::

    adapters = default_adapters(clock, ics_calendars={"work": Path("work.ics")})
    result = adapters.get("calendar.event.get").invoke(
        Invocation("calendar.event.get", "e1", {"calendar_id": "work", "object_id": "e1"},
                   origin="plan_step:s1", idempotency_key="p1:1:read-0:0")
    )

An :class:`Adapter` turns an :class:`Invocation` into a JSON object or raises
:class:`AdapterError` (``retryable`` says whether trying again may help). Shipped:
:class:`ServiceStatusAdapter` (``service.status``), :class:`IcsFileCalendar` (the calendar
capabilities over local ``.ics`` files), :class:`CalDavCalendar` (the same over CalDAV
collections, decision 0024) and, for tests and benchmarks,
:class:`RecordingAdapter` and :class:`NoopAdapter`.
"""

from cerebri.execution.adapters.base import Adapter, AdapterError, Adapters, Invocation
from cerebri.execution.adapters.caldav_calendar import CalDavCalendar
from cerebri.execution.adapters.defaults import default_adapters
from cerebri.execution.adapters.fakes import NoopAdapter, RecordingAdapter, journal_entries
from cerebri.execution.adapters.ics_file import CALENDAR_CAPABILITIES, IcsFileCalendar
from cerebri.execution.adapters.service_status import ServiceStatusAdapter, systemctl_probe

__all__ = [
    "CALENDAR_CAPABILITIES",
    "Adapter",
    "AdapterError",
    "Adapters",
    "CalDavCalendar",
    "IcsFileCalendar",
    "Invocation",
    "NoopAdapter",
    "RecordingAdapter",
    "ServiceStatusAdapter",
    "default_adapters",
    "journal_entries",
    "systemctl_probe",
]
