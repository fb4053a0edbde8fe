"""``working_periods`` on inline VAVAILABILITY (RFC 7953) calendars."""

from __future__ import annotations

from cerebri.ics import busy_periods, parse_calendar, working_periods
from tests.ics.helpers import calendar, span, utc

# Monday 2024-01-08 .. Friday 2024-01-12 (UTC, no DST involved)
WEEK = (utc("2024-01-08 00:00"), utc("2024-01-13 00:00"))


def availability(*lines: str, uid: str, available: list[list[str]]) -> str:
    blocks = ["BEGIN:VAVAILABILITY", f"UID:{uid}", "DTSTAMP:20240101T000000Z", *lines]
    for number, extra in enumerate(available):
        blocks += ["BEGIN:AVAILABLE", f"UID:{uid}-{number}", "DTSTAMP:20240101T000000Z", *extra]
        blocks.append("END:AVAILABLE")
    blocks.append("END:VAVAILABILITY")
    return "\n".join(blocks)


NINE_TO_FIVE = [
    "DTSTART:20240108T090000Z",
    "DTEND:20240108T170000Z",
    "RRULE:FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR",
]


def working(text: str, window: tuple = WEEK, zone: str = "UTC") -> list:
    return list(working_periods([parse_calendar(text)], *window, floating_zone=zone))


def test_unbounded_availability() -> None:
    text = calendar(availability(uid="base", available=[NINE_TO_FIVE]))
    assert working(text) == [
        span(f"2024-01-{d:02d} 09:00", f"2024-01-{d:02d} 17:00") for d in range(8, 13)
    ]
    assert busy_periods([parse_calendar(text)], *WEEK) == ()  # availability is not busy


def test_higher_priority_overrides_inside_its_range() -> None:
    # Wednesday 01-10 is covered by a PRIORITY:1 block whose only AVAILABLE is 12:00-14:00
    text = calendar(
        availability(uid="base", available=[NINE_TO_FIVE]),
        availability(
            "PRIORITY:1",
            "DTSTART:20240110T000000Z",
            "DTEND:20240111T000000Z",
            uid="wednesday",
            available=[["DTSTART:20240110T120000Z", "DTEND:20240110T140000Z"]],
        ),
    )
    assert working(text) == [
        span("2024-01-08 09:00", "2024-01-08 17:00"),
        span("2024-01-09 09:00", "2024-01-09 17:00"),
        span("2024-01-10 12:00", "2024-01-10 14:00"),
        span("2024-01-11 09:00", "2024-01-11 17:00"),
        span("2024-01-12 09:00", "2024-01-12 17:00"),
    ]


def test_priority_zero_ranks_below_nine() -> None:
    text = calendar(
        availability("PRIORITY:9", uid="base", available=[NINE_TO_FIVE]),
        availability(
            "PRIORITY:0",
            "DTSTART:20240110T000000Z",
            "DTEND:20240111T000000Z",
            uid="undefined-priority",
            available=[],
        ),
    )
    assert len(working(text)) == 5  # the PRIORITY:0 block does not win


def test_equal_priority_blocks_are_joined() -> None:
    text = calendar(
        availability(
            uid="morning", available=[["DTSTART:20240108T080000Z", "DTEND:20240108T120000Z"]]
        ),
        availability(
            uid="afternoon", available=[["DTSTART:20240108T110000Z", "DTEND:20240108T150000Z"]]
        ),
    )
    assert working(text) == [span("2024-01-08 08:00", "2024-01-08 15:00")]


def test_available_time_is_cut_to_its_block_and_to_the_window() -> None:
    text = calendar(
        availability(
            "DTSTART:20240109T120000Z",
            "DURATION:P1D",
            uid="short",
            available=[NINE_TO_FIVE],
        )
    )
    # the block runs 01-09 12:00 to 01-10 12:00: Tue 12-17 and Wed 09-12
    assert working(text) == [
        span("2024-01-09 12:00", "2024-01-09 17:00"),
        span("2024-01-10 09:00", "2024-01-10 12:00"),
    ]
    narrow = (utc("2024-01-09 13:00"), utc("2024-01-09 14:00"))
    assert working(text, window=narrow) == [span("2024-01-09 13:00", "2024-01-09 14:00")]


def test_busytype_does_not_change_working_time() -> None:
    for busytype in ("BUSY", "BUSY-UNAVAILABLE", "BUSY-TENTATIVE"):
        text = calendar(availability(f"BUSYTYPE:{busytype}", uid="b", available=[NINE_TO_FIVE]))
        assert len(working(text)) == 5


def test_available_exdate_and_floating_zone() -> None:
    # floating 09:00-17:00 in New York (EST, -5) = 14:00-22:00Z; Thursday removed by EXDATE
    text = calendar(
        availability(
            uid="ny",
            available=[
                [
                    "DTSTART:20240108T090000",
                    "DTEND:20240108T170000",
                    "RRULE:FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR",
                    "EXDATE:20240111T090000",
                ]
            ],
        )
    )
    assert working(text, zone="America/New_York") == [
        span(f"2024-01-{d:02d} 14:00", f"2024-01-{d:02d} 22:00") for d in (8, 9, 10, 12)
    ]


def test_no_availability_means_no_working_time() -> None:
    text = calendar("BEGIN:VEVENT\nUID:e\nDTSTART:20240108T100000Z\nEND:VEVENT")
    assert working(text) == []
