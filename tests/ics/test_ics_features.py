"""Feature tests on small inline calendars; expected instants worked out by hand."""

from __future__ import annotations

import icalendar
import pytest

from cerebri.ics import BusyPeriod, busy_periods, parse_calendar
from tests.ics.helpers import calendar, span, spans, utc, vevent

JANUARY = (utc("2024-01-01 00:00"), utc("2024-02-01 00:00"))


def busy(text: str, *, zone: str = "UTC", window: tuple = JANUARY) -> tuple[BusyPeriod, ...]:
    return busy_periods([parse_calendar(text, source="inline.ics")], *window, floating_zone=zone)


# --------------------------------------------------------------------------- all-day


def test_all_day_dtend_is_exclusive() -> None:
    # 2024-01-05 and 2024-01-06: DTEND 01-07 is the first day not covered (RFC 5545 3.6.1)
    text = calendar(vevent("DTSTART;VALUE=DATE:20240105", "DTEND;VALUE=DATE:20240107"))
    assert spans(busy(text)) == [span("2024-01-05 00:00", "2024-01-07 00:00")]


def test_all_day_without_end_is_one_day() -> None:
    text = calendar(vevent("DTSTART;VALUE=DATE:20240105"))
    assert spans(busy(text)) == [span("2024-01-05 00:00", "2024-01-06 00:00")]


def test_all_day_days_are_local_days_of_the_floating_zone() -> None:
    # Tokyo is +9: the day 2024-01-05 runs from 01-04 15:00Z to 01-05 15:00Z
    text = calendar(vevent("DTSTART;VALUE=DATE:20240105", "DTEND;VALUE=DATE:20240106"))
    assert spans(busy(text, zone="Asia/Tokyo")) == [span("2024-01-04 15:00", "2024-01-05 15:00")]


def test_all_day_duration_counts_nominal_days() -> None:
    # Berlin: P2D from 2024-03-30 covers 03-30 and 03-31 (23 h): 03-29 23:00Z to 03-31 22:00Z
    text = calendar(vevent("DTSTART;VALUE=DATE:20240330", "DURATION:P2D"))
    window = (utc("2024-03-01 00:00"), utc("2024-04-30 00:00"))
    assert spans(busy(text, zone="Europe/Berlin", window=window)) == [
        span("2024-03-29 23:00", "2024-03-31 22:00")
    ]


# --------------------------------------------------------------------------- floating


def test_floating_time_defaults_to_utc() -> None:
    text = calendar(vevent("DTSTART:20240105T100000", "DTEND:20240105T110000"))
    assert spans(busy(text)) == [span("2024-01-05 10:00", "2024-01-05 11:00")]


def test_floating_time_in_the_declared_zone() -> None:
    # New York in January is EST, -5
    text = calendar(vevent("DTSTART:20240105T100000", "DTEND:20240105T110000"))
    assert spans(busy(text, zone="America/New_York")) == [
        span("2024-01-05 15:00", "2024-01-05 16:00")
    ]


def test_x_wr_timezone_is_not_consulted() -> None:
    text = calendar(
        vevent("DTSTART:20240105T100000", "DTEND:20240105T110000"),
        header="X-WR-TIMEZONE:Asia/Tokyo",
    )
    assert spans(busy(text)) == [span("2024-01-05 10:00", "2024-01-05 11:00")]


# --------------------------------------------------------------------------- not busy


def test_transparent_events_are_not_busy() -> None:
    text = calendar(
        vevent("DTSTART:20240105T100000Z", "DTEND:20240105T110000Z", "TRANSP:TRANSPARENT", uid="a"),
        vevent("DTSTART:20240106T100000Z", "DTEND:20240106T110000Z", "TRANSP:OPAQUE", uid="b"),
    )
    assert [p.uid for p in busy(text)] == ["b"]


def test_cancelled_events_are_not_busy() -> None:
    text = calendar(
        vevent("DTSTART:20240105T100000Z", "DTEND:20240105T110000Z", "STATUS:CANCELLED", uid="a"),
        vevent("DTSTART:20240106T100000Z", "DTEND:20240106T110000Z", "STATUS:TENTATIVE", uid="b"),
    )
    assert [p.uid for p in busy(text)] == ["b"]


