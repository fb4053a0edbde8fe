"""Recurrence cases that servers' own time-range queries get wrong, with busy time by hand.

Each case is one calendar object (one UID). ``expected`` maps a floating zone to the busy
periods ``(start, end)`` in UTC that :func:`cerebri.ics.busy_periods` must report inside
:data:`WINDOW`; every value is worked out by hand in the comment above it.

The window is two weeks, Monday 2025-03-24 00:00Z to Monday 2025-04-07 00:00Z, across the
start of summer time in Berlin (Sunday 2025-03-30, 02:00 CET -> 03:00 CEST).
"""

from __future__ import annotations

from dataclasses import dataclass

from cerebri.temporal import Instant

WINDOW = (Instant.parse("2025-03-24T00:00:00Z"), Instant.parse("2025-04-07T00:00:00Z"))
BETWEEN = "2025-03-24T00:00/2025-04-07T00:00"  # the same window for the CLI, --tz UTC

Span = tuple[str, str]

_HEAD = "BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//cerebri tests//caldav cases//EN\n"
_TAIL = "END:VCALENDAR\n"
_BERLIN = (
    "BEGIN:VTIMEZONE\nTZID:Europe/Berlin\n"
    "BEGIN:DAYLIGHT\nTZOFFSETFROM:+0100\nTZOFFSETTO:+0200\nTZNAME:CEST\n"
    "DTSTART:19700329T020000\nRRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU\nEND:DAYLIGHT\n"
    "BEGIN:STANDARD\nTZOFFSETFROM:+0200\nTZOFFSETTO:+0100\nTZNAME:CET\n"
    "DTSTART:19701025T030000\nRRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU\nEND:STANDARD\n"
    "END:VTIMEZONE\n"
)


@dataclass(frozen=True)
class Case:
    """One calendar object and its busy time in :data:`WINDOW` per floating zone."""

    name: str
    events: tuple[str, ...]  # VEVENT bodies (between BEGIN:VEVENT and END:VEVENT)
    expected: dict[str, list[Span]]
    zones: str = ""  # VTIMEZONE definitions the events need

    @property
    def uid(self) -> str:
        return f"{self.name}@cerebri.test"

    @property
    def text(self) -> str:
        head = f"BEGIN:VEVENT\nUID:{self.uid}\nDTSTAMP:20250101T000000Z\n"
        body = "".join(f"{head}{event}END:VEVENT\n" for event in self.events)
        return _HEAD + self.zones + body + _TAIL


def _weekly_monday(extra: str = "") -> str:
    # Mondays 10:00-11:00Z since Monday 2025-01-06, without end.
    return (
        "DTSTART:20250106T100000Z\nDTEND:20250106T110000Z\nRRULE:FREQ=WEEKLY;BYDAY=MO\n"
        f"SUMMARY:Weekly{extra}\n"
    )


