"""Every file of ``$CEREBRI_CONFORMANCE_DIR/ics/`` expanded over a stated window.

The expected UTC instants are worked out by hand from each file, the tz rules of the zones
involved and RFC 5545 (the reasoning is in the comments); none of them was produced by the
code under test. Offsets used: Europe/Berlin CET +1 / CEST +2 (2019: CEST from 03-31,
CET from 10-27; 2020: CET from 10-25; 2021: CET from 10-31), Europe/London GMT / BST +1,
Europe/Lisbon WET 0 / WEST +1 (2020: WET from 10-25), America/Vancouver and America/
Los_Angeles PST -8 / PDT -7 (2023: PDT 03-12 to 11-05; 2024: PDT from 03-10), America/
Montreal EDT -4 / EST -5 and America/Denver MDT -6 (2011: EST/MST from 11-06).
"""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path

import pytest

from cerebri.ics import BusyPeriod, busy_periods, parse_calendar, working_periods
from cerebri.temporal.instant import Instant
from tests.ics.helpers import span, spans, utc

pytestmark = pytest.mark.conformance

ALL_FILES = {
    "Germany_Holidays.ics",
    "daylight_saving_time.ics",
    "each_week_but_two_deleted.ics",
    "icalendar_issue_27_multiple_periods_in_freebusy_one_freebusy.ics",
    "icalendar_issue_722_timezone_transition_ambiguity.ics",
    "icalendar_issue_798_freebusy.ics",
    "icalendar_rfc_7953_2.ics",
    "icalendar_rfc_7953_3.ics",
    "issue_107_omitting_last_event.ics",
    "issue_113_period_in_rdate.ics",
    "issue_20_exdate_ignored.ics",
    "issue_28_rrule_with_UTC_endinginZ.ics",
    "issue_36_recurrence_ID_format.ics",
    "issue_48_daylight_aware_repeats.ics",
    "issue_4_rrule_until.ics",
    "issue_62_moved_event.ics",
    "issue_75_range_parameter.ics",
    "issue_86_x_wr_timezone_without_time_zone_in_dt.ics",
    "one_day_event_repeat_every_day.ics",
    "recurring_events_changed_duration.ics",
    "zero_size_event.ics",
}


def text(conformance: Path, name: str) -> bytes:
    return (conformance / "ics" / name).read_bytes()


def busy(
    conformance: Path, name: str, start: str, end: str, *, zone: str = "UTC", opaque: bool = False
) -> tuple[BusyPeriod, ...]:
    data = text(conformance, name)
    if opaque:  # look at the instances behind files whose events are all transparent
        data = data.replace(b"TRANSP:TRANSPARENT", b"TRANSP:OPAQUE")
    calendar = parse_calendar(data, source=name)
    return busy_periods([calendar], utc(start), utc(end), floating_zone=zone)


def day(text_: str) -> tuple[Instant, Instant]:
    """The UTC day ``YYYY-MM-DD`` (an all-day event in the default floating zone UTC)."""
    first = date.fromisoformat(text_)
    return utc(f"{first} 00:00"), utc(f"{first + timedelta(days=1)} 00:00")


def test_the_folder_holds_exactly_the_files_tested_here(conformance: Path) -> None:
    assert {path.name for path in (conformance / "ics").iterdir()} == ALL_FILES


# --------------------------------------------------------------------------- all transparent


GERMAN_HOLIDAYS = [
    # 2019, from the file's DTSTART values (each DTEND equals its DTSTART)
    "2019-01-01", "2019-01-06", "2019-03-05", "2019-04-19", "2019-04-21", "2019-04-22",
    "2019-05-01", "2019-05-30", "2019-06-10", "2019-06-20", "2019-08-15", "2019-10-03",
    "2019-10-31", "2019-11-01", "2019-11-17", "2019-12-25", "2019-12-26",
    # 2020
    "2020-01-01", "2020-01-06", "2020-02-25", "2020-04-10", "2020-04-12", "2020-04-13",
    "2020-05-01", "2020-05-21", "2020-06-01", "2020-06-11", "2020-08-15", "2020-10-03",
    "2020-10-31", "2020-11-01", "2020-11-15", "2020-12-25", "2020-12-26",
]  # fmt: skip