def test_one_cancelled_or_transparent_instance_of_a_series() -> None:
    # Daily 10:00-11:00Z on 01-05..01-08; the 01-06 instance is cancelled and the 01-07
    # instance transparent by RECURRENCE-ID overrides.
    text = calendar(
        vevent("DTSTART:20240105T100000Z", "DTEND:20240105T110000Z", "RRULE:FREQ=DAILY;COUNT=4"),
        vevent(
            "RECURRENCE-ID:20240106T100000Z",
            "DTSTART:20240106T100000Z",
            "DTEND:20240106T110000Z",
            "STATUS:CANCELLED",
        ),
        vevent(
            "RECURRENCE-ID:20240107T100000Z",
            "DTSTART:20240107T100000Z",
            "DTEND:20240107T110000Z",
            "TRANSP:TRANSPARENT",
        ),
    )
    assert spans(busy(text)) == [
        span("2024-01-05 10:00", "2024-01-05 11:00"),
        span("2024-01-08 10:00", "2024-01-08 11:00"),
    ]


def test_method_cancel_frees_every_event() -> None:
    text = calendar(
        vevent("DTSTART:20240105T100000Z", "DTEND:20240105T110000Z"), header="METHOD:CANCEL"
    )
    assert busy(text) == ()


# --------------------------------------------------------------------------- recurrence


def test_exdate_removes_instances() -> None:
    # weekly Fridays from 01-05: 01-05, 01-12, 01-19, 01-26; EXDATE removes 01-12 (in UTC)
    # and 01-26 (written in Berlin time, 11:00 CET = 10:00Z)
    text = calendar(
        vevent(
            "DTSTART:20240105T100000Z",
            "DTEND:20240105T103000Z",
            "RRULE:FREQ=WEEKLY",
            "EXDATE:20240112T100000Z",
            "EXDATE;TZID=Europe/Berlin:20240126T110000",
        )
    )
    assert spans(busy(text)) == [
        span("2024-01-05 10:00", "2024-01-05 10:30"),
        span("2024-01-19 10:00", "2024-01-19 10:30"),
    ]


def test_rdate_adds_instances() -> None:
    # one event on 01-05 plus RDATE 01-09 09:00Z (same 45 min) and a PERIOD on 01-10 of 2 h
    text = calendar(
        vevent(
            "DTSTART:20240105T100000Z",
            "DURATION:PT45M",
            "RDATE:20240109T090000Z",
            "RDATE;VALUE=PERIOD:20240110T080000Z/PT2H",
        )
    )
    found = busy(text)
    assert spans(found) == [
        span("2024-01-05 10:00", "2024-01-05 10:45"),
        span("2024-01-09 09:00", "2024-01-09 09:45"),
        span("2024-01-10 08:00", "2024-01-10 10:00"),
    ]
    assert [p.recurrence_id for p in found] == [
        "20240105T100000Z",
        "20240109T090000Z",
        "20240110T080000Z",
    ]


def test_recurrence_id_override_moves_one_instance() -> None:
    text = calendar(
        vevent("DTSTART:20240105T100000Z", "DTEND:20240105T110000Z", "RRULE:FREQ=DAILY;COUNT=3"),
        vevent(
            "RECURRENCE-ID:20240106T100000Z",
            "DTSTART:20240106T150000Z",
            "DTEND:20240106T153000Z",
            "SEQUENCE:2",
            "SUMMARY:moved",
        ),
    )
    found = busy(text)
    assert [(p.start, p.end, p.recurrence_id, p.summary, p.sequence) for p in found] == [
        (*span("2024-01-05 10:00", "2024-01-05 11:00"), "20240105T100000Z", None, 0),
        (*span("2024-01-06 15:00", "2024-01-06 15:30"), "20240106T100000Z", "moved", 2),
        (*span("2024-01-07 10:00", "2024-01-07 11:00"), "20240107T100000Z", None, 0),
    ]


