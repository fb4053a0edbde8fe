"""The VTIMEZONEs cerebri writes cover every instance (decision 0065, RFC 5545 section 3.6.5).

Each written object is parsed with the icalendar library, and its VTIMEZONE text is read by
two readers that take the offsets from the VTIMEZONE alone, never from a tz database:
``dateutil.tz.tzical`` and icalendar's own ``Timezone.to_tz(lookup_tzid=False)``. The
instances are the written RRULE expanded by dateutil; the offsets they must have are
written down by hand (the zones' laws), not computed from zoneinfo. A last test compares
every zone zoneinfo knows against zoneinfo itself, the one place zoneinfo is the oracle.
"""

from __future__ import annotations

import io
import zoneinfo
from datetime import date, datetime, time, timedelta, tzinfo
from typing import Any

import pytest
from dateutil.rrule import rrulestr
from dateutil.tz import tzical
from icalendar import Calendar, Event, Timezone

from cerebri.calendars import ChangeScope, EventChange, apply_change
from cerebri.calendars.itip import Attendee, ItipMethod, itip_messages, stored_object
from cerebri.calendars.vtimezones import GENERATED, add_zones, zone_component
from cerebri.temporal import Instant

STAMP = Instant.parse("2026-02-01T12:00:00Z")
ORGANIZER = "olga@example.org"
PEOPLE = [Attendee("alice@example.org")]
H = 3600

# UTC offsets (seconds) in mid-January and mid-July, the same every year from 2026 on.
LAWS = {
    "Europe/Berlin": (1 * H, 2 * H),
    "America/New_York": (-5 * H, -4 * H),
    "Australia/Sydney": (11 * H, 10 * H),  # southern summer in January
    "Asia/Kolkata": (5 * H + 1800, 5 * H + 1800),  # no daylight time
    "America/Sao_Paulo": (-3 * H, -3 * H),  # no daylight time since 2019
}
YEARS = (2026, 2031, 2040)


def _vevent(zone: str, start: str, rule: str, uid: str = "u-1") -> str:
    return (
        f"BEGIN:VEVENT\r\nUID:{uid}\r\nDTSTAMP:20260101T000000Z\r\nSEQUENCE:0\r\n"
        f"DTSTART;TZID={zone}:{start}\r\nDTEND;TZID={zone}:{start[:9]}110000\r\n"
        f"RRULE:{rule}\r\nSUMMARY:Weekly\r\nEND:VEVENT\r\n"
    )


def _calendar(body: str, prodid: str = "-//test//EN") -> Calendar:
    return Calendar.from_ical(
        f"BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:{prodid}\r\n{body}END:VCALENDAR\r\n"
    )


def _event(zone: str, start: str, rule: str) -> Event:
    event = _calendar(_vevent(zone, start, rule)).walk("VEVENT")[0]
    assert isinstance(event, Event)
    return event


def _readers(data: bytes, zone: str) -> list[tzinfo]:
    """The zone as read from the object's VTIMEZONE text alone, by dateutil and by icalendar."""
    calendar = Calendar.from_ical(data)
    found = [tz for tz in calendar.walk("VTIMEZONE") if str(tz["TZID"]) == zone]
    assert len(found) == 1
    text = found[0].to_ical().decode()
    by_dateutil = tzical(io.StringIO(text)).get(zone)
    component = found[0]
    assert isinstance(component, Timezone)
    by_icalendar = component.to_tz(lookup_tzid=False)
    return [by_dateutil, by_icalendar]


def _walls(data: bytes, uid: str = "u-1") -> list[datetime]:
    """The series' instances (local wall times), its written RRULE expanded by dateutil."""
    event = next(e for e in Calendar.from_ical(data).walk("VEVENT") if str(e["UID"]) == uid)
    start = event.decoded("DTSTART").replace(tzinfo=None)
    rule = rrulestr(event["RRULE"].to_ical().decode(), dtstart=start, ignoretz=True)
    return list(rule.between(start - timedelta(days=1), _wall(2041, 1, 1, 0)))


def _wall(year: int, month: int, day: int, hour: int) -> datetime:
    """A local wall time (no zone)."""
    return datetime.combine(date(year, month, day), time(hour))


def _first_after(walls: list[datetime], day: date) -> datetime:
    return next(w for w in walls if w.date() >= day)


def _offset(reader: tzinfo, wall: datetime) -> int:
    offset = wall.replace(tzinfo=reader).utcoffset()
    assert offset is not None
    return int(offset.total_seconds())


def _assert_laws(data: bytes, zone: str, uid: str = "u-1") -> None:
    walls = _walls(data, uid)
    winter, summer = LAWS[zone]
    for reader in _readers(data, zone):
        for year in YEARS:
            assert _offset(reader, _first_after(walls, date(year, 1, 10))) == winter, (zone, year)
            assert _offset(reader, _first_after(walls, date(year, 7, 10))) == summer, (zone, year)


