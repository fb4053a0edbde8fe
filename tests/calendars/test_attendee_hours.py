"""Each attendee's own working hours and zone (``--hours``, ``SlotQuery.attendee_hours``,
``VAVAILABILITY``): docs/decisions/0053-attendee-hours-and-zones.md.

Attendees in New York, Berlin and Tokyo over windows that cross a DST change (the US on
2026-03-08, the EU on 2026-03-29). The expected slots come from a brute force over the grid
that reads each slot's wall-clock times with ``zoneinfo`` (independent of the blocker
intervals find-slot builds): a slot is open for an attendee when its local start and end
fall on the same local working day, start at or after the opening and end at or before the
closing.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import jsonschema
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from icalendar import Calendar, Event
from typer.testing import CliRunner

import cerebri
from cerebri.calendars import (
    FIND_SLOT_LIMITS,
    AttendeeHours,
    ImportedCalendars,
    SlotQuery,
    find_slot,
)
from cerebri.calendars.find_slot_body import read_find_slot_body
from cerebri.calendars.wire import FIND_SLOT_ANSWER_SCHEMA, answer_wire, plan_slots
from cerebri.cli import app
from cerebri.errors import CerebriError, InvalidArgumentError
from cerebri.ics import parse_calendar
from cerebri.mcp.arguments import FindSlotArgs
from cerebri.mcp.calendar_tools import find_slot_tool
from cerebri.mcp.settings import McpSettings
from cerebri.temporal import Instant
from tests.strategies import attendee_hours

NEW_YORK = ZoneInfo("America/New_York")
BERLIN = ZoneInfo("Europe/Berlin")
TOKYO = ZoneInfo("Asia/Tokyo")
WEEKDAYS = frozenset(range(5))
GRID = timedelta(minutes=15)
LENGTH = timedelta(minutes=30)

# Thursday 2026-03-05 to Wednesday 2026-03-11 (US DST starts on Sunday 03-08), and
# Thursday 2026-03-26 to Wednesday 2026-04-01 (EU DST starts on Sunday 03-29).
WINDOWS = [
    (datetime(2026, 3, 5, tzinfo=UTC), datetime(2026, 3, 12, tzinfo=UTC)),
    (datetime(2026, 3, 26, tzinfo=UTC), datetime(2026, 4, 2, tzinfo=UTC)),
]

BUSY = {
    "alice": [("2026-03-09T13:00", "2026-03-09T13:30"), ("2026-03-30T13:00", "2026-03-30T14:00")],
    "bob": [("2026-03-10T13:30", "2026-03-10T14:00"), ("2026-03-31T14:30", "2026-03-31T15:00")],
    "kenji": [("2026-03-11T13:00", "2026-03-11T13:15"), ("2026-04-01T13:15", "2026-04-01T13:30")],
}


@dataclass(frozen=True)
class Rule:
    """An attendee's hours for the brute force: zone, local opening/closing, weekdays."""

    zone: ZoneInfo
    opens: time
    closes: time
    days: frozenset[int] | None = None

    def open_for(self, start: datetime, end: datetime) -> bool:
        first, last = start.astimezone(self.zone), end.astimezone(self.zone)
        if self.days is not None and first.weekday() not in self.days:
            return False
        return (
            first.date() == last.date()
            and first.time() >= self.opens
            and last.time() <= self.closes
        )


RULES = {
    "alice": Rule(NEW_YORK, time(9), time(17), WEEKDAYS),
    "bob": Rule(BERLIN, time(9), time(17), WEEKDAYS),
    "kenji": Rule(TOKYO, time(7), time(23)),
}
HOURS = (
    AttendeeHours("alice", "America/New_York", time(9), time(17), WEEKDAYS),
    AttendeeHours("bob", "Europe/Berlin", time(9), time(17), WEEKDAYS),
    AttendeeHours("kenji", "Asia/Tokyo", time(7), time(23)),
)
OPTIONS = [
    "--hours",
    "alice=Mon-Fri 09:00-17:00@America/New_York",
    "--hours",
    "bob=Mon-Fri 09:00-17:00@Europe/Berlin",
    "--hours",
    "kenji=07:00-23:00@Asia/Tokyo",
]


