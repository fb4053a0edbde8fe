"""Changes to events already stored (cerebri.calendars.changes, decision 0050).

The oracle is recurring-ical-events: every resource a change writes is expanded by it and the
instances compared with the list each test writes down by hand (plain date arithmetic on a
weekly series), never with what cerebri computes. SEQUENCE, ORGANIZER/ATTENDEE stamping, no
METHOD, replays and every refusal are checked on the written objects read back with the
icalendar library.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import recurring_ical_events
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from icalendar import Calendar, Event

from cerebri.calendars import (
    ChangeError,
    ChangeScope,
    EventChange,
    Participant,
    already_applied,
    apply_change,
    find_event,
    resource_etag,
)
from cerebri.calendars.changes import IDEMPOTENCY_PROPERTY, ChangeOutcome, split_uid
from cerebri.errors import InvalidArgumentError
from cerebri.temporal import Instant

BERLIN = ZoneInfo("Europe/Berlin")
NEW_YORK = ZoneInfo("America/New_York")
STAMP = Instant.parse("2026-02-01T12:00:00Z")
UID = "standup@example.org"
INSTANCE, FUTURE, SERIES = ChangeScope.INSTANCE, ChangeScope.THIS_AND_FUTURE, ChangeScope.SERIES

# Monday 09:00-10:00 Berlin, 8 weeks from 2026-03-02 (DST starts 2026-03-29): 03-16 is
# excluded, 04-06 is moved to 14:00 by an override. UNTIL 2026-04-20 09:00 CEST = 07:00Z.
RULES = {"count": "FREQ=WEEKLY;COUNT=8", "until": "FREQ=WEEKLY;UNTIL=20260420T070000Z"}
DAYS = [date(2026, 3, 2) + timedelta(weeks=week) for week in range(8)]
EXCLUDED, OVERRIDDEN = date(2026, 3, 16), date(2026, 4, 6)


def _series(rule: str) -> Calendar:
    text = f"""BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//test//EN
