"""The interviews case of issue #24 (decision 0081): eight interviewers' one-week .ics
calendars and a batch file of 40 interviews (5 candidates x 8), written deterministically
from a seed.

The week is Monday 5 to Friday 9 October 2026 (Berlin CEST, London BST, New York EDT) unless
another Monday is given.
Each calendar holds what a real work calendar holds: a daily stand-up series shared by the
team (one day skipped by ``EXDATE``, one instance moved by a ``RECURRENCE-ID`` override),
a weekly team meeting, weekly 1:1 series (one skipped this week, one moved), all-day
out-of-office days, events in the owner's zone (``TZID`` with ``VTIMEZONE``), seeded
one-off meetings, and internal meetings marked ``X-CEREBRI-MOVABLE:TRUE`` (some with an
``X-CEREBRI-MOVE-COST``) that the batch may move. Rooms have calendars too. Candidates get
empty calendars: their interviews are written there.

Each candidate's loop: a video screen, two coding interviews (not on the same day), a
system design with two interviewers (and an optional shadow), values, the hiring manager,
a team chat and a wrap-up with the recruiter; every onsite interview after the screen,
the manager after both coding interviews, the wrap-up after the manager. Interviewers
keep their working hours (London and New York on their own clocks), onsite interviews
take a room big enough.

``write_case(folder, seed=0)`` writes ``<id>.ics`` per interviewer, room and candidate,
and ``batch.json``, and returns the :class:`Case` (paths and the plan of the week).
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from icalendar import Calendar, Event

__all__ = [
    "CANDIDATES",
    "INTERVIEWERS",
    "MONDAY",
    "ROOMS",
    "Case",
    "write_case",
]

BERLIN, LONDON, NEW_YORK = "Europe/Berlin", "Europe/London", "America/New_York"
MONDAY = date(2026, 10, 5)
"""The default week's Monday (any Monday works: ``write_case(monday=...)``)."""
WEEKDAYS = ["Mon", "Tue", "Wed", "Thu", "Fri"]

# id -> (zone, start, end, days)
INTERVIEWERS: dict[str, tuple[str, str, str, list[str]]] = {
    "anna": (BERLIN, "09:00", "17:30", WEEKDAYS),
    "ben": (BERLIN, "08:30", "17:00", WEEKDAYS),
    "chloe": (BERLIN, "09:00", "17:00", WEEKDAYS[:4]),  # part-time: no Fridays
    "david": (BERLIN, "10:00", "18:00", WEEKDAYS),
    "elena": (BERLIN, "09:00", "17:00", WEEKDAYS),
    "farid": (LONDON, "09:00", "17:30", WEEKDAYS),
    "grace": (LONDON, "08:30", "16:30", WEEKDAYS),
    "hiro": (NEW_YORK, "08:00", "16:00", WEEKDAYS),
}
ROOMS = {"atlas": 4, "borealis": 8, "cosmos": 3}
CANDIDATES = [f"cand-{k}" for k in range(1, 6)]
RECRUITER = "elena"
MOVABLE_TITLES = [
    "Focus time",
    "Roadmap review prep",
    "Doc review",
    "Pairing session",
    "Backlog grooming prep",
    "Reading group",
]
OTHER_TITLES = ["Incident review", "Vendor call", "Architecture sync", "Customer call"]


@dataclass(frozen=True)
class Case:
    """What :func:`write_case` wrote: the folder, the batch file, every calendar id with
    its file, and the movable UIDs."""

    folder: Path
    batch: Path
    calendars: dict[str, Path]
    movable: tuple[str, ...]


def _at(day: date, clock: str, zone: str) -> datetime:
    hour, minute = map(int, clock.split(":"))
    return datetime(day.year, day.month, day.day, hour, minute, tzinfo=ZoneInfo(zone))