def test_germany_holidays_are_transparent(conformance: Path) -> None:
    # All 34 VEVENTs are TRANSP:TRANSPARENT, so nothing is busy; the file also has empty
    # "RRULE:" lines and all-day DTEND == DTSTART, which must not be refused.
    assert busy(conformance, "Germany_Holidays.ics", "2019-01-01 00:00", "2021-01-01 00:00") == ()


def test_germany_holidays_made_opaque_are_whole_days(conformance: Path) -> None:
    # With TRANSP flipped: one all-day period per holiday. An all-day DTEND equal to its
    # DTSTART is read as one day (the RFC 5545 3.6.1 default); "RRULE:" adds no repeats.
    found = busy(
        conformance, "Germany_Holidays.ics", "2019-01-01 00:00", "2021-01-01 00:00", opaque=True
    )
    assert spans(found) == [day(holiday) for holiday in GERMAN_HOLIDAYS]
    assert found[0].summary == "New Year's Day"
    assert all(period.recurrence_id is None for period in found)


def test_issue_28_transparent_bins(conformance: Path) -> None:
    # Every VEVENT is TRANSP:TRANSPARENT (bin collection reminders): nothing busy.
    found = busy(
        conformance, "issue_28_rrule_with_UTC_endinginZ.ics", "2020-04-01 00:00", "2020-06-01 00:00"
    )
    assert found == ()


def test_issue_28_instances_with_moved_days(conformance: Path) -> None:
    # Opaque copy. Black bin: every 2nd Thursday from 2020-04-02 (04-02, 04-16, 04-30,
    # 05-14, 05-28); the overrides RECURRENCE-ID;TZID=GMT Standard Time:20200416T000000
    # and ...20200528T000000 (a Windows zone name, date-times naming all-day instances)
    # move 04-16 to Fri 04-17 and 05-28 to Fri 05-29. Blue bin: every 2nd Thursday from
    # 04-09 (04-09, 04-23, 05-07, 05-21). All-day, read as UTC days.
    found = busy(
        conformance,
        "issue_28_rrule_with_UTC_endinginZ.ics",
        "2020-04-01 00:00",
        "2020-06-01 00:00",
        opaque=True,
    )
    expected_days = [
        "2020-04-02", "2020-04-09", "2020-04-17", "2020-04-23", "2020-04-30",
        "2020-05-07", "2020-05-14", "2020-05-21", "2020-05-29",
    ]  # fmt: skip
    assert spans(found) == [day(d) for d in expected_days]
    moved = [p for p in found if p.start == utc("2020-04-17 00:00")]
    assert moved[0].recurrence_id == "20200416"  # the all-day instance it replaces


def test_issue_62_transparent_karaoke(conformance: Path) -> None:
    assert (
        busy(conformance, "issue_62_moved_event.ics", "2021-11-01 00:00", "2022-02-01 00:00") == ()
    )


def test_issue_62_instances(conformance: Path) -> None:
    # Opaque copy. MONTHLY;BYDAY=-1FR from Fri 2021-11-26 21:30 Berlin with DTEND equal to
    # DTSTART: zero-length at 20:30Z (CET). Last Fridays: 11-26, 12-31, 2022-01-28. The
    # override RECURRENCE-ID 20211231T213000 moves the 12-31 instance to 12-17 21:30 (it has
    # no DTEND: zero length, RFC 5545 3.6.1).
    found = busy(
        conformance,
        "issue_62_moved_event.ics",
        "2021-11-01 00:00",
        "2022-02-01 00:00",
        opaque=True,
    )
    assert spans(found) == [
        span("2021-11-26 20:30", "2021-11-26 20:30"),
        span("2021-12-17 20:30", "2021-12-17 20:30"),
        span("2022-01-28 20:30", "2022-01-28 20:30"),
    ]
    assert [p.recurrence_id for p in found] == [
        "20211126T203000Z",
        "20211231T203000Z",
        "20220128T203000Z",
    ]


