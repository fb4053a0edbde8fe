"""The outage guard alone, on a fake clock: its backoff, its limit, one event per outage,
and programming errors never retried (decision 0035)."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable

import pytest

from cerebri.clock import FakeClock
from cerebri.execution import ExecutionError, OutageEvent, OutageGuard
from cerebri.execution.outages import (
    FIRST_BACKOFF_SECONDS,
    MAX_BACKOFF_SECONDS,
    StoppedDuringOutageError,
)
from cerebri.execution.store import StoreError
from cerebri.temporal import Instant

START = Instant.parse("2026-12-01T10:00:00Z")


def _down() -> sqlite3.OperationalError:
    return sqlite3.OperationalError("disk I/O error")


def _full() -> sqlite3.OperationalError:
    return sqlite3.OperationalError("database or disk is full")


class _Store:
    """A call that fails ``failures`` times with ``error()``, then answers ``answer``."""

    def __init__(self, failures: int, error: Callable[[], Exception] = _down) -> None:
        self.failures = failures
        self.error = error
        self.calls = 0

    def __call__(self) -> str:
        self.calls += 1
        if self.calls <= self.failures:
            raise self.error()
        return "answer"


def _guard(limit: float = 60) -> tuple[OutageGuard, FakeClock, list[float], list[OutageEvent]]:
    clock = FakeClock(START)
    waits: list[float] = []
    events: list[OutageEvent] = []

    def sleep(seconds: float) -> None:  # the waits move the fake clock
        waits.append(seconds)
        clock.advance(seconds)

    guard = OutageGuard(
        lambda: clock.now().ns, limit_seconds=limit, on_event=events.append, sleep=sleep
    )
    return guard, clock, waits, events


def _wrote(_answer: str) -> bool:
    return True


def test_retries_back_off_and_one_event_says_when_it_started_and_ended() -> None:
    guard, _clock, waits, events = _guard()
    store = _Store(failures=9)
    assert guard.retry(store, wrote=_wrote) == "answer"
    assert store.calls == 10
    expected = [min(FIRST_BACKOFF_SECONDS * 2**n, MAX_BACKOFF_SECONDS) for n in range(9)]
    assert waits == pytest.approx(expected)  # 0.1, 0.2, ..., 3.2, 5, 5, 5
    assert waits == pytest.approx([0.1, 0.2, 0.4, 0.8, 1.6, 3.2, 5.0, 5.0, 5.0])
    assert [(e.kind, e.code) for e in events] == [
        ("started", "store.unavailable"),
        ("ended", "store.unavailable"),
    ]
    assert events[0].to_text() == (
        "store outage: the store is unavailable: disk I/O error; retrying for up to 60 s"
    )
    assert events[1].seconds == pytest.approx(sum(expected))
    assert events[1].to_text() == f"store back after {sum(expected):.1f} s"
    assert (guard.outages, guard.ongoing) == (1, False)


def test_past_the_limit_it_raises_the_outage_code() -> None:
    guard, clock, waits, events = _guard(limit=3)
    store = _Store(failures=1000)
    with pytest.raises(StoreError) as caught:
        guard.retry(store, wrote=_wrote)
    # waits 0.1 + 0.2 + 0.4 + 0.8 + 1.6 = 3.1 s >= 3 s after the first failure
    assert waits == pytest.approx([0.1, 0.2, 0.4, 0.8, 1.6])
    assert store.calls == 6
    assert caught.value.code == "store.unavailable"
    assert caught.value.message == (
        "the store is unavailable: disk I/O error (for 3.1 s; the outage limit is 3 s)"
    )
    assert [e.kind for e in events] == ["started"]  # it never ended
    assert guard.ongoing
    clock.advance(1)
    with pytest.raises(StoreError):  # over the limit: not even tried again
        guard.retry(store, wrote=_wrote)
    assert store.calls == 6


def test_a_programming_error_is_raised_at_once_and_never_retried() -> None:
    guard, _clock, waits, events = _guard()
    store = _Store(failures=5, error=lambda: sqlite3.OperationalError("no such table: steps"))
    with pytest.raises(sqlite3.OperationalError):
        guard.retry(store, wrote=_wrote)
    assert (store.calls, waits, events, guard.ongoing) == (1, [], [], False)


def test_a_full_store_is_back_only_when_a_write_succeeds() -> None:
    guard, _clock, _waits, events = _guard()
    assert guard.attempt(_Store(failures=1, error=_full), wrote=_wrote, default="-") == "-"
    assert guard.ongoing
    guard.succeeded(wrote=False)  # a read of a full database proves nothing
    assert guard.ongoing
    guard.succeeded(wrote=True)
    assert not guard.ongoing
    assert [(e.kind, e.code) for e in events] == [
        ("started", "store.full"),
        ("ended", "store.full"),
    ]


def test_many_threads_noticing_one_outage_make_one_outage() -> None:
    guard, _clock, _waits, events = _guard()
    barrier = threading.Barrier(4)

    def notice() -> None:
        barrier.wait()
        guard.failed(_down())

    threads = [threading.Thread(target=notice) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    guard.succeeded(wrote=True)
    assert [e.kind for e in events] == ["started", "ended"]
    assert guard.outages == 1


def test_stop_ends_the_retries() -> None:
    clock = FakeClock(START)
    stop = threading.Event()

    def sleep(seconds: float) -> None:
        clock.advance(seconds)
        stop.set()  # e.g. SIGTERM while waiting

    guard = OutageGuard(lambda: clock.now().ns, stop=stop, sleep=sleep)
    store = _Store(failures=100)
    with pytest.raises(StoppedDuringOutageError):
        guard.retry(store, wrote=_wrote)
    assert store.calls == 2
    assert guard.ongoing
    assert guard.error().code == "store.unavailable"


@pytest.mark.parametrize("limit", [0, -1, 86_401, True, "60"])
def test_the_limit_is_checked(limit: object) -> None:
    with pytest.raises(ExecutionError) as caught:
        OutageGuard(lambda: 0, limit_seconds=limit)  # type: ignore[arg-type]
    assert caught.value.code == "execution.invalid_argument"