def test_range_this_and_future() -> None:
    # Daily 10:00-11:00Z from 01-05, COUNT 5. The 01-07 override with RANGE=THISANDFUTURE
    # starts 2 h later and lasts 30 min: 01-07, 01-08, 01-09 become 12:00-12:30Z
    # (RFC 5545 3.2.13); their recurrence ids stay the original 10:00Z starts.
    text = calendar(
        vevent("DTSTART:20240105T100000Z", "DTEND:20240105T110000Z", "RRULE:FREQ=DAILY;COUNT=5"),
        vevent(
            "RECURRENCE-ID;RANGE=THISANDFUTURE:20240107T100000Z",
            "DTSTART:20240107T120000Z",
            "DTEND:20240107T123000Z",
            "SEQUENCE:1",
        ),
    )
    found = busy(text)
    assert [(p.start, p.end, p.recurrence_id) for p in found] == [
        (*span("2024-01-05 10:00", "2024-01-05 11:00"), "20240105T100000Z"),
        (*span("2024-01-06 10:00", "2024-01-06 11:00"), "20240106T100000Z"),
        (*span("2024-01-07 12:00", "2024-01-07 12:30"), "20240107T100000Z"),
        (*span("2024-01-08 12:00", "2024-01-08 12:30"), "20240108T100000Z"),
        (*span("2024-01-09 12:00", "2024-01-09 12:30"), "20240109T100000Z"),
    ]


def test_empty_rrule_is_no_rule() -> None:
    text = calendar(vevent("DTSTART:20240105T100000Z", "DTEND:20240105T110000Z", "RRULE:"))
    found = busy(text)
    assert spans(found) == [span("2024-01-05 10:00", "2024-01-05 11:00")]
    assert found[0].recurrence_id is None


def test_periods_are_reported_whole_when_they_overlap_the_window() -> None:
    text = calendar(vevent("DTSTART:20231231T220000Z", "DTEND:20240101T020000Z"))
    assert spans(busy(text)) == [span("2023-12-31 22:00", "2024-01-01 02:00")]


def test_touching_the_window_is_not_overlapping() -> None:
    text = calendar(
        vevent("DTSTART:20231231T220000Z", "DTEND:20240101T000000Z", uid="before"),
        vevent("DTSTART:20240201T000000Z", "DTEND:20240201T010000Z", uid="after"),
        vevent("DTSTART:20240201T000000Z", uid="point-at-end"),
        vevent("DTSTART:20240101T000000Z", uid="point-at-start"),
    )
    assert [p.uid for p in busy(text)] == ["point-at-start"]


# --------------------------------------------------------------------------- time zones


def test_windows_zone_name_without_vtimezone() -> None:
    # "W. Europe Standard Time" is Europe/Berlin in CLDR's windowsZones table: CET +1
    text = calendar(vevent("DTSTART;TZID=W. Europe Standard Time:20240105T100000", "DURATION:PT1H"))
    assert spans(busy(text)) == [span("2024-01-05 09:00", "2024-01-05 10:00")]


@pytest.mark.filterwarnings("ignore::icalendar.error.GloballyUniqueTZIDGuessed")
def test_globally_unique_tzid() -> None:
    text = calendar(
        vevent(
            "DTSTART;TZID=/freeassociation.sourceforge.net/Tzfile/Europe/Berlin:20240105T100000",
            "DURATION:PT1H",
        )
    )
    assert spans(busy(text)) == [span("2024-01-05 09:00", "2024-01-05 10:00")]


def custom_zone(tzid: str, offset: str) -> str:
    return "\n".join(
        [
            "BEGIN:VTIMEZONE",
            f"TZID:{tzid}",
            "BEGIN:STANDARD",
            "DTSTART:19700101T000000",
            f"TZOFFSETFROM:{offset}",
            f"TZOFFSETTO:{offset}",
            "TZNAME:X",
            "END:STANDARD",
            "END:VTIMEZONE",
        ]
    )


def test_custom_vtimezone_is_read_from_the_calendar_itself() -> None:
    # Two calendars define the same custom TZID differently. icalendar caches the first
    # definition process-wide, so plain icalendar reads the second calendar with the first
    # calendar's offset; cerebri resolves each calendar's own VTIMEZONE.
    tzid = "Cerebri Test/Office Hours"
    plus_five = calendar(custom_zone(tzid, "+0500"), vevent(f"DTSTART;TZID={tzid}:20240105T100000"))
    plus_nine = calendar(custom_zone(tzid, "+0900"), vevent(f"DTSTART;TZID={tzid}:20240105T100000"))
    assert spans(busy(plus_five)) == [span("2024-01-05 05:00", "2024-01-05 05:00")]
    assert spans(busy(plus_nine)) == [span("2024-01-05 01:00", "2024-01-05 01:00")]
    plain = icalendar.Calendar.from_ical(plus_nine).walk("VEVENT")[0]["DTSTART"].dt
    assert plain.utcoffset().total_seconds() == 5 * 3600  # the library's cache at work


