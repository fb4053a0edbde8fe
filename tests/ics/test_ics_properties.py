"""Properties of ``busy_periods`` on small random calendars.

* The result does not depend on the order of the components in the file, also when
  components share a UID (masters and overrides with equal or different ``SEQUENCE``).
* Expansion never yields more than ``max_occurrences`` instances of recurring series
  (plain events are not generated and never count): either the call raises
  ``ics.expansion_limit`` or the result has at most that many, and equals the unlimited one.
* Single UTC events agree with a direct reading of their properties.
* Damaged calendars (truncated, lines lost or added, characters changed) fail only with
  ``CalendarError``, never with another exception.
"""

from __future__ import annotations

from datetime import timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from cerebri.ics import (
    CODES,
    BusyPeriod,
    CalendarError,
    busy_periods,
    parse_calendar,
    working_periods,
)
from cerebri.temporal.instant import Instant
from tests.ics.helpers import calendar
from tests.strategies import ICS_BASE as BASE
from tests.strategies import IcsSpec as Spec
from tests.strategies import ics_single_events as single_events
from tests.strategies import ics_specs as specs
from tests.strategies import ics_stamp as stamp

WINDOW = (
    Instant.from_datetime(BASE + timedelta(days=3)),
    Instant.from_datetime(BASE + timedelta(days=17)),
)


def busy(components: list[str], limit: int = 100_000) -> tuple[BusyPeriod, ...]:
    return busy_periods([parse_calendar(calendar(*components))], *WINDOW, max_occurrences=limit)


@settings(deadline=None, max_examples=150)
@given(st.lists(specs, min_size=1, max_size=6), st.randoms(use_true_random=False))
def test_component_order_does_not_matter(items: list[Spec], rnd) -> None:
    texts = [item.text() for item in items]
    shuffled = list(texts)
    rnd.shuffle(shuffled)
    assert busy(texts) == busy(shuffled) == busy(texts[::-1])


@settings(deadline=None, max_examples=150)
@given(st.lists(specs, min_size=1, max_size=6), st.integers(min_value=0, max_value=40))
def test_expansion_never_exceeds_the_limit(items: list[Spec], limit: int) -> None:
    texts = [item.text() for item in items]
    unlimited = busy(texts)
    try:
        limited = busy(texts, limit)
    except CalendarError as error:
        assert error.code == "ics.expansion_limit"
        assert error.uid in {"a", "b", "c"}
        return
    assert sum(period.recurrence_id is not None for period in limited) <= limit
    assert limited == unlimited


@settings(deadline=None, max_examples=100)
@given(single_events)
def test_single_utc_events_match_a_direct_reading(
    events: list[tuple[int, int, bool, bool]],
) -> None:
    texts = []
    expected = []
    for index, (start, minutes, transparent, cancelled) in enumerate(events):
        lines = [
            "BEGIN:VEVENT",
            f"UID:e{index}",
            f"DTSTART:{stamp(start)}",
            f"DTEND:{stamp(start + minutes)}",
        ]
        lines += ["TRANSP:TRANSPARENT"] if transparent else []
        lines += ["STATUS:CANCELLED"] if cancelled else []
        texts.append("\n".join([*lines, "END:VEVENT"]))
        begin = Instant.from_datetime(BASE + timedelta(minutes=start))
        end = Instant.from_datetime(BASE + timedelta(minutes=start + minutes))
        inside = (
            (WINDOW[0] <= begin < WINDOW[1])
            if begin == end
            else (begin < WINDOW[1] and end > WINDOW[0])
        )
        if inside and not transparent and not cancelled:
            expected.append((begin.ns, end.ns, f"e{index}"))
    found = busy(texts) if texts else ()
    assert [(p.start.ns, p.end.ns, p.uid) for p in found] == sorted(expected)


