"""The local .ics calendar adapter (cerebri.execution.adapters.ics_file)."""

from __future__ import annotations

import json
import multiprocessing
import os
import stat
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NoReturn

import pytest
from icalendar import Calendar
from typer.testing import CliRunner

from cerebri._json import JSONValue
from cerebri.cli import app
from cerebri.clock import FakeClock
from cerebri.execution.adapters import AdapterError, IcsFileCalendar, Invocation
from cerebri.execution.adapters.ics_file import IDEMPOTENCY_PROPERTY, MAX_CALENDAR_BYTES, PRODID
from cerebri.ics import CalendarError, busy_periods, parse_calendar
from cerebri.temporal import Instant

NOW = Instant.parse("2026-10-01T08:00:00Z")
START, END = "2026-10-05T09:00:00Z", "2026-10-05T09:30:00Z"
LATER_START, LATER_END = "2026-10-05T11:00:00Z", "2026-10-05T12:00:00Z"


def calendar(tmp_path: Path, **extra: Path) -> IcsFileCalendar:
    return IcsFileCalendar({"work": tmp_path / "work.ics", **extra}, FakeClock(NOW))


def invocation(capability: str, key: str = "plan-1:1:create-0:0", **params: Any) -> Invocation:
    return Invocation(capability, params.get("object_id"), params, "plan_step:s-1", key)


def write(capability: str, key: str = "plan-1:1:create-0:0", **params: Any) -> Invocation:
    base = {"calendar_id": "work", "integration_id": "local", "object_id": "e1"}
    return invocation(capability, key, **{**base, "idempotency_key": key, **params})


def create(**params: Any) -> Invocation:
    return write("calendar.event.create", **{"start": START, "end": END, **params})


def get(object_id: str = "e1") -> Invocation:
    return invocation("calendar.event.get", calendar_id="work", object_id=object_id)


def events(path: Path) -> list[Any]:
    return list(Calendar.from_ical(path.read_bytes()).walk("VEVENT"))


def code_of(call: Any) -> tuple[str, bool]:
    with pytest.raises(AdapterError) as caught:
        call()
    return caught.value.code, caught.value.retryable


# ---------------------------------------------------------------------------- create


def test_create_writes_a_new_file_with_one_utc_event(tmp_path: Path) -> None:
    result = calendar(tmp_path).invoke(create(title="Design review"))
    assert result == {
        "object_id": "e1",
        "calendar_id": "work",
        "start": START,
        "end": END,
        "revision": 0,
        "created": True,
    }
    parsed = Calendar.from_ical((tmp_path / "work.ics").read_bytes())
    assert str(parsed["PRODID"]) == PRODID
    assert str(parsed["VERSION"]) == "2.0"
    [event] = parsed.walk("VEVENT")
    assert str(event["UID"]) == "e1"
    assert event.decoded("DTSTART") == datetime(2026, 10, 5, 9, 0, tzinfo=UTC)
    assert event.decoded("DTEND") == datetime(2026, 10, 5, 9, 30, tzinfo=UTC)
    assert event.decoded("DTSTAMP") == datetime(2026, 10, 1, 8, 0, tzinfo=UTC)
    assert str(event["SUMMARY"]) == "Design review"
    assert int(event["SEQUENCE"]) == 0
    assert str(event[IDEMPOTENCY_PROPERTY]) == "plan-1:1:create-0:0"
    text = (tmp_path / "work.ics").read_text()
    assert "DTSTART:20261005T090000Z" in text  # a UTC DATE-TIME (RFC 5545 3.3.5 form 2)