def _event(
    uid: str, title: str, start: datetime | date, end: datetime | date, **more: Any
) -> Event:
    event = Event()
    event.add("uid", uid)
    event.add("dtstamp", datetime(2026, 9, 1, 8, 0, tzinfo=UTC))
    event.add("summary", title)
    event.add("dtstart", start)
    event.add("dtend", end)
    for name, value in more.items():
        event.add(name.replace("_", "-"), value)
    return event


def _shared(week: list[date]) -> list[Event]:
    """The series several calendars hold (each calendar gets its own copy)."""
    events: list[Event] = []
    first = week[0] - timedelta(weeks=4)
    standup = _event(
        "standup-platform.example.org",
        "Team stand-up",
        _at(first, "09:30", BERLIN),
        _at(first, "09:45", BERLIN),
        rrule={"freq": "daily", "byday": ["MO", "TU", "WE", "TH", "FR"]},
        exdate=_at(week[2], "09:30", BERLIN),  # no stand-up on Wednesday
    )
    moved = _event(
        "standup-platform.example.org",
        "Team stand-up (late)",
        _at(week[3], "11:00", BERLIN),
        _at(week[3], "11:15", BERLIN),
        recurrence_id=_at(week[3], "09:30", BERLIN),
        sequence=1,
    )
    weekly = _event(
        "weekly-platform.example.org",
        "Platform weekly",
        _at(first + timedelta(days=1), "14:00", BERLIN),
        _at(first + timedelta(days=1), "15:00", BERLIN),
        rrule={"freq": "weekly", "byday": ["TU"]},
    )
    events += [standup, moved, weekly]
    return events


ONE_ON_ONES = [
    # uid, a, b, weekday (0 = Monday; the series began four weeks earlier), start, end,
    # zone, skipped this week, moved this week to (day index, clock)
    ("1on1-anna-ben", "anna", "ben", 0, "11:00", "11:30", BERLIN, False, None),
    ("1on1-anna-chloe", "anna", "chloe", 2, "11:00", "11:45", BERLIN, True, None),
    ("1on1-david-elena", "david", "elena", 3, "15:00", "15:30", BERLIN, False, (4, "10:00")),
    ("1on1-farid-grace", "farid", "grace", 0, "14:00", "14:30", LONDON, False, None),
    ("1on1-hiro-anna", "hiro", "anna", 2, "10:00", "10:30", NEW_YORK, False, None),
]


def _one_on_ones(person: str, week: list[date]) -> list[Event]:
    events: list[Event] = []
    for uid, a, b, weekday, start, end, zone, skip, moved in ONE_ON_ONES:
        if person not in (a, b):
            continue
        this_week = week[weekday]
        first = this_week - timedelta(weeks=4)
        more: dict[str, Any] = {"rrule": {"freq": "weekly"}}
        if skip:
            more["exdate"] = _at(this_week, start, zone)
        events.append(
            _event(
                f"{uid}.example.org",
                f"1:1 {a}/{b}",
                _at(first, start, zone),
                _at(first, end, zone),
                **more,
            )
        )
        if moved is not None:
            day, clock = moved
            begin = _at(week[day], clock, zone)
            length = _at(first, end, zone) - _at(first, start, zone)
            events.append(
                _event(
                    f"{uid}.example.org",
                    f"1:1 {a}/{b} (moved)",
                    begin,
                    begin + length,
                    recurrence_id=_at(this_week, start, zone),
                    sequence=1,
                )
            )
    return events


OUT_OF_OFFICE = {"chloe": (3, 1), "ben": (4, 1), "grace": (2, 2)}  # day index, days


def _taken(events: list[Event], zone: str, week: list[date]) -> list[tuple[datetime, datetime]]:
    """The busy intervals (UTC) of ``events`` over the week, read by cerebri's own reader."""
    from cerebri.ics import busy_periods, parse_calendar  # noqa: PLC0415 - bench helper
    from cerebri.temporal import Instant  # noqa: PLC0415

    text = _calendar(events, "taken").to_ical()
    periods = busy_periods(
        parse_calendar(text, source="taken"),
        Instant.parse(_window(week)[0]),
        Instant.parse(_window(week)[1]),
        floating_zone=zone,
    )
    return [(_utc(p.start.format()), _utc(p.end.format())) for p in periods]