def utc(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def calendar_text(name: str, extra: str = "") -> str:
    cal = Calendar()
    cal.add("prodid", "-//cerebri tests//hours//EN")
    cal.add("version", "2.0")
    for index, (start, end) in enumerate(BUSY[name]):
        event = Event()
        event.add("uid", f"{name}-{index}@test")
        event.add("dtstamp", datetime(2026, 1, 1, tzinfo=UTC))
        event.add("dtstart", utc(start))
        event.add("dtend", utc(end))
        event.add("summary", f"{name} busy {index}")
        cal.add_component(event)
    text = cal.to_ical().decode()
    return text.replace("END:VCALENDAR", extra + "END:VCALENDAR") if extra else text


def calendars(*names: str, extra: dict[str, str] | None = None) -> list[tuple[str, Any]]:
    extra = extra or {}
    return [(n, parse_calendar(calendar_text(n, extra.get(n, "")), source=n)) for n in names]


def busy_at(name: str, start: datetime, end: datetime) -> bool:
    return any(utc(a) < end and start < utc(b) for a, b in BUSY[name])


def expected(
    window: tuple[datetime, datetime], required: dict[str, Sequence[Rule]]
) -> list[datetime]:
    """Grid starts where every required attendee is free and inside every rule of theirs."""
    found = []
    start = window[0]
    while start + LENGTH <= window[1]:
        end = start + LENGTH
        if all(
            not busy_at(name, start, end) and all(rule.open_for(start, end) for rule in rules)
            for name, rules in required.items()
        ):
            found.append(start)
        start += GRID
    return found


def query(window: tuple[datetime, datetime], hours: Sequence[AttendeeHours]) -> SlotQuery:
    return SlotQuery(
        Instant.from_datetime(window[0]),
        Instant.from_datetime(window[1]),
        1800,
        attendee_hours=tuple(hours),
    )


def starts(result: Any) -> list[datetime]:
    found = [c.proposed.placements[0].range.start.to_datetime() for c in result.candidates]
    return sorted(found)


@pytest.mark.parametrize("window", WINDOWS, ids=["us-dst", "eu-dst"])
def test_slots_lie_inside_every_required_attendees_hours(
    window: tuple[datetime, datetime],
) -> None:
    request, result = find_slot(calendars("alice", "bob", "kenji"), query(window, HOURS))
    want = expected(window, {name: [RULES[name]] for name in RULES})
    assert want  # the brute force finds slots, so a wrong answer cannot pass unnoticed
    assert starts(result) == want
    # Tokyo closes at 14:00Z and New York opens at 14:00Z in winter time: the three meet
    # only once New York keeps summer time (13:00Z), after 2026-03-08.
    assert min(want) >= datetime(2026, 3, 9, tzinfo=UTC)
    # Without Kenji the US DST change moves the shared hour: 14:00-16:00Z, then 13:00-16:00Z.
    _, pair = find_slot(calendars("alice", "bob"), query(window, HOURS[:2]))
    assert starts(pair) == expected(window, {"alice": [RULES["alice"]], "bob": [RULES["bob"]]})
    assert request["context"]["objects"]  # type: ignore[index]


def test_request_names_each_attendees_blockers_and_replays() -> None:
    answer = find_slot(calendars("alice", "bob", "kenji"), query(WINDOWS[0], HOURS))
    objects = {o["id"]: o for o in answer.request["context"]["objects"]}  # type: ignore[index]
    weekend = "outside-working-hours-alice-2026-03-06T1700-2026-03-09T0900"
    assert objects[weekend]["timezone"] == "America/New_York"
    data = objects[weekend]["time"]["value"]["knowledge"]["data"]
    # Friday 17:00 EST is 22:00Z; Monday 09:00 EDT is 13:00Z (the US DST change between).
    assert data == {"start": "2026-03-06T22:00:00Z", "end": "2026-03-09T13:00:00Z"}
    assert objects["outside-working-hours-bob-2026-03-09T1700-2026-03-10T0900"]["timezone"] == (
        "Europe/Berlin"
    )
    assert "outside-working-hours-kenji-2026-03-09T2300-2026-03-10T0700" in objects
    replay = cerebri.plan(answer.request, limits=FIND_SLOT_LIMITS)
    assert [c.proposed.id for c in replay.candidates] == [
        c.proposed.id for c in answer.result.candidates
    ]
    again = ImportedCalendars(calendars("alice", "bob", "kenji")).find_slot(
        query(WINDOWS[0], HOURS)
    )
    assert (again.request, again.result) == (answer.request, answer.result)
    assert (
        again.zones
        == answer.zones
        == (
            ("alice", "America/New_York"),
            ("bob", "Europe/Berlin"),
            ("kenji", "Asia/Tokyo"),
        )
    )


def test_optional_attendees_hours_only_count_for_attendance() -> None:
    window = WINDOWS[0]
    answer = find_slot(
        calendars("alice", "bob"),
        query(window, HOURS),
        optional=calendars("kenji"),
    )
    want = expected(window, {"alice": [RULES["alice"]], "bob": [RULES["bob"]]})
    assert starts(answer.result) == want
    for detail in answer.slots:
        start, end = detail.start.to_datetime(), detail.end.to_datetime()
        assert start is not None and end is not None
        kenji_free = RULES["kenji"].open_for(start, end) and not busy_at("kenji", start, end)
        assert detail.free == (("kenji",) if kenji_free else ())
        assert detail.busy == (() if kenji_free else ("kenji",))
    assert any(d.free for d in answer.slots) and any(d.busy for d in answer.slots)
    assert answer.slots[0].free == ("kenji",)  # slots with Kenji free rank first
    objects = [o["id"] for o in answer.request["context"]["objects"]]  # type: ignore[index]
    assert not any("kenji" in name for name in objects)  # his hours never block


# Bob publishes availability (RFC 7953): Monday to Friday 14:00-18:00 Berlin time.
AVAILABILITY = (
    "BEGIN:VAVAILABILITY\r\nUID:bob-availability@test\r\nDTSTAMP:20260101T000000Z\r\n"
    "DTSTART;TZID=Europe/Berlin:20260301T000000\r\nBEGIN:AVAILABLE\r\n"
    "UID:bob-available@test\r\nDTSTAMP:20260101T000000Z\r\n"
    "DTSTART;TZID=Europe/Berlin:20260302T140000\r\nDTEND;TZID=Europe/Berlin:20260302T180000\r\n"
    "RRULE:FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR\r\nEND:AVAILABLE\r\nEND:VAVAILABILITY\r\n"
)
PUBLISHED = Rule(BERLIN, time(14), time(18), WEEKDAYS)


@pytest.mark.parametrize("window", WINDOWS, ids=["us-dst", "eu-dst"])
def test_published_availability_and_hours_both_hold(window: tuple[datetime, datetime]) -> None:
    named = calendars("alice", "bob", extra={"bob": AVAILABILITY})
    alice = HOURS[0]
    # Only Alice's hours given: Bob's availability still closes his time, and his zone comes
    # from it.
    answer = find_slot(named, query(window, [alice]))
    want = expected(window, {"alice": [RULES["alice"]], "bob": [PUBLISHED]})
    assert want
    assert starts(answer.result) == want
    assert answer.zones == (("alice", "America/New_York"), ("bob", "Europe/Berlin"))
    # Bob's hours and his availability together: a slot must lie inside both.
    later = AttendeeHours("bob", "Europe/Berlin", time(15), time(17))
    both = find_slot(named, query(window, [alice, later]))
    narrow = Rule(BERLIN, time(15), time(17))
    want_both = expected(window, {"alice": [RULES["alice"]], "bob": [PUBLISHED, narrow]})
    assert want_both and len(want_both) < len(want)
    assert starts(both.result) == want_both
    # Without attendee hours the answer knows no zones (and shows no local times).
    assert find_slot(named, query(window, [])).zones == ()


def cli(*args: str) -> tuple[int, str, str]:
    outcome = CliRunner().invoke(app, ["find-slot", *args])
    return outcome.exit_code, outcome.stdout, outcome.stderr


def write_calendars(tmp_path: Path, *names: str) -> list[str]:
    args = []
    for name in names:
        path = tmp_path / f"{name}.ics"
        path.write_text(calendar_text(name), encoding="utf-8")
        args += ["--ics", str(path)]
    return args


BETWEEN = ["--between", "2026-03-05T00:00/2026-03-12T00:00", "--duration", "30m"]


def test_cli_json_gives_each_candidate_in_each_attendees_local_time(tmp_path: Path) -> None:
    sources = write_calendars(tmp_path, "alice", "bob", "kenji")
    code, out, err = cli(*sources, *BETWEEN, *OPTIONS, "--json")
    assert code == 0, err
    document = json.loads(out)
    candidates = document["candidates"]
    assert len(document["local_times"]) == len(candidates) > 0
    for candidate, local in zip(candidates, document["local_times"], strict=True):
        span = candidate["proposed"]["placements"][0]["range"]
        start, end = (datetime.fromisoformat(span[k].replace("Z", "+00:00")) for k in span)
        assert list(local) == ["alice", "bob", "kenji"]
        for name, zone in (("alice", NEW_YORK), ("bob", BERLIN), ("kenji", TOKYO)):
            assert local[name]["zone"] == zone.key
            assert datetime.fromisoformat(local[name]["start"]) == start
            assert datetime.fromisoformat(local[name]["end"]) == end
            assert datetime.fromisoformat(local[name]["start"]).utcoffset() == (
                start.astimezone(zone).utcoffset()
            )
    first = document["local_times"][0]
    assert first["alice"]["start"] == "2026-03-09T09:30:00-04:00"  # Alice is busy 09:00-09:30
    assert first["bob"]["start"] == "2026-03-09T14:30:00+01:00"
    assert first["kenji"]["end"] == "2026-03-09T23:00:00+09:00"
    code, plain, _ = cli(*sources, *BETWEEN, "--json")
    assert code == 0
    assert "local_times" not in json.loads(plain)


def test_cli_table_shows_local_times_and_emit_request_carries_the_hours(tmp_path: Path) -> None:
    sources = write_calendars(tmp_path, "alice", "bob", "kenji")
    code, out, err = cli(*sources, *BETWEEN, *OPTIONS)
    assert code == 0, err
    assert "Local times" in out
    assert "alice (America/New_York)" in out
    assert "Mon 2026-03-09 09:30-10:00 -0400" in out
    assert "Mon 2026-03-09 22:30-23:00 +0900" in out
    # The rejection summary names whose hours close a start (the first attendee in id order
    # whose hours reject it counts it).
    assert "outside alice's working hours: " in out
    assert "outside kenji's working hours: " in out
    assert "\n  outside working hours" not in out  # no global --working-hours given
    code, emitted, _ = cli(*sources, *BETWEEN, *OPTIONS, "--emit-request")
    assert code == 0
    ids = [o["id"] for o in json.loads(emitted)["context"]["objects"]]
    assert "outside-working-hours-bob-2026-03-06T1700-2026-03-09T0900" in ids


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("alice", "--hours 'alice': write ID=09:00-17:00@Zone"),
        ("alice=9-17@UTC", "cannot read time of day '9'"),
        ("alice=09:00-17:00@Mars/Base", "unknown time zone 'Mars/Base'"),
        ("alice=09:00-09:00@UTC", "must not end when they start"),
        ("alice=Someday 09:00-17:00@UTC", "cannot read working days 'Someday'"),
        ("alice=", "gives no hours and no zone"),
        ("al ice=09:00-10:00", "is not a calendar id"),
        ("zed=09:00-17:00@UTC", "no calendar has that id (calendar ids: alice, bob)"),
    ],
)
def test_cli_refuses_hours_it_cannot_use(tmp_path: Path, value: str, message: str) -> None:
    sources = write_calendars(tmp_path, "alice", "bob")
    code, out, err = cli(*sources, *BETWEEN, "--hours", value)
    assert code == 2
    assert out == ""
    assert err.startswith("error input.invalid_option: --hours")
    assert message in err


