"""Which calendar holds the organizer's copy of the event a change is planned on
(RFC 5546 section 2.1.2: only the organizer changes an event; decision 0074).

The calendars are given attendee first; the expected calendar is the one whose owner
(``X-WR-CALNAME`` address, decision 0028) is the event's ``ORGANIZER``, named here by hand.
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

HEAD = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n"
TAIL = "END:VCALENDAR\r\n"
MEETING = (
    "BEGIN:VEVENT\r\nUID:m@x\r\nDTSTAMP:20260101T000000Z\r\n"
    "DTSTART:20261208T140000Z\r\nDTEND:20261208T150000Z\r\nSUMMARY:Review\r\n"
    "ORGANIZER:mailto:alice@example.org\r\n"
    "ATTENDEE;PARTSTAT=ACCEPTED:mailto:bob@example.org\r\nEND:VEVENT\r\n"
)
ALONE = (
    "BEGIN:VEVENT\r\nUID:solo@x\r\nDTSTAMP:20260101T000000Z\r\n"
    "DTSTART:20261208T080000Z\r\nDTEND:20261208T090000Z\r\nSUMMARY:Focus\r\nEND:VEVENT\r\n"
)


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / f"{name}.ics"
    path.write_text(HEAD + text + TAIL, newline="")
    return path


def _load(paths: Sequence[Path], urls: Sequence[str], ids: Sequence[str]) -> Any:
    window = (Instant.parse("2026-12-01T00:00:00Z"), Instant.parse("2027-01-01T00:00:00Z"))
    return load_sources(paths, urls, window, ids=ids)


def _cancel(paths: list[Path], calendar: str | None = None) -> str:
    ask = EventChangeAsk(ChangeOperation.CANCEL, "m@x", zone="UTC")
    found = plan_event_change(ask, SlotSearch(ics=paths, calendar=calendar), _load)
    return found.target.calendar_id


def test_the_organizers_calendar_is_chosen_whatever_the_order(tmp_path: Path) -> None:
    bob = _write(tmp_path, "bob", "X-WR-CALNAME:bob@example.org\r\n" + MEETING)
    alice = _write(tmp_path, "alice", "X-WR-CALNAME:Alice@Example.org\r\n" + MEETING)
    assert _cancel([bob, alice]) == "alice"
    assert _cancel([alice, bob]) == "alice"


def test_an_owner_unknown_copy_is_the_organizers_when_the_others_are_attendees(
    tmp_path: Path,
) -> None:
    bob = _write(tmp_path, "bob", "X-WR-CALNAME:bob@example.org\r\n" + MEETING)
    alice = _write(tmp_path, "alice", "X-WR-CALNAME:Work\r\n" + MEETING + ALONE)
    assert _cancel([bob, alice]) == "alice"


def test_an_attendees_copy_alone_is_refused(tmp_path: Path) -> None:
    bob = _write(tmp_path, "bob", "X-WR-CALNAME:bob@example.org\r\n" + MEETING)
    with pytest.raises(CerebriError) as caught:
        _cancel([bob])
    assert caught.value.code == "calendars.no_calendar"
    assert "bob (bob@example.org)" in caught.value.message
    assert "alice@example.org" in caught.value.message
    assert "--calendar" in caught.value.message


def test_copies_of_unknown_owners_keep_the_first_and_calendar_settles_it(
    tmp_path: Path,
) -> None:
    one = _write(tmp_path, "one", MEETING)
    two = _write(tmp_path, "two", MEETING)
    assert _cancel([one, two]) == "one"
    assert _cancel([one, two], calendar="two") == "two"


def test_two_copies_of_the_organizer_are_refused(tmp_path: Path) -> None:
    one = _write(tmp_path, "one", "X-WR-CALNAME:alice@example.org\r\n" + MEETING)
    two = _write(tmp_path, "two", "X-WR-CALNAME:alice@example.org\r\n" + MEETING)
    with pytest.raises(CerebriError) as caught:
        _cancel([one, two])
    assert caught.value.code == "calendars.no_calendar"
    assert "several of them are the organizer's" in caught.value.message
    assert _cancel([one, two], calendar="two") == "two"


def test_an_event_without_organizer_is_changed_where_it_is(tmp_path: Path) -> None:
    other = _write(tmp_path, "other", ALONE)
    plain = MEETING.replace("ORGANIZER:mailto:alice@example.org\r\n", "")
    mine = _write(tmp_path, "mine", plain)
    assert _cancel([other, mine]) == "mine"