def test_created_event_is_busy_for_cerebri_s_reader_and_cli(tmp_path: Path) -> None:
    adapter, path = _with_one_event(tmp_path)
    window = (Instant.parse("2026-10-05T08:00:00Z"), Instant.parse("2026-10-05T10:00:00Z"))
    [busy] = busy_periods([parse_calendar(path.read_text(), source="work")], *window)
    assert (busy.uid, busy.start, busy.end) == ("e1", Instant.parse(START), Instant.parse(END))
    answer = adapter.invoke(
        invocation(
            "calendar.freebusy", calendar_ids=["work"], start=str(window[0]), end=str(window[1])
        )
    )
    assert answer["busy"] == [
        {
            "start": START,
            "end": END,
            "calendar_id": "work",
            "object_id": "e1",
            "recurrence_id": None,
        }
    ]
    assert answer["free"] == [
        {"start": "2026-10-05T08:00:00Z", "end": START},
        {"start": END, "end": "2026-10-05T10:00:00Z"},
    ]
    assert answer["complete"] is True
    cli = CliRunner().invoke(
        app,
        [
            "freebusy",
            "--ics",
            str(path),
            "--between",
            "2026-10-05T08:00/2026-10-05T10:00",
            "--json",
        ],
    )
    assert cli.exit_code == 0, cli.output
    view = json.loads(cli.stdout)
    assert [(b["uid"], b["start"], b["end"]) for b in view["busy"]] == [("e1", START, END)]


def test_create_of_an_existing_uid_is_a_conflict_and_writes_nothing(tmp_path: Path) -> None:
    adapter = calendar(tmp_path)
    adapter.invoke(create())
    before = (tmp_path / "work.ics").read_bytes()
    again = create(start=LATER_START, end=LATER_END, idempotency_key="other")
    assert code_of(lambda: adapter.invoke(again)) == ("calendar.conflict", False)
    same_key_elsewhere = create(start=LATER_START, end=LATER_END)
    assert code_of(lambda: adapter.invoke(same_key_elsewhere)) == ("calendar.conflict", False)
    assert (tmp_path / "work.ics").read_bytes() == before
    assert len(events(tmp_path / "work.ics")) == 1


def test_a_repeated_create_is_adopted_by_its_effect_key(tmp_path: Path) -> None:
    """The planner's ``idempotency_key`` param names the effect across attempts and
    revisions: a create whose outcome was lost and that runs again (another attempt group,
    another invocation key) finds its event and adopts it, writing nothing."""
    adapter = calendar(tmp_path)
    first = adapter.invoke(create())
    before = (tmp_path / "work.ics").read_bytes()
    retry = invocation(
        "calendar.event.create",
        "plan-1:1:create-0:2",
        calendar_id="work",
        integration_id="local",
        object_id="e1",
        start=START,
        end=END,
        idempotency_key="plan-1:1:create-0:0",
    )
    again = adapter.invoke(retry)
    assert again == {**first, "replayed": True}
    assert (tmp_path / "work.ics").read_bytes() == before


def test_create_keeps_other_events_of_the_file(tmp_path: Path) -> None:
    adapter = calendar(tmp_path)
    adapter.invoke(create())
    adapter.invoke(create(object_id="e2", start=LATER_START, end=LATER_END))
    assert sorted(str(e["UID"]) for e in events(tmp_path / "work.ics")) == ["e1", "e2"]


def test_create_on_a_slot_no_longer_free_is_slot_taken_and_writes_nothing(
    tmp_path: Path,
) -> None:
    adapter = calendar(tmp_path)
    adapter.invoke(create(object_id="e2", start="2026-10-05T09:15:00Z", end=LATER_START))
    before = (tmp_path / "work.ics").read_bytes()
    with pytest.raises(AdapterError) as caught:
        adapter.invoke(create())
    assert (caught.value.code, caught.value.retryable) == ("calendar.slot_taken", False)
    assert "event 'e2' is busy over [2026-10-05T09:15:00Z, 2026-10-05T11:00:00Z)" in str(
        caught.value
    )
    assert (tmp_path / "work.ics").read_bytes() == before


def test_move_into_a_busy_slot_is_slot_taken_but_within_its_own_range_is_not(
    tmp_path: Path,
) -> None:
    adapter = calendar(tmp_path)
    adapter.invoke(create())
    adapter.invoke(create(object_id="e2", start="2026-10-05T11:30:00Z", end="2026-10-05T13:00:00Z"))
    before = (tmp_path / "work.ics").read_bytes()
    assert code_of(lambda: adapter.invoke(move(0))) == ("calendar.slot_taken", False)
    assert (tmp_path / "work.ics").read_bytes() == before
    overlapping_itself = write(
        "calendar.event.move",
        key="plan-1:1:move-0:0",
        start="2026-10-05T09:15:00Z",
        end="2026-10-05T09:45:00Z",
        expected_revision=0,
    )
    assert adapter.invoke(overlapping_itself)["revision"] == 1


