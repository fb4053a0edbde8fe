"""Where ``icalendar``/``recurring-ical-events`` depart from RFC 5545, and our corrections.

Each test names the RFC section. The ``library_*`` helpers record what the libraries do
today, so a library fix shows up here (the correction can then be dropped).
"""

from __future__ import annotations

from datetime import UTC, datetime

import icalendar
import recurring_ical_events

from cerebri.ics import BusyPeriod, busy_periods, parse_calendar
from tests.ics.helpers import calendar, span, spans, utc, vevent

YEAR_2019 = (utc("2019-01-01 00:00"), utc("2020-01-01 00:00"))


def ours(text: str) -> tuple[BusyPeriod, ...]:
    return busy_periods([parse_calendar(text)], *YEAR_2019)


def library(text: str) -> list[tuple[datetime, datetime]]:
    """(start, end) in UTC as recurring-ical-events reports them."""
    parsed = icalendar.Calendar.from_ical(text)
    query = recurring_ical_events.of(parsed)
    found = query.between(datetime(2019, 1, 1, tzinfo=UTC), datetime(2020, 1, 1, tzinfo=UTC))
    return sorted(
        (event["DTSTART"].dt.astimezone(UTC), event["DTEND"].dt.astimezone(UTC)) for event in found
    )


def at(text: str) -> datetime:
    return datetime.fromisoformat(text.replace(" ", "T")).replace(tzinfo=UTC)


def test_rfc5545_3_3_6_exact_hour_across_fall_back() -> None:
    # 2019-10-27 02:30 Berlin happens twice; RFC 5545 3.3.5 takes the first (CEST, 00:30Z).
    # DURATION:PT1H is exact (3.3.6): the event ends one elapsed hour later, 01:30Z (02:30
    # CET). The library adds one wall-clock hour (03:30 CET = 02:30Z): two hours.
    text = calendar(vevent("DTSTART;TZID=Europe/Berlin:20191027T023000", "DURATION:PT1H"))
    assert spans(ours(text)) == [span("2019-10-27 00:30", "2019-10-27 01:30")]
    assert library(text) == [(at("2019-10-27 00:30"), at("2019-10-27 02:30"))]


def test_rfc5545_3_3_6_exact_hours_across_spring_forward() -> None:
    # 2019-03-31 01:30 CET = 00:30Z; PT2H exact ends 02:30Z (04:30 CEST). The library's
    # wall-clock 03:30 CEST is 01:30Z, one elapsed hour.
    text = calendar(vevent("DTSTART;TZID=Europe/Berlin:20190331T013000", "DURATION:PT2H"))
    assert spans(ours(text)) == [span("2019-03-31 00:30", "2019-03-31 02:30")]
    assert library(text) == [(at("2019-03-31 00:30"), at("2019-03-31 01:30"))]


def test_rfc5545_3_3_6_a_day_is_nominal() -> None:
    # P1D is nominal: same wall time next day. 03-30 12:00 CET (11:00Z) to 03-31 12:00 CEST
    # (10:00Z): 23 elapsed hours. The library agrees here.
    text = calendar(vevent("DTSTART;TZID=Europe/Berlin:20190330T120000", "DURATION:P1D"))
    assert spans(ours(text)) == [span("2019-03-30 11:00", "2019-03-31 10:00")]
    assert library(text) == [(at("2019-03-30 11:00"), at("2019-03-31 10:00"))]


def test_rfc5545_3_3_6_pt24h_is_not_a_day() -> None:
    # PT24H is 24 exact hours: 03-30 11:00Z to 03-31 11:00Z (13:00 CEST). icalendar reads
    # PT24H and P1D as the same timedelta, so the library ends at 10:00Z; cerebri reads the
    # raw DURATION text.
    text = calendar(vevent("DTSTART;TZID=Europe/Berlin:20190330T120000", "DURATION:PT24H"))
    assert spans(ours(text)) == [span("2019-03-30 11:00", "2019-03-31 11:00")]
    assert library(text) == [(at("2019-03-30 11:00"), at("2019-03-31 10:00"))]