def test_cli_refuses_the_same_attendee_twice(tmp_path: Path) -> None:
    sources = write_calendars(tmp_path, "alice")
    code, _, err = cli(*sources, *BETWEEN, "--hours", "alice=@UTC", "--hours", "alice=@UTC")
    assert code == 2
    assert "hours for 'alice' are given twice" in err


def _body(**extra: Any) -> bytes:
    body = {
        "calendars": [
            {"id": "alice", "ics": calendar_text("alice")},
            {"id": "bob", "ics": calendar_text("bob")},
            {"id": "kenji", "ics": calendar_text("kenji"), "optional": True},
        ],
        "duration": "30m",
        "between": "2026-03-05T00:00/2026-03-12T00:00",
        **extra,
    }
    return json.dumps(body).encode()


def test_http_body_takes_hours_and_answers_local_times() -> None:
    ask = read_find_slot_body(_body(hours=[OPTIONS[1], OPTIONS[3], OPTIONS[5]], top=100))
    answer, busy = plan_slots(ask)
    wire = answer_wire(ask, answer, busy)
    jsonschema.validate(wire, FIND_SLOT_ANSWER_SCHEMA)
    want = expected(WINDOWS[0], {"alice": [RULES["alice"]], "bob": [RULES["bob"]]})
    assert sorted(utc(s["start"][:-1]) for s in wire["slots"]) == want  # type: ignore[union-attr,index]
    slot = wire["slots"][0]  # type: ignore[index]
    assert slot["free"]["optional_free"] == ["kenji"]
    assert slot["local_times"]["kenji"]["zone"] == "Asia/Tokyo"
    plain = answer_wire(*_planned(read_find_slot_body(_body())))
    jsonschema.validate(plain, FIND_SLOT_ANSWER_SCHEMA)
    assert all("local_times" not in s for s in plain["slots"])  # type: ignore[union-attr,operator]