@pytest.mark.parametrize(
    ("params", "code"),
    [
        ({"start": "2026-10-05T09:00:00.5Z"}, "adapter.invalid_params"),  # whole seconds only
        ({"start": END, "end": START}, "adapter.invalid_params"),
        ({"start": "not a time"}, "adapter.invalid_params"),
        ({"calendar_id": "home"}, "calendar.unknown_calendar"),
    ],
)
def test_create_refusals(tmp_path: Path, params: dict[str, Any], code: str) -> None:
    assert code_of(lambda: calendar(tmp_path).invoke(create(**params))) == (code, False)
    assert not (tmp_path / "work.ics").exists()


def _race(path: str, barrier: Any, answers: Any) -> None:
    adapter = IcsFileCalendar({"work": Path(path)}, FakeClock(NOW))
    barrier.wait(timeout=10)
    try:
        adapter.invoke(create(idempotency_key=f"key-{os.getpid()}"))
        answers.put("created")
    except AdapterError as error:
        answers.put(error.code)


def test_two_processes_creating_one_uid_make_one_event(tmp_path: Path) -> None:
    context = multiprocessing.get_context("fork")
    barrier, answers = context.Barrier(2), context.Queue()
    path = tmp_path / "work.ics"
    workers = [context.Process(target=_race, args=(str(path), barrier, answers)) for _ in range(2)]
    for worker in workers:
        worker.start()
    outcomes = sorted(answers.get(timeout=20) for _ in workers)
    for worker in workers:
        worker.join(timeout=20)
        assert worker.exitcode == 0
    assert outcomes == ["calendar.conflict", "created"]
    assert [str(e["UID"]) for e in events(path)] == ["e1"]


def _with_one_event(tmp_path: Path) -> tuple[IcsFileCalendar, Path]:
    """An adapter over ``work.ics`` in ``tmp_path`` after one :func:`create`; the file."""
    adapter = calendar(tmp_path)
    adapter.invoke(create())
    return adapter, tmp_path / "work.ics"


def _disk_full(*_: object) -> NoReturn:
    """A stand-in for ``os.replace``/``os.write`` on a full disk."""
    raise OSError(28, "No space left on device")


def test_a_failed_replace_leaves_the_old_file_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    adapter, path = _with_one_event(tmp_path)
    before = path.read_bytes()
    monkeypatch.setattr(os, "replace", _disk_full)
    later = create(object_id="e2", start=LATER_START, end=LATER_END)
    # os.replace failed, so nothing was written: not retryable (the executor reads a
    # retryable failure of a non-idempotent write as "may have happened")
    assert code_of(lambda: adapter.invoke(later)) == ("calendar.write_failed", False)
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["work.ics", "work.ics.lock"]


def test_a_failed_write_of_the_new_bytes_is_not_retryable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    adapter, path = _with_one_event(tmp_path)
    before = path.read_bytes()
    monkeypatch.setattr(os, "write", _disk_full)
    with pytest.raises(AdapterError) as caught:
        adapter.invoke(create(object_id="e2", start=LATER_START, end=LATER_END))
    monkeypatch.undo()
    assert (caught.value.code, caught.value.retryable) == ("calendar.write_failed", False)
    assert "No space left on device" in caught.value.message
    assert "nothing was written" in caught.value.message
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["work.ics", "work.ics.lock"]


