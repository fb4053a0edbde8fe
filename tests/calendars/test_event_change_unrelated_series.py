"""A cancel reads no busy time (it frees time and searches nothing), so an unrelated endless
series that cannot be expanded within ``max_occurrences`` does not stop it (decision 0074).
The minutely series below has 60 x 24 x 365 occurrences a year, far over the limit of 1000
set here."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cerebri.calendars.change_request import ChangeOperation
from cerebri.calendars.event_change import EventChangeAsk, plan_event_change
from cerebri.calendars.slot_search import SlotSearch
from cerebri.calendars.sources import load_sources
from cerebri.temporal import Instant

TEXT = (
    "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n"
    "BEGIN:VEVENT\r\nUID:tick@x\r\nDTSTAMP:20260101T000000Z\r\n"
    "DTSTART:20200101T000000Z\r\nDTEND:20200101T000030Z\r\nRRULE:FREQ=MINUTELY\r\n"
    "SUMMARY:Tick\r\nEND:VEVENT\r\n"
    "BEGIN:VEVENT\r\nUID:other@x\r\nDTSTAMP:20260101T000000Z\r\n"
    "DTSTART:20270105T090000Z\r\nDTEND:20270105T100000Z\r\nSUMMARY:Other\r\nEND:VEVENT\r\n"
    "END:VCALENDAR\r\n"
)


def _load(paths: Sequence[Path], urls: Sequence[str], ids: Sequence[str]) -> Any:
    window = (Instant.parse("2027-01-01T00:00:00Z"), Instant.parse("2027-02-01T00:00:00Z"))
    return load_sources(paths, urls, window, ids=ids)


def test_a_cancel_is_not_stopped_by_an_unrelated_endless_series(tmp_path: Path) -> None:
    path = tmp_path / "big.ics"
    path.write_text(TEXT, newline="")
    search = SlotSearch(ics=[path], max_occurrences=1000)
    found = plan_event_change(
        EventChangeAsk(ChangeOperation.CANCEL, "other@x", zone="UTC"), search, _load
    )
    assert [c.start.format() for c in found.answer.result.candidates] == ["2027-01-05T09:00:00Z"]
    assert found.busy == (("big", ()),)