ROBUST_BASE = calendar(
    "\n".join(
        [
            "BEGIN:VTIMEZONE",
            "TZID:Cerebri Test/Fuzz Zone",
            "BEGIN:STANDARD",
            "DTSTART:19700101T000000",
            "TZOFFSETFROM:+0200",
            "TZOFFSETTO:+0200",
            "END:STANDARD",
            "END:VTIMEZONE",
        ]
    ),
    "\n".join(
        [
            "BEGIN:VEVENT",
            "UID:series",
            "DTSTART;TZID=Europe/Berlin:20240105T100000",
            "DTEND;TZID=Europe/Berlin:20240105T110000",
            "RRULE:FREQ=DAILY;COUNT=10",
            "EXDATE;TZID=Europe/Berlin:20240107T100000",
            "RDATE;VALUE=PERIOD:20240120T100000Z/PT2H",
            "SEQUENCE:1",
            "END:VEVENT",
            "BEGIN:VEVENT",
            "UID:series",
            "RECURRENCE-ID;RANGE=THISANDFUTURE;TZID=Europe/Berlin:20240110T100000",
            "DTSTART;TZID=Cerebri Test/Fuzz Zone:20240110T120000",
            "DURATION:PT45M",
            "SEQUENCE:2",
            "END:VEVENT",
            "BEGIN:VFREEBUSY",
            "UID:fb",
            "FREEBUSY;FBTYPE=BUSY-TENTATIVE:20240106T080000Z/PT1H,20240106T100000Z/20240106T110000Z",
            "END:VFREEBUSY",
            "BEGIN:VAVAILABILITY",
            "UID:va",
            "PRIORITY:3",
            "DTSTART:20240101T000000Z",
            "BEGIN:AVAILABLE",
            "UID:av",
            "DTSTART;VALUE=DATE:20240101",
            "DURATION:P1D",
            "RRULE:FREQ=WEEKLY;BYDAY=MO,WE",
            "END:AVAILABLE",
            "END:VAVAILABILITY",
        ]
    ),
)
INSERTS = [
    "DTSTART:00010101T000000Z",
    "DTSTART;TZID=America/New_York:00010101T000000",
    "DTEND:99991231T235959Z",
    "DURATION:P9999999D",
    "RRULE:FREQ=SECONDLY",
    "RDATE:99991231T000000Z",
    "EXDATE:garbage",
    "RECURRENCE-ID:20240106",
    "SEQUENCE:x",
    "PRIORITY:many",
    "FREEBUSY:20240101T000000Z/20230101T000000Z",
    "BEGIN:VEVENT",
    "END:VAVAILABILITY",
    "TZID:",
    "DTSTART;TZID=Unknown/Zone:20240105T100000",
]


@settings(deadline=None, max_examples=200)
@given(
    st.sampled_from(["truncate", "delete", "insert", "cut-line", "replace-char"]),
    st.integers(min_value=0, max_value=10_000),
    st.sampled_from(INSERTS),
    st.sampled_from(list("0123456789:;=TZ-/,")),
)
def test_damaged_calendars_fail_only_with_calendar_errors(
    how: str, where: int, insert: str, char: str
) -> None:
    lines = ROBUST_BASE.split("\r\n")
    line = where % len(lines)
    if how == "truncate":
        text = ROBUST_BASE[: where % len(ROBUST_BASE)]
    elif how == "delete":
        text = "\r\n".join(lines[:line] + lines[line + 1 :])
    elif how == "insert":
        text = "\r\n".join([*lines[:line], insert, *lines[line:]])
    elif how == "cut-line":
        lines[line] = lines[line][: where % (len(lines[line]) + 1)]
        text = "\r\n".join(lines)
    else:
        position = where % len(ROBUST_BASE)
        text = ROBUST_BASE[:position] + char + ROBUST_BASE[position + 1 :]
    window = (Instant.from_datetime(BASE), Instant.from_datetime(BASE + timedelta(days=60)))
    try:
        parsed = parse_calendar(text)
        busy_periods([parsed], *window, floating_zone="Europe/Berlin", max_occurrences=5000)
        working_periods([parsed], *window, max_occurrences=5000)
    except CalendarError as error:
        assert error.code in CODES