def test_a_failed_folder_sync_after_the_replace_may_have_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    adapter, path = _with_one_event(tmp_path)
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        if stat.S_ISDIR(os.fstat(fd).st_mode):
            raise OSError(5, "Input/output error")
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    with pytest.raises(AdapterError) as caught:
        adapter.invoke(create(object_id="e2", start=LATER_START, end=LATER_END))
    monkeypatch.undo()
    # the new file is already in place: the write may have happened, so retryable
    assert (caught.value.code, caught.value.retryable) == ("calendar.write_failed", True)
    assert caught.value.before_effect is False  # decision 0040: never retried as "not done"
    assert "Input/output error" in caught.value.message
    assert sorted(str(e["UID"]) for e in events(path)) == ["e1", "e2"]


def test_a_lock_file_that_cannot_be_opened_is_a_failed_write_not_busy(tmp_path: Path) -> None:
    (tmp_path / "work.ics.lock").mkdir()
    with pytest.raises(AdapterError) as caught:
        calendar(tmp_path).invoke(create())
    assert (caught.value.code, caught.value.retryable) == ("calendar.write_failed", False)
    assert "Is a directory" in caught.value.message
    assert not (tmp_path / "work.ics").exists()


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux /proc and /sys")
@pytest.mark.parametrize("folder", ["/proc", "/sys"])
def test_a_calendar_in_a_pseudo_file_system_fails_at_once_not_retryable(folder: str) -> None:
    path = Path(folder) / "cerebri-test.ics"
    adapter = IcsFileCalendar({"work": path}, FakeClock(NOW), lock_timeout_seconds=30)
    deadline = time.monotonic() + 10  # the lock is not waited for: the OS refused it
    with pytest.raises(AdapterError) as caught:
        adapter.invoke(create())
    assert time.monotonic() < deadline
    assert (caught.value.code, caught.value.retryable) == ("calendar.write_failed", False)
    assert not path.exists()


def test_a_missing_folder_is_a_failed_write(tmp_path: Path) -> None:
    adapter = IcsFileCalendar({"work": tmp_path / "gone" / "work.ics"}, FakeClock(NOW))
    assert code_of(lambda: adapter.invoke(create())) == ("calendar.write_failed", False)
    assert not (tmp_path / "gone").exists()


def test_lock_held_elsewhere_is_busy_and_retryable(tmp_path: Path) -> None:
    import filelock

    adapter = IcsFileCalendar(
        {"work": tmp_path / "work.ics"}, FakeClock(NOW), lock_timeout_seconds=0
    )
    context = multiprocessing.get_context("fork")
    holding, release = context.Event(), context.Event()

    def hold() -> None:
        with filelock.FileLock(f"{tmp_path / 'work.ics'}.lock"):
            holding.set()
            release.wait(timeout=10)

    holder = context.Process(target=hold)
    holder.start()
    try:
        assert holding.wait(timeout=10)
        assert code_of(lambda: adapter.invoke(create())) == ("calendar.busy", True)
    finally:
        release.set()
        holder.join(timeout=10)
    assert adapter.invoke(create())["created"] is True


# ---------------------------------------------------------------------------- move


def move(expected: int | None = 0, key: str = "plan-1:1:move-0:0", **params: Any) -> Invocation:
    return write(
        "calendar.event.move",
        key,
        **{"start": LATER_START, "end": LATER_END, "expected_revision": expected, **params},
    )


def test_move_sets_the_range_and_bumps_the_sequence(tmp_path: Path) -> None:
    clock = FakeClock(NOW)
    adapter = IcsFileCalendar({"work": tmp_path / "work.ics"}, clock)
    adapter.invoke(create(title="Review"))
    clock.advance(3600)
    result = adapter.invoke(move(0))
    assert result == {
        "object_id": "e1",
        "calendar_id": "work",
        "start": LATER_START,
        "end": LATER_END,
        "revision": 1,
        "moved": True,
        "replayed": False,
        "uid": "e1",
        "recurrence_id": None,
        "scope": "SERIES",
        "new_uid": None,
    }
    [event] = events(tmp_path / "work.ics")
    assert event.decoded("DTSTART") == datetime(2026, 10, 5, 11, 0, tzinfo=UTC)
    assert event.decoded("DTEND") == datetime(2026, 10, 5, 12, 0, tzinfo=UTC)
    assert event.decoded("DTSTAMP") == datetime(2026, 10, 1, 9, 0, tzinfo=UTC)
    assert int(event["SEQUENCE"]) == 1
    assert str(event["SUMMARY"]) == "Review"
    assert str(event[IDEMPOTENCY_PROPERTY]) == "plan-1:1:move-0:0"