# --------------------------------------------------------------------------- events


def test_daylight_saving_time_week_around_the_change(conformance: Path) -> None:
    # Window Tue 2019-03-26 .. Fri 2019-04-05; Berlin changes to CEST on Sun 03-31.
    # Weekly series alive then (the others ended, or are single events outside the window):
    #   Chaostreff - CCCP   WE 19:00-21:00 (from 2019-02-13)
    #   Montessori          TH 08:30-14:30 (from 02-28, EXDATE 03-07) and FR (from 03-01)
    #   #TEC                TH 15:00-17:00 (from 2019-01-17)
    #   OpenLab             TH 18:00-20:00 (from 2017-08-24)
    #   machBar Plenum      every 2nd TU 17:00-19:00 from 2018-01-23: 2019-04-02 is 62
    #                       weeks later (even), 03-26 is not
    #   OK Lab              every 2nd TU 19:00-21:00 from 2017-12-12: 04-02 is 68 weeks on
    # Before the change subtract 1 h, after it 2 h.
    found = busy(conformance, "daylight_saving_time.ics", "2019-03-26 00:00", "2019-04-05 00:00")
    assert [(p.start, p.end, p.summary) for p in found] == [
        (*span("2019-03-27 18:00", "2019-03-27 20:00"), "Chaostreff - CCCP"),
        (*span("2019-03-28 07:30", "2019-03-28 13:30"), "Montessori Schulklasse"),
        (*span("2019-03-28 14:00", "2019-03-28 16:00"), "#TEC - für Jugendliche"),
        (*span("2019-03-28 17:00", "2019-03-28 19:00"), "OpenLab"),
        (*span("2019-03-29 07:30", "2019-03-29 13:30"), "Montessori Schulklasse"),
        (*span("2019-04-02 15:00", "2019-04-02 17:00"), "machBar Plenum"),
        (*span("2019-04-02 17:00", "2019-04-02 19:00"), "OK Lab"),
        (*span("2019-04-03 17:00", "2019-04-03 19:00"), "Chaostreff - CCCP"),
        (*span("2019-04-04 06:30", "2019-04-04 12:30"), "Montessori Schulklasse"),
        (*span("2019-04-04 13:00", "2019-04-04 15:00"), "#TEC - für Jugendliche"),
        (*span("2019-04-04 16:00", "2019-04-04 18:00"), "OpenLab"),
    ]


def test_each_week_but_two_deleted(conformance: Path) -> None:
    # WEEKLY;COUNT=8 from Mon 2019-03-04 00:30 Berlin, 30 minutes: 03-04, 03-11, 03-18,
    # 03-25, 04-01, 04-08, 04-15, 04-22. EXDATE 20190310T233000Z and 20190324T233000Z are
    # 03-11 and 03-25 00:30 CET, so 6 remain. 00:30 CET = 23:30Z the day before; from 04-01
    # 00:30 CEST = 22:30Z the day before.
    found = busy(
        conformance, "each_week_but_two_deleted.ics", "2019-03-01 00:00", "2019-05-01 00:00"
    )
    assert spans(found) == [
        span("2019-03-03 23:30", "2019-03-04 00:00"),
        span("2019-03-17 23:30", "2019-03-18 00:00"),
        span("2019-03-31 22:30", "2019-03-31 23:00"),
        span("2019-04-07 22:30", "2019-04-07 23:00"),
        span("2019-04-14 22:30", "2019-04-14 23:00"),
        span("2019-04-21 22:30", "2019-04-21 23:00"),
    ]
    assert {p.uid for p in found} == {"SX2CURHKFTKKFFU3VUD7K"}


