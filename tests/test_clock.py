"""Injected clock and ids (cerebri.clock)."""

from __future__ import annotations

import re

import pytest

from cerebri.clock import (
    Clock,
    ClockError,
    FakeClock,
    IdGenerator,
    SequentialIds,
    SystemClock,
    UuidIds,
)
from cerebri.temporal import Instant

START = Instant.parse("2026-03-29T00:30:00Z")


def test_fake_clock_starts_and_advances_by_seconds() -> None:
    clock = FakeClock(START)
    assert clock.now() == START
    assert clock.advance(90) == Instant.parse("2026-03-29T00:31:30Z")
    assert clock.advance(0.25) == Instant.parse("2026-03-29T00:31:30.250Z")
    assert clock.now().ns == START.ns + 90_250_000_000


def test_fake_clock_refuses_to_go_backwards_and_stays_put() -> None:
    clock = FakeClock(START)
    with pytest.raises(ClockError) as caught:
        clock.set(Instant(START.ns - 1))
    assert caught.value.code == "clock.backwards"
    with pytest.raises(ClockError) as caught:
        clock.advance(-1)
    assert caught.value.code == "clock.backwards"
    assert clock.now() == START
    later = Instant.parse("2026-03-30T00:00:00Z")
    clock.set(later)
    clock.set(later)  # same instant is allowed
    assert clock.now() == later


@pytest.mark.parametrize("bad", [True, "1", None])
def test_fake_clock_advance_wrong_type(bad: object) -> None:
    with pytest.raises(ClockError) as caught:
        FakeClock(START).advance(bad)  # type: ignore[arg-type]
    assert caught.value.code == "clock.invalid_argument"


def test_system_clock_is_utc_now_within_a_sane_range() -> None:
    now = SystemClock().now()
    assert Instant.parse("2020-01-01T00:00:00Z") < now < Instant.parse("2200-01-01T00:00:00Z")


def test_protocols_are_met() -> None:
    assert isinstance(SystemClock(), Clock)
    assert isinstance(FakeClock(START), Clock)
    assert isinstance(UuidIds(), IdGenerator)
    assert isinstance(SequentialIds("x"), IdGenerator)


def test_sequential_ids_are_deterministic() -> None:
    ids = SequentialIds("plan")
    assert [ids.new_id() for _ in range(3)] == ["plan-000001", "plan-000002", "plan-000003"]
    with pytest.raises(ClockError):
        SequentialIds("")


def test_uuid_ids_are_version_4_and_distinct() -> None:
    ids = UuidIds()
    made = {ids.new_id() for _ in range(50)}
    assert len(made) == 50
    pattern = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
    assert all(pattern.match(i) for i in made)


def test_exports() -> None:
    import cerebri.clock as module

    defined = {
        name
        for name, value in vars(module).items()
        if not name.startswith("_") and getattr(value, "__module__", None) == module.__name__
    }
    assert sorted(module.__all__) == sorted(defined)