def test_move_with_a_stale_revision_is_refused_and_changes_nothing(tmp_path: Path) -> None:
    adapter = calendar(tmp_path)
    adapter.invoke(create())
    adapter.invoke(move(0))
    before = (tmp_path / "work.ics").read_bytes()
    stale = move(
        0, key="plan-2:1:move-0:0", start="2026-10-05T13:00:00Z", end="2026-10-05T14:00:00Z"
    )
    assert code_of(lambda: adapter.invoke(stale)) == ("calendar.revision_mismatch", False)
    assert (tmp_path / "work.ics").read_bytes() == before
    with pytest.raises(AdapterError) as caught:
        adapter.invoke(stale)
    assert caught.value.message.endswith(
        "nothing was written; the event changed after the change was planned (the ETag "
        "covers the whole event, every instance of a series: an earlier change to another "
        "instance counts): run the change command (reschedule, cancel-event or "
        "update-event) again and propose the new request"
    )
    unchecked = move(
        None, key="plan-2:1:move-0:0", start="2026-10-05T13:00:00Z", end="2026-10-05T14:00:00Z"
    )
    assert adapter.invoke(unchecked)["revision"] == 2


def test_repeating_the_applied_move_is_a_replay_not_a_mismatch(tmp_path: Path) -> None:
    adapter = calendar(tmp_path)
    adapter.invoke(create())
    adapter.invoke(move(0))
    before = (tmp_path / "work.ics").read_bytes()
    again = adapter.invoke(move(0))
    assert (again["revision"], again["replayed"], again["moved"]) == (1, True, True)
    assert (tmp_path / "work.ics").read_bytes() == before
    # the same range under another key is a different move: the revision is checked
    other = move(0, key="plan-9:1:move-0:0")
    assert code_of(lambda: adapter.invoke(other)) == ("calendar.revision_mismatch", False)


def test_move_of_an_absent_event_is_not_found(tmp_path: Path) -> None:
    adapter = calendar(tmp_path)
    assert code_of(lambda: adapter.invoke(move(None))) == ("calendar.not_found", False)
    adapter.invoke(create(object_id="e2"))
    assert code_of(lambda: adapter.invoke(move(None))) == ("calendar.not_found", False)


# ---------------------------------------------------------------------------- cancel


def cancel(object_id: str = "e1") -> Invocation:
    params = {"calendar_id": "work", "integration_id": "local", "object_id": object_id}
    return invocation("calendar.event.cancel", "plan-1:1:cancel-0:0", **params,
                      idempotency_key="plan-1:1:cancel-0:0")  # fmt: skip


def test_cancel_removes_the_event_and_repeating_it_is_harmless(tmp_path: Path) -> None:
    adapter = calendar(tmp_path)
    adapter.invoke(create())
    adapter.invoke(create(object_id="e2", start=LATER_START, end=LATER_END))
    done = adapter.invoke(cancel())
    assert {k: done[k] for k in ("object_id", "calendar_id", "cancelled", "existed")} == {
        "object_id": "e1",
        "calendar_id": "work",
        "cancelled": True,
        "existed": True,
    }
    assert [str(e["UID"]) for e in events(tmp_path / "work.ics")] == ["e2"]
    after = (tmp_path / "work.ics").read_bytes()
    again = adapter.invoke(cancel())
    assert (again["cancelled"], again["existed"]) == (False, False)
    assert (tmp_path / "work.ics").read_bytes() == after


def test_cancel_of_an_event_never_created_succeeds_without_a_file(tmp_path: Path) -> None:
    result = calendar(tmp_path).invoke(cancel("ghost"))
    assert result == {
        "object_id": "ghost",
        "calendar_id": "work",
        "cancelled": False,
        "existed": False,
        "revision": None,
        "replayed": False,
        "uid": "ghost",
        "recurrence_id": None,
        "scope": "SERIES",
        "new_uid": None,
    }
    assert not (tmp_path / "work.ics").exists()


