"""Each CalDAV request must finish as a whole within ``timeout_seconds``.

The stub server (:mod:`tests.integrations.stub_dav`) answers ``PROPFIND`` with a ``207``
header announcing 100000 bytes and then sends one byte every 0.3 s, for 8 s at most. The
HTTP client's own timeout restarts at every byte, so without a whole-request limit the read
would last the full 8 s (and with a real server of this kind, for hours).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import pytest

from cerebri.integrations import CalDAVError, fetch_calendars, fetch_freebusy
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