def test_issue_722_ambiguous_local_times(conformance: Path) -> None:
    # Custom VTIMEZONE "MyTimezone": +12 from 2024-01-01; at 2024-05-05 08:00 local (+12,
    # i.e. 2024-05-04T20:00Z) clocks go back to 06:00 (+10), so 06:00-08:00 happen twice.
    # No DTEND/DURATION: zero-length events (RFC 5545 3.6.1).
    #   UID 0  2024-03-03 08:00 (+12)                       -> 2024-03-02T20:00Z
    #   UID 3  2024-05-05 07:00:01 occurs twice; RFC 5545 3.3.5: the first one (+12)
    #                                                       -> 2024-05-04T19:00:01Z
    #   UID 2  2024-05-05 08:00:01 only after the change (+10) -> 2024-05-04T22:00:01Z
    #   UID 1  2024-08-03 08:00 (+10)                       -> 2024-08-02T22:00Z
    found = busy(
        conformance,
        "icalendar_issue_722_timezone_transition_ambiguity.ics",
        "2024-01-01 00:00",
        "2025-01-01 00:00",
    )
    assert [(p.uid, p.start, p.end) for p in found] == [
        ("0", *span("2024-03-02 20:00", "2024-03-02 20:00")),
        ("3", *span("2024-05-04T19:00:01Z", "2024-05-04T19:00:01Z")),
        ("2", *span("2024-05-04T22:00:01Z", "2024-05-04T22:00:01Z")),
        ("1", *span("2024-08-02 22:00", "2024-08-02 22:00")),
    ]


def test_issue_107_keeps_the_last_thursday(conformance: Path) -> None:
    # WEEKLY TH 10:00-11:00 "Pacific Standard Time" (a Windows name; the VTIMEZONE's own
    # TZID has a stray ':' so it does not match) from 2023-01-05 UNTIL 20230608T170000Z.
    # 06-08 10:00 PDT is exactly 17:00Z, so UNTIL includes it. PST (18:00Z) until 03-09,
    # PDT (17:00Z) from 03-16. The VEVENT has no UID.
    pst = ["01-05", "01-12", "01-19", "01-26", "02-02", "02-09", "02-16", "02-23", "03-02", "03-09"]
    pdt = [
        "03-16", "03-23", "03-30", "04-06", "04-13", "04-20", "04-27",
        "05-04", "05-11", "05-18", "05-25", "06-01", "06-08",
    ]  # fmt: skip
    expected = [span(f"2023-{d} 18:00", f"2023-{d} 19:00") for d in pst]
    expected += [span(f"2023-{d} 17:00", f"2023-{d} 18:00") for d in pdt]
    found = busy(
        conformance, "issue_107_omitting_last_event.ics", "2023-01-01 00:00", "2023-07-01 00:00"
    )
    assert spans(found) == expected
    assert len({p.uid for p in found}) == 1
    assert found[0].uid.startswith("nouid-")


def test_issue_113_period_in_rdate(conformance: Path) -> None:
    # MONTHLY;COUNT=9;BYDAY=+3WE (months 1-5, 9-12) from Wed 2023-09-20 12:00-14:00
    # Vancouver. Third Wednesdays: 09-20, 10-18, 11-15, 12-20 (EXDATE), 2024-01-17, 02-21,
    # 03-20, 04-17, 05-15 (COUNT counts the excluded one). RDATE PERIOD 2023-12-13
    # 12:00/15:00 adds a 3-hour instance. PDT: +7 h, PST (11-05 to 03-10): +8 h.
    found = busy(
        conformance, "issue_113_period_in_rdate.ics", "2023-09-01 00:00", "2024-06-01 00:00"
    )
    assert spans(found) == [
        span("2023-09-20 19:00", "2023-09-20 21:00"),
        span("2023-10-18 19:00", "2023-10-18 21:00"),
        span("2023-11-15 20:00", "2023-11-15 22:00"),
        span("2023-12-13 20:00", "2023-12-13 23:00"),
        span("2024-01-17 20:00", "2024-01-17 22:00"),
        span("2024-02-21 20:00", "2024-02-21 22:00"),
        span("2024-03-20 19:00", "2024-03-20 21:00"),
        span("2024-04-17 19:00", "2024-04-17 21:00"),
        span("2024-05-15 19:00", "2024-05-15 21:00"),
    ]


