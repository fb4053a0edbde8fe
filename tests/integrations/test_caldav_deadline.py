"""Each CalDAV request must finish as a whole within ``timeout_seconds``.

The stub server (:mod:`tests.integrations.stub_dav`) answers ``PROPFIND`` with a ``207``
header announcing 100000 bytes and then sends one byte every 0.3 s, for 8 s at most. The
HTTP client's own timeout restarts at every byte, so without a whole-request limit the read
would last the full 8 s (and with a real server of this kind, for hours).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator

import pytest

from cerebri.integrations import CalDAVError, fetch_calendars, fetch_freebusy
from cerebri.integrations._deadline import DeadlineError, call_within
from cerebri.temporal import Instant
from tests.integrations.stub_dav import StubCalendar, serving

START = Instant.parse("2026-10-05T00:00:00Z")
END = Instant.parse("2026-10-06T00:00:00Z")


@pytest.fixture
def dripping() -> Iterator[StubCalendar]:
    with serving(StubCalendar(drip=0.3, drip_limit=8.0)) as calendar:
        yield calendar


def _events(url: str) -> object:
    return fetch_calendars(url, START, END, timeout_seconds=1.0, cache=False)


def _freebusy(url: str) -> object:
    return fetch_freebusy(url, START, END, timeout_seconds=1.0)


@pytest.mark.parametrize("call", [_events, _freebusy], ids=["events", "freebusy"])
def test_a_dripping_server_is_unreachable_after_the_timeout(
    dripping: StubCalendar, call: Callable[[str], object]
) -> None:
    began = time.monotonic()
    with pytest.raises(CalDAVError) as caught:
        call(dripping.url)
    elapsed = time.monotonic() - began
    assert caught.value.code == "caldav.unreachable"
    assert caught.value.url == dripping.url
    assert "did not finish within 1 s" in caught.value.message
    assert elapsed < 4.0  # the 1 s limit plus start-up, far below the 8 s drip


def test_call_within_hands_back_the_result_or_the_exception() -> None:
    assert call_within(5.0, lambda: 6 * 7) == 42

    def fails() -> None:
        raise KeyError("inside the worker")

    with pytest.raises(KeyError, match="inside the worker"):
        call_within(5.0, fails)


def test_call_within_gives_up_at_the_limit_and_the_worker_is_a_daemon() -> None:
    release = threading.Event()
    try:
        with pytest.raises(DeadlineError) as caught:
            call_within(0.2, lambda: release.wait(30))
        assert caught.value.seconds == 0.2
        stuck = [t for t in threading.enumerate() if t.name == "cerebri-caldav-request"]
        assert stuck and all(t.daemon for t in stuck)
    finally:
        release.set()