# ---------------------------------------------------------------------------- get


def test_get_reads_the_event_in_the_shape_checks_compare(tmp_path: Path) -> None:
    adapter = calendar(tmp_path)
    adapter.invoke(create(title="Review"))
    got = adapter.invoke(get())
    assert got == {
        "object_id": "e1",
        "calendar_id": "work",
        "exists": True,
        "start": START,
        "end": END,
        "range": {"start": START, "end": END},
        "revision": 0,
        "title": "Review",
        "sequence": 0,
        "etag": got["etag"],
    }
    # the ETag of an .ics resource is a SHA-256 digest (decision 0051), moved by a change
    assert isinstance(got["etag"], str) and len(got["etag"]) == len("sha256:") + 64
    adapter.invoke(move(0))
    assert adapter.invoke(get())["etag"] not in (None, got["etag"])


def test_get_of_an_absent_event(tmp_path: Path) -> None:
    expected: dict[str, JSONValue] = {
        "object_id": "e1",
        "calendar_id": "work",
        "exists": False,
        "start": None,
        "end": None,
        "range": None,
        "revision": None,
        "title": None,
        "sequence": None,
        "etag": None,
    }
    adapter = calendar(tmp_path)
    assert adapter.invoke(get()) == expected  # no file yet
    adapter.invoke(create(object_id="e2"))
    assert adapter.invoke(get()) == expected


def test_get_reads_a_foreign_zoned_event_and_its_duration(tmp_path: Path) -> None:
    (tmp_path / "work.ics").write_text(
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//x//y//EN\r\n"
        "BEGIN:VEVENT\r\nUID:z1\r\nDTSTAMP:20261001T000000Z\r\n"
        "DTSTART;TZID=Europe/Berlin:20261005T110000\r\nDURATION:PT45M\r\nSEQUENCE:4\r\n"
        "END:VEVENT\r\n"
        "BEGIN:VEVENT\r\nUID:d1\r\nDTSTAMP:20261001T000000Z\r\nDTSTART;VALUE=DATE:20261005\r\n"
        "END:VEVENT\r\nEND:VCALENDAR\r\n"
    )
    adapter = calendar(tmp_path)
    got = adapter.invoke(get("z1"))
    # 11:00 in Berlin on 5 October 2026 is CEST (UTC+2): 09:00Z
    assert got["range"] == {"start": "2026-10-05T09:00:00Z", "end": "2026-10-05T09:45:00Z"}
    assert got["revision"] == 4
    assert code_of(lambda: adapter.invoke(get("d1"))) == ("calendar.unsupported", False)


GARBAGE_EVENT = (
    "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//elsewhere//EN\r\n"
    "BEGIN:VEVENT\r\nUID:ok1\r\nDTSTAMP:20260101T000000Z\r\n"
    "DTSTART:20261005T080000Z\r\nDTEND:20261005T083000Z\r\nEND:VEVENT\r\n"
    "BEGIN:VEVENT\r\nUID:bad1\r\nDTSTAMP:20260101T000000Z\r\n"
    "DTSTART:garbage\r\nDTEND:20261005T100000Z\r\nEND:VEVENT\r\n"
    "END:VCALENDAR\r\n"
)
"""A calendar icalendar reads leniently but cerebri's reader refuses (line 13: DTSTART)."""


@pytest.mark.parametrize(
    "call",
    [
        create(object_id="e2"),
        write("calendar.event.move", start=LATER_START, end=LATER_END, object_id="ok1"),
        write("calendar.event.cancel", object_id="ok1"),
    ],
    ids=["create", "move", "cancel"],
)
def test_a_write_into_a_calendar_cerebri_cannot_read_is_refused(
    tmp_path: Path, call: Invocation
) -> None:
    path = tmp_path / "work.ics"
    path.write_bytes(GARBAGE_EVENT.encode())
    with pytest.raises(AdapterError) as caught:
        calendar(tmp_path).invoke(call)
    error = caught.value
    assert (error.code, error.retryable) == ("calendar.unreadable", False)
    assert "ics.syntax" in error.message
    assert "bad1" in error.message
    assert "line 13" in error.message
    assert path.read_bytes() == GARBAGE_EVENT.encode()
    with pytest.raises(CalendarError):  # the reader freebusy uses refuses it too
        parse_calendar(path.read_bytes(), source="work")