METHOD:REQUEST
BEGIN:VEVENT
UID:{UID}
DTSTAMP:20260101T000000Z
SEQUENCE:2
DTSTART;TZID=Europe/Berlin:20260302T090000
DTEND;TZID=Europe/Berlin:20260302T100000
RRULE:{rule}
EXDATE;TZID=Europe/Berlin:20260316T090000
SUMMARY:Standup
ORGANIZER;CN=Olga:mailto:olga@example.org
ATTENDEE;PARTSTAT=ACCEPTED;ROLE=REQ-PARTICIPANT:mailto:alice@example.org
ATTENDEE;PARTSTAT=DECLINED;ROLE=OPT-PARTICIPANT:mailto:bob@example.org
END:VEVENT
BEGIN:VEVENT
UID:{UID}
DTSTAMP:20260101T000000Z
SEQUENCE:3
RECURRENCE-ID;TZID=Europe/Berlin:20260406T090000
DTSTART;TZID=Europe/Berlin:20260406T140000
DTEND;TZID=Europe/Berlin:20260406T150000
SUMMARY:Standup late
ORGANIZER;CN=Olga:mailto:olga@example.org
ATTENDEE;PARTSTAT=ACCEPTED:mailto:alice@example.org
END:VEVENT
END:VCALENDAR
"""
    return Calendar.from_ical(text.replace("\n", "\r\n"))


def _base() -> list[tuple[str, str, int, str]]:
    """The instances of :func:`_series`, written down: (uid, Berlin start, minutes, title)."""
    out = []
    for day in DAYS:
        if day == EXCLUDED:
            continue
        if day == OVERRIDDEN:
            out.append((UID, f"{day} 14:00", 60, "Standup late"))
        else:
            out.append((UID, f"{day} 09:00", 60, "Standup"))
    return out


def _at(day: date, hour: int, minute: int = 0, zone: ZoneInfo = BERLIN) -> Instant:
    return Instant.from_datetime(datetime(day.year, day.month, day.day, hour, minute, tzinfo=zone))


def _instances(outcome: ChangeOutcome, zone: ZoneInfo = BERLIN) -> list[tuple[str, str, int, str]]:
    """What recurring-ical-events reads in every written resource, the split's new UID
    named ``new``."""
    out = []
    for uid, resource in outcome.writes:
        if resource is None:
            continue
        for event in recurring_ical_events.of(resource).between((2025, 1, 1), (2028, 1, 1)):
            start, end = event["DTSTART"].dt, event["DTEND"].dt
            if isinstance(start, datetime):
                start = start.replace(tzinfo=start.tzinfo or zone).astimezone(zone)
                end = end.replace(tzinfo=end.tzinfo or zone).astimezone(zone)
                text, minutes = start.strftime("%Y-%m-%d %H:%M"), int((end - start).seconds / 60)
            else:
                text, minutes = start.isoformat(), (end - start).days * 24 * 60
            name = "new" if uid == outcome.new_uid else str(event["UID"])
            assert str(event["UID"]) == uid
            out.append((name, text, minutes, str(event.get("SUMMARY"))))
    return sorted(out, key=lambda item: (item[1], item[0]))


def _change(action: str, scope: ChangeScope, **fields: object) -> EventChange:
    return EventChange(
        action=action,  # type: ignore[arg-type]
        uid=fields.pop("uid", UID),  # type: ignore[arg-type]
        scope=scope,
        idempotency_key=fields.pop("key", f"key-{action}-{scope}"),  # type: ignore[arg-type]
        **fields,  # type: ignore[arg-type]
    )


def _move(scope: ChangeScope, at: Instant, start: Instant, end: Instant) -> EventChange:
    """A move of the instance (or series, or split) recurring at ``at`` to ``[start, end)``."""
    return _change("move", scope, recurrence_id=at, start=start, end=end)


def _events(resource: Calendar | None) -> list[Event]:
    assert resource is not None
    return [event for event in resource.walk("VEVENT") if isinstance(event, Event)]


def _master(resource: Calendar | None) -> Event:
    (master,) = [event for event in _events(resource) if "RECURRENCE-ID" not in event]
    return master


def _sort(items: list[tuple[str, str, int, str]]) -> list[tuple[str, str, int, str]]:
    return sorted(items, key=lambda item: (item[1], item[0]))


@pytest.fixture(params=sorted(RULES))
def series(request: pytest.FixtureRequest) -> Calendar:
    """The weekly series with a COUNT rule and with an UNTIL rule."""
    return _series(RULES[request.param])


# ---------------------------------------------------------------- the oracle agrees


def test_the_oracle_reads_the_series_as_written_down(series: Calendar) -> None:
    assert _instances(ChangeOutcome(((UID, series),), (), 0)) == _base()


# ---------------------------------------------------------------- one instance


def test_move_one_instance_writes_an_override(series: Calendar) -> None:
    day = date(2026, 3, 9)
    change = _move(
        INSTANCE, _at(day, 9), _at(date(2026, 3, 10), 11), _at(date(2026, 3, 10), 12, 30)
    )
    outcome = apply_change(series, change, stamp=STAMP)
    expected = [item for item in _base() if item[1] != "2026-03-09 09:00"]
    expected.append((UID, "2026-03-10 11:00", 90, "Standup"))
    assert _instances(outcome) == _sort(expected)
    assert [uid for uid, _ in outcome.writes] == [UID]
    override = next(
        e
        for e in _events(outcome.writes[0][1])
        if e.get("RECURRENCE-ID") and e["SUMMARY"] == "Standup"
    )
    assert override["RECURRENCE-ID"].dt == datetime(2026, 3, 9, 9, tzinfo=BERLIN)
    assert override["RECURRENCE-ID"].params["TZID"] == "Europe/Berlin"
    assert override["DTSTART"].params["TZID"] == "Europe/Berlin"
    assert int(override["SEQUENCE"]) == 4  # one above the highest (the override's 3)
    assert int(_master(outcome.writes[0][1])["SEQUENCE"]) == 2  # untouched
    assert outcome.sequence == 4
    (notice,) = outcome.notices
    assert (notice.uid, notice.recurrence_id, notice.method, notice.sequence) == (
        UID,
        _at(day, 9),
        "REQUEST",
        4,
    )
    assert [p.address for p in notice.recipients] == [
        "mailto:alice@example.org",
        "mailto:bob@example.org",
    ]


def test_move_an_overridden_instance_rewrites_its_override(series: Calendar) -> None:
    change = _move(INSTANCE, _at(OVERRIDDEN, 9), _at(date(2026, 4, 7), 8), _at(date(2026, 4, 7), 9))
    outcome = apply_change(series, change, stamp=STAMP)
    expected = [item for item in _base() if item[1] != "2026-04-06 14:00"]
    expected.append((UID, "2026-04-07 08:00", 60, "Standup late"))
    assert _instances(outcome) == _sort(expected)
    overrides = [e for e in _events(outcome.writes[0][1]) if "RECURRENCE-ID" in e]
    assert len(overrides) == 1
    assert int(overrides[0]["SEQUENCE"]) == 4  # one above its own 3


def test_cancel_one_instance_adds_an_exdate(series: Calendar) -> None:
    change = _change("cancel", INSTANCE, recurrence_id=_at(date(2026, 3, 23), 9))
    outcome = apply_change(series, change, stamp=STAMP)
    assert _instances(outcome) == [i for i in _base() if i[1] != "2026-03-23 09:00"]
    master = _master(outcome.writes[0][1])
    assert int(master["SEQUENCE"]) == 4  # one above the highest (the override's 3)
    (notice,) = outcome.notices
    assert (notice.method, notice.recurrence_id, notice.sequence) == (
        "CANCEL",
        _at(date(2026, 3, 23), 9),
        4,
    )


def test_cancel_an_overridden_instance_drops_its_override(series: Calendar) -> None:
    change = _change("cancel", INSTANCE, recurrence_id=_at(OVERRIDDEN, 9))
    outcome = apply_change(series, change, stamp=STAMP)
    assert _instances(outcome) == [i for i in _base() if i[1] != "2026-04-06 14:00"]
    assert all("RECURRENCE-ID" not in e for e in _events(outcome.writes[0][1]))
    assert outcome.notices[0].sequence == 4  # above the master's 2 and the override's 3


def test_update_one_instance_title_location_and_length(series: Calendar) -> None:
    day = date(2026, 3, 30)
    change = _change(
        "update",
        INSTANCE,
        recurrence_id=_at(day, 9),
        title="Planning",
        location="Room 2",
        start=_at(day, 9),
        end=_at(day, 11),
    )
    outcome = apply_change(series, change, stamp=STAMP)
    expected = [i for i in _base() if i[1] != "2026-03-30 09:00"]
    expected.append((UID, "2026-03-30 09:00", 120, "Planning"))
    assert _instances(outcome) == _sort(expected)
    override = next(e for e in _events(outcome.writes[0][1]) if e.get("SUMMARY") == "Planning")
    assert str(override["LOCATION"]) == "Room 2"


# ---------------------------------------------------------------- the whole series


def test_move_the_series_keeps_the_wall_time_across_dst(series: Calendar) -> None:
    # the first instance to Tuesday 10:00: everything one day and one hour later, in Berlin
    change = _change("move", SERIES, start=_at(date(2026, 3, 3), 10), end=_at(date(2026, 3, 3), 11))
    outcome = apply_change(series, change, stamp=STAMP)
    expected = []
    for day in DAYS:
        if day == EXCLUDED:
            continue
        hour, title = (15, "Standup late") if day == OVERRIDDEN else (10, "Standup")
        expected.append((UID, f"{day + timedelta(days=1)} {hour}:00", 60, title))
    assert _instances(outcome) == expected
    events = _events(outcome.writes[0][1])
    assert {int(e["SEQUENCE"]) for e in events} == {4}  # one above the highest (3)
    assert outcome.sequence == 4
    master = _master(outcome.writes[0][1])
    assert master["DTSTART"].params["TZID"] == "Europe/Berlin"
    assert master["RRULE"].get("BYDAY") is None or master["RRULE"]["BYDAY"] == ["TU"]


def test_move_the_series_by_a_later_anchor(series: Calendar) -> None:
    # the instance of 03-30 (after DST) to 08:00 the same day: the whole series an hour early
    anchor = _at(date(2026, 3, 30), 9)
    change = _move(SERIES, anchor, _at(date(2026, 3, 30), 8), _at(date(2026, 3, 30), 9))
    outcome = apply_change(series, change, stamp=STAMP)
    expected = [
        (UID, item[1].replace(" 09:00", " 08:00").replace(" 14:00", " 13:00"), 60, item[3])
        for item in _base()
    ]
    assert _instances(outcome) == expected


def test_move_a_weekly_byday_series_to_another_day() -> None:
    calendar = _series("FREQ=WEEKLY;COUNT=4;BYDAY=MO,WE")
    start = date(2026, 3, 3)
    change = _change("move", SERIES, start=_at(start, 9), end=_at(start, 10))
    outcome = apply_change(calendar, change, stamp=STAMP)
    rule = _master(outcome.writes[0][1])["RRULE"]
    assert rule["BYDAY"] == ["TU", "TH"]
    starts = [item[1] for item in _instances(outcome)]
    # MO/WE from 03-02 (03-16 excluded; no instance on 04-06, the override names none)
    assert starts[:3] == ["2026-03-03 09:00", "2026-03-05 09:00", "2026-03-10 09:00"]


def test_update_the_series_duration_and_attendees(series: Calendar) -> None:
    change = _change(
        "update",
        SERIES,
        start=_at(DAYS[0], 9),
        end=_at(DAYS[0], 9, 45),
        title="Daily",
        organizer="mailto:olga@example.org",
        attendees=(
            Participant("mailto:alice@example.org", "Alice"),
            Participant("carol@example.org", required=False),
        ),
    )
    outcome = apply_change(series, change, stamp=STAMP)
    expected = [(UID, item[1], 45, "Daily") for item in _base()]
    assert _instances(outcome) == expected
    master = _master(outcome.writes[0][1])
    lines = {str(a): a.params for a in master["ATTENDEE"]}
    assert set(lines) == {"mailto:alice@example.org", "mailto:carol@example.org"}
    alice, carol = lines["mailto:alice@example.org"], lines["mailto:carol@example.org"]
    assert (alice["PARTSTAT"], alice["ROLE"], alice["RSVP"], alice["CN"]) == (
        "NEEDS-ACTION",  # a new length asks again (RFC 6638 3.2.8, decision 0073)
        "REQ-PARTICIPANT",
        "TRUE",
        "Alice",
    )
    assert (carol["PARTSTAT"], carol["ROLE"], carol["CUTYPE"]) == (
        "NEEDS-ACTION",
        "OPT-PARTICIPANT",
        "INDIVIDUAL",
    )
    request, cancel = outcome.notices
    assert request.method == "REQUEST"
    assert [p.address for p in request.recipients] == [
        "mailto:alice@example.org",
        "mailto:carol@example.org",
    ]
    assert (cancel.method, [p.address for p in cancel.recipients]) == (
        "CANCEL",
        ["mailto:bob@example.org"],
    )


def test_cancel_the_series_deletes_the_resource(series: Calendar) -> None:
    outcome = apply_change(series, _change("cancel", SERIES), stamp=STAMP)
    assert outcome.writes == ((UID, None),)
    (notice,) = outcome.notices
    assert (notice.method, notice.recurrence_id, notice.sequence) == ("CANCEL", None, 4)


# ---------------------------------------------------------------- this and future


def test_move_this_and_future_splits_the_series(series: Calendar) -> None:
    at = _at(date(2026, 3, 30), 9)
    change = _move(FUTURE, at, _at(date(2026, 3, 31), 10), _at(date(2026, 3, 31), 11, 30))
    outcome = apply_change(series, change, stamp=STAMP)
    assert outcome.new_uid == split_uid(UID, at, change.idempotency_key)
    assert [uid for uid, _ in outcome.writes] == [outcome.new_uid, UID]  # new series first
    expected = [item for item in _base() if item[1] < "2026-03-30"]
    expected += [
        ("new", "2026-03-31 10:00", 90, "Standup"),
        ("new", "2026-04-07 15:00", 60, "Standup late"),  # the override moves along
        ("new", "2026-04-14 10:00", 90, "Standup"),
        ("new", "2026-04-21 10:00", 90, "Standup"),
    ]
    assert _instances(outcome) == expected
    new, old = outcome.writes[0][1], outcome.writes[1][1]
    assert {int(e["SEQUENCE"]) for e in _events(new)} == {0}
    assert int(_master(old)["SEQUENCE"]) == 4  # the moved override's 3 counts too
    rule = _master(old)["RRULE"]
    if "COUNT" in rule:
        assert rule["COUNT"] == [4]  # 03-02, 03-09, 03-16 (excluded, still counted), 03-23
    else:  # UNTIL in UTC, as DTSTART has a zone (RFC 5545 3.3.10)
        assert rule["UNTIL"][0] == datetime(2026, 3, 30, 6, 59, 59, tzinfo=UTC)
        assert b"UNTIL=20260330T065959Z" in old.to_ical()
    assert [n.uid for n in outcome.notices] == [outcome.new_uid, UID]
    assert [n.sequence for n in outcome.notices] == [0, 4]


def test_cancel_this_and_future_trims_the_series(series: Calendar) -> None:
    change = _change("cancel", FUTURE, recurrence_id=_at(date(2026, 3, 30), 9))
    outcome = apply_change(series, change, stamp=STAMP)
    assert _instances(outcome) == [i for i in _base() if i[1] < "2026-03-30"]
    assert all("RECURRENCE-ID" not in e for e in _events(outcome.writes[0][1]))


def test_update_this_and_future_attendees_goes_to_the_new_series(series: Calendar) -> None:
    change = _change(
        "update",
        FUTURE,
        recurrence_id=_at(date(2026, 3, 23), 9),
        attendees=(Participant("mailto:alice@example.org"), Participant("dan@example.org")),
    )
    outcome = apply_change(series, change, stamp=STAMP)
    expected = [("new" if item[1] >= "2026-03-23" else UID, *item[1:]) for item in _base()]
    assert _instances(outcome) == expected
    new_master = _master(outcome.writes[0][1])
    partstats = {str(a): a.params["PARTSTAT"] for a in new_master["ATTENDEE"]}
    assert partstats == {
        "mailto:alice@example.org": "ACCEPTED",
        "mailto:dan@example.org": "NEEDS-ACTION",
    }
    old_master = _master(outcome.writes[1][1])
    assert {str(a) for a in old_master["ATTENDEE"]} == {
        "mailto:alice@example.org",
        "mailto:bob@example.org",
    }


def test_this_and_future_from_the_first_instance_is_the_whole_series(series: Calendar) -> None:
    change = _move(FUTURE, _at(DAYS[0], 9), _at(DAYS[0], 10), _at(DAYS[0], 11))
    outcome = apply_change(series, change, stamp=STAMP)
    assert outcome.new_uid is None
    assert [uid for uid, _ in outcome.writes] == [UID]
    expected = [
        (UID, item[1].replace(" 09:00", " 10:00").replace(" 14:00", " 15:00"), 60, item[3])
        for item in _base()
    ]
    assert _instances(outcome) == expected


def test_a_split_is_deterministic_and_replays_safely(series: Calendar) -> None:
    at = _at(date(2026, 3, 30), 9)
    change = _move(FUTURE, at, _at(date(2026, 3, 30), 11), _at(date(2026, 3, 30), 12))
    first = apply_change(series, change, stamp=STAMP)
    # a crash after the new series was written: the old resource is unchanged, so the
    # replay computes the same two writes
    again = apply_change(series, change, stamp=STAMP)
    assert [(u, c and c.to_ical()) for u, c in first.writes] == [
        (u, c and c.to_ical()) for u, c in again.writes
    ]
    new_resource = first.writes[0][1]
    assert new_resource is not None
    assert already_applied(new_resource, replace(change, uid=first.new_uid or ""))
    assert not already_applied(series, change)
    # both written: the trimmed old series carries the key, the replay writes nothing
    old = first.writes[1][1]
    assert already_applied(old, change)
    replay = apply_change(old, change, stamp=STAMP)  # type: ignore[arg-type]
    assert (replay.writes, replay.notices, replay.replayed) == ((), (), True)
    assert replay.new_uid == first.new_uid
    assert replay.sequence == 4


# ---------------------------------------------------------------- other kinds of time

ALL_DAY = """BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//test//EN
BEGIN:VEVENT
UID:offsite@example.org
DTSTAMP:20260101T000000Z
DTSTART;VALUE=DATE:20260306
DTEND;VALUE=DATE:20260307
RRULE:FREQ=WEEKLY;UNTIL=20260403
SUMMARY:Offsite
END:VEVENT
END:VCALENDAR
"""


def _all_day(outcome: ChangeOutcome) -> list[tuple[str, str]]:
    return [(item[0], item[1]) for item in _instances(outcome)]


def test_all_day_series_keep_value_date() -> None:
    calendar = Calendar.from_ical(ALL_DAY)
    uid = "offsite@example.org"
    fridays = [date(2026, 3, 6) + timedelta(weeks=w) for w in range(5)]
    zone = "Europe/Berlin"
    move = _change(
        "move",
        INSTANCE,
        uid=uid,
        recurrence_id=_at(fridays[1], 0),
        start=_at(date(2026, 3, 12), 0),
        end=_at(date(2026, 3, 14), 0),
    )
    outcome = apply_change(calendar, move, stamp=STAMP, floating_zone=zone)
    got = [(item[1], item[2]) for item in _instances(outcome)]
    assert got == [
        ("2026-03-06", 1440),
        ("2026-03-12", 2880),
        *[(day.isoformat(), 1440) for day in fridays[2:]],
    ]
    assert b"DTSTART;VALUE=DATE:20260312" in outcome.writes[0][1].to_ical()  # type: ignore[union-attr]
    split = _change(
        "move",
        FUTURE,
        uid=uid,
        recurrence_id=_at(fridays[2], 0),
        start=_at(date(2026, 3, 19), 0),
        end=_at(date(2026, 3, 20), 0),
    )
    outcome = apply_change(calendar, split, stamp=STAMP, floating_zone=zone)
    assert _all_day(outcome) == [
        (uid, "2026-03-06"),
        (uid, "2026-03-13"),
        ("new", "2026-03-19"),
        ("new", "2026-03-26"),
        ("new", "2026-04-02"),
    ]
    old = outcome.writes[1][1]
    assert old is not None
    assert b"UNTIL=20260319;" in old.to_ical() or b"UNTIL=20260319\r" in old.to_ical()
    new = outcome.writes[0][1]
    assert new is not None
    assert b"DTSTART;VALUE=DATE:20260319" in new.to_ical()
    assert b"UNTIL=20260402" in new.to_ical()  # moved back a day with the series


def test_all_day_events_move_by_whole_days_only() -> None:
    calendar = Calendar.from_ical(ALL_DAY)
    change = _change(
        "move",
        SERIES,
        uid="offsite@example.org",
        start=_at(date(2026, 3, 6), 9),
        end=_at(date(2026, 3, 6), 10),
    )
    with pytest.raises(ChangeError) as caught:
        apply_change(calendar, change, stamp=STAMP, floating_zone="Europe/Berlin")
    assert caught.value.code == "change.not_whole_days"
    # the message names the local times in the zone the dates are read in, not UTC
    assert "2026-03-06 09:00 to 2026-03-06 10:00 in Europe/Berlin" in caught.value.message


FLOATING = """BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//test//EN
BEGIN:VEVENT
UID:gym@example.org
DTSTAMP:20260101T000000Z
DTSTART:20260303T070000
DURATION:PT1H
RRULE:FREQ=DAILY;UNTIL=20260309T070000
SUMMARY:Gym
END:VEVENT
END:VCALENDAR
"""


def test_floating_series_stay_floating() -> None:
    calendar = Calendar.from_ical(FLOATING)
    uid = "gym@example.org"
    at = _at(date(2026, 3, 5), 7, zone=NEW_YORK)
    view = find_event(calendar, uid, at, floating_zone="America/New_York")
    assert view is not None
    assert (view.start, view.timezone, view.all_day) == (at, None, False)
    change = _change(
        "move",
        FUTURE,
        uid=uid,
        recurrence_id=at,
        start=_at(date(2026, 3, 5), 6, 30, zone=NEW_YORK),
        end=_at(date(2026, 3, 5), 7, 30, zone=NEW_YORK),
    )
    outcome = apply_change(calendar, change, stamp=STAMP, floating_zone="America/New_York")
    got = [(item[0], item[1], item[2]) for item in _instances(outcome, NEW_YORK)]
    assert got == [
        (uid, "2026-03-03 07:00", 60),
        (uid, "2026-03-04 07:00", 60),
        ("new", "2026-03-05 06:30", 60),
        ("new", "2026-03-06 06:30", 60),
        ("new", "2026-03-07 06:30", 60),
        ("new", "2026-03-08 06:30", 60),  # New York's DST starts; floating times ignore it
        ("new", "2026-03-09 06:30", 60),
    ]
    old, new = outcome.writes[1][1], outcome.writes[0][1]
    assert old is not None and new is not None
    assert b"UNTIL=20260305T065959;" in old.to_ical() or b"UNTIL=20260305T065959\r" in old.to_ical()
    assert b"DTSTART:20260305T063000\r" in new.to_ical()
    assert b"DURATION:PT1H" in new.to_ical()


def test_a_single_utc_event_moves_and_stays_utc() -> None:
    calendar = Calendar.from_ical(
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//EN\r\nBEGIN:VEVENT\r\nUID:one\r\n"
        "DTSTAMP:20260101T000000Z\r\nDTSTART:20260310T100000Z\r\nDTEND:20260310T110000Z\r\n"
        "SUMMARY:Call\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
    )
    change = _change(
        "move",
        SERIES,
        uid="one",
        start=Instant.parse("2026-03-11T15:00:00Z"),
        end=Instant.parse("2026-03-11T15:30:00Z"),
    )
    outcome = apply_change(calendar, change, stamp=STAMP)
    text = outcome.writes[0][1].to_ical()  # type: ignore[union-attr]
    assert b"DTSTART:20260311T150000Z" in text and b"DTEND:20260311T153000Z" in text
    assert b"SEQUENCE:1" in text
    view = find_event(outcome.writes[0][1], "one")  # type: ignore[arg-type]
    assert view is not None
    assert (view.timezone, view.recurring, view.recurrence_id, view.sequence) == (
        "UTC",
        False,
        None,
        1,
    )
    with pytest.raises(ChangeError) as caught:
        apply_change(
            calendar,
            _change(
                "cancel", INSTANCE, uid="one", recurrence_id=Instant.parse("2026-03-10T10:00:00Z")
            ),
            stamp=STAMP,
        )
    assert caught.value.code == "change.not_recurring"
    assert apply_change(calendar, _change("cancel", SERIES, uid="one"), stamp=STAMP).writes == (
        ("one", None),
    )


# ---------------------------------------------------------------- reading


def test_find_event_resolves_masters_and_overrides(series: Calendar) -> None:
    plain = find_event(series, UID, _at(date(2026, 3, 30), 9))
    assert plain is not None
    assert (plain.start, plain.end) == (_at(date(2026, 3, 30), 9), _at(date(2026, 3, 30), 10))
    assert (plain.sequence, plain.overridden, plain.recurring) == (2, False, True)
    assert (plain.title, plain.organizer) == ("Standup", "mailto:olga@example.org")
    assert [(p.address, p.required) for p in plain.attendees] == [
        ("mailto:alice@example.org", True),
        ("mailto:bob@example.org", False),
    ]
    moved = find_event(series, UID, _at(OVERRIDDEN, 9))
    assert moved is not None
    assert (moved.start, moved.sequence, moved.overridden) == (_at(OVERRIDDEN, 14), 3, True)
    assert find_event(series, UID, _at(EXCLUDED, 9)) is None  # EXDATE
    assert find_event(series, UID, _at(date(2026, 3, 30), 10)) is None  # not an instance
    assert find_event(series, UID, _at(date(2026, 4, 27), 9)) is None  # after the end
    assert find_event(series, "other") is None
    whole = find_event(series, UID)
    assert whole is not None
    assert (whole.start, whole.recurrence_id, whole.timezone) == (
        _at(DAYS[0], 9),
        None,
        "Europe/Berlin",
    )


def test_resource_etag_is_a_stable_digest(series: Calendar) -> None:
    tag = resource_etag(series)
    assert tag.startswith("sha256:") and len(tag) == len("sha256:") + 64
    assert resource_etag(Calendar.from_ical(series.to_ical())) == tag
    outcome = apply_change(
        series, _change("cancel", INSTANCE, recurrence_id=_at(DAYS[1], 9)), stamp=STAMP
    )
    assert resource_etag(outcome.writes[0][1]) != tag  # type: ignore[arg-type]


# ---------------------------------------------------------------- stored objects and replays


@pytest.mark.parametrize(
    "change",
    [
        _move(INSTANCE, _at(DAYS[1], 9), _at(DAYS[1], 11), _at(DAYS[1], 12)),
        _change("cancel", INSTANCE, recurrence_id=_at(DAYS[1], 9)),
        _change("update", SERIES, title="Renamed"),
        _move(FUTURE, _at(DAYS[4], 9), _at(DAYS[4], 8), _at(DAYS[4], 9)),
        _change("cancel", FUTURE, recurrence_id=_at(DAYS[4], 9)),
    ],
    ids=["move-instance", "cancel-instance", "update-series", "move-future", "cancel-future"],
)
def test_written_objects_have_no_method_carry_the_key_and_replay(
    series: Calendar, change: EventChange
) -> None:
    before = series.to_ical()
    outcome = apply_change(series, change, stamp=STAMP)
    assert series.to_ical() == before  # the input is not modified
    assert not already_applied(series, change)
    for _, resource in outcome.writes:
        assert resource is not None
        assert "METHOD" not in resource  # RFC 4791 section 4.1
        text = resource.to_ical()
        assert b"BEGIN:VTIMEZONE" in text and b"TZID:Europe/Berlin" in text
        assert b"DTSTAMP:20260201T120000Z" in text
    stored = outcome.writes[-1][1]
    assert stored is not None
    assert already_applied(stored, change)
    assert any(str(e.get(IDEMPOTENCY_PROPERTY)) == change.idempotency_key for e in _events(stored))
    replay = apply_change(stored, change, stamp=Instant.parse("2026-02-02T00:00:00Z"))
    assert replay.replayed and replay.writes == () and replay.notices == ()
    assert replay.sequence == outcome.sequence
    assert not already_applied(None, change)


# ---------------------------------------------------------------- refusals


@pytest.mark.parametrize(
    ("change", "code"),
    [
        (_change("move", SERIES, uid="nobody"), "change.invalid"),  # no start/end
        (_change("cancel", SERIES, uid="nobody"), "calendar.not_found"),
        (_change("cancel", INSTANCE, recurrence_id=_at(EXCLUDED, 9)), "calendar.not_found"),
        (_change("cancel", INSTANCE, recurrence_id=_at(DAYS[1], 10)), "calendar.not_found"),
        (_change("cancel", INSTANCE), "change.invalid"),  # no recurrence_id
        (_change("cancel", SERIES, start=_at(DAYS[1], 9), end=_at(DAYS[1], 10)), "change.invalid"),
        (_change("move", SERIES, start=_at(DAYS[1], 9), end=_at(DAYS[1], 9)), "change.invalid"),
        (
            _change("move", SERIES, title="x", start=_at(DAYS[1], 9), end=_at(DAYS[1], 10)),
            "change.invalid",
        ),
        (_change("update", SERIES, start=_at(DAYS[1], 9)), "change.invalid"),
        (_change("update", SERIES, key="", title="t"), "change.invalid"),
        (_change("update", SERIES), "change.invalid"),  # nothing to change
        (_change("update", SERIES, organizer="not an address"), "change.bad_address"),
        (
            _change(
                "update", SERIES, attendees=(Participant("a@x.org"), Participant("mailto:A@x.org"))
            ),
            "change.duplicate_attendee",
        ),
    ],
)
def test_refusals(series: Calendar, change: EventChange, code: str) -> None:
    with pytest.raises(ChangeError) as caught:
        apply_change(series, change, stamp=STAMP)
    assert caught.value.code == code


def test_a_day_shift_of_a_monthday_rule_is_refused() -> None:
    calendar = _series("FREQ=MONTHLY;BYMONTHDAY=2;COUNT=3")
    change = _change("move", SERIES, start=_at(date(2026, 3, 3), 9), end=_at(date(2026, 3, 3), 10))
    with pytest.raises(ChangeError) as caught:
        apply_change(calendar, change, stamp=STAMP)
    assert caught.value.code == "change.unsupported_rule"
    # the same rule moved within its day is fine
    later = _change("move", SERIES, start=_at(date(2026, 3, 2), 11), end=_at(date(2026, 3, 2), 12))
    outcome = apply_change(calendar, later, stamp=STAMP)
    assert [item[1] for item in _instances(outcome)][:2] == ["2026-03-02 11:00", "2026-04-02 11:00"]


def test_wrong_types_are_invalid_arguments(series: Calendar) -> None:
    change = _change("cancel", SERIES)
    for call in (
        lambda: apply_change("text", change, stamp=STAMP),  # type: ignore[arg-type]
        lambda: apply_change(series, "change", stamp=STAMP),  # type: ignore[arg-type]
        lambda: apply_change(series, change, stamp="now"),  # type: ignore[arg-type]
        lambda: apply_change(series, change, stamp=STAMP, floating_zone="Mars/Olympus"),
        lambda: find_event(series, 7),  # type: ignore[arg-type]
        lambda: apply_change(series, replace(change, recurrence_id="x"), stamp=STAMP),  # type: ignore[arg-type]
    ):
        with pytest.raises(InvalidArgumentError) as caught:
            call()
        assert caught.value.code == "calendars.invalid_argument"


# ---------------------------------------------------------------- properties


_CASES = st.fixed_dictionaries(
    {
        "weeks": st.integers(min_value=2, max_value=10),
        "excluded": st.sets(st.integers(min_value=1, max_value=9), max_size=3),
        "pick": st.integers(min_value=0, max_value=9),
        "shift": st.integers(min_value=-3 * 24 * 4, max_value=3 * 24 * 4).map(
            lambda quarters: timedelta(minutes=15 * quarters)
        ),
        "scope": st.sampled_from([INSTANCE, FUTURE, SERIES]),
        "action": st.sampled_from(["move", "cancel"]),
        "until": st.booleans(),
        "override": st.none() | st.integers(min_value=0, max_value=9),
    }
)


def _weekly(weeks: int, excluded: set[date], until: bool, moved: date | None) -> Calendar:
    """Weekly 09:00-10:00 Berlin from 2026-03-02, ``excluded`` days, the instance of
    ``moved`` at 11:00 by an override (SEQUENCE 1)."""
    last = DAYS[0] + timedelta(weeks=weeks - 1)
    end_rule = f"UNTIL={last:%Y%m%d}T235959Z" if until else f"COUNT={weeks}"
    exdates = "".join(f"EXDATE;TZID=Europe/Berlin:{d:%Y%m%d}T090000\r\n" for d in sorted(excluded))
    override = (
        ""
        if moved is None
        else "BEGIN:VEVENT\r\nUID:p\r\nDTSTAMP:20260101T000000Z\r\nSEQUENCE:1\r\n"
        f"RECURRENCE-ID;TZID=Europe/Berlin:{moved:%Y%m%d}T090000\r\n"
        f"DTSTART;TZID=Europe/Berlin:{moved:%Y%m%d}T110000\r\n"
        f"DTEND;TZID=Europe/Berlin:{moved:%Y%m%d}T120000\r\nSUMMARY:P\r\nEND:VEVENT\r\n"
    )
    return Calendar.from_ical(
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//EN\r\nBEGIN:VEVENT\r\nUID:p\r\n"
        "DTSTAMP:20260101T000000Z\r\nDTSTART;TZID=Europe/Berlin:20260302T090000\r\n"
        f"DTEND;TZID=Europe/Berlin:20260302T100000\r\nRRULE:FREQ=WEEKLY;{end_rule}\r\n"
        f"{exdates}SUMMARY:P\r\nEND:VEVENT\r\n{override}END:VCALENDAR\r\n"
    )


@settings(max_examples=40, deadline=None)
@given(case=_CASES)
def test_any_weekly_change_matches_the_written_down_instances(case: dict[str, Any]) -> None:
    """Weekly series across the DST change of 2026-03-29, some weeks excluded, one perhaps
    overridden to 11:00, one instance moved (by up to three days either way) or cancelled,
    alone, with the later ones, or all."""
    days = [DAYS[0] + timedelta(weeks=w) for w in range(case["weeks"])]
    excluded = {days[i] for i in case["excluded"] if i < len(days)}
    kept = [day for day in days if day not in excluded]
    target = kept[case["pick"] % len(kept)]
    late = None if case["override"] is None else kept[case["override"] % len(kept)]
    scope, action, shift = case["scope"], case["action"], case["shift"]
    new_start = datetime(target.year, target.month, target.day, 9, tzinfo=BERLIN) + shift
    moved = Instant.from_datetime(new_start)
    change = EventChange(
        action=action,
        uid="p",
        scope=scope,
        recurrence_id=_at(target, 9),
        start=moved if action == "move" else None,
        end=moved.plus_seconds(3600) if action == "move" else None,
        idempotency_key="k",
    )
    calendar = _weekly(case["weeks"], excluded, case["until"], late)
    outcome = apply_change(calendar, change, stamp=STAMP)

    def hour(day: date) -> int:
        return 11 if day == late else 9

    def wall(day: date, at: int | None = None) -> str:  # wall-clock arithmetic in Berlin
        moved = datetime(day.year, day.month, day.day, at or hour(day), tzinfo=BERLIN) + shift
        # a wall time in the spring-forward gap has no instant of its own (RFC 5545 3.3.5
        # reads it an hour later); such draws say nothing the others do not
        real = moved.astimezone(UTC).astimezone(BERLIN)
        assume(moved.replace(tzinfo=None) == real.replace(tzinfo=None))
        return f"{moved:%Y-%m-%d %H:%M}"

    touched = {
        INSTANCE: [target],
        FUTURE: [day for day in kept if day >= target],
        SERIES: kept,
    }[scope]
    whole = scope is SERIES or (scope is FUTURE and target == kept[0])
    expected = []
    for day in kept:
        if day not in touched:
            expected.append(("p", f"{day} {hour(day):02}:00"))
        elif action == "move" and scope is INSTANCE:
            expected.append(("p", wall(day, 9)))
        elif action == "move":
            expected.append(("p" if scope is SERIES or whole else "new", wall(day)))
    got = [(item[0], item[1]) for item in _instances(outcome)]
    assert got == sorted(expected, key=lambda item: (item[1], item[0]))
    stored = [e for uid, r in outcome.writes if r is not None and uid == "p" for e in _events(r)]
    if stored:  # the change's SEQUENCE is the highest of the series (RFC 5546 2.1.4)
        assert max(int(e.get("SEQUENCE", 0)) for e in stored) == outcome.sequence


# ---------------------------------------------------------------- more shapes of resources


def test_update_one_instance_removing_an_attendee_cancels_them_for_it(series: Calendar) -> None:
    day = date(2026, 3, 9)
    change = _change(
        "update",
        INSTANCE,
        recurrence_id=_at(day, 9),
        attendees=(Participant("mailto:alice@example.org"),),
    )
    outcome = apply_change(series, change, stamp=STAMP)
    request, cancel = outcome.notices
    assert (request.method, request.recurrence_id, request.sequence) == ("REQUEST", _at(day, 9), 4)
    assert [p.address for p in request.recipients] == ["mailto:alice@example.org"]
    assert (cancel.method, cancel.recurrence_id, cancel.sequence) == ("CANCEL", _at(day, 9), 4)
    assert [p.address for p in cancel.recipients] == ["mailto:bob@example.org"]
    assert _instances(outcome) == _base()  # no time changed


def test_other_events_in_the_resource_are_kept(series: Calendar) -> None:
    other = Event()
    for name, value in (
        ("UID", "other@example.org"),
        ("DTSTAMP", datetime(2026, 1, 1, tzinfo=UTC)),
        ("DTSTART", datetime(2026, 3, 4, 12, tzinfo=UTC)),
        ("DTEND", datetime(2026, 3, 4, 13, tzinfo=UTC)),
        ("SUMMARY", "Lunch"),
    ):
        other.add(name, value)
    series.add_component(other)
    change = _change("cancel", FUTURE, recurrence_id=_at(date(2026, 3, 9), 9))
    outcome = apply_change(series, change, stamp=STAMP)
    written = outcome.writes[0][1]
    assert written is not None
    lunch = [e for e in _events(written) if str(e["UID"]) == "other@example.org"]
    assert len(lunch) == 1 and lunch[0].to_ical() == other.to_ical()
    assert not already_applied(
        written, replace(change, uid="other@example.org")
    )  # only the changed UID carries the key


def test_a_resource_of_one_override_only(series: Calendar) -> None:
    # an attendee's copy invited to one instance: no master
    lone = Calendar()
    for name, value in series.items():
        lone[name] = value
    lone.add_component(next(e for e in _events(series) if "RECURRENCE-ID" in e))
    moved = _move(INSTANCE, _at(OVERRIDDEN, 9), _at(OVERRIDDEN, 16), _at(OVERRIDDEN, 17))
    outcome = apply_change(lone, moved, stamp=STAMP)
    assert _instances(outcome) == [(UID, "2026-04-06 16:00", 60, "Standup late")]
    assert outcome.sequence == 4
    view = find_event(lone, UID, _at(OVERRIDDEN, 9))
    assert view is not None and view.overridden
    assert find_event(lone, UID) is None  # no series to show
    cancel = _change("cancel", INSTANCE, recurrence_id=_at(OVERRIDDEN, 9))
    assert apply_change(lone, cancel, stamp=STAMP).writes == ((UID, None),)
    with pytest.raises(ChangeError) as caught:
        apply_change(
            lone,
            _change("move", SERIES, start=_at(OVERRIDDEN, 16), end=_at(OVERRIDDEN, 17)),
            stamp=STAMP,
        )
    assert caught.value.code == "change.bad_event"


def test_rdates_go_with_the_split() -> None:
    calendar = _series("FREQ=WEEKLY;COUNT=4")
    master = _master(calendar)
    master.add(
        "RDATE", [datetime(2026, 3, 12, 9, tzinfo=BERLIN), datetime(2026, 4, 2, 9, tzinfo=BERLIN)]
    )
    change = _move(
        FUTURE, _at(date(2026, 3, 23), 9), _at(date(2026, 3, 23), 10), _at(date(2026, 3, 23), 11)
    )
    outcome = apply_change(calendar, change, stamp=STAMP)
    got = [(item[0], item[1]) for item in _instances(outcome)]
    assert got == [
        (UID, "2026-03-02 09:00"),
        (UID, "2026-03-09 09:00"),
        (UID, "2026-03-12 09:00"),  # an RDATE before the split stays
        ("new", "2026-03-23 10:00"),
        ("new", "2026-04-02 10:00"),  # a later RDATE moves with the new series
        ("new", "2026-04-06 15:00"),  # the override (of no rule instance) moves along too
    ]
    rdate = _move(
        FUTURE, _at(date(2026, 3, 12), 9), _at(date(2026, 3, 12), 10), _at(date(2026, 3, 12), 11)
    )
    with pytest.raises(ChangeError) as caught:
        apply_change(calendar, rdate, stamp=STAMP)
    assert caught.value.code == "change.unsupported_rule"
    # one RDATE instance alone can move
    alone = replace(rdate, scope=INSTANCE)
    instances = _instances(apply_change(calendar, alone, stamp=STAMP))
    assert (UID, "2026-03-12 10:00", 60, "Standup") in instances


def test_all_day_instances_cancel_and_the_series_moves_by_days() -> None:
    calendar = Calendar.from_ical(ALL_DAY)
    uid, zone = "offsite@example.org", "Europe/Berlin"
    cancel = _change("cancel", INSTANCE, uid=uid, recurrence_id=_at(date(2026, 3, 13), 0))
    outcome = apply_change(calendar, cancel, stamp=STAMP, floating_zone=zone)
    assert b"EXDATE;VALUE=DATE:20260313" in outcome.writes[0][1].to_ical()  # type: ignore[union-attr]
    assert [item[1] for item in _instances(outcome)] == [
        "2026-03-06",
        "2026-03-20",
        "2026-03-27",
        "2026-04-03",
    ]
    move = _change(
        "move",
        SERIES,
        uid=uid,
        start=_at(date(2026, 3, 5), 0),
        end=_at(date(2026, 3, 6), 0),
    )
    outcome = apply_change(calendar, move, stamp=STAMP, floating_zone=zone)
    assert [item[1] for item in _instances(outcome)] == [
        "2026-03-05",
        "2026-03-12",
        "2026-03-19",
        "2026-03-26",
        "2026-04-02",
    ]
    text = outcome.writes[0][1].to_ical()  # type: ignore[union-attr]
    assert b"DTSTART;VALUE=DATE:20260305" in text and b"UNTIL=20260402" in text
    view = find_event(calendar, uid, _at(date(2026, 3, 20), 0), floating_zone=zone)
    assert view is not None
    assert (view.all_day, view.timezone, view.end) == (True, None, _at(date(2026, 3, 21), 0))


def test_a_split_of_an_endless_series() -> None:
    calendar = _series("FREQ=WEEKLY")
    at = _at(date(2026, 3, 23), 9)
    change = _move(FUTURE, at, _at(date(2026, 3, 23), 9, 30), _at(date(2026, 3, 23), 10, 30))
    outcome = apply_change(calendar, change, stamp=STAMP)
    new, old = (resource for _, resource in outcome.writes)
    assert new is not None and old is not None
    assert _master(old)["RRULE"]["UNTIL"] == [datetime(2026, 3, 23, 7, 59, 59, tzinfo=UTC)]
    assert "UNTIL" not in _master(new)["RRULE"] and "COUNT" not in _master(new)["RRULE"]
    got = [(item[0], item[1]) for item in _instances(outcome) if item[1] < "2026-04-14"]
    assert got == [
        (UID, "2026-03-02 09:00"),
        (UID, "2026-03-09 09:00"),
        ("new", "2026-03-23 09:30"),
        ("new", "2026-03-30 09:30"),
        ("new", "2026-04-06 14:30"),
        ("new", "2026-04-13 09:30"),
    ]


def test_find_event_reads_a_range_override_another_program_wrote() -> None:
    calendar = _series("FREQ=WEEKLY;COUNT=8")
    ranged = next(e for e in _events(calendar) if "RECURRENCE-ID" in e)
    ranged["RECURRENCE-ID"].params["RANGE"] = "THISANDFUTURE"  # 04-06 on: 5 hours later
    later = find_event(calendar, UID, _at(date(2026, 4, 13), 9))
    assert later is not None
    assert (later.start, later.end, later.title, later.overridden) == (
        _at(date(2026, 4, 13), 14),
        _at(date(2026, 4, 13), 15),
        "Standup late",
        True,
    )
    oracle = recurring_ical_events.of(calendar).at((2026, 4, 13))
    assert [e["DTSTART"].dt for e in oracle] == [datetime(2026, 4, 13, 14, tzinfo=BERLIN)]
    earlier = find_event(calendar, UID, _at(date(2026, 3, 30), 9))
    assert earlier is not None and earlier.start == _at(date(2026, 3, 30), 9)
    moved = apply_change(
        calendar,
        _change("move", SERIES, start=_at(DAYS[0], 10), end=_at(DAYS[0], 11)),
        stamp=STAMP,
    )
    kept = next(e for e in _events(moved.writes[0][1]) if "RECURRENCE-ID" in e)
    assert kept["RECURRENCE-ID"].params["RANGE"] == "THISANDFUTURE"
    assert kept["RECURRENCE-ID"].dt == datetime(2026, 4, 6, 10, tzinfo=BERLIN)


def test_changes_read_calendars_parsed_by_cerebri_ics() -> None:
    """A calendar read by ``cerebri.ics.parse_calendar`` holds cerebri's tzdata zones; finding
    and changing its events copies them (a plain ``ZoneInfo.from_file`` zone cannot be
    copied, which made ``find_event`` fail on every calendar read from a file)."""
    from cerebri.calendars import EventChange, apply_change, find_event
    from cerebri.ics import parse_calendar
    from cerebri.temporal import Instant

    text = (
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\nBEGIN:VEVENT\r\n"
        "UID:zoned@example.org\r\nDTSTAMP:20260101T000000Z\r\n"
        "DTSTART;TZID=Europe/Berlin:20261201T090000\r\n"
        "DTEND;TZID=Europe/Berlin:20261201T100000\r\nRRULE:FREQ=WEEKLY;COUNT=3\r\n"
        "END:VEVENT\r\nEND:VCALENDAR\r\n"
    )
    calendar = parse_calendar(text.encode())
    view = find_event(calendar, "zoned@example.org", Instant.parse("2026-12-08T08:00:00Z"))
    assert view is not None
    assert (view.start, view.end) == (
        Instant.parse("2026-12-08T08:00:00Z"),
        Instant.parse("2026-12-08T09:00:00Z"),
    )
    change = EventChange(
        action="move",
        uid="zoned@example.org",
        scope=ChangeScope.INSTANCE,
        recurrence_id=Instant.parse("2026-12-08T08:00:00Z"),
        start=Instant.parse("2026-12-08T13:00:00Z"),
        end=Instant.parse("2026-12-08T14:00:00Z"),
        idempotency_key="k-zoned",
    )
    outcome = apply_change(calendar, change, stamp=Instant.parse("2026-12-03T00:00:00Z"))
    ((uid, written),) = outcome.writes
    assert uid == "zoned@example.org" and written is not None
    moved = find_event(written, "zoned@example.org", Instant.parse("2026-12-08T08:00:00Z"))
    assert moved is not None and moved.start == Instant.parse("2026-12-08T13:00:00Z")


def test_a_change_keeps_the_organizer_line_and_a_chair_role() -> None:
    """Rewriting attendees keeps what the calendar wrote about the people who stay: the
    organizer's CN and a ``ROLE=CHAIR`` (a user's trial found them replaced)."""
    from cerebri.calendars import EventChange, Participant, apply_change
    from cerebri.temporal import Instant

    text = (
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\nBEGIN:VEVENT\r\n"
        "UID:chair@example.org\r\nDTSTAMP:20260101T000000Z\r\n"
        "DTSTART:20261201T090000Z\r\nDTEND:20261201T100000Z\r\n"
        "ORGANIZER;CN=Alice Adams:mailto:alice@example.org\r\n"
        "ATTENDEE;ROLE=CHAIR;PARTSTAT=ACCEPTED;CN=Alice Adams:mailto:alice@example.org\r\n"
        "ATTENDEE;ROLE=REQ-PARTICIPANT;PARTSTAT=TENTATIVE:mailto:bob@example.org\r\n"
        "END:VEVENT\r\nEND:VCALENDAR\r\n"
    )
    change = EventChange(
        action="update",
        uid="chair@example.org",
        title="Renamed",
        organizer="mailto:alice@example.org",
        attendees=(
            Participant("mailto:alice@example.org", "Alice Adams", True),
            Participant("mailto:bob@example.org", None, False),
            Participant("mailto:dave@example.org", "Dave", True),
        ),
        idempotency_key="k-chair",
    )
    outcome = apply_change(
        Calendar.from_ical(text), change, stamp=Instant.parse("2026-12-03T00:00:00Z")
    )
    ((_, written),) = outcome.writes
    assert written is not None
    (event,) = written.walk("VEVENT")
    assert event["ORGANIZER"].params["CN"] == "Alice Adams"
    lines = {str(line).lower(): line.params for line in event["ATTENDEE"]}
    assert lines["mailto:alice@example.org"]["ROLE"] == "CHAIR"
    assert lines["mailto:alice@example.org"]["PARTSTAT"] == "ACCEPTED"
    assert lines["mailto:bob@example.org"]["ROLE"] == "OPT-PARTICIPANT"  # made optional
    assert lines["mailto:bob@example.org"]["PARTSTAT"] == "TENTATIVE"
    assert lines["mailto:dave@example.org"]["PARTSTAT"] == "NEEDS-ACTION"
    # the organizer's own line answers no one: no RSVP added (decision 0073)
    assert "RSVP" not in lines["mailto:alice@example.org"]
    assert {lines[k]["RSVP"] for k in lines if "alice" not in k} == {"TRUE"}