def test_rfc5545_3_3_6_mixed_duration_adds_days_first() -> None:
    # P1DT1H from 03-30 12:00 CET: one nominal day (03-31 12:00 CEST = 10:00Z), then one
    # exact hour: 11:00Z.
    text = calendar(vevent("DTSTART;TZID=Europe/Berlin:20190330T120000", "DURATION:P1DT1H"))
    assert spans(ours(text)) == [span("2019-03-30 11:00", "2019-03-31 11:00")]


def test_rfc5545_3_8_5_3_dtend_gives_every_instance_the_same_exact_duration() -> None:
    # DTSTART 01:30, DTEND 03:30 Berlin on 03-24 (CET): 2 exact hours. RFC 5545 3.8.5.3:
    # with DTEND "the same exact duration will apply to all the members". The 03-31
    # instance starts 01:30 CET = 00:30Z and so ends 02:30Z (04:30 CEST); the library adds
    # the wall-clock difference and ends at 03:30 CEST = 01:30Z.
    text = calendar(
        vevent(
            "DTSTART;TZID=Europe/Berlin:20190324T013000",
            "DTEND;TZID=Europe/Berlin:20190324T033000",
            "RRULE:FREQ=DAILY;COUNT=8",
        )
    )
    found = ours(text)
    assert spans(found)[0] == span("2019-03-24 00:30", "2019-03-24 02:30")
    assert spans(found)[-1] == span("2019-03-31 00:30", "2019-03-31 02:30")
    assert library(text)[-1] == (at("2019-03-31 00:30"), at("2019-03-31 01:30"))


def test_rfc5545_3_8_5_3_duration_instances_are_nominal_plus_exact() -> None:
    # Weekly 02:00 Berlin with DURATION:PT1H. 10-20 02:00 CEST = 00:00Z to 01:00Z; on 10-27
    # 02:00 is ambiguous, first occurrence CEST (00:00Z), one exact hour: 01:00Z. The
    # library ends at 03:00 CET = 02:00Z.
    text = calendar(
        vevent(
            "DTSTART;TZID=Europe/Berlin:20191020T020000",
            "DURATION:PT1H",
            "RRULE:FREQ=WEEKLY;COUNT=2",
        )
    )
    assert spans(ours(text)) == [
        span("2019-10-20 00:00", "2019-10-20 01:00"),
        span("2019-10-27 00:00", "2019-10-27 01:00"),
    ]
    assert library(text)[-1] == (at("2019-10-27 00:00"), at("2019-10-27 02:00"))


def test_rfc5545_3_8_2_2_dtend_before_dtstart_is_refused() -> None:
    # RFC 5545 3.8.2.2: DTEND must be later than DTSTART. The library swaps the two and
    # reports 09:00-10:00Z as busy; cerebri raises ics.invalid_range (see test_ics_errors).
    text = calendar(vevent("DTSTART:20190105T100000Z", "DTEND:20190105T090000Z"))
    assert library(text) == [(at("2019-01-05 09:00"), at("2019-01-05 10:00"))]


def test_rfc5545_3_3_5_gap_uses_the_offset_before_the_gap() -> None:
    # 2019-03-31 02:30 does not exist in Berlin; RFC 5545 3.3.5 reads it with the offset
    # before the gap (+1): 01:30Z, i.e. 03:30 CEST.
    text = calendar(vevent("DTSTART;TZID=Europe/Berlin:20190331T023000", "DURATION:PT30M"))
    assert spans(ours(text)) == [span("2019-03-31 01:30", "2019-03-31 02:00")]


def test_rfc5545_3_3_10_nonexistent_recurrence_instance_is_kept() -> None:
    # Daily 02:30 Berlin: the 03-31 instance has no such local time. RFC 5545 3.3.10 says
    # both "MUST be ignored" and "interpreted ... as specified in Section 3.3.5"; like the
    # library, cerebri keeps it at 01:30Z (03:30 CEST) rather than freeing that time.
    text = calendar(
        vevent(
            "DTSTART;TZID=Europe/Berlin:20190330T023000",
            "DURATION:PT30M",
            "RRULE:FREQ=DAILY;COUNT=3",
        )
    )
    assert spans(ours(text)) == [
        span("2019-03-30 01:30", "2019-03-30 02:00"),
        span("2019-03-31 01:30", "2019-03-31 02:00"),
        span("2019-04-01 00:30", "2019-04-01 01:00"),
    ]
