"""The adapter interface: Invocation, AdapterError, the Adapters table, default_adapters."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from cerebri.clock import FakeClock
from cerebri.errors import CerebriError
from cerebri.execution.adapters import (
    CALENDAR_CAPABILITIES,
    Adapter,
    AdapterError,
    Adapters,
    IcsFileCalendar,
    Invocation,
    NoopAdapter,
    RecordingAdapter,
    ServiceStatusAdapter,
    default_adapters,
)
from cerebri.execution.adapters.itip_copies import CopyDelivery
from cerebri.plans import BUILTIN_CAPABILITIES
from cerebri.temporal import Instant

CLOCK = FakeClock(Instant.parse("2026-10-01T08:00:00Z"))


def test_invocation_is_frozen() -> None:
    invocation = Invocation("service.status", "mail", {"service": "mail"}, "plan_step:s", "k")
    with pytest.raises(dataclasses.FrozenInstanceError):
        invocation.capability = "x"  # type: ignore[misc]


def test_adapter_error_codes_and_retryable() -> None:
    plain = AdapterError("boom")
    assert (plain.code, plain.retryable) == ("adapter.failed", False)
    assert isinstance(plain, CerebriError)
    busy = AdapterError("locked", code="calendar.busy", retryable=True)
    assert (busy.code, busy.retryable, str(busy)) == (
        "calendar.busy",
        True,
        "calendar.busy: locked",
    )
    assert busy.to_wire() == {"code": "calendar.busy", "path": None, "message": "locked"}


def test_adapters_table_is_immutable() -> None:
    noop = NoopAdapter()
    empty = Adapters()
    one = empty.with_adapter("service.status", noop)
    assert empty.names() == () and empty.get("service.status") is None
    assert one.names() == ("service.status",) and one.get("service.status") is noop
    other = ServiceStatusAdapter({})
    replaced = one.with_adapter("service.status", other)
    assert replaced.get("service.status") is other
    assert one.get("service.status") is noop
    both = one.with_adapter("calendar.freebusy", noop)
    assert both.names() == ("calendar.freebusy", "service.status")


def test_shipped_adapters_meet_the_protocol(tmp_path: Path) -> None:
    for adapter in (
        NoopAdapter(),
        RecordingAdapter(tmp_path / "j"),
        ServiceStatusAdapter(),
        IcsFileCalendar({}, CLOCK),
    ):
        assert isinstance(adapter, Adapter)


def test_default_adapters_without_calendars_only_read_service_status() -> None:
    adapters = default_adapters(CLOCK)
    assert adapters.names() == ("service.status",)
    assert isinstance(adapters.get("service.status"), ServiceStatusAdapter)


def test_default_adapters_with_calendars_serve_every_builtin(tmp_path: Path) -> None:
    adapters = default_adapters(CLOCK, ics_calendars={"work": tmp_path / "work.ics"})
    # message.itip.* are added by with_itip_delivery (an outbox to write to), not here
    served = [c.name for c in BUILTIN_CAPABILITIES if not c.name.startswith("message.")]
    assert adapters.names() == tuple(sorted(served))
    # calendar.itip.deliver (decision 0057) is served by CopyDelivery over the calendars
    assert set(CALENDAR_CAPABILITIES) | {"calendar.itip.deliver"} == {
        c.name for c in BUILTIN_CAPABILITIES if c.name.startswith("calendar.")
    }
    assert isinstance(adapters.get("calendar.itip.deliver"), CopyDelivery)
    calendar = adapters.get("calendar.event.get")
    assert isinstance(calendar, IcsFileCalendar)
    got = calendar.invoke(
        Invocation("calendar.event.get", "e1", {"calendar_id": "work", "object_id": "e1"}, "o", "k")
    )
    assert got["exists"] is False
