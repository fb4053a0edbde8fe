"""The this-and-future choice of decision 0050 (a split series) read back from a real Radicale
through the ``caldav`` library: its own (client-side) expansion, the server's expansion
(RFC 4791 section 9.6.5 ``CALDAV:expand``) and a plain fetch expanded by
recurring-ical-events all give the instances written down by hand."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import caldav
import pytest
import recurring_ical_events
from icalendar import Calendar

from cerebri.calendars import ChangeScope, EventChange, apply_change
from tests._radicale import RadicaleServer, serve
from tests.calendars.test_changes import BERLIN, STAMP, UID, _at, _base, _series

WINDOW = (datetime(2026, 2, 1, tzinfo=UTC), datetime(2026, 6, 1, tzinfo=UTC))


@pytest.fixture(scope="module")
def radicale(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RadicaleServer]:
    """Radicale without authentication, for this module."""
    folder: Path = tmp_path_factory.mktemp("radicale-changes")
    yield from serve(folder, "--auth-type", "none")


def _rows(events: list[Any]) -> list[tuple[str, int, str]]:
    out = []
    for event in events:
        start, end = event["DTSTART"].dt, event["DTEND"].dt
        text = start.astimezone(BERLIN).strftime("%Y-%m-%d %H:%M")
        out.append((text, int((end - start).total_seconds() // 60), str(event["SUMMARY"])))
    return sorted(out)


def test_a_split_series_reads_back_the_same_through_every_reader(
    radicale: RadicaleServer,
) -> None:
    series = _series("FREQ=WEEKLY;COUNT=8")
    at = _at(date(2026, 3, 30), 9)
    change = EventChange(
        action="move",
        uid=UID,
        scope=ChangeScope.THIS_AND_FUTURE,
        recurrence_id=at,
        start=_at(date(2026, 3, 31), 10),
        end=_at(date(2026, 3, 31), 11, 30),
        idempotency_key="caldav-split",
    )
    outcome = apply_change(series, change, stamp=STAMP)
    expected = sorted(
        [(item[1], item[2], item[3]) for item in _base() if item[1] < "2026-03-30"]
        + [
            ("2026-03-31 10:00", 90, "Standup"),
            ("2026-04-07 15:00", 60, "Standup late"),
            ("2026-04-14 10:00", 90, "Standup"),
            ("2026-04-21 10:00", 90, "Standup"),
        ]
    )
    with caldav.DAVClient(radicale.url, username="carol", password="x", timeout=10) as client:
        collection = client.principal().make_calendar(name="changes", cal_id="changes")
        original = series.copy()
        original.pop("METHOD", None)
        collection.save_event(original.to_ical().decode())
        for _, resource in outcome.writes:  # the new series first, then the trimmed old one
            assert resource is not None
            collection.save_event(resource.to_ical().decode())

        by_client = collection.search(start=WINDOW[0], end=WINDOW[1], event=True, expand=True)
        by_server = collection.search(
            start=WINDOW[0], end=WINDOW[1], event=True, expand=True, server_expand=True
        )
        fetched = [Calendar.from_ical(item.data) for item in collection.events()]

    def instances(found: list[Any]) -> list[tuple[str, int, str]]:
        return _rows([e for item in found for e in item.icalendar_instance.walk("VEVENT")])

    assert instances(by_client) == expected
    assert instances(by_server) == expected
    read = [
        event
        for resource in fetched
        for event in recurring_ical_events.of(resource).between(*WINDOW)
    ]
    assert _rows(read) == expected
    assert len(fetched) == 2  # two resources: the trimmed series and the new one
