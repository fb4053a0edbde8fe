"""Whole-series and this-and-future reschedules checked at every moved instance at plan time
(docs/decisions/0063).

Expected instants are worked out by hand in the comments (Europe/Berlin: CEST = UTC+2 until
2026-10-25 03:00 local, CET = UTC+1 after).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from cerebri.calendars.change_request import ChangeOperation
from cerebri.calendars.change_wire import change_document
from cerebri.calendars.changes import ChangeScope
from cerebri.calendars.event_change import EventChangeAsk, EventChangeFound, plan_event_change
from cerebri.calendars.series_instances import SERIES_CHECK_HORIZON_SECONDS
from cerebri.calendars.slot_search import SlotSearch
from cerebri.calendars.sources import load_sources
from cerebri.cpir import Outcome
from cerebri.temporal import Instant

BERLIN = ZoneInfo("Europe/Berlin")
HEAD = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n"
TAIL = "END:VCALENDAR\r\n"
PEOPLE = (
    "ORGANIZER;CN=Alice:mailto:alice@example.com\r\n"
    "ATTENDEE;ROLE=CHAIR:mailto:alice@example.com\r\n"
    "ATTENDEE;ROLE=REQ-PARTICIPANT:mailto:bob@example.com\r\n"
)


def _series(start: str, count: int) -> str:
    return (
        "BEGIN:VEVENT\r\nUID:weekly@example.com\r\nDTSTAMP:20260101T000000Z\r\n"
        f"DTSTART;TZID=Europe/Berlin:{start}\r\nDURATION:PT30M\r\n"
        f"RRULE:FREQ=WEEKLY;COUNT={count}\r\nSUMMARY:Weekly\r\n{PEOPLE}END:VEVENT\r\n"
    )


def _busy(uid: str, start: str, end: str) -> str:
    return (
        f"BEGIN:VEVENT\r\nUID:{uid}\r\nDTSTAMP:20260101T000000Z\r\n"
        f"DTSTART:{start}\r\nDTEND:{end}\r\nSUMMARY:Busy\r\nEND:VEVENT\r\n"
    )


def _files(tmp_path: Path, series: str, bob_busy: str) -> list[Path]:
    alice = tmp_path / "alice.ics"
    bob = tmp_path / "bob.ics"
    alice.write_text(HEAD + "X-WR-CALNAME:alice@example.com\r\n" + series + TAIL, newline="")
    bob.write_text(HEAD + "X-WR-CALNAME:bob@example.com\r\n" + series + bob_busy + TAIL, newline="")
    return [alice, bob]


def _load(paths: Sequence[Path], urls: Sequence[str], ids: Sequence[str]) -> Any:
    window = (Instant.parse("2026-01-01T00:00:00Z"), Instant.parse("2027-01-01T00:00:00Z"))
    return load_sources(paths, urls, window, ids=ids)


def _local(text: str) -> Instant:
    return Instant.from_datetime(datetime.fromisoformat(text).replace(tzinfo=BERLIN))


def _plan(paths: list[Path], **ask: Any) -> EventChangeFound:
    question = EventChangeAsk(
        ChangeOperation.RESCHEDULE,
        "weekly@example.com",
        zone="Europe/Berlin",
        granularity_seconds=1800,
        **ask,
    )
    return plan_event_change(question, SlotSearch(ics=paths), _load)


def _starts(found: EventChangeFound) -> list[str]:
    return [c.start.format() for c in found.answer.result.candidates]


def test_a_series_move_whose_third_instance_meets_busy_time_is_rejected(tmp_path: Path) -> None:
    # Mondays 09:00 CEST from 2026-05-04, six of them. Moved to Tuesday 2026-05-05 10:00 (a
    # shift of +1 day 1 hour of wall time) the instances are the Tuesdays 05-05, 05-12,
    # 05-19 ... at 10:00 CEST = 08:00Z. Bob is busy 2026-05-19 08:00Z-08:30Z: the third
    # instance of that start. 10:30 (08:30Z) keeps clear of it.
    paths = _files(
        tmp_path,
        _series("20260504T090000", 6),
        _busy("bob-busy@x", "20260519T080000Z", "20260519T083000Z"),
    )
    found = _plan(
        paths,
        scope=ChangeScope.SERIES,
        window=(_local("2026-05-05T10:00"), _local("2026-05-05T11:00")),
    )
    assert _starts(found) == ["2026-05-05T08:30:00Z"]
    check = found.series_check
    assert check is not None
    assert check.horizon_seconds == SERIES_CHECK_HORIZON_SECONDS == 56 * 86_400
    # the window ends 2026-05-05T09:00Z; 56 days later is 2026-06-30T09:00Z (no buffer)
    assert check.until == Instant.parse("2026-06-30T09:00:00Z")
    (rejected,) = check.rejected
    assert rejected.start == Instant.parse("2026-05-05T08:00:00Z")
    assert rejected.instance_start == Instant.parse("2026-05-19T08:00:00Z")
    assert rejected.instance_end == Instant.parse("2026-05-19T08:30:00Z")
    assert (rejected.calendar_id, rejected.reason, rejected.blocker) == (
        "bob",
        "busy",
        "bob-busy@x",
    )
    document = change_document(found)
    assert document["series_check"]["until"] == "2026-06-30T09:00:00Z"
    assert document["series_check"]["rejected"][0]["instance"]["start"] == "2026-05-19T08:00:00Z"
    assert [c["start"] for c in document["candidates"]] == ["2026-05-05T08:30:00Z"]
    # the request still ranks 08:00Z first (least disruption: nearer the current time):
    # what is kept is the request's second candidate (cerebri propose --candidate 2)
    assert document["series_check"]["request_ranks"] == [2]


def test_the_request_bytes_do_not_depend_on_the_series_check(tmp_path: Path) -> None:
    # the same reschedule with and without the busy block: the request is the same (the
    # check filters the planner's answer; it adds nothing to the CPIR request)
    series = _series("20260504T090000", 6)
    window = (_local("2026-05-05T10:00"), _local("2026-05-05T11:00"))
    busy = _busy("bob-busy@x", "20260519T080000Z", "20260519T083000Z")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    blocked = _plan(_files(tmp_path / "a", series, busy), scope=ChangeScope.SERIES, window=window)
    clear = _plan(_files(tmp_path / "b", series, ""), scope=ChangeScope.SERIES, window=window)
    assert blocked.answer.request == clear.answer.request
    assert _starts(clear) == ["2026-05-05T08:00:00Z", "2026-05-05T08:30:00Z"]
    assert clear.series_check is not None and clear.series_check.rejected == ()


def test_instances_after_a_dst_change_are_checked_at_their_wall_clock_time(tmp_path: Path) -> None:
    # Mondays 09:00 from 2026-10-12 (CEST), four of them: 10-12, 10-19 (CEST), 10-26, 11-02
    # (CET). Moved to Tuesday 2026-10-13 10:00 CEST (08:00Z), the series keeps 10:00 local:
    # 10-20 08:00Z, then 10-27 and 11-03 at 10:00 CET = 09:00Z. A fixed UTC offset from the
    # anchor would put 10-27 at 08:00Z instead.
    series = _series("20261012T090000", 4)
    window = (_local("2026-10-13T10:00"), _local("2026-10-13T10:30"))
    (tmp_path / "real").mkdir()
    (tmp_path / "fixed").mkdir()
    real = _busy("bob-real@x", "20261027T090000Z", "20261027T093000Z")
    found = _plan(_files(tmp_path / "real", series, real), scope=ChangeScope.SERIES, window=window)
    assert _starts(found) == []
    assert found.answer.result.outcome is not Outcome.SOLUTION
    assert found.series_check is not None
    (rejected,) = found.series_check.rejected
    assert rejected.instance_start == Instant.parse("2026-10-27T09:00:00Z")
    assert (rejected.calendar_id, rejected.blocker) == ("bob", "bob-real@x")
    # busy where a fixed-offset projection would land (08:00Z) is not where the series goes
    fixed = _busy("bob-fixed@x", "20261027T080000Z", "20261027T083000Z")
    kept = _plan(_files(tmp_path / "fixed", series, fixed), scope=ChangeScope.SERIES, window=window)
    assert _starts(kept) == ["2026-10-13T08:00:00Z"]
    assert kept.series_check is not None and kept.series_check.rejected == ()


def test_this_and_future_checks_the_series_it_splits_off(tmp_path: Path) -> None:
    # Mondays 09:00 CEST from 2026-05-04, six; this and future from 05-18 (the third),
    # moved to Tuesday 05-19 10:00 CEST: the new series is 05-19, 05-26, 06-02, 06-09 at
    # 08:00Z. Bob is busy 06-02 08:00Z-08:30Z (its third instance).
    busy = _busy("bob-busy@x", "20260602T080000Z", "20260602T083000Z")
    paths = _files(tmp_path, _series("20260504T090000", 6), busy)
    found = _plan(
        paths,
        scope=ChangeScope.THIS_AND_FUTURE,
        at=_local("2026-05-18T09:00"),
        window=(_local("2026-05-19T10:00"), _local("2026-05-19T11:00")),
    )
    assert _starts(found) == ["2026-05-19T08:30:00Z"]
    assert found.series_check is not None
    (rejected,) = found.series_check.rejected
    assert rejected.start == Instant.parse("2026-05-19T08:00:00Z")
    assert rejected.instance_start == Instant.parse("2026-06-02T08:00:00Z")


def test_one_instance_is_not_checked_as_a_series(tmp_path: Path) -> None:
    busy = _busy("bob-busy@x", "20260519T080000Z", "20260519T083000Z")
    paths = _files(tmp_path, _series("20260504T090000", 6), busy)
    found = _plan(
        paths,
        scope=ChangeScope.INSTANCE,
        at=_local("2026-05-04T09:00"),
        window=(_local("2026-05-05T10:00"), _local("2026-05-05T11:00")),
    )
    assert _starts(found) == ["2026-05-05T08:00:00Z", "2026-05-05T08:30:00Z"]
    assert found.series_check is None


def test_the_shared_shift_gives_the_instances_apply_change_writes(tmp_path: Path) -> None:
    # fit_series expands one trial move and shifts it for the other starts (decision 0063);
    # every start here gets the same instances from a trial of its own, across the DST
    # change of 2026-10-25, with an EXDATE and a moved instance shifted along
    from icalendar import Calendar

    from cerebri.calendars.series_fit import _Trial

    series = _series("20261012T090000", 6).replace(
        "RRULE:FREQ=WEEKLY;COUNT=6\r\n",
        "RRULE:FREQ=WEEKLY;COUNT=6\r\nEXDATE;TZID=Europe/Berlin:20261102T090000\r\n",
    )
    moved = (
        "BEGIN:VEVENT\r\nUID:weekly@example.com\r\nDTSTAMP:20260101T000000Z\r\n"
        "RECURRENCE-ID;TZID=Europe/Berlin:20261026T090000\r\n"
        "DTSTART;TZID=Europe/Berlin:20261026T150000\r\nDURATION:PT45M\r\n"
        "SUMMARY:Weekly\r\nEND:VEVENT\r\n"
    )
    resource = Calendar.from_ical(HEAD + series + moved + TAIL)
    for scope, at in ((ChangeScope.SERIES, None), (ChangeScope.THIS_AND_FUTURE, "2026-10-19")):
        rid = None if at is None else _local(f"{at}T09:00")
        trial = _Trial(resource, "weekly@example.com", scope, rid, "Europe/Berlin")
        starts = ["2026-10-20T07:00", "2026-10-24T22:00", "2026-10-27T03:30", "2026-11-01T18:00"]
        exact = {}
        for text in starts:
            start = _local(text)
            end = start.plus_seconds(1800)
            assert end is not None
            exact[start] = trial(start, end)
            assert len(exact[start]) >= 3  # the horizon holds several instances of each
        reference = _local(starts[0])
        until = _local("2027-01-01T00:00")  # past every start + 56 days
        pattern = trial.pattern(reference, exact[reference][0][1], until)
        assert exact[reference][0] == (reference, reference.plus_seconds(1800))
        assert pattern is not None
        for start, instances in exact.items():
            assert pattern.instances(start) == instances, (scope, start)
