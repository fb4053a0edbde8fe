"""A batch file over .ics calendars becomes an OPTIMIZE request (decision 0081): busy time per
person and room (a shared series blocks everyone who holds it, an all-day event is read on
its owner's clock), movable events (by property, by UID, by the file), their cost and their
day, targets on their organiser's calendar, and the refusals.

Expected instants are computed here with zoneinfo, not with cerebri's readers."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from cerebri.calendars.batch_file import CalendarBatch
from cerebri.calendars.batch_request import batch_request
from cerebri.cpir.parse import parse_model
from cerebri.errors import CerebriError
from cerebri.ics import parse_calendar

MONDAY = "20261005"  # Berlin CEST (UTC+2), London BST (UTC+1)


def _z(day: int, clock: str, zone: str) -> str:
    """Monday + ``day`` at ``clock`` on ``zone``'s wall clock, as RFC 3339 UTC."""
    hour, minute = map(int, clock.split(":"))
    local = datetime(2026, 10, 5 + day, hour, minute, tzinfo=ZoneInfo(zone))
    return f"{local.astimezone(UTC):%Y-%m-%dT%H:%M:%SZ}"


def ics(*events: str) -> Any:
    text = (
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//batch//EN\r\n"
        + "".join(events)
        + "END:VCALENDAR\r\n"
    )
    return parse_calendar(text.encode(), source="test")


def vevent(uid: str, start: str, end: str, *extra: str) -> str:
    lines = [f"UID:{uid}", "DTSTAMP:20260901T000000Z", start, end, *extra]
    return "BEGIN:VEVENT\r\n" + "".join(f"{line}\r\n" for line in lines) + "END:VEVENT\r\n"


STANDUP = vevent(
    "standup",
    "DTSTART;TZID=Europe/Berlin:20260907T093000",
    "DTEND;TZID=Europe/Berlin:20260907T094500",
    "RRULE:FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR",
    f"EXDATE;TZID=Europe/Berlin:{MONDAY}T093000",
)


def spec(**changes: Any) -> CalendarBatch:
    document: dict[str, Any] = {
        "window": {
            "start": _z(0, "00:00", "Europe/Berlin"),
            "end": _z(2, "00:00", "Europe/Berlin"),
        },
        "timezone": "Europe/Berlin",
        "granularity": 900,
        "duration": 3600,
        "repairs": {"max_repairs": 2, "max_depth": 1, "move_cost": 4},
        "batch": {
            "meetings": [
                {"object_id": "i-1", "title": "Interview", "required": ["cand", "ann"], "room": {}}
            ],
            "people": [
                {"id": "ann", "calendar_id": "ann-cal", "timezone": "Europe/Berlin"},
                {"id": "bob", "calendar_id": "bob-cal", "timezone": "Europe/London"},
                {"id": "cand", "calendar_id": "cand-cal", "timezone": "Europe/Berlin"},
            ],
            "rooms": [{"id": "r1", "calendar_id": "r1-cal", "capacity": 3}],
        },
    }
    document.update(changes)
    return parse_model(CalendarBatch, document)