@pytest.mark.parametrize(
    "data",
    [
        bytes(range(256)) * 64,  # not UTF-8
        # UTF-8, but a content line of 20 000 control and other characters
        ("BEGIN:VCALENDAR\r\n" + "\x01\x7f\u202e\x1b[31mZ" * 4000 + "\r\n").encode(),
    ],
    ids=["binary", "control-characters"],
)
def test_a_binary_calendar_gives_a_short_printable_message(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "work.ics"
    path.write_bytes(data)
    for call in (create(), get()):
        with pytest.raises(AdapterError) as caught:
            calendar(tmp_path).invoke(call)
        message = caught.value.message
        assert caught.value.code == "calendar.unreadable"
        assert len(message) <= 200 + len(str(path)) + 200, message[:300]  # detail capped
        assert message.isprintable() and message.isascii(), message[:300]
    assert path.read_bytes() == data


def test_a_calendar_over_the_size_limit_is_refused_before_any_write(tmp_path: Path) -> None:
    path = tmp_path / "work.ics"
    with path.open("wb") as handle:
        handle.truncate(MAX_CALENDAR_BYTES + 1)
    with pytest.raises(AdapterError) as caught:
        calendar(tmp_path).invoke(create())
    assert (caught.value.code, caught.value.retryable) == ("calendar.unreadable", False)
    assert f"larger than {16 * 1024 * 1024} bytes" in caught.value.message
    assert path.stat().st_size == MAX_CALENDAR_BYTES + 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["work.ics", "work.ics.lock"]


def test_unreadable_file_is_reported(tmp_path: Path) -> None:
    (tmp_path / "work.ics").write_text("this is not a calendar")
    adapter = calendar(tmp_path)
    assert code_of(lambda: adapter.invoke(get())) == ("calendar.unreadable", False)
    assert code_of(lambda: adapter.invoke(create())) == ("calendar.unreadable", False)
    assert (tmp_path / "work.ics").read_text() == "this is not a calendar"


# ---------------------------------------------------------------------------- freebusy


def test_freebusy_spans_several_calendars_and_a_missing_file(tmp_path: Path) -> None:
    adapter = calendar(tmp_path, home=tmp_path / "home.ics", empty=tmp_path / "empty.ics")
    adapter.invoke(create())
    adapter.invoke(create(calendar_id="home", object_id="h1", start=LATER_START, end=LATER_END))
    answer = adapter.invoke(
        invocation(
            "calendar.freebusy",
            calendar_ids=["work", "home", "empty"],
            start="2026-10-05T08:00:00Z",
            end="2026-10-05T11:30:00Z",
        )
    )
    assert [(b["calendar_id"], b["object_id"], b["start"], b["end"]) for b in answer["busy"]] == [
        ("work", "e1", START, END),
        ("home", "h1", LATER_START, LATER_END),
    ]
    assert answer["free"] == [
        {"start": "2026-10-05T08:00:00Z", "end": START},
        {"start": END, "end": LATER_START},
    ]
    assert not (tmp_path / "empty.ics").exists()


def test_freebusy_of_an_unknown_calendar(tmp_path: Path) -> None:
    ask = invocation("calendar.freebusy", calendar_ids=["work", "nope"], start=START, end=END)
    assert code_of(lambda: calendar(tmp_path).invoke(ask)) == ("calendar.unknown_calendar", False)


def test_unserved_capability(tmp_path: Path) -> None:
    ask = invocation("service.status", service="mail")
    assert code_of(lambda: calendar(tmp_path).invoke(ask)) == (
        "adapter.unsupported_capability",
        False,
    )
