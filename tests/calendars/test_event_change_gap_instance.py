"""``--instance`` at a local time that does not exist (a spring-forward gap): read with the
offset before the gap (RFC 5545 section 3.3.5, decision 0064), and when it names no instance
the refusal says which local time was read and that the one given does not exist (decision
0074). Offsets by hand: Europe/Berlin jumps from 02:00 CET (+01:00) to 03:00 CEST (+02:00)
on Sunday 2027-03-28 (01:00Z); America/New_York from 02:00 EST (-05:00) to 03:00 EDT
(-04:00) on Sunday 2027-03-14 (07:00Z).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from cerebri.calendars.change_request import ChangeOperation
from cerebri.calendars.event_change import EventChangeAsk, plan_event_change
from cerebri.calendars.slot_search import SlotSearch
from cerebri.calendars.sources import load_sources
from cerebri.errors import CerebriError
from cerebri.temporal import Instant

DAILY = (
    "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VEVENT\r\nUID:d@y\r\n"
    "DTSTAMP:20260101T000000Z\r\nDTSTART;TZID={zone}:20270301T090000\r\n"
    "DTEND;TZID={zone}:20270301T100000\r\nRRULE:FREQ=DAILY;COUNT=60\r\nSUMMARY:Day\r\n"
    "END:VEVENT\r\nEND:VCALENDAR\r\n"
)


def _load(paths: Sequence[Path], urls: Sequence[str], ids: Sequence[str]) -> Any:
    window = (Instant.parse("2027-03-01T00:00:00Z"), Instant.parse("2027-05-01T00:00:00Z"))
    return load_sources(paths, urls, window, ids=ids)


def _refusal(tmp_path: Path, zone: str, at: str) -> str:
    path = tmp_path / "cal.ics"
    path.write_text(DAILY.format(zone=zone), newline="")
    ask = EventChangeAsk(ChangeOperation.CANCEL, "d@y", at=Instant.parse(at), zone=zone)
    with pytest.raises(CerebriError) as caught:
        plan_event_change(ask, SlotSearch(ics=[path]), _load)
    assert caught.value.code == "calendar.not_found"
    return caught.value.message


def test_a_gap_time_that_names_no_instance_is_explained(tmp_path: Path) -> None:
    # --instance 2027-03-28T02:30 --tz Europe/Berlin: 02:30 at +01:00 = 01:30Z = 03:30 CEST
    assert _refusal(tmp_path, "Europe/Berlin", "2027-03-28T01:30:00Z") == (
        "event 'd@y' has no instance starting originally at 2027-03-28T01:30:00Z "
        "(2027-03-28 03:30 in Europe/Berlin) in calendar 'cal': a local 2027-03-28 02:30 "
        "does not exist in Europe/Berlin (the clocks skip it) and is read as this instant "
        "(RFC 5545 section 3.3.5), which names an instance only of a series whose own wall "
        "time is 02:30"
    )


def test_new_york_gap(tmp_path: Path) -> None:
    # 02:30 at -05:00 = 07:30Z = 03:30 EDT
    message = _refusal(tmp_path, "America/New_York", "2027-03-14T07:30:00Z")
    assert "(2027-03-14 03:30 in America/New_York)" in message
    assert message.endswith(
        "a local 2027-03-14 02:30 does not exist in America/New_York (the clocks skip it) "
        "and is read as this instant (RFC 5545 section 3.3.5), which names an instance only "
        "of a series whose own wall time is 02:30"
    )


def test_a_time_that_exists_gets_no_gap_note(tmp_path: Path) -> None:
    # 08:30 CEST = 06:30Z
    assert _refusal(tmp_path, "Europe/Berlin", "2027-03-28T06:30:00Z") == (
        "event 'd@y' has no instance starting originally at 2027-03-28T06:30:00Z "
        "(2027-03-28 08:30 in Europe/Berlin) in calendar 'cal'"
    )
    # the day before, 02:30 CET exists: 01:30Z
    assert _refusal(tmp_path, "Europe/Berlin", "2027-03-27T01:30:00Z").endswith(
        "(2027-03-27 02:30 in Europe/Berlin) in calendar 'cal'"
    )