def test_issue_20_exdate_in_utc(conformance: Path) -> None:
    # WEEKLY TU 16:15 Berlin, DURATION PT1H30M, from 2019-10-15, UNTIL 20200204T151459Z
    # (16:14:59 CET, so 02-04 16:15 is out). EXDATEs in UTC: 10-15 14:15Z and 10-22 14:15Z
    # (16:15 CEST), 11-05, 11-19, 11-26, 12-03, 12-17, 12-24, 12-31 at 15:15Z (16:15 CET).
    # Left: 10-29 (CET from 10-27), 11-12, 12-10, 2020-01-07, 01-14, 01-21, 01-28.
    found = busy(conformance, "issue_20_exdate_ignored.ics", "2019-10-01 00:00", "2020-03-01 00:00")
    days = ["2019-10-29", "2019-11-12", "2019-12-10", "2020-01-07", "2020-01-14", "2020-01-21",
            "2020-01-28"]  # fmt: skip
    assert spans(found) == [span(f"{d} 15:15", f"{d} 16:45") for d in days]


def test_issue_36_recurrence_id_formats(conformance: Path) -> None:
    # series 1: WEEKLY from Thu 2020-09-10 14:00-15:00 Berlin (12:00Z); the override
    #   RECURRENCE-ID:20200917T120000Z (= 14:00 CEST) keeps the time, new SUMMARY.
    # series 2: all-day WEEKLY from Mon 2020-09-07; overrides for 09-14 (a DATE) and 09-21
    #   (written as 20200921T000000Z) keep their days. Each Monday exactly once.
    found = busy(
        conformance, "issue_36_recurrence_ID_format.ics", "2020-09-07 00:00", "2020-10-01 00:00"
    )
    assert [(p.uid, p.start, p.end, p.summary) for p in found] == [
        ("series 2", *day("2020-09-07"), "Base event"),
        ("series 1", *span("2020-09-10 12:00", "2020-09-10 13:00"), "Base event"),
        ("series 2", *day("2020-09-14"), "Modified event 1"),
        ("series 1", *span("2020-09-17 12:00", "2020-09-17 13:00"), "Modified event"),
        ("series 2", *day("2020-09-21"), "Modified event 2"),
        ("series 1", *span("2020-09-24 12:00", "2020-09-24 13:00"), "Base event"),
        ("series 2", *day("2020-09-28"), "Base event"),
    ]
    assert [p.recurrence_id for p in found if p.uid == "series 2"] == [
        "20200907",
        "20200914",
        "20200921",
        "20200928",
    ]


def test_issue_48_lisbon_keeps_local_time(conformance: Path) -> None:
    # WEEKLY MO 11:30-13:00 Lisbon; WEST (+1) until Sun 2020-10-25, then WET (+0).
    found = busy(
        conformance, "issue_48_daylight_aware_repeats.ics", "2020-10-12 00:00", "2020-11-03 00:00"
    )
    assert spans(found) == [
        span("2020-10-12 10:30", "2020-10-12 12:00"),
        span("2020-10-19 10:30", "2020-10-19 12:00"),
        span("2020-10-26 11:30", "2020-10-26 13:00"),
        span("2020-11-02 11:30", "2020-11-02 13:00"),
    ]