CASES = (
    # Mondays 03-24 and 03-31 at 10:00Z are in the window; the instance of Monday 04-07
    # (just after the window) is moved into it, to Friday 04-04 15:00-16:00Z.
    Case(
        "moved-in-near",
        (
            _weekly_monday(),
            "RECURRENCE-ID:20250407T100000Z\nDTSTART:20250404T150000Z\n"
            "DTEND:20250404T160000Z\nSUMMARY:Moved in\n",
        ),
        {
            "UTC": [
                ("2025-03-24T10:00:00Z", "2025-03-24T11:00:00Z"),
                ("2025-03-31T10:00:00Z", "2025-03-31T11:00:00Z"),
                ("2025-04-04T15:00:00Z", "2025-04-04T16:00:00Z"),
            ]
        },
    ),
    # The instance of Monday 06-02, two months away, moved to Wednesday 04-02 09:00-10:00Z.
    Case(
        "moved-in-far",
        (
            _weekly_monday(),
            "RECURRENCE-ID:20250602T100000Z\nDTSTART:20250402T090000Z\n"
            "DTEND:20250402T100000Z\nSUMMARY:Moved in from June\n",
        ),
        {
            "UTC": [
                ("2025-03-24T10:00:00Z", "2025-03-24T11:00:00Z"),
                ("2025-03-31T10:00:00Z", "2025-03-31T11:00:00Z"),
                ("2025-04-02T09:00:00Z", "2025-04-02T10:00:00Z"),
            ]
        },
    ),
    # The instance of Monday 03-31 moved just out, to Tuesday 04-08: only 03-24 is left.
    Case(
        "moved-out-near",
        (
            _weekly_monday(),
            "RECURRENCE-ID:20250331T100000Z\nDTSTART:20250408T100000Z\n"
            "DTEND:20250408T110000Z\nSUMMARY:Moved out\n",
        ),
        {"UTC": [("2025-03-24T10:00:00Z", "2025-03-24T11:00:00Z")]},
    ),
    # The instance of Monday 03-24 moved far out, to August: only 03-31 is left.
    Case(
        "moved-out-far",
        (
            _weekly_monday(),
            "RECURRENCE-ID:20250324T100000Z\nDTSTART:20250801T100000Z\n"
            "DTEND:20250801T110000Z\nSUMMARY:Moved to August\n",
        ),
        {"UTC": [("2025-03-31T10:00:00Z", "2025-03-31T11:00:00Z")]},
    ),
    # Mondays 10:00Z, 11 times: 01-06 ... 03-17, all before the window. THISANDFUTURE from
    # 03-10 moves that instance and the later ones by +10 days: 03-10 -> Thursday 03-20
    # (before the window), 03-17 -> Thursday 03-27 10:00-11:00Z (inside).
    Case(
        "thisandfuture-forward",
        (
            "DTSTART:20250106T100000Z\nDTEND:20250106T110000Z\n"
            "RRULE:FREQ=WEEKLY;COUNT=11\nSUMMARY:Series\n",
            "RECURRENCE-ID;RANGE=THISANDFUTURE:20250310T100000Z\n"
            "DTSTART:20250320T100000Z\nDTEND:20250320T110000Z\nSUMMARY:Shifted\n",
        ),
        {"UTC": [("2025-03-27T10:00:00Z", "2025-03-27T11:00:00Z")]},
    ),
    # Mondays 10:00Z from 04-14, 5 times, all after the window. THISANDFUTURE from 04-14
    # moves every instance by -12 days: 04-14 -> Wednesday 04-02 10:00-11:00Z (inside),
    # 04-21 -> 04-09 (after the window), and so on.
    Case(
        "thisandfuture-backward",
        (
            "DTSTART:20250414T100000Z\nDTEND:20250414T110000Z\n"
            "RRULE:FREQ=WEEKLY;COUNT=5\nSUMMARY:Series\n",
            "RECURRENCE-ID;RANGE=THISANDFUTURE:20250414T100000Z\n"
            "DTSTART:20250402T100000Z\nDTEND:20250402T110000Z\nSUMMARY:Shifted\n",
        ),
        {"UTC": [("2025-04-02T10:00:00Z", "2025-04-02T11:00:00Z")]},
    ),
    # Daily 09:00-09:30Z from 03-20, 10 times (03-20 ... 03-29); 03-25 is excluded.
    Case(
        "exdate",
        (
            "DTSTART:20250320T090000Z\nDTEND:20250320T093000Z\nRRULE:FREQ=DAILY;COUNT=10\n"
            "EXDATE:20250325T090000Z\nSUMMARY:Daily\n",
        ),
        {
            "UTC": [
                ("2025-03-24T09:00:00Z", "2025-03-24T09:30:00Z"),
                ("2025-03-26T09:00:00Z", "2025-03-26T09:30:00Z"),
                ("2025-03-27T09:00:00Z", "2025-03-27T09:30:00Z"),
                ("2025-03-28T09:00:00Z", "2025-03-28T09:30:00Z"),
                ("2025-03-29T09:00:00Z", "2025-03-29T09:30:00Z"),
            ]
        },
    ),
    # Mondays and Wednesdays 13:00-14:00Z from Monday 03-03, 20 times. In the window:
    # 03-24, 03-26 (cancelled), 03-31, 04-02 (transparent): two are busy.
    Case(
        "cancelled-and-transparent",
        (
            "DTSTART:20250303T130000Z\nDTEND:20250303T140000Z\n"
            "RRULE:FREQ=WEEKLY;BYDAY=MO,WE;COUNT=20\nSUMMARY:Sync\n",
            "RECURRENCE-ID:20250326T130000Z\nDTSTART:20250326T130000Z\n"
            "DTEND:20250326T140000Z\nSTATUS:CANCELLED\nSUMMARY:Sync (cancelled)\n",
            "RECURRENCE-ID:20250402T130000Z\nDTSTART:20250402T130000Z\n"
            "DTEND:20250402T140000Z\nTRANSP:TRANSPARENT\nSUMMARY:Sync (optional)\n",
        ),
        {
            "UTC": [
                ("2025-03-24T13:00:00Z", "2025-03-24T14:00:00Z"),
                ("2025-03-31T13:00:00Z", "2025-03-31T14:00:00Z"),
            ]
        },
    ),
    # Daily 08:00-08:30Z from 2024-12-01, 115 times: Dec (31) + Jan (31) + Feb (28) = 90
    # days, so instance 91 is 03-01 and instance 115 is 03-25: 03-24 and 03-25 are busy.
    Case(
        "old-count",
        (
            "DTSTART:20241201T080000Z\nDTEND:20241201T083000Z\nRRULE:FREQ=DAILY;COUNT=115\n"
            "SUMMARY:Old daily\n",
        ),
        {
            "UTC": [
                ("2025-03-24T08:00:00Z", "2025-03-24T08:30:00Z"),
                ("2025-03-25T08:00:00Z", "2025-03-25T08:30:00Z"),
            ]
        },
    ),
    # Fridays 16:00-17:00Z from Friday 2024-10-04 until 2025-03-28T16:00Z (inclusive).
    Case(
        "old-until",
        (
            "DTSTART:20241004T160000Z\nDTEND:20241004T170000Z\n"
            "RRULE:FREQ=WEEKLY;UNTIL=20250328T160000Z\nSUMMARY:Old weekly\n",
        ),
        {"UTC": [("2025-03-28T16:00:00Z", "2025-03-28T17:00:00Z")]},
    ),
    # Tuesdays 11:00Z from 2024-09-03, 10 times (ended 2024-11-05); the instance of
    # 2024-10-15 was moved to Tuesday 2025-04-01 11:00-12:00Z.
    Case(
        "ended-series-moved-in",
        (
            "DTSTART:20240903T110000Z\nDTEND:20240903T120000Z\nRRULE:FREQ=WEEKLY;COUNT=10\n"
            "SUMMARY:Autumn course\n",
            "RECURRENCE-ID:20241015T110000Z\nDTSTART:20250401T110000Z\n"
            "DTEND:20250401T120000Z\nSUMMARY:Make-up session\n",
        ),
        {"UTC": [("2025-04-01T11:00:00Z", "2025-04-01T12:00:00Z")]},
    ),
    # One hour on 2025-02-10 and, by RDATE, on 03-26 15:00Z and 04-04 09:00Z; no RRULE.
    Case(
        "rdate-only",
        (
            "DTSTART:20250210T150000Z\nDTEND:20250210T160000Z\n"
            "RDATE:20250326T150000Z,20250404T090000Z\nSUMMARY:Irregular\n",
        ),
        {
            "UTC": [
                ("2025-03-26T15:00:00Z", "2025-03-26T16:00:00Z"),
                ("2025-04-04T09:00:00Z", "2025-04-04T10:00:00Z"),
            ]
        },
    ),
    # The whole of 04-01: midnight to midnight UTC, or 03-31T22:00Z in Berlin (CEST, +2).
    Case(
        "all-day",
        ("DTSTART;VALUE=DATE:20250401\nDTEND;VALUE=DATE:20250402\nSUMMARY:Offsite\n",),
        {
            "UTC": [("2025-04-01T00:00:00Z", "2025-04-02T00:00:00Z")],
            "Europe/Berlin": [("2025-03-31T22:00:00Z", "2025-04-01T22:00:00Z")],
        },
    ),
    # Floating 09:30-10:30 on 03-25: as UTC, or 08:30Z in Berlin (CET, +1).
    Case(
        "floating",
        ("DTSTART:20250325T093000\nDTEND:20250325T103000\nSUMMARY:Wherever I am\n",),
        {
            "UTC": [("2025-03-25T09:30:00Z", "2025-03-25T10:30:00Z")],
            "Europe/Berlin": [("2025-03-25T08:30:00Z", "2025-03-25T09:30:00Z")],
        },
    ),
    # Daily 09:00-09:30 Berlin time from 03-29, 4 times: 08:00Z on Saturday 03-29 (CET),
    # 07:00Z from Sunday 03-30 on (CEST).
    Case(
        "dst-change",
        (
            "DTSTART;TZID=Europe/Berlin:20250329T090000\n"
            "DTEND;TZID=Europe/Berlin:20250329T093000\nRRULE:FREQ=DAILY;COUNT=4\n"
            "SUMMARY:Berlin sync\n",
        ),
        {
            "UTC": [
                ("2025-03-29T08:00:00Z", "2025-03-29T08:30:00Z"),
                ("2025-03-30T07:00:00Z", "2025-03-30T07:30:00Z"),
                ("2025-03-31T07:00:00Z", "2025-03-31T07:30:00Z"),
                ("2025-04-01T07:00:00Z", "2025-04-01T07:30:00Z"),
            ]
        },
        zones=_BERLIN,
    ),
)