def _planned(ask: Any) -> tuple[Any, Any, Any]:
    answer, busy = plan_slots(ask)
    return ask, answer, busy


@pytest.mark.parametrize(
    ("hours", "path", "message"),
    [
        (["alice=@UTC", "zed=@UTC"], "/hours/1", "no calendar has id 'zed'"),
        (["alice=@UTC", "bob=25:00-26:00"], "/hours/1", "hours/1 'bob=25:00-26:00'"),
        (["alice=@UTC", "alice=@UTC"], "/hours/1", "given twice"),
    ],
)
def test_http_body_refuses_bad_hours_at_their_pointer(
    hours: list[str], path: str, message: str
) -> None:
    with pytest.raises(CerebriError) as caught:
        read_find_slot_body(_body(hours=hours))
    assert caught.value.code == "input.invalid_option"
    assert caught.value.path == path
    assert message in caught.value.message


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: AttendeeHours("alice", "Nowhere/City"), "unknown time zone"),
        (lambda: AttendeeHours("alice", "UTC", time(9)), "both start and end"),
        (lambda: AttendeeHours("alice", "UTC", time(9), time(9)), "not end when they start"),
        (lambda: AttendeeHours("alice", "UTC", days=frozenset({7})), "weekdays 0-6"),
        (lambda: AttendeeHours("a b", "UTC"), "CPIR id"),
        (
            lambda: query(WINDOWS[0], [AttendeeHours("a", "UTC"), AttendeeHours("a", "UTC")]),
            "twice",
        ),
    ],
)
def test_python_api_refusals(make: Any, message: str) -> None:
    with pytest.raises(InvalidArgumentError, match=message) as caught:
        make()
    assert caught.value.code == "calendars.invalid_argument"