def test_issue_4_date_until(conformance: Path) -> None:
    # WEEKLY TH 14:00-15:00 London (no VTIMEZONE; BST +1 all along) from 2019-08-01,
    # UNTIL=20191023 is a DATE (a Wednesday): the last Thursday is 10-17. 12 instances.
    found = busy(conformance, "issue_4_rrule_until.ics", "2019-07-01 00:00", "2019-12-01 00:00")
    days = ["08-01", "08-08", "08-15", "08-22", "08-29", "09-05", "09-12", "09-19", "09-26",
            "10-03", "10-10", "10-17"]  # fmt: skip
    assert spans(found) == [span(f"2019-{d} 13:00", f"2019-{d} 14:00") for d in days]


def test_issue_75_range_this_and_future(conformance: Path) -> None:
    # Every 2nd day 12:00-14:00Z from 2024-09-01 (09-11, 09-13, 09-15, ...), RDATE 09-14
    # 09:00Z (2 h like the series). Overrides:
    #   09-13 RANGE=THISANDFUTURE -> 09:00-16:00Z: this and later instances start 3 h
    #         earlier and last 7 h: 09-13 09-16, RDATE 09-14 06-13, 09-17 and 09-19 09-16;
    #   09-15 (single) -> 17:00-19:00Z;
    #   09-21 RANGE=THISANDFUTURE -> 09-22 14:22-16:13Z: +1 day 2:22, 1 h 51 min, for 09-21,
    #         09-23, 09-25 (-> 09-22, 09-24, 09-26); 09-27 moves to 09-28, after the window.
    found = busy(
        conformance, "issue_75_range_parameter.ics", "2024-09-10 00:00", "2024-09-27 00:00"
    )
    assert [(p.start, p.end, p.recurrence_id) for p in found] == [
        (*span("2024-09-11 12:00", "2024-09-11 14:00"), "20240911T120000Z"),
        (*span("2024-09-13 09:00", "2024-09-13 16:00"), "20240913T120000Z"),
        (*span("2024-09-14 06:00", "2024-09-14 13:00"), "20240914T090000Z"),
        (*span("2024-09-15 17:00", "2024-09-15 19:00"), "20240915T120000Z"),
        (*span("2024-09-17 09:00", "2024-09-17 16:00"), "20240917T120000Z"),
        (*span("2024-09-19 09:00", "2024-09-19 16:00"), "20240919T120000Z"),
        (*span("2024-09-22 14:22", "2024-09-22 16:13"), "20240921T120000Z"),
        (*span("2024-09-24 14:22", "2024-09-24 16:13"), "20240923T120000Z"),
        (*span("2024-09-26 14:22", "2024-09-26 16:13"), "20240925T120000Z"),
    ]


def test_issue_86_floating_time_uses_the_declared_zone(conformance: Path) -> None:
    # Floating 2021-09-16 21:00-22:45; X-WR-TIMEZONE:Europe/Brussels is not consulted.
    name = "issue_86_x_wr_timezone_without_time_zone_in_dt.ics"
    default = busy(conformance, name, "2021-09-01 00:00", "2021-10-01 00:00")
    assert spans(default) == [span("2021-09-16 21:00", "2021-09-16 22:45")]  # UTC, the default
    brussels = busy(
        conformance, name, "2021-09-01 00:00", "2021-10-01 00:00", zone="Europe/Brussels"
    )
    assert spans(brussels) == [span("2021-09-16 19:00", "2021-09-16 20:45")]  # CEST +2


def test_one_day_event_every_day(conformance: Path) -> None:
    # All-day DAILY from 2019-03-04, DTEND exclusive (one day each).
    name = "one_day_event_repeat_every_day.ics"
    found = busy(conformance, name, "2019-03-30 00:00", "2019-04-02 00:00")
    assert spans(found) == [day("2019-03-30"), day("2019-03-31"), day("2019-04-01")]
    # Local days of Berlin: 03-31 has 23 hours; the 04-02 day starts 04-01T22:00Z, inside.
    berlin = busy(conformance, name, "2019-03-30 00:00", "2019-04-02 00:00", zone="Europe/Berlin")
    assert spans(berlin) == [
        span("2019-03-29 23:00", "2019-03-30 23:00"),
        span("2019-03-30 23:00", "2019-03-31 22:00"),
        span("2019-03-31 22:00", "2019-04-01 22:00"),
        span("2019-04-01 22:00", "2019-04-02 22:00"),
    ]