def _utc(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _singles(
    person: str, fixed: list[Event], rng: random.Random, week: list[date]
) -> tuple[list[Event], list[str]]:
    """Seeded one-off meetings: one movable internal one and 4-5 fixed ones, on the
    quarter-hour grid inside the person's hours, each clear of everything already in the
    calendar (so that no event must move: a move is the optimiser's choice)."""
    zone, opens, closes, days = INTERVIEWERS[person]
    taken = _taken(fixed, zone, week)
    first, last = (
        int(opens[:2]) * 4 + int(opens[3:]) // 15,
        int(closes[:2]) * 4 + int(closes[3:]) // 15,
    )
    events: list[Event] = []
    movable: list[str] = []
    want = 5 + rng.randrange(2)
    while len(events) < want:
        day = rng.randrange(len(days))
        length = rng.choice([2, 3, 4, 6])  # quarter hours
        quarter = rng.randrange(first, last - length + 1)
        begin = _at(week[day], f"{quarter // 4:02d}:{quarter % 4 * 15:02d}", zone)
        end = begin + timedelta(minutes=15 * length)
        if any(begin < b and a < end for a, b in taken):
            continue
        taken.append((begin, end))
        n = len(events)
        if n % 2 == 0 and not movable:
            uid = f"{person}-internal-{n}.example.org"
            extra: dict[str, Any] = {"x_cerebri_movable": "TRUE"}
            if rng.random() < 0.3:
                extra["x_cerebri_move_cost"] = "3"
            events.append(_event(uid, rng.choice(MOVABLE_TITLES), begin, end, **extra))
            movable.append(uid)
        else:
            uid = f"{person}-meeting-{n}@example.org"
            events.append(_event(uid, rng.choice(OTHER_TITLES), begin, end))
    return events, movable


def _calendar(events: list[Event], name: str) -> Calendar:
    calendar = Calendar()
    calendar.add("prodid", "-//cerebri//interviews case//EN")
    calendar.add("version", "2.0")
    calendar.add("x-wr-calname", name)
    for event in events:
        calendar.add_component(event)
    calendar.add_missing_timezones()
    return calendar


def _person_events(
    person: str, rng: random.Random, week: list[date]
) -> tuple[list[Event], list[str]]:
    events: list[Event] = []
    shared = _shared(week)
    events += shared if person != "hiro" else shared[2:]  # hiro: the weekly only (08:00 NY)
    events += _one_on_ones(person, week)
    if person in OUT_OF_OFFICE:
        day, length = OUT_OF_OFFICE[person]
        events.append(
            _event(
                f"ooo-{person}.example.org",
                "Out of office",
                week[day],
                week[day] + timedelta(days=length),
                transp="OPAQUE",
            )
        )
    if person == "david":
        events.append(
            _event(
                "lunch-david.example.org",
                "Lunch",
                _at(week[0] - timedelta(weeks=5), "12:30", BERLIN),
                _at(week[0] - timedelta(weeks=5), "13:15", BERLIN),
                rrule={"freq": "daily", "byday": ["MO", "TU", "WE", "TH", "FR"]},
            )
        )
    focus: list[str] = []
    if "Fri" in INTERVIEWERS[person][3] and OUT_OF_OFFICE.get(person, (0, 0))[0] != 4:
        zone, opens = INTERVIEWERS[person][:2]
        uid = f"{person}-focus-friday.example.org"
        begin = _at(week[4], max(opens, "09:00"), zone)
        events.append(
            _event(uid, "Focus time", begin, begin + timedelta(hours=2), x_cerebri_movable="TRUE")
        )
        focus.append(uid)
    singles, movable = _singles(person, events, rng, week)
    return events + singles, focus + movable


def _room_events(room: str, week: list[date]) -> list[Event]:
    if room == "borealis":
        return [
            _event(
                "all-hands.example.org",
                "All hands",
                _at(week[4] - timedelta(weeks=5), "16:00", BERLIN),
                _at(week[4] - timedelta(weeks=5), "17:00", BERLIN),
                rrule={"freq": "weekly", "byday": ["FR"]},
            )
        ]
    if room == "atlas":
        return [
            _event(
                "board-prep.example.org",
                "Board meeting prep",
                _at(week[2], "10:00", BERLIN),
                _at(week[2], "12:00", BERLIN),
            )
        ]
    return []


def _hours(person: str) -> list[dict[str, Any]]:
    _, opens, closes, days = INTERVIEWERS[person]
    return [{"days": days, "start": opens, "end": closes}]


def _interview(
    k: int, kind: str, title: str, minutes: int, people: list[str], **more: Any
) -> dict[str, Any]:
    """Candidate ``k``'s interview ``kind`` (the candidate first: the organiser)."""
    return {
        "object_id": f"c{k + 1}-{kind}",
        "title": f"Interview {CANDIDATES[k]}: {title}",
        "duration": minutes * 60,
        "required": [CANDIDATES[k], *people],
        **more,
    }


def _loops(rng: random.Random) -> list[dict[str, Any]]:
    """Five candidates' loops of eight interviews (module doc)."""
    meetings: list[dict[str, Any]] = []
    onsite = ["anna", "ben", "chloe", "david", "farid", "grace"]
    screeners = ["hiro", "grace", "farid", "hiro", "ben"]
    for k in range(len(CANDIDATES)):
        manager = "anna" if k < 3 else "david"
        # cand-5 is here Thursday afternoon and Friday morning: chloe (out on Thursday,
        # no Fridays) and grace (out Wednesday and Thursday) cannot see them
        # (and the recruiter's Friday holds their wrap-up): four interviewers, one twice
        pool = [p for p in onsite if p != manager] if k < 4 else ["anna", "farid", "ben", "hiro"]
        rng.shuffle(pool)
        pool.append(pool[0])
        chat = ["elena", "hiro", "chloe"] if k < 4 else ["elena", "hiro"]
        c1, c2, d1, d2, values = pool[0], pool[1], pool[2], pool[3], pool[4]
        shadow = next(p for p in ("elena", "chloe", "ben") if p not in (c1, c2, d1, d2, values))

        screen = f"c{k + 1}-screen"
        after_screen = [{"object_id": screen}]
        meetings += [
            _interview(k, "screen", "screen (video)", 45, [screeners[k]]),
            _interview(
                k,
                "coding-1",
                "coding 1",
                60,
                [c1],
                room={},
                after=after_screen,
                not_same_day_as=[f"c{k + 1}-coding-2"],
            ),
            _interview(k, "coding-2", "coding 2", 60, [c2], room={}, after=after_screen),
            _interview(
                k,
                "design",
                "system design",
                60,
                [d1, d2],
                optional=[shadow],
                room={},
                after=after_screen,
            ),
            _interview(k, "values", "values", 45, [values], room={}, after=after_screen),
            _interview(
                k,
                "manager",
                "hiring manager",
                45,
                [manager],
                room={},
                after=[{"object_id": f"c{k + 1}-coding-1"}, {"object_id": f"c{k + 1}-coding-2"}],
            ),
            _interview(k, "team", "team chat", 30, [rng.choice(chat)], after=after_screen),
            _interview(
                k,
                "wrap-up",
                "wrap-up",
                30,
                [RECRUITER],
                after=[{"object_id": f"c{k + 1}-manager", "gap_seconds": 900}],
            ),
        ]
    return meetings


def _window(week: list[date]) -> tuple[str, str]:
    """Monday 00:00 to Saturday 00:00 in Berlin, as RFC 3339 UTC instants."""
    start = _at(week[0], "00:00", BERLIN).astimezone(UTC)
    end = _at(week[0] + timedelta(days=5), "00:00", BERLIN).astimezone(UTC)
    return f"{start:%Y-%m-%dT%H:%M:%SZ}", f"{end:%Y-%m-%dT%H:%M:%SZ}"


def write_case(
    folder: Path, *, seed: int = 0, deterministic_time: float = 0.5, monday: date = MONDAY
) -> Case:
    """Write the calendars and ``batch.json`` for the week of ``monday`` into ``folder``
    (created); the same arguments write the same bytes. ``deterministic_time`` is the
    solver's budget in CP-SAT work units."""
    if monday.weekday() != 0:
        raise ValueError(f"{monday} is not a Monday")
    rng = random.Random(seed)
    week = [monday + timedelta(days=d) for d in range(5)]
    folder.mkdir(parents=True, exist_ok=True)
    calendars: dict[str, Path] = {}
    movable: list[str] = []
    for person in INTERVIEWERS:
        events, marked = _person_events(person, rng, week)
        movable += marked
        calendars[person] = folder / f"{person}.ics"
        calendars[person].write_bytes(_calendar(events, person).to_ical())
    for room in ROOMS:
        calendars[room] = folder / f"{room}.ics"
        calendars[room].write_bytes(_calendar(_room_events(room, week), room).to_ical())
    for cand in CANDIDATES:
        calendars[cand] = folder / f"{cand}.ics"
        calendars[cand].write_bytes(_calendar([], cand).to_ical())
    people = [
        {"id": p, "calendar_id": p, "timezone": INTERVIEWERS[p][0], "hours": _hours(p)}
        for p in INTERVIEWERS
    ]
    candidate_hours = [
        [{"days": WEEKDAYS, "start": "09:00", "end": "18:00"}],
        [{"days": WEEKDAYS[1:], "start": "09:00", "end": "18:00"}],
        [{"days": WEEKDAYS[:4], "start": "09:00", "end": "18:00"}],
        [{"days": WEEKDAYS, "start": "09:00", "end": "18:00"}],
        # flies in on Thursday at noon, out on Friday afternoon
        [
            {"days": ["Thu"], "start": "13:00", "end": "18:00"},
            {"days": ["Fri"], "start": "09:00", "end": "13:00"},
        ],
    ]
    people += [
        {"id": cand, "calendar_id": cand, "timezone": BERLIN, "hours": candidate_hours[k]}
        for k, cand in enumerate(CANDIDATES)
    ]
    batch = {
        "window": {"start": _window(week)[0], "end": _window(week)[1]},
        "timezone": BERLIN,
        "granularity": 900,
        "duration": 3600,
        "repairs": {"max_repairs": 8, "max_depth": 1, "move_cost": 1, "same_day": True},
        "batch": {
            "meetings": _loops(rng),
            "people": people,
            "rooms": [{"id": r, "calendar_id": r, "capacity": c} for r, c in ROOMS.items()],
            "weights": {"early": 1, "preference": 0, "back_to_back": 1, "move": 20},
            "solver": {"deterministic_time": deterministic_time, "workers": 1, "seed": 0},
        },
    }
    path = folder / "batch.json"
    path.write_text(json.dumps(batch, indent=2) + "\n", encoding="utf-8")
    return Case(folder, path, calendars, tuple(movable))


if __name__ == "__main__":  # python bench/_interviews_data.py FOLDER [MONDAY [SEED]]
    import sys

    day = date.fromisoformat(sys.argv[2]) if len(sys.argv) > 2 else MONDAY
    case = write_case(
        Path(sys.argv[1]), monday=day, seed=int(sys.argv[3]) if len(sys.argv) > 3 else 0
    )
    print(" ".join(f"--ics-calendar {name}={path}" for name, path in case.calendars.items()))