def test_hours_of_an_unknown_calendar_are_refused_before_planning() -> None:
    with pytest.raises(InvalidArgumentError, match="no calendar has that id") as caught:
        find_slot(calendars("alice"), query(WINDOWS[0], [HOURS[1]]))
    assert caught.value.code == "calendars.invalid_argument"


def test_a_long_calendar_id_keeps_blocker_ids_within_cpir_limits() -> None:
    name = "x" * 120
    text = calendar_text("alice")
    hours = [AttendeeHours(name, "Europe/Berlin", time(9), time(17))]
    answer = find_slot([(name, parse_calendar(text, source=name))], query(WINDOWS[0], hours))
    ids = [o["id"] for o in answer.request["context"]["objects"]]  # type: ignore[index]
    blockers = [i for i in ids if i.startswith("outside-working-hours-")]
    assert blockers and all(len(i) <= 128 for i in blockers)
    replay = cerebri.plan(answer.request, limits=FIND_SLOT_LIMITS)
    assert len(replay.candidates) == len(answer.result.candidates) > 0


def test_mcp_find_slot_takes_hours(tmp_path: Path) -> None:
    write_calendars(tmp_path, "alice", "bob")
    settings = McpSettings(ics_root=tmp_path)
    args = FindSlotArgs(
        ics=[str(tmp_path / "alice.ics"), str(tmp_path / "bob.ics")],
        between="2026-03-05T00:00/2026-03-12T00:00",
        duration="30m",
        hours=[OPTIONS[1], OPTIONS[3]],
    )
    document = find_slot_tool(args, settings)
    want = expected(WINDOWS[0], {"alice": [RULES["alice"]], "bob": [RULES["bob"]]})
    assert len(document["local_times"]) == len(want)  # type: ignore[arg-type]
    wrong = args.model_copy(update={"hours": [OPTIONS[1], "zed=@UTC"]})
    with pytest.raises(CerebriError) as caught:
        find_slot_tool(wrong, settings)
    assert (caught.value.code, caught.value.path) == ("input.invalid_option", "/hours/1")