@pytest.mark.parametrize("zone", sorted(LAWS))
@pytest.mark.parametrize("method", [ItipMethod.REQUEST, ItipMethod.CANCEL])
def test_itip_messages_of_an_endless_series_cover_every_year(zone: str, method: ItipMethod) -> None:
    event = _event(zone, "20260105T100000", "FREQ=WEEKLY")
    messages = itip_messages(
        method, event, organizer=ORGANIZER, attendees=PEOPLE, sequence=1, dtstamp=STAMP
    )
    _assert_laws(messages[0].data, zone)


@pytest.mark.parametrize("zone", sorted(LAWS))
def test_the_stored_object_of_an_endless_series_covers_every_year(zone: str) -> None:
    data = stored_object(
        _event(zone, "20260105T100000", "FREQ=WEEKLY"),
        organizer=ORGANIZER,
        attendees=PEOPLE,
        sequence=0,
        dtstamp=STAMP,
    )
    _assert_laws(data, zone)


@pytest.mark.parametrize("zone", sorted(LAWS))
def test_a_change_to_a_stored_endless_series_writes_a_covering_vtimezone(zone: str) -> None:
    source = _calendar(_vevent(zone, "20260105T100000", "FREQ=WEEKLY"))
    tz = zoneinfo.ZoneInfo(zone)
    at = Instant.from_datetime(datetime(2026, 1, 12, 10, tzinfo=tz))
    change = EventChange(
        action="move",
        uid="u-1",
        scope=ChangeScope.INSTANCE,
        idempotency_key="k-1",
        recurrence_id=at,
        start=Instant.from_datetime(datetime(2026, 1, 12, 12, tzinfo=tz)),
        end=Instant.from_datetime(datetime(2026, 1, 12, 13, tzinfo=tz)),
    )
    outcome = apply_change(source, change, stamp=STAMP)
    [(_, written)] = outcome.writes
    assert written is not None
    _assert_laws(written.to_ical(), zone)


def test_a_bounded_count_series_is_covered_to_its_last_instance() -> None:
    # 300 weeks from 2026-01-05: the last instance is 299 weeks on, 2031-09-29.
    event = _event("Europe/Berlin", "20260105T100000", "FREQ=WEEKLY;COUNT=300")
    data = itip_messages(
        ItipMethod.REQUEST, event, organizer=ORGANIZER, attendees=PEOPLE, sequence=0, dtstamp=STAMP
    )[0].data
    walls = _walls(data)
    assert walls[-1] == _wall(2031, 9, 29, 10)
    for reader in _readers(data, "Europe/Berlin"):
        assert _offset(reader, walls[-1]) == 2 * H
        assert _offset(reader, _first_after(walls, date(2031, 1, 10))) == 1 * H
        assert _offset(reader, _first_after(walls, date(2031, 7, 10))) == 2 * H


@pytest.mark.parametrize("rule", ["FREQ=WEEKLY;UNTIL=20201231T130000Z", "FREQ=WEEKLY"])
def test_sao_paulo_dropping_daylight_time_in_2019_shows(rule: str) -> None:
    # Brazil's last daylight time ended 2019-02-17; the one due in November 2019 never came.
    event = _event("America/Sao_Paulo", "20180101T100000", rule)
    data = itip_messages(
        ItipMethod.REQUEST, event, organizer=ORGANIZER, attendees=PEOPLE, sequence=0, dtstamp=STAMP
    )[0].data
    walls = _walls(data)
    expected = {
        date(2018, 1, 10): -2 * H,
        date(2018, 7, 10): -3 * H,
        date(2019, 1, 10): -2 * H,
        date(2019, 3, 1): -3 * H,
        date(2019, 12, 10): -3 * H,
        date(2020, 1, 10): -3 * H,
        date(2020, 12, 10): -3 * H,
    }
    for reader in _readers(data, "America/Sao_Paulo"):
        for day, offset in expected.items():
            assert _offset(reader, _first_after(walls, day)) == offset, day


