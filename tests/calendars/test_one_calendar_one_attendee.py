"""One calendar id is one attendee, required or optional (issue 21 item 9): pairs sharing
an id, as the objects of one CalDAV collection arrive, are one person. Pure Python API;
tests/integrations/test_calendar_identity.py checks the same on a real Radicale."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from icalendar import Calendar, Event

from cerebri.calendars import ImportedCalendars, SlotQuery, find_slot
from cerebri.errors import InvalidArgumentError
from cerebri.temporal import Instant

HOUR = timedelta(hours=1)
DAY = datetime(2026, 10, 5, 9, tzinfo=UTC)  # windows of 09:00-13:00 UTC, hourly starts


def _object(uid: str, start: datetime) -> Calendar:
    """One stored object: a calendar with one one-hour event."""
    cal = Calendar()
    cal.add("prodid", "-//cerebri tests//EN")
    cal.add("version", "2.0")
    event = Event()
    event.add("uid", uid)
    event.add("dtstamp", datetime(2026, 1, 1, tzinfo=UTC))
    event.add("dtstart", start)
    event.add("dtend", start + HOUR)
    cal.add_component(event)
    return cal


def _query(min_attendance: float | None = None) -> SlotQuery:
    return SlotQuery(
        Instant.from_datetime(DAY),
        Instant.from_datetime(DAY + 4 * HOUR),
        3600,
        granularity_seconds=3600,
        min_attendance=min_attendance,
    )


def test_optional_objects_under_one_id_are_one_attendee() -> None:
    personal = [("personal", _object("p1", DAY)), ("personal", _object("p2", DAY + 2 * HOUR))]
    answer = find_slot([("alice", Calendar())], _query(), optional=personal)
    seen = {slot.start.format(): (slot.free, slot.busy) for slot in answer.slots}
    busy_starts = {Instant.from_datetime(DAY + h * HOUR).format() for h in (0, 2)}
    assert seen == {
        Instant.from_datetime(DAY + h * HOUR).format(): (
            ((), ("personal",))
            if Instant.from_datetime(DAY + h * HOUR).format() in busy_starts
            else (("personal",), ())
        )
        for h in range(4)
    }


@pytest.mark.parametrize("imported", [False, True])
def test_required_objects_under_one_id_count_once(imported: bool) -> None:
    # Required "work" (three objects, busy nowhere in the window) and optional Carol, busy
    # all the time: 1 of 2 attendees free is 0.5 < 0.6, so every slot is left out (as three
    # attendees, 3 of 4 = 0.75 would pass).
    work = [("work", _object(f"w{i}", DAY - (i + 1) * 24 * HOUR)) for i in range(3)]
    carol = [("carol", _object(f"c{h}", DAY + h * HOUR)) for h in range(4)]
    query = _query(0.6)
    if imported:
        answer = ImportedCalendars(work).find_slot(query, optional=carol)
    else:
        answer = find_slot(work, query, optional=carol)
    assert answer.slots == ()
    assert len(answer.below_min_attendance) == 4


def test_an_optional_id_that_is_also_required_is_refused() -> None:
    with pytest.raises(InvalidArgumentError) as caught:
        find_slot([("a", Calendar())], _query(), optional=[("a", Calendar())])
    assert caught.value.code == "calendars.invalid_argument"
