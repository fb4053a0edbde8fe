"""``plan_event_change``: the CPIR request of a reschedule, cancel or update (contract C1 of
issue #23) built from .ics calendars, and its answer.

Expected values are computed here, independently: instance starts with
recurring-ical-events, object ids from the formula of cerebri.ics.ids (SHA-256 of
``uid NUL recurrence-id NUL start``), free starts by walking the grid over the busy times
written in the fixtures.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import recurring_ical_events
from icalendar import Calendar

from cerebri.calendars.change_request import ChangeOperation
from cerebri.calendars.changes import ChangeScope, Participant
from cerebri.calendars.event_change import EventChangeAsk, EventChangeFound, plan_event_change
from cerebri.calendars.slot_search import SlotSearch
from cerebri.calendars.sources import load_sources
from cerebri.errors import CerebriError
from cerebri.temporal import Instant

BERLIN = ZoneInfo("Europe/Berlin")
HEAD = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n"
TAIL = "END:VCALENDAR\r\n"
PEOPLE = (
    "ORGANIZER;CN=Alice:mailto:alice@example.com\r\n"
    "ATTENDEE;CN=Alice;ROLE=CHAIR:mailto:alice@example.com\r\n"
    "ATTENDEE;ROLE=REQ-PARTICIPANT:mailto:Bob@Example.com\r\n"
    "ATTENDEE;ROLE=OPT-PARTICIPANT:mailto:carol@example.com\r\n"
)
SYNC = (
    "BEGIN:VEVENT\r\nUID:sync@example.com\r\nDTSTAMP:20260101T000000Z\r\nSEQUENCE:2\r\n"
    "DTSTART;TZID=Europe/Berlin:20261005T100000\r\nDTEND;TZID=Europe/Berlin:20261005T110000\r\n"
    f"SUMMARY:Sync\r\nLOCATION:Room 1\r\n{PEOPLE}END:VEVENT\r\n"
)
STANDUP = (
    "BEGIN:VEVENT\r\nUID:standup@example.com\r\nDTSTAMP:20260101T000000Z\r\n"
    "DTSTART;TZID=Europe/Berlin:20261005T090000\r\nDTEND;TZID=Europe/Berlin:20261005T093000\r\n"
    f"RRULE:FREQ=WEEKLY;COUNT=4\r\nSUMMARY:Standup\r\n{PEOPLE}END:VEVENT\r\n"
)


def _busy(uid: str, start: str, end: str, summary: str) -> str:
    return (
        f"BEGIN:VEVENT\r\nUID:{uid}\r\nDTSTAMP:20260101T000000Z\r\n"
        f"DTSTART;TZID=Europe/Berlin:{start}\r\nDTEND;TZID=Europe/Berlin:{end}\r\n"
        f"SUMMARY:{summary}\r\nEND:VEVENT\r\n"
    )


LUNCH = _busy("lunch@example.com", "20261005T120000", "20261005T130000", "Lunch")
DENTIST = _busy("dentist@example.com", "20261005T110000", "20261005T120000", "Dentist")
OWNER = "X-WR-CALNAME:{}\r\n"


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    texts = {
        "alice": HEAD + OWNER.format("alice@example.com") + SYNC + STANDUP + LUNCH + TAIL,
        "bob": HEAD + OWNER.format("bob@example.com") + SYNC + STANDUP + DENTIST + TAIL,
    }
    paths = {}
    for name, text in texts.items():
        path = tmp_path / f"{name}.ics"
        path.write_text(text, newline="")
        paths[name] = path
    return paths


def _load(paths: Sequence[Path], urls: Sequence[str], ids: Sequence[str]) -> Any:
    window = (Instant.parse("2026-10-01T00:00:00Z"), Instant.parse("2026-11-01T00:00:00Z"))
    return load_sources(paths, urls, window, ids=ids)


def _local(text: str) -> Instant:
    return Instant.from_datetime(datetime.fromisoformat(text).replace(tzinfo=BERLIN))


def _change(files: dict[str, Path], ask: EventChangeAsk) -> EventChangeFound:
    search = SlotSearch(ics=[files["alice"], files["bob"]])
    return plan_event_change(ask, search, _load)


def _oid(uid: str, recurrence_id: str, start: datetime) -> str:
    key = f"{uid}\x00{recurrence_id}\x00{start.astimezone(UTC):%Y-%m-%dT%H:%M:%SZ}"
    return "ics-" + hashlib.sha256(key.encode()).hexdigest()[:32]


def _request(found: EventChangeFound) -> Any:
    return json.loads(json.dumps(found.answer.request))


def _spans(request: Any) -> set[tuple[str, str]]:
    spans = set()
    for obj in request["context"]["objects"][1:]:
        data = obj["time"]["value"]["knowledge"]["data"]
        spans.add((data["start"], data["end"]))
    return spans


def test_reschedule_request_carries_the_event_and_its_change(files: dict[str, Path]) -> None:
    window = (_local("2026-10-05T08:00"), _local("2026-10-05T18:00"))
    ask = EventChangeAsk(
        ChangeOperation.RESCHEDULE,
        "sync@example.com",
        window=window,
        zone="Europe/Berlin",
        granularity_seconds=1800,
    )
    request = _request(_change(files, ask))
    start = datetime(2026, 10, 5, 10, tzinfo=BERLIN)
    target_id = _oid("sync@example.com", "", start)
    assert request["operation"] == "RESCHEDULE"
    assert request["target_ids"] == [target_id]
    target = request["context"]["objects"][0]
    assert target["id"] == target_id
    assert target["revision"] == 2  # SEQUENCE
    assert (target["calendar_id"], target["integration_id"]) == ("alice", "ics")
    assert target["time"]["value"]["knowledge"] == {
        "state": "KNOWN",
        "data": {"start": "2026-10-05T08:00:00Z", "end": "2026-10-05T09:00:00Z"},
    }
    assert request["duration"]["value"]["knowledge"]["data"] == 3600
    grant = request["planning_capability"]["mutations"]
    assert grant == [
        {
            "object_id": target_id,
            "calendar_id": "alice",
            "integration_id": "ics",
            "kind": "MOVE_EVENT",
        }
    ]
    assert request["policy"]["snapshot"]["mutation"]["allowed_actions"] == ["MOVE_EVENT"]
    # the event itself is not busy time; lunch, the dentist and the standup are
    assert ("2026-10-05T08:00:00Z", "2026-10-05T09:00:00Z") not in _spans(request)
    assert {
        ("2026-10-05T10:00:00Z", "2026-10-05T11:00:00Z"),
        ("2026-10-05T09:00:00Z", "2026-10-05T10:00:00Z"),
        ("2026-10-05T07:00:00Z", "2026-10-05T07:30:00Z"),
    } <= _spans(request)
    change = request["change"]
    alice = Calendar.from_ical(files["alice"].read_bytes())
    for event in [c for c in alice.subcomponents if str(c.get("UID")) != "sync@example.com"]:
        if event.name == "VEVENT":
            alice.subcomponents.remove(event)
    etag = "sha256:" + hashlib.sha256(alice.to_ical()).hexdigest()
    assert change == {
        "uid": "sync@example.com",
        "scope": "SERIES",
        "recurrence_id": None,
        "etag": etag,
        "sequence": 2,
        "title": "Sync",  # a move's change describes the event (decision 0061)
        "location": "Room 1",
        "organizer": "mailto:alice@example.com",
        "attendees": [
            {
                "address": "mailto:alice@example.com",
                "name": "Alice",
                "required": True,
                "calendar_id": "alice",
            },
            {
                "address": "mailto:Bob@Example.com",
                "name": None,
                "required": True,
                "calendar_id": "bob",
            },
            {
                "address": "mailto:carol@example.com",
                "name": None,
                "required": False,
                "calendar_id": None,
            },
        ],
    }


def test_one_instance_of_a_series_leaves_the_other_instances_busy(
    files: dict[str, Path],
) -> None:
    window = (_local("2026-10-12T08:00"), _local("2026-10-19T12:00"))
    ask = EventChangeAsk(
        ChangeOperation.RESCHEDULE,
        "standup@example.com",
        at=_local("2026-10-12T09:00"),
        window=window,
        zone="Europe/Berlin",
    )
    found = _change(files, ask)
    request = _request(found)
    series = recurring_ical_events.of(Calendar.from_ical(files["alice"].read_bytes()))
    starts = [
        e["DTSTART"].dt
        for e in series.between(
            datetime(2026, 10, 1, tzinfo=UTC), datetime(2026, 11, 1, tzinfo=UTC)
        )
        if str(e["UID"]) == "standup@example.com"
    ]
    assert len(starts) == 4
    moved = datetime(2026, 10, 12, 9, tzinfo=BERLIN)
    recurrence = moved.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")
    assert request["target_ids"] == [_oid("standup@example.com", recurrence, moved)]
    assert request["change"]["scope"] == "INSTANCE"
    assert request["change"]["recurrence_id"] == "2026-10-12T07:00:00Z"
    spans = _spans(request)

    def span(start: datetime) -> tuple[str, str]:
        utc = start.astimezone(UTC)
        end = utc + timedelta(minutes=30)
        return (f"{utc:%Y-%m-%dT%H:%M:%SZ}", f"{end:%Y-%m-%dT%H:%M:%SZ}")

    assert span(moved) not in spans
    assert span(datetime(2026, 10, 19, 9, tzinfo=BERLIN)) in spans  # still busy
    assert found.scope is ChangeScope.INSTANCE


def test_this_and_future_and_series_leave_out_the_instances_that_move(
    files: dict[str, Path],
) -> None:
    window = (_local("2026-10-12T08:00"), _local("2026-10-26T12:00"))
    base = {"window": window, "zone": "Europe/Berlin"}
    future = _request(
        _change(
            files,
            EventChangeAsk(
                ChangeOperation.RESCHEDULE,
                "standup@example.com",
                scope=ChangeScope.THIS_AND_FUTURE,
                at=_local("2026-10-19T09:00"),
                **base,  # type: ignore[arg-type]
            ),
        )
    )
    starts = {s for s, _ in _spans(future)}
    # the old series keeps 10-05 and 10-12 (09:00-09:30): the search starts when they end
    assert future["scope"]["time_range"]["start"] == "2026-10-12T07:30:00Z"
    assert "2026-10-12T07:00:00Z" not in starts  # kept, before the window (decision 0055)
    assert "2026-10-19T07:00:00Z" not in starts
    assert "2026-10-26T08:00:00Z" not in starts  # CET after the DST change
    series = _request(
        _change(
            files,
            EventChangeAsk(
                ChangeOperation.RESCHEDULE,
                "standup@example.com",
                scope=ChangeScope.SERIES,
                **base,  # type: ignore[arg-type]
            ),
        )
    )
    assert not {"2026-10-12T07:00:00Z", "2026-10-19T07:00:00Z"} & {s for s, _ in _spans(series)}
    # the series began before the window: its first instance in the window is the anchor
    anchor = datetime(2026, 10, 12, 9, tzinfo=BERLIN)
    recurrence = anchor.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")
    assert series["target_ids"] == [_oid("standup@example.com", recurrence, anchor)]
    assert series["change"]["recurrence_id"] == "2026-10-12T07:00:00Z"
    assert series["change"]["scope"] == "SERIES"
    whole = _request(
        _change(
            files,
            EventChangeAsk(
                ChangeOperation.RESCHEDULE,
                "standup@example.com",
                scope=ChangeScope.SERIES,
                window=(_local("2026-10-05T08:00"), _local("2026-10-05T12:00")),
                zone="Europe/Berlin",
            ),
        )
    )
    first = datetime(2026, 10, 5, 9, tzinfo=BERLIN)
    recurrence = first.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")
    assert whole["target_ids"] == [_oid("standup@example.com", recurrence, first)]
    assert whole["change"]["recurrence_id"] is None


def test_unknown_uid_and_unknown_instance_are_not_found(files: dict[str, Path]) -> None:
    window = (_local("2026-10-05T08:00"), _local("2026-10-05T18:00"))
    with pytest.raises(CerebriError) as caught:
        _change(files, EventChangeAsk(ChangeOperation.RESCHEDULE, "nobody@x", window=window))
    assert caught.value.code == "calendar.not_found"
    with pytest.raises(CerebriError) as caught:
        _change(
            files,
            EventChangeAsk(
                ChangeOperation.CANCEL, "standup@example.com", at=_local("2026-10-13T09:00")
            ),
        )
    assert caught.value.code == "calendar.not_found"


def test_options_that_do_not_fit_are_refused(files: dict[str, Path]) -> None:
    cases = [
        EventChangeAsk(ChangeOperation.CANCEL, "sync@example.com", at=_local("2026-10-05T10:00")),
        EventChangeAsk(ChangeOperation.RESCHEDULE, "sync@example.com"),
        EventChangeAsk(ChangeOperation.CANCEL, "sync@example.com", title="x"),
        EventChangeAsk(ChangeOperation.UPDATE, "sync@example.com"),
        EventChangeAsk(ChangeOperation.UPDATE, "sync@example.com", remove_attendees=("z@x.org",)),
        EventChangeAsk(ChangeOperation.CANCEL, "bad\nuid"),
    ]
    for ask in cases:
        with pytest.raises(CerebriError) as caught:
            _change(files, ask)
        assert caught.value.code == "input.invalid_option", ask


def test_cancel_of_one_instance_is_a_cancel_request(files: dict[str, Path]) -> None:
    ask = EventChangeAsk(
        ChangeOperation.CANCEL, "standup@example.com", at=_local("2026-10-19T09:00")
    )
    request = _request(_change(files, ask))
    assert request["operation"] == "CANCEL"
    assert request["planning_capability"]["mutations"][0]["kind"] == "DELETE_EVENT"
    assert request["change"]["scope"] == "INSTANCE"
    assert request["change"]["recurrence_id"] == "2026-10-19T07:00:00Z"
    assert request["scope"]["time_range"] == {
        "start": "2026-10-19T07:00:00Z",
        "end": "2026-10-19T07:30:00Z",
    }


def test_update_carries_the_new_title_location_and_attendees(files: dict[str, Path]) -> None:
    ask = EventChangeAsk(
        ChangeOperation.UPDATE,
        "sync@example.com",
        title="Planning",
        location="Room 2",
        add_attendees=(Participant("dave@example.com", None, False),),
        remove_attendees=("carol@example.com",),
        duration_seconds=5400,
    )
    request = _request(_change(files, ask))
    change = request["change"]
    assert (change["title"], change["location"]) == ("Planning", "Room 2")
    assert [(a["address"], a["required"]) for a in change["attendees"]] == [
        ("mailto:alice@example.com", True),
        ("mailto:Bob@Example.com", True),
        ("mailto:dave@example.com", False),
    ]
    assert request["operation"] == "UPDATE"
    assert request["duration"]["value"]["knowledge"]["data"] == 5400
    assert request["planning_capability"]["mutations"][0]["kind"] == "UPDATE_EVENT"


def test_reschedule_ranks_same_day_then_same_time_then_the_rest(files: dict[str, Path]) -> None:
    from datetime import time

    ask = EventChangeAsk(
        ChangeOperation.RESCHEDULE,
        "sync@example.com",
        window=(_local("2026-10-05T00:00"), _local("2026-10-07T00:00")),
        zone="Europe/Berlin",
        granularity_seconds=3600,
        working_hours=(time(8), time(18)),
    )
    found = _change(files, ask)
    # busy on Oct 5 besides the Sync itself: standup 09:00-09:30, dentist 11-12, lunch 12-13
    busy = [
        (datetime(2026, 10, 5, 9, tzinfo=BERLIN), datetime(2026, 10, 5, 9, 30, tzinfo=BERLIN)),
        (datetime(2026, 10, 5, 11, tzinfo=BERLIN), datetime(2026, 10, 5, 13, tzinfo=BERLIN)),
    ]
    current = datetime(2026, 10, 5, 10, tzinfo=BERLIN)
    free = [
        datetime(2026, 10, day, hour, tzinfo=BERLIN)
        for day in (5, 6)
        for hour in range(8, 18)  # the meeting ends by 18:00
        if all(
            datetime(2026, 10, day, hour + 1, tzinfo=BERLIN) <= s
            or e <= datetime(2026, 10, day, hour, tzinfo=BERLIN)
            for s, e in busy
        )
    ]

    def key(start: datetime) -> tuple[int, float, datetime]:
        level = 0 if start.date() == current.date() else 1 if start.time() == current.time() else 2
        return (level, abs((start - current).total_seconds()), start)

    free.remove(current)  # its own time is no new time (contract C1: refused)
    expected = [_utc_text(s) for s in sorted(free, key=key)]
    assert [c.start.format() for c in found.answer.result.candidates] == expected
    assert expected[:2] == ["2026-10-05T06:00:00Z", "2026-10-05T11:00:00Z"]  # 08:00, 13:00
    # every other start of Oct 5 first, then Oct 6 10:00 (the same time of day)
    assert expected.index("2026-10-06T08:00:00Z") == len([s for s in free if s.day == 5])


def _utc_text(moment: datetime) -> str:
    return f"{moment.astimezone(UTC):%Y-%m-%dT%H:%M:%SZ}"


def test_optional_attendees_are_not_busy_with_the_event_itself(
    files: dict[str, Path], tmp_path: Path
) -> None:
    carol = tmp_path / "carol.ics"
    carol.write_text(HEAD + OWNER.format("carol@example.com") + SYNC + TAIL, newline="")
    ask = EventChangeAsk(
        ChangeOperation.RESCHEDULE,
        "sync@example.com",
        window=(_local("2026-10-05T08:00"), _local("2026-10-05T11:00")),
        zone="Europe/Berlin",
        granularity_seconds=1800,
    )
    search = SlotSearch(ics=[files["alice"], files["bob"]], optional_ics=[carol])
    found = plan_event_change(ask, search, _load)
    by_start = {d.start.format(): d for d in found.answer.slots}
    # 09:30-10:30 overlaps the Sync's own 10:00-11:00 in carol's calendar: she is free then
    assert by_start["2026-10-05T07:30:00Z"].free == ("carol",)
    assert [a["calendar_id"] for a in found.answer.request["change"]["attendees"]] == [
        "alice",
        "bob",
        "carol",
    ]


OFFSITE = (
    "BEGIN:VEVENT\r\nUID:offsite@example.com\r\nDTSTAMP:20260101T000000Z\r\n"
    "DTSTART;VALUE=DATE:20261006\r\nDTEND;VALUE=DATE:20261007\r\n"
    f"SUMMARY:Offsite\r\n{PEOPLE}END:VEVENT\r\n"
)


def test_an_all_day_event_moves_by_whole_days(tmp_path: Path) -> None:
    paths = []
    for name, other in (("alice", LUNCH), ("bob", DENTIST)):
        path = tmp_path / f"{name}.ics"
        path.write_text(HEAD + OFFSITE + other + TAIL, newline="")
        paths.append(path)
    ask = EventChangeAsk(
        ChangeOperation.RESCHEDULE,
        "offsite@example.com",
        window=(_local("2026-10-05T00:00"), _local("2026-10-10T00:00")),
        zone="Europe/Berlin",
    )
    found = plan_event_change(ask, SlotSearch(ics=paths), _load)
    # Oct 5 holds lunch and the dentist, Oct 6 is the offsite itself: Oct 7, 8, 9 remain,
    # at the same local time of day (class 1), nearest first
    expected = [_utc_text(datetime(2026, 10, day, tzinfo=BERLIN)) for day in (7, 8, 9)]
    assert [c.start.format() for c in found.answer.result.candidates] == expected
    with pytest.raises(CerebriError) as caught:
        plan_event_change(
            EventChangeAsk(
                ChangeOperation.RESCHEDULE,
                "offsite@example.com",
                window=(_local("2026-10-05T08:00"), _local("2026-10-10T00:00")),
                zone="Europe/Berlin",
            ),
            SlotSearch(ics=paths),
            _load,
        )
    assert caught.value.code == "input.invalid_option"


def test_this_and_future_from_an_instance_moved_on_its_own_is_refused(tmp_path: Path) -> None:
    # 10-19's instance was moved to 14:00 on its own: a this-and-future move measured from it
    # would write the new series an offset away from what the search showed (decision 0073).
    moved = (
        "BEGIN:VEVENT\r\nUID:standup@example.com\r\nDTSTAMP:20260101T000000Z\r\n"
        "RECURRENCE-ID;TZID=Europe/Berlin:20261019T090000\r\n"
        "DTSTART;TZID=Europe/Berlin:20261019T140000\r\nDTEND;TZID=Europe/Berlin:20261019T143000\r\n"
        f"SUMMARY:Standup\r\n{PEOPLE}END:VEVENT\r\n"
    )
    alice = tmp_path / "alice.ics"
    alice.write_text(HEAD + OWNER.format("alice@example.com") + STANDUP + moved + TAIL, newline="")
    window = (_local("2026-10-19T08:00"), _local("2026-10-26T12:00"))
    for operation in (ChangeOperation.RESCHEDULE, ChangeOperation.UPDATE):
        ask = EventChangeAsk(
            operation,
            "standup@example.com",
            scope=ChangeScope.THIS_AND_FUTURE,
            at=_local("2026-10-19T09:00"),
            window=window,
            zone="Europe/Berlin",
            duration_seconds=3600 if operation is ChangeOperation.UPDATE else None,
        )
        with pytest.raises(CerebriError) as caught:
            plan_event_change(ask, SlotSearch(ics=[alice]), _load)
        assert caught.value.code == "input.invalid_option"
        assert "2026-10-19T07:00:00Z was moved on its own (now 2026-10-19T12:00:00Z)" in str(
            caught.value
        )
    # cancelling from that instance on shifts nothing: still allowed
    cancel = EventChangeAsk(
        ChangeOperation.CANCEL,
        "standup@example.com",
        scope=ChangeScope.THIS_AND_FUTURE,
        at=_local("2026-10-19T09:00"),
        window=window,
        zone="Europe/Berlin",
    )
    found = plan_event_change(cancel, SlotSearch(ics=[alice]), _load)
    assert _request(found)["change"]["scope"] == "THIS_AND_FUTURE"