def _objects(request: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {o["id"]: o for o in request["context"]["objects"]}


def _span(obj: dict[str, Any]) -> tuple[str, str]:
    data = obj["time"]["value"]["knowledge"]["data"]
    return data["start"], data["end"]


def test_a_shared_series_blocks_each_holder_and_all_day_is_read_on_its_owners_clock() -> None:
    ooo = vevent("ooo", "DTSTART;VALUE=DATE:20261006", "DTEND;VALUE=DATE:20261007")
    built = batch_request(spec(), [("ann-cal", ics(STANDUP)), ("bob-cal", ics(STANDUP, ooo))])
    objects = _objects(built.request)
    busy = [o for o in objects.values() if o["revision"] is not None]
    standups = sorted(_span(o) for o in busy if o["calendar_id"] == "ann-cal")
    # Monday's stand-up is an EXDATE: only Tuesday's, once, on ann's calendar naming bob
    assert standups == [(_z(1, "09:30", "Europe/Berlin"), _z(1, "09:45", "Europe/Berlin"))]
    (standup,) = [o for o in busy if o["calendar_id"] == "ann-cal"]
    assert standup["resource_ids"] == ["bob"]
    (out,) = [o for o in busy if o["calendar_id"] == "bob-cal"]
    # bob's all-day Tuesday is London's midnight to midnight (BST), cut by nothing
    assert _span(out) == (_z(1, "00:00", "Europe/London"), _z(2, "00:00", "Europe/London"))
    assert out["resource_ids"] == []
    assert built.movable == ()
    assert built.warnings == ("no calendar given for cand (cand-cal): free all window long",)


def test_the_new_meeting_is_on_its_organisers_calendar_and_granted_create() -> None:
    built = batch_request(spec(), [("ann-cal", ics())])
    request = built.request
    target = _objects(request)["i-1"]
    assert (target["calendar_id"], target["revision"], target["timezone"]) == (
        "cand-cal",
        None,
        "Europe/Berlin",
    )
    assert target["time"]["value"]["knowledge"] == {"state": "MISSING"}
    assert request["target_ids"] == ["i-1"]
    assert request["planning_capability"]["mutations"] == [
        {
            "object_id": "i-1",
            "calendar_id": "cand-cal",
            "integration_id": "ics",
            "kind": "CREATE_EVENT",
        }
    ]
    assert request["budget"] == {
        "max_candidates": 1,
        "max_repairs": 2,
        "max_moved_objects": 2,
        "max_depth": 1,
    }
    assert request["scope"]["max_mutations"] == 3  # one target and two repairs
    assert request["batch"]["meetings"] == [
        {"object_id": "i-1", "title": "Interview", "required": ["cand", "ann"], "optional": [],
         "room": {}, "after": [], "not_same_day_as": []}
    ]  # fmt: skip


def test_movable_events_by_property_uid_and_file_with_cost_and_day() -> None:
    flagged = vevent(
        "focus-1",
        "DTSTART;TZID=Europe/London:20261005T100000",
        "DTEND;TZID=Europe/London:20261005T113000",
        "SUMMARY:Focus",
        "SEQUENCE:3",
        "X-CEREBRI-MOVABLE:TRUE",
        "X-CEREBRI-MOVE-COST:7",
    )
    named = vevent("sync-2", f"DTSTART:{MONDAY}T120000Z", f"DTEND:{MONDAY}T123000Z", "SUMMARY:Sync")
    listed = vevent("prep-3", "DTSTART:20261006T080000Z", "DTEND:20261006T090000Z")
    built = batch_request(
        spec(movable=["prep-3"]),
        [("bob-cal", ics(flagged, named)), ("ann-cal", ics(listed))],
        movable=["sync-2"],
    )
    assert built.movable == ("focus-1", "prep-3", "sync-2")
    request = built.request
    assert request["scope"]["movable_object_ids"] == ["focus-1", "prep-3", "sync-2"]
    objects = _objects(request)
    assert objects["focus-1"]["revision"] == 3
    assert _span(objects["focus-1"]) == (
        _z(0, "10:00", "Europe/London"),
        _z(0, "11:30", "Europe/London"),
    )
    meetings = {m["object_id"]: m for m in request["batch"]["meetings"]}
    # it stays on bob's Monday, on London's clock: from 23:00Z on Sunday (inside the window,
    # which starts at Berlin's midnight, 22:00Z) to London's midnight
    assert meetings["focus-1"] == {
        "object_id": "focus-1",
        "uid": "focus-1",
        "duration": 5400,
        "required": ["bob"],
        "move_cost": 7,
        "title": "Focus",
        "window": {
            "start": _z(0, "00:00", "Europe/London"),
            "end": _z(1, "00:00", "Europe/London"),
        },
    }
    assert meetings["sync-2"]["move_cost"] == 4  # the file's
    assert meetings["prep-3"]["window"] == {
        "start": _z(1, "00:00", "Europe/Berlin"),
        "end": _z(2, "00:00", "Europe/Berlin"),
    }
    grants = [g for g in request["planning_capability"]["mutations"] if g["kind"] == "MOVE_EVENT"]
    assert [(g["object_id"], g["calendar_id"]) for g in grants] == [
        ("focus-1", "bob-cal"),
        ("prep-3", "ann-cal"),
        ("sync-2", "bob-cal"),
    ]
    # a movable event is not busy time as well
    assert all(o["id"] in {"i-1", *built.movable} or o["revision"] == 0 for o in objects.values())
    assert len(objects) == 4


def test_what_cannot_move_stays_busy_with_a_warning() -> None:
    series = STANDUP.replace("UID:standup", "UID:standup\r\nX-CEREBRI-MOVABLE:TRUE")
    at_sign = vevent(
        "talk@example.org", f"DTSTART:{MONDAY}T120000Z", f"DTEND:{MONDAY}T130000Z",
        "X-CEREBRI-MOVABLE:TRUE",
    )  # fmt: skip
    off_grid = vevent("odd", f"DTSTART:{MONDAY}T121000Z", f"DTEND:{MONDAY}T124000Z")
    room = vevent("held", f"DTSTART:{MONDAY}T140000Z", f"DTEND:{MONDAY}T150000Z")
    built = batch_request(
        spec(),
        [("ann-cal", ics(series, at_sign, off_grid)), ("r1-cal", ics(room))],
        movable=["odd", "held"],
    )
    # a UID that is no CPIR id moves too: its object has the ics- digest id of the instance
    # (sha256 of UID NUL recurrence-id NUL start, cerebri.ics.ids) and its entry the UID
    key = f"talk@example.org\x00\x00{MONDAY[:4]}-{MONDAY[4:6]}-{MONDAY[6:]}T12:00:00Z"
    digest_id = "ics-" + hashlib.sha256(key.encode()).hexdigest()[:32]
    assert built.movable == ("talk@example.org",)
    (entry,) = [m for m in built.request["batch"]["meetings"] if m.get("uid")]
    assert (entry["object_id"], entry["uid"]) == (digest_id, "talk@example.org")
    assert built.request["scope"]["movable_object_ids"] == [digest_id]
    assert built.warnings == (
        "event held stays where it is: its calendar r1-cal is no person's",
        "event odd stays where it is: it is not on the 900 s grid",
        "event standup stays where it is: it is a recurring series (only single events move)",
        "no calendar given for bob (bob-cal): free all window long",
        "no calendar given for cand (cand-cal): free all window long",
    )
    # the other three are busy time (the stand-up on Tuesday only), talk is movable
    assert len(built.request["context"]["objects"]) == 1 + 4


@pytest.mark.parametrize(
    ("calendars", "movable", "message"),
    [
        ([("zoe-cal", ics())], [], "calendar zoe-cal is no person's or room's"),
        ([("ann-cal", ics())], ["nowhere"], "movable event 'nowhere' is in no calendar"),
    ],
)
def test_refusals(calendars: list[tuple[str, Any]], movable: list[str], message: str) -> None:
    with pytest.raises(CerebriError, match=message) as caught:
        batch_request(spec(), calendars, movable=movable)
    assert caught.value.code == "calendars.invalid_argument"


def test_a_meeting_needs_its_organiser_in_people() -> None:
    batch = spec().batch.model_dump(mode="json")
    batch["meetings"][0]["required"] = ["nobody"]
    with pytest.raises(CerebriError, match="first required attendee 'nobody'"):
        batch_request(spec(batch=batch), [])


def test_the_same_inputs_give_the_same_request() -> None:
    first = batch_request(spec(), [("ann-cal", ics(STANDUP))])
    again = batch_request(spec(), [("ann-cal", ics(STANDUP))])
    other = batch_request(spec(), [("ann-cal", ics())])
    assert first.request == again.request
    assert first.request["request_id"] != other.request["request_id"]