def test_recurring_events_changed_duration(conformance: Path) -> None:
    # "New Event": DAILY 02:00-03:00 Berlin (CET) from 03-07 UNTIL 20190310T010000Z
    #   (= 03-10 02:00 CET, included). Overrides: 03-08 -> 01:00-03:00, 03-09 -> 03:00-03:30,
    #   03-10 -> all-day TRANSPARENT (not busy).
    # "test7": DAILY 04:00-05:00 from 03-18 UNTIL 20190320T030000Z (= 03-20 04:00 CET,
    #   included); the 03-19 override keeps the time with a new SUMMARY.
    found = busy(
        conformance, "recurring_events_changed_duration.ics", "2019-03-06 00:00", "2019-03-22 00:00"
    )
    assert [(p.start, p.end, p.summary) for p in found] == [
        (*span("2019-03-07 01:00", "2019-03-07 02:00"), "New Event"),
        (*span("2019-03-08 00:00", "2019-03-08 02:00"), "New Event"),
        (*span("2019-03-09 02:00", "2019-03-09 02:30"), "New Event"),
        (*span("2019-03-18 03:00", "2019-03-18 04:00"), "test7"),
        (*span("2019-03-19 03:00", "2019-03-19 04:00"), "test7 - edited"),
        (*span("2019-03-20 03:00", "2019-03-20 04:00"), "test7"),
    ]


def test_zero_size_event(conformance: Path) -> None:
    # DTSTART 2019-03-04 08:00 Berlin (CET) and nothing else: a zero-length event at 07:00Z.
    found = busy(conformance, "zero_size_event.ics", "2019-03-01 00:00", "2019-03-10 00:00")
    assert spans(found) == [span("2019-03-04 07:00", "2019-03-04 07:00")]
    assert found[0].recurrence_id is None
    assert found[0].summary == "zero size event"


# --------------------------------------------------------------------------- VFREEBUSY


def test_issue_27_freebusy_periods(conformance: Path) -> None:
    # One FREEBUSY;FBTYPE=BUSY line with eight UTC periods; UID is the text "null".
    found = busy(
        conformance,
        "icalendar_issue_27_multiple_periods_in_freebusy_one_freebusy.ics",
        "2012-01-01 00:00",
        "2012-02-01 00:00",
    )
    assert spans(found) == [
        span("2012-01-03 09:15", "2012-01-03 10:15"),
        span("2012-01-13 13:00", "2012-01-13 15:00"),
        span("2012-01-16 13:00", "2012-01-16 15:00"),
        span("2012-01-17 09:15", "2012-01-17 10:15"),
        span("2012-01-18 16:00", "2012-01-18 16:30"),
        span("2012-01-24 08:30", "2012-01-24 09:30"),
        span("2012-01-24 12:30", "2012-01-24 14:30"),
        span("2012-01-31 09:15", "2012-01-31 10:15"),
    ]
    assert {(p.kind, p.uid, p.recurrence_id) for p in found} == {("freebusy", "null", None)}


def test_issue_798_freebusy_types(conformance: Path) -> None:
    # 1st VFREEBUSY: BUSY-UNAVAILABLE 1997-03-08 16:00Z + PT8H30M -> 03-09 00:30Z (busy).
    # 2nd: no FBTYPE, so BUSY (RFC 5545 3.2.9): 16:00Z + PT3H, 20:00Z + PT1H.
    # 3rd: FBTYPE=FREE: not busy. None of them has a UID.
    found = busy(
        conformance, "icalendar_issue_798_freebusy.ics", "1997-03-08 00:00", "1997-03-10 00:00"
    )
    assert spans(found) == [
        span("1997-03-08 16:00", "1997-03-08 19:00"),
        span("1997-03-08 16:00", "1997-03-09 00:30"),
        span("1997-03-08 20:00", "1997-03-08 21:00"),
    ]
    assert found[0].uid == found[2].uid != found[1].uid  # two components, synthetic ids