def test_the_order_of_hours_does_not_change_the_request(tmp_path: Path) -> None:
    sources = write_calendars(tmp_path, "alice", "bob", "kenji")
    shuffled = [*OPTIONS[4:], *OPTIONS[:2], *OPTIONS[2:4]]
    first = cli(*sources, *BETWEEN, *OPTIONS, "--emit-request")
    second = cli(*sources, *BETWEEN, *shuffled, "--emit-request")
    assert first[0] == second[0] == 0
    assert first[1] == second[1]


@pytest.mark.parametrize(
    ("hours", "rule"),
    [
        # 02:00-03:00 does not exist in New York on 2026-03-08 (clocks jump to 03:00).
        (
            AttendeeHours("alice", "America/New_York", time(2), time(3)),
            Rule(NEW_YORK, time(2), time(3)),
        ),
        # Berlin's 02:00-03:00 is skipped on 2026-03-29.
        (AttendeeHours("alice", "Europe/Berlin", time(1), time(4)), Rule(BERLIN, time(1), time(4))),
    ],
    ids=["new-york-gap", "berlin-gap"],
)
def test_hours_around_a_spring_forward_gap(hours: AttendeeHours, rule: Rule) -> None:
    window = (datetime(2026, 3, 5, tzinfo=UTC), datetime(2026, 4, 2, tzinfo=UTC))
    _, result = find_slot(calendars("alice"), query(window, [hours]))
    want = expected(window, {"alice": [rule]})
    assert want
    assert starts(result) == want


def _exists_once(day: datetime, at: time, zone: ZoneInfo) -> bool:
    """Whether the local time ``at`` on ``day``'s date occurs exactly once in ``zone`` (not
    in a DST gap, not in a fold)."""
    naive = datetime.combine(day.date(), at)
    first, second = naive.replace(tzinfo=zone, fold=0), naive.replace(tzinfo=zone, fold=1)
    back = first.astimezone(UTC).astimezone(zone).replace(tzinfo=None)
    return back == naive and first.utcoffset() == second.utcoffset()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(
    hours=attendee_hours(),
    first_day=st.sampled_from(
        # days just before the DST changes of the zones drawn (both hemispheres) and one
        # without any
        ["2026-03-07", "2026-03-28", "2026-04-04", "2026-04-04", "2026-09-26", "2026-10-24"]
    ),
    length=st.sampled_from([1800, 3600, 5400]),
)
def test_one_attendees_hours_match_the_wall_clock(
    hours: tuple[str, time | None, time | None, frozenset[int] | None],
    first_day: str,
    length: int,
) -> None:
    zone_name, opens, closes, days = hours
    zone = ZoneInfo(zone_name)
    begin = datetime.fromisoformat(first_day).replace(tzinfo=UTC)
    window = (begin, begin + timedelta(days=3))
    # Opening and closing times that a DST change skips or repeats follow RFC 5545 3.3.5
    # (offset before the gap, first occurrence), which a wall-clock reading cannot express.
    for offset in range(-1, 5):
        day = begin + timedelta(days=offset)
        assume(all(_exists_once(day, at, zone) for at in (opens, closes) if at is not None))
    entry = AttendeeHours("solo", zone_name, opens, closes, days)

    def open_at(moment: datetime) -> bool:  # the attendee's wall clock at one instant
        local = moment.astimezone(zone)
        if days is not None and local.weekday() not in days:
            return False
        return opens is None or closes is None or opens <= local.time() < closes

    text = (
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//cerebri tests//EN\r\n"
        "BEGIN:VEVENT\r\nUID:solo@test\r\nDTSTAMP:20260101T000000Z\r\n"
        "DTSTART:20200101T000000Z\r\nDTEND:20200101T010000Z\r\nEND:VEVENT\r\n"
        "END:VCALENDAR\r\n"
    )
    named = [("solo", parse_calendar(text, source="solo"))]
    slot_query = SlotQuery(
        Instant.from_datetime(window[0]),
        Instant.from_datetime(window[1]),
        length,
        granularity_seconds=1800,
        attendee_hours=(entry,),
    )
    _, result = find_slot(named, slot_query)
    want = []
    start = window[0]
    while start + timedelta(seconds=length) <= window[1]:
        # Every boundary lies on the local quarter-hour grid: checking each quarter suffices.
        if all(open_at(start + timedelta(minutes=m)) for m in range(0, length // 60, 15)):
            want.append(start)
        start += timedelta(minutes=30)
    assert starts(result) == want