def test_vtimezone_after_the_events_that_use_it() -> None:
    tzid = "Cerebri Test/Late Zone"
    text = calendar(
        vevent(f"DTSTART;TZID={tzid}:20240105T100000", "DURATION:PT1H"), custom_zone(tzid, "-0300")
    )
    assert spans(busy(text)) == [span("2024-01-05 13:00", "2024-01-05 14:00")]


def test_named_zone_uses_tzdata_not_a_truncated_embedded_copy() -> None:
    # The embedded "Europe/Berlin" claims +0100 forever; tzdata knows July is CEST (+2).
    text = calendar(
        custom_zone("Europe/Berlin", "+0100"),
        vevent("DTSTART;TZID=Europe/Berlin:20240705T100000", "DURATION:PT1H"),
    )
    window = (utc("2024-07-01 00:00"), utc("2024-08-01 00:00"))
    assert spans(busy(text, window=window)) == [span("2024-07-05 08:00", "2024-07-05 09:00")]


# --------------------------------------------------------------------------- sources, UIDs


def test_source_and_missing_uid() -> None:
    text = calendar("BEGIN:VEVENT\nDTSTAMP:20240101T000000Z\nDTSTART:20240105T100000Z\nEND:VEVENT")
    found = busy(text)
    assert found[0].source == "inline.ics"
    assert found[0].uid.startswith("nouid-")
    assert len(found[0].uid) == len("nouid-") + 16


def test_several_calendars_are_combined_and_sorted() -> None:
    first = parse_calendar(
        calendar(vevent("DTSTART:20240106T100000Z", "DURATION:PT1H", uid="x")), source="a.ics"
    )
    second = parse_calendar(
        calendar(vevent("DTSTART:20240105T100000Z", "DURATION:PT1H", uid="y")), source="b.ics"
    )
    found = busy_periods([first, second], *JANUARY)
    assert [(p.uid, p.source) for p in found] == [("y", "b.ics"), ("x", "a.ics")]
    assert busy_periods(second, *JANUARY) == found[:1]  # one calendar may be passed alone


def test_bare_components_and_bom_and_lf_line_ends() -> None:
    text = "\ufeffBEGIN:VEVENT\nUID:bare\nDTSTART:20240105T100000Z\nDURATION:PT1H\nEND:VEVENT\n"
    assert spans(busy(text)) == [span("2024-01-05 10:00", "2024-01-05 11:00")]
    assert spans(busy(text.encode("utf-8"))) == [span("2024-01-05 10:00", "2024-01-05 11:00")]


def test_exchange_tzone_ids_and_vendor_ids_without_warnings() -> None:
    import warnings

    from cerebri.ics import busy_periods as read_busy
    from cerebri.ics import parse_calendar as read
    from cerebri.temporal import Instant as At

    text = (
        "BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//t//EN\nBEGIN:VEVENT\nUID:ms@x\n"
        "DTSTAMP:20261001T000000Z\n"
        'DTSTART;TZID="tzone://Microsoft/Utc":20261005T100000\n'
        'DTEND;TZID="tzone://Microsoft/Utc":20261005T110000\nEND:VEVENT\n'
        "BEGIN:VEVENT\nUID:ms2@x\nDTSTAMP:20261001T000000Z\n"
        'DTSTART;TZID="tzone://Microsoft/W. Europe Standard Time":20261005T140000\n'
        'DTEND;TZID="tzone://Microsoft/W. Europe Standard Time":20261005T150000\nEND:VEVENT\n'
        "BEGIN:VEVENT\nUID:moz@x\nDTSTAMP:20261001T000000Z\n"
        "DTSTART;TZID=/mozilla.org/20050126_1/Europe/Berlin:20261005T160000\n"
        "DTEND;TZID=/mozilla.org/20050126_1/Europe/Berlin:20261005T170000\nEND:VEVENT\n"
        "END:VCALENDAR\n"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        calendar = read(text)
        periods = read_busy(
            calendar, At.parse("2026-10-05T00:00:00Z"), At.parse("2026-10-06T00:00:00Z")
        )
    # Utc stays 10:00Z; W. Europe (Berlin, +02:00 in October) 14:00 -> 12:00Z; 16:00 -> 14:00Z.
    assert [(p.uid, p.start.format()) for p in periods] == [
        ("ms@x", "2026-10-05T10:00:00Z"),
        ("ms2@x", "2026-10-05T12:00:00Z"),
        ("moz@x", "2026-10-05T14:00:00Z"),
    ]