# --------------------------------------------------------------------------- VAVAILABILITY


def test_rfc_7953_example_2_working_hours(conformance: Path) -> None:
    # A bare VAVAILABILITY (no VCALENDAR around it) from 2011-10-02 to 2011-12-02 00:00
    # Montreal. AVAILABLE Mon-Thu 09:00-17:00, and "Friday 09:00-12:00" whose DTSTART
    # 2011-10-06 is really a Thursday, so it repeats on Thursdays and lies inside Mon-Thu.
    name = "icalendar_rfc_7953_2.ics"
    calendar = parse_calendar(text(conformance, name), source=name)
    assert busy_periods([calendar], utc("2011-10-01 00:00"), utc("2011-12-31 00:00")) == ()
    # EDT (-4): 13:00-21:00Z, Monday 10-03 to Thursday 10-06, nothing on Friday.
    week = working_periods([calendar], utc("2011-10-03 00:00"), utc("2011-10-08 00:00"))
    assert list(week) == [span(f"2011-10-0{d} 13:00", f"2011-10-0{d} 21:00") for d in (3, 4, 5, 6)]
    # Across the change to EST (-5) on Sun 11-06: Thu 11-03 13-21Z, Mon 11-07 14-22Z.
    change = working_periods([calendar], utc("2011-11-03 00:00"), utc("2011-11-08 00:00"))
    assert list(change) == [
        span("2011-11-03 13:00", "2011-11-03 21:00"),
        span("2011-11-07 14:00", "2011-11-07 22:00"),
    ]
    # The VAVAILABILITY ends 2011-12-02 05:00Z: Mon 11-28 to Thu 12-01, then nothing.
    end = working_periods([calendar], utc("2011-11-28 00:00"), utc("2011-12-10 00:00"))
    assert list(end) == [
        span(f"2011-{d} 14:00", f"2011-{d} 22:00") for d in ("11-28", "11-29", "11-30", "12-01")
    ]


def test_rfc_7953_example_3_three_ranges(conformance: Path) -> None:
    # Montreal to 2011-10-23 03:00 (07:00Z), Denver 10-23 00:00 to 10-30 00:00 (06:00Z to
    # 06:00Z), Montreal again from 10-30 03:00 (07:00Z), each AVAILABLE Mon-Fri 09:00-17:00.
    # The AVAILABLE DTSTARTs are Sundays (10-02, 10-23, 10-30); a DTSTART is always the
    # first instance (RFC 5545 3.8.5.1; 3.8.5.3 calls a DTSTART off the pattern undefined,
    # and the library keeps it), so 10-23 (Denver) and 10-30 (Montreal) count.
    # Montreal EDT: 13-21Z; Denver MDT: 15-23Z.
    name = "icalendar_rfc_7953_3.ics"
    calendar = parse_calendar(text(conformance, name), source=name)
    assert busy_periods([calendar], utc("2011-10-01 00:00"), utc("2011-12-01 00:00")) == ()
    found = working_periods([calendar], utc("2011-10-17 00:00"), utc("2011-11-05 00:00"))
    montreal = ["10-17", "10-18", "10-19", "10-20", "10-21"]
    denver = ["10-23", "10-24", "10-25", "10-26", "10-27", "10-28"]
    montreal_again = ["10-30", "10-31", "11-01", "11-02", "11-03", "11-04"]
    expected = [span(f"2011-{d} 13:00", f"2011-{d} 21:00") for d in montreal]
    expected += [span(f"2011-{d} 15:00", f"2011-{d} 23:00") for d in denver]
    expected += [span(f"2011-{d} 13:00", f"2011-{d} 21:00") for d in montreal_again]
    assert list(found) == expected
