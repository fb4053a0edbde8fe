"""The shortcuts of :mod:`cerebri.ics` give what the slow paths give, byte for byte.

* Lone, non-recurring events are expanded without ``recurring-ical-events``
  (``expand._lone_instance``). With the shortcut switched off every component goes
  through the library as before: busy periods, working periods and errors
  must be identical, on random single events (zoned, UTC, floating, all-day, around DST
  changes, with ``DTEND``, ``DURATION`` or neither, over windows near and far) and on every
  conformance file.
* Components sharing a UID are ordered by the short canonical key, then by text on ties
  only (``expand._canonical_order``): the same order as one sort on the full key.
* A calendar from ``parse_calendar`` is checked again only where the floating zone matters
  (``validate.check_for_query``): the same errors as the full checks.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, date, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any, cast
from unittest import mock
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from icalendar import Calendar, Event

from cerebri.ics import (
    BusyPeriod,
    CalendarError,
    busy_periods,
    parse_calendar,
    validate,
    working_periods,
)
from cerebri.ics import expand as expand_module
from cerebri.temporal.instant import Instant
from tests.ics.helpers import calendar, utc, vevent
from tests.strategies import ics_scenarios as scenarios

FLOATING = ("UTC", "Europe/Berlin", "Pacific/Kiritimati", "Pacific/Pago_Pago")


@contextmanager
def library_only() -> Iterator[None]:
    """Every component through ``recurring-ical-events``."""
    with mock.patch.object(
        expand_module, "_lone_instance", lambda *a, **k: expand_module._Lone.LIBRARY
    ):
        yield


def outcome(run: Callable[[], object]) -> tuple[str, object]:
    try:
        return "ok", run()
    except CalendarError as error:
        return "error", (error.code, str(error), error.uid, error.line, error.source)


def both_paths(run: Callable[[], object]) -> tuple[tuple[str, object], tuple[str, object]]:
    fast = outcome(run)
    with library_only():
        slow = outcome(run)
    return fast, slow


@settings(deadline=None, max_examples=300)
@given(scenarios(), st.sampled_from(FLOATING))
def test_lone_events_match_the_library_path(
    scenario: tuple[str, tuple[Instant, Instant]], zone: str
) -> None:
    text, window = scenario
    try:
        parsed = parse_calendar(text)
    except CalendarError:
        return  # refused while parsing: no expansion on either path
    fast, slow = both_paths(lambda: busy_periods(parsed, *window, floating_zone=zone))
    assert fast == slow


@pytest.mark.parametrize(
    "window",
    [
        # the widest windows accepted: from the first instant of year 1 to the last of 9999
        (utc("0001-01-01 00:00"), utc("2024-04-01 00:00")),
        (utc("2024-04-01 00:00"), utc("9999-12-31T23:59:59Z")),
        (Instant.from_datetime(datetime(101, 1, 1, tzinfo=UTC)), utc("2024-04-01 00:00")),
    ],
)
def test_windows_at_the_ends_of_time_take_the_library_path(
    window: tuple[Instant, Instant],
) -> None:
    # near year 100 or 9900 the padded query is clamped, so the shortcut is not taken
    text = calendar(
        vevent("DTSTART:20240330T100000Z", "DTEND:20240330T110000Z", uid="a"),
        vevent("DTSTART;VALUE=DATE:00020101", uid="old"),
        vevent("DTSTART:99981231T000000Z", "DURATION:P400D", uid="late"),
    )
    parsed = parse_calendar(text)
    fast, slow = both_paths(lambda: busy_periods(parsed, *window))
    assert fast == slow


def test_a_huge_duration_is_busy_on_both_paths() -> None:
    # the library overflows computing an end after year 9999; cerebri then computes the
    # end itself (days after 9999 taken as 24 hours), so the event is busy in 2030
    text = calendar(vevent("DTSTART:20240330T100000Z", "DURATION:P9999999D", uid="huge"))
    parsed = parse_calendar(text)
    fast, slow = both_paths(
        lambda: busy_periods(parsed, utc("2030-01-01 00:00"), utc("2030-01-02 00:00"))
    )
    assert fast == slow
    assert fast[0] == "ok"
    (period,) = cast(tuple[BusyPeriod, ...], fast[1])
    assert period.start == utc("2024-03-30 10:00")
    # 2024-03-30 is day 738 975 (date.toordinal); 9 999 999 days later, at 10:00
    assert period.end.ns == ((738_975 + 9_999_999 - 719_163) * 86_400 + 36_000) * 10**9


def test_calendars_built_in_code_match_the_library_path() -> None:
    built = Calendar()
    berlin = datetime(2024, 10, 27, 2, 30, fold=1, tzinfo=ZoneInfo("Europe/Berlin"))
    for index, (start, end) in enumerate(
        [
            (berlin, berlin + timedelta(hours=1)),  # fold=1: the library clears it
            (datetime(2024, 10, 27, 1, 0, tzinfo=UTC), datetime(2024, 10, 27, 3, 0, tzinfo=UTC)),
            (date(2024, 10, 26), date(2024, 10, 28)),
        ]
    ):
        event = Event()
        event.add("UID", f"built-{index}")
        event.add("DTSTART", start)
        event.add("DTEND", end)
        built.add_component(event)
    window = (utc("2024-10-20 00:00"), utc("2024-11-01 00:00"))
    fast, slow = both_paths(lambda: busy_periods(built, *window, floating_zone="Europe/Berlin"))
    assert fast == slow
    assert fast[0] == "ok"


CONFORMANCE_WINDOWS = [
    ("2011-10-01 00:00", "2011-12-01 00:00"),
    ("2019-01-01 00:00", "2020-01-01 00:00"),
    ("2020-03-01 00:00", "2020-10-01 00:00"),
    ("2021-10-25 00:00", "2021-11-08 00:00"),
    ("2023-01-01 00:00", "2024-07-01 00:00"),
]


def read(parsed: Calendar, start: Instant, end: Instant, zone: str) -> object:
    return (
        busy_periods(parsed, start, end, floating_zone=zone),
        working_periods(parsed, start, end, floating_zone=zone),
    )


@pytest.mark.conformance
@pytest.mark.parametrize("zone", ["UTC", "Europe/Berlin", "America/Los_Angeles"])
def test_conformance_files_match_the_library_path(conformance: Path, zone: str) -> None:
    for path in sorted((conformance / "ics").glob("*.ics")):
        data = path.read_bytes()
        for text in (data, data.replace(b"TRANSP:TRANSPARENT", b"TRANSP:OPAQUE")):
            parsed = parse_calendar(text, source=path.name)
            for start, end in CONFORMANCE_WINDOWS:
                fast, slow = both_paths(partial(read, parsed, utc(start), utc(end), zone))
                assert fast == slow, (path.name, zone, start, end)


# ------------------------------------------------------------------------ canonical order


def _full_key(component: Any) -> tuple[object, ...]:
    return (*expand_module._canonical(component), expand_module._text(component))


@settings(deadline=None, max_examples=100)
@given(
    st.lists(
        st.tuples(
            st.sampled_from([None, "20240105T100000Z", "20240106T100000Z"]),
            st.sampled_from([None, 0, 1]),
            st.sampled_from(["A", "B"]),
        ),
        min_size=1,
        max_size=6,
    )
)
def test_canonical_order_is_the_full_key_order(
    specs: list[tuple[str | None, int | None, str]],
) -> None:
    components = []
    for rid, sequence, summary in specs:
        lines = ["DTSTART:20240105T100000Z", f"SUMMARY:{summary}"]
        lines += [] if rid is None else [f"RECURRENCE-ID:{rid}"]
        lines += [] if sequence is None else [f"SEQUENCE:{sequence}"]
        components.append(vevent(*lines, uid="same"))
    parsed = parse_calendar(calendar(*components))
    group = parsed.walk("VEVENT")
    ordered = expand_module._canonical_order(group)
    assert [id(c) for c in ordered] == [id(c) for c in sorted(group, key=_full_key)]


# ------------------------------------------------------------------------- checks once


MIXED = calendar(
    # floating start, New York end (11:00 UTC): in order read in UTC or Tokyo, reversed read
    # in Los Angeles (18:00 UTC)
    vevent("DTSTART:20240105T100000", "DTEND;TZID=America/New_York:20240105T060000", uid="m"),
    vevent("DTSTART:20240105T120000Z", "DTEND:20240105T130000Z", uid="fine"),
)


def test_zone_dependent_checks_run_for_each_floating_zone() -> None:
    parsed = parse_calendar(MIXED)
    window = (utc("2024-01-01 00:00"), utc("2024-01-10 00:00"))
    assert len(busy_periods(parsed, *window)) == 2
    for _ in range(2):  # refused every time, not only the first
        with pytest.raises(CalendarError) as raised:
            busy_periods(parsed, *window, floating_zone="America/Los_Angeles")
        assert raised.value.code == "ics.invalid_range"
        assert raised.value.uid == "m"
    assert len(busy_periods(parsed, *window, floating_zone="Asia/Tokyo")) == 2
    assert len(busy_periods(parsed, *window)) == 2


def test_checks_match_the_full_checks() -> None:
    window = (utc("2024-01-01 00:00"), utc("2024-01-10 00:00"))
    for zone in ("UTC", "Asia/Tokyo", "America/Los_Angeles"):
        marked = outcome(partial(busy_periods, parse_calendar(MIXED), *window, floating_zone=zone))
        parsed = parse_calendar(MIXED)
        delattr(parsed, validate._CHECKED)  # as if built in code: checked in full
        full = outcome(partial(busy_periods, parsed, *window, floating_zone=zone))
        assert marked == full


def test_a_parsed_calendar_given_new_components_is_checked_in_full() -> None:
    parsed = parse_calendar(calendar(vevent("DTSTART:20240105T120000Z", uid="fine")))
    window = (utc("2024-01-01 00:00"), utc("2024-01-10 00:00"))
    assert len(busy_periods(parsed, *window)) == 1
    bad = Event()
    bad.add("UID", "bad")
    bad.add("DTSTART", datetime(2024, 1, 5, 12, tzinfo=UTC))
    bad.add("DTEND", datetime(2024, 1, 5, 11, tzinfo=UTC))
    parsed.add_component(bad)
    with pytest.raises(CalendarError) as raised:
        busy_periods(parsed, *window)
    assert (raised.value.code, raised.value.uid) == ("ics.invalid_range", "bad")