def test_a_vtimezone_the_source_has_is_kept_and_a_legacy_cerebri_one_is_remade() -> None:
    own = (
        "BEGIN:VTIMEZONE\r\nTZID:Europe/Berlin\r\nX-SERVER:own\r\nBEGIN:STANDARD\r\n"
        "DTSTART:19701025T030000\r\nRRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU\r\n"
        "TZOFFSETFROM:+0200\r\nTZOFFSETTO:+0100\r\nEND:STANDARD\r\nBEGIN:DAYLIGHT\r\n"
        "DTSTART:19700329T020000\r\nRRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU\r\n"
        "TZOFFSETFROM:+0100\r\nTZOFFSETTO:+0200\r\nEND:DAYLIGHT\r\nEND:VTIMEZONE\r\n"
    )
    series = _vevent("Europe/Berlin", "20260105T100000", "FREQ=WEEKLY")
    kept = _calendar(own + series)
    add_zones(kept)
    [zone] = kept.walk("VTIMEZONE")
    assert str(zone["X-SERVER"]) == "own" and "COMMENT" not in zone
    legacy = Timezone.from_tzid(
        "Europe/Berlin", first_date=date(2026, 1, 1), last_date=date(2028, 1, 1)
    )  # what cerebri wrote before decision 0065, with icalendar's COMMENT
    for prodid, remade in [("-//cerebri//itip//EN", True), ("-//other//EN", False)]:
        calendar = _calendar(legacy.to_ical().decode() + series, prodid)
        add_zones(calendar)
        [zone] = calendar.walk("VTIMEZONE")
        assert str(zone["COMMENT"]).startswith(GENERATED) is remade


def test_the_same_calendar_gives_the_same_bytes_with_zones_in_sorted_order() -> None:
    body = (
        "BEGIN:VEVENT\r\nUID:two\r\nDTSTAMP:20260101T000000Z\r\n"
        "DTSTART;TZID=Europe/Berlin:20260105T100000\r\n"
        "DTEND;TZID=America/New_York:20260105T050000\r\nRRULE:FREQ=WEEKLY\r\nEND:VEVENT\r\n"
    )
    outputs = []
    for _ in range(2):
        calendar = _calendar(body)
        add_zones(calendar)
        outputs.append(calendar.to_ical())
        assert [str(z["TZID"]) for z in calendar.walk("VTIMEZONE")] == [
            "America/New_York",
            "Europe/Berlin",
        ]
    assert outputs[0] == outputs[1]


def _zone_cases() -> list[Any]:
    return sorted(zoneinfo.available_timezones())


def test_every_zone_read_back_by_dateutil_agrees_with_zoneinfo_for_an_endless_series() -> None:
    """The RRULE tail against zoneinfo for every zone (zoneinfo reads the same TZif footer
    the tail is written from, so here it is the oracle): the 15th of every third month at
    noon, 2026 to 2045, and 2077 and 2090 (after Casablanca's listed changes end in 2087)."""
    years = [*range(2026, 2046), 2077, 2090]
    wrong = []
    for key in _zone_cases():
        component = zone_component(key, date(2026, 1, 5), None)
        if component is None:
            continue
        reader = tzical(io.StringIO(component.to_ical().decode())).get(key)
        truth = zoneinfo.ZoneInfo(key)
        for year in years:
            for month in (1, 4, 7, 10):
                wall = _wall(year, month, 15, 12)
                if _offset(reader, wall) != _offset(truth, wall):
                    wrong.append((key, wall))
    assert not wrong, wrong[:10]


def test_every_zone_read_back_by_dateutil_agrees_with_zoneinfo_for_a_bounded_series() -> None:
    """Explicit transitions against zoneinfo for every zone, 2026 to 2060 (past the end of
    the TZif files' listed transitions, and through Casablanca's Ramadan months, shorter
    than the 64-day steps of icalendar's own search): the 15th of every month at noon."""
    years = [*range(2026, 2041), 2055, 2060]
    wrong = []
    for key in _zone_cases():
        component = zone_component(key, date(2026, 1, 5), date(2060, 6, 1))
        if component is None:
            continue
        reader = tzical(io.StringIO(component.to_ical().decode())).get(key)
        truth = zoneinfo.ZoneInfo(key)
        for year in years:
            for month in range(1, 13):
                wall = _wall(year, month, 15, 12)
                if _offset(reader, wall) != _offset(truth, wall):
                    wrong.append((key, wall))
    assert not wrong, wrong[:10]


def test_casablanca_ramadan_months_are_written() -> None:
    # Morocco's clocks go back to +00 for Ramadan: in 2031 from 14 December, in 2032 (the
    # tz database's projection) until 18 January.
    walls = {_wall(2031, 12, 20, 12): 0, _wall(2032, 1, 15, 12): 0, _wall(2032, 2, 15, 12): H}
    for last in (date(2033, 1, 1), None):
        component = zone_component("Africa/Casablanca", date(2030, 1, 1), last)
        assert component is not None
        data = f"BEGIN:VCALENDAR\r\n{component.to_ical().decode()}END:VCALENDAR\r\n".encode()
        for reader in _readers(data, "Africa/Casablanca"):
            for wall, offset in walls.items():
                assert _offset(reader, wall) == offset, (last, wall)
