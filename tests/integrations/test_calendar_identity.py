"""Calendar identity and logins on a real Radicale (issue 21 items 9, 11, 12;
docs/decisions/0037).

The server checks passwords (htpasswd) and lets each user read only their own calendars
(``owner_only``). Alice and Bob each have a calendar called ``work`` (the README's
example); Alice also has ``personal``: two timed events and an all-day event.

* One calendar is one attendee: ``personal`` arrives as three objects, and is one optional
  attendee, busy during its all-day event; as a required calendar it counts once for
  ``--min-attendance``.
* ``.../alice/work/`` and ``.../bob/work/`` get the ids ``alice.work`` and ``bob.work``.
* Each URL is read with its own login: a credentials file, netrc, then the default login;
  a wrong one is ``caldav.unauthorized`` naming the URL and where the login came from,
  never the password.

Expected busy slots are computed here from the event times, not by cerebri.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import caldav
import pytest
from typer.testing import CliRunner, Result

from cerebri.cli import app
from tests._radicale import RadicaleServer, serve

PASSWORDS = {"alice": "alice-Secret-42", "bob": "bob-Secret-77"}  # test values only
HOUR = timedelta(hours=1)
MONDAY = datetime(2026, 10, 5, tzinfo=UTC)
WINDOW = ["--between", "2026-10-05T09:00Z/2026-10-06T17:00Z", "--tz", "UTC"]
GRID = ["--working-hours", "09:00-17:00", "--duration", "1h", "--granularity", "1h"]
# Alice's personal calendar: two timed events on Monday and all of Tuesday (UTC days).
PERSONAL = [
    (MONDAY + 10 * HOUR, MONDAY + 11 * HOUR),
    (MONDAY + 14 * HOUR, MONDAY + 15 * HOUR),
    (MONDAY + 24 * HOUR, MONDAY + 48 * HOUR),
]


def _event(uid: str, start: datetime, end: datetime, *, all_day: bool = False) -> str:
    if all_day:
        times = [f"DTSTART;VALUE=DATE:{start:%Y%m%d}", f"DTEND;VALUE=DATE:{end:%Y%m%d}"]
    else:
        times = [f"DTSTART:{start:%Y%m%dT%H%M%SZ}", f"DTEND:{end:%Y%m%dT%H%M%SZ}"]
    lines = [
        "BEGIN:VCALENDAR",
        "VERSION:2.0",
        "PRODID:-//cerebri tests//EN",
        "BEGIN:VEVENT",
        f"UID:{uid}",
        "DTSTAMP:20260101T000000Z",
        *times,
        "SUMMARY:busy",
        "END:VEVENT",
        "END:VCALENDAR",
    ]
    return "\r\n".join(lines) + "\r\n"


@dataclass(frozen=True)
class Server:
    url: str
    alice_work: str
    bob_work: str
    personal: str


def serve_two_users(folder: Path) -> Iterator[Server]:
    """The seeded two-user Radicale in ``folder`` while the generator runs (for fixtures
    here and in the worker and MCP tests)."""
    users = folder / "users"
    users.write_text("".join(f"{u}:{p}\n" for u, p in PASSWORDS.items()), encoding="utf-8")
    options = ["--auth-type", "htpasswd", "--auth-htpasswd-filename", str(users)]
    options += ["--auth-htpasswd-encryption", "plain"]
    for running in serve(folder, *options):
        yield _seed(running)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    yield from serve_two_users(tmp_path_factory.mktemp("radicale-two-users"))


def _seed(running: RadicaleServer) -> Server:
    urls: dict[str, str] = {}
    for user, password in PASSWORDS.items():
        with caldav.DAVClient(running.url, username=user, password=password, timeout=10) as c:
            work = c.principal().make_calendar(name="Work", cal_id="work")
            hour = 12 if user == "alice" else 15
            work.save_event(
                _event(f"{user}-work", MONDAY + hour * HOUR, MONDAY + (hour + 1) * HOUR)
            )
            urls[user] = str(work.url)
            if user == "alice":
                personal = c.principal().make_calendar(name="Personal", cal_id="personal")
                for index, (start, end) in enumerate(PERSONAL):
                    personal.save_event(_event(f"p{index}", start, end, all_day=index == 2))
                urls["personal"] = str(personal.url)
    return Server(running.url, urls["alice"], urls["bob"], urls["personal"])


@pytest.fixture(autouse=True)
def _clean_logins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No login from the machine: an empty home (no ~/.netrc), no NETRC, no default."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    for name in ("NETRC", "CEREBRI_CALDAV_USER", "CEREBRI_CALDAV_PASSWORD"):
        monkeypatch.delenv(name, raising=False)


def _run(*args: str | Path) -> Result:
    return CliRunner().invoke(app, ["find-slot", *map(str, args)])


def _private(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    path.chmod(0o600)
    return path


def _credentials(tmp_path: Path, server: Server, bob_password_env: str = "BOB_DAV") -> Path:
    document = {
        server.alice_work.rsplit("/work/", 1)[0] + "/": {
            "user": "alice",
            "password_env": "ALICE_DAV",
        },
        server.bob_work: {"user": "bob", "password_env": bob_password_env},
    }
    return _private(tmp_path / "logins.json", json.dumps(document))


def _overlaps(start: datetime, end: datetime) -> bool:
    return any(s < end and start < e for s, e in PERSONAL)


def test_an_optional_caldav_calendar_is_one_attendee(
    server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CEREBRI_CALDAV_USER", "alice")
    monkeypatch.setenv("CEREBRI_CALDAV_PASSWORD", PASSWORDS["alice"])
    empty = tmp_path / "req.ics"
    empty.write_text(_event("x", MONDAY - 48 * HOUR, MONDAY - 47 * HOUR), encoding="utf-8")
    result = _run("--ics", empty, "--optional-caldav", server.personal, *WINDOW, *GRID, "--json")
    assert result.exit_code == 0, result.stderr
    slots = json.loads(result.stdout)["slots"]
    assert len(slots) >= 10
    for slot in slots:
        start = datetime.fromisoformat(slot["start"].replace("Z", "+00:00"))
        busy = _overlaps(start, start + HOUR)
        assert slot["optional_busy"] == (["personal"] if busy else []), slot
        assert slot["optional_free"] == ([] if busy else ["personal"]), slot
        assert slot["optional_unknown"] == []
    # Tuesday (the all-day event) is busy for the optional attendee at every hour offered.
    tuesday = [s for s in slots if s["start"].startswith("2026-10-06")]
    assert tuesday and all(s["optional_busy"] == ["personal"] for s in tuesday)


def test_a_required_caldav_calendar_counts_once_for_min_attendance(
    server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CEREBRI_CALDAV_USER", "alice")
    monkeypatch.setenv("CEREBRI_CALDAV_PASSWORD", PASSWORDS["alice"])
    carol = tmp_path / "carol.ics"  # busy all of Monday's working day
    carol.write_text(_event("c", MONDAY + 9 * HOUR, MONDAY + 17 * HOUR), encoding="utf-8")
    args = ["--caldav", server.personal, "--optional-ics", carol, *WINDOW, *GRID]
    result = _run(*args, "--min-attendance", "0.6", "--json")
    assert result.exit_code == 0, result.stderr
    document = json.loads(result.stdout)
    # Personal (one person, three objects) is free on Monday at 09, 11, 12, 13, 15 and 16
    # and busy all Tuesday; Carol is busy all Monday: 1 of 2 attendees free is 0.5 < 0.6.
    free_mondays = [
        MONDAY + h * HOUR
        for h in range(9, 17)
        if not _overlaps(MONDAY + h * HOUR, MONDAY + (h + 1) * HOUR)
    ]
    assert document["slots"] == []
    below = [
        datetime.fromisoformat(s["start"].replace("Z", "+00:00"))
        for s in document["below_min_attendance"]
    ]
    assert below == free_mondays


def test_the_readme_example_two_work_calendars_with_their_own_logins(
    server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ALICE_DAV", PASSWORDS["alice"])
    monkeypatch.setenv("BOB_DAV", PASSWORDS["bob"])
    logins = _credentials(tmp_path, server)
    args = ["--caldav", server.alice_work, "--caldav", server.bob_work, *WINDOW, *GRID]
    args += ["--caldav-credentials", str(logins)]
    result = _run(*args, "--create", "Design review", "--calendar", "alice.work", "--emit-request")
    assert result.exit_code == 0, result.stderr
    request = json.loads(result.stdout)
    calendar_of = {o["id"]: o["calendar_id"] for o in request["context"]["objects"]}
    (target,) = request["target_ids"]
    assert calendar_of.pop(target) == "alice.work"  # --calendar alice.work: Alice's work
    events = sorted(c for c in calendar_of.values() if c != "cerebri")  # not working hours
    assert events == ["alice.work", "bob.work"]  # one event each
    # Both people's busy hours (Monday 12:00 and 15:00) are excluded from the answer.
    plan = _run(*args, "--json")
    assert plan.exit_code == 0, plan.stderr
    starts = {
        c["proposed"]["placements"][0]["range"]["start"]
        for c in json.loads(plan.stdout)["candidates"]
    }
    assert "2026-10-05T12:00:00Z" not in starts and "2026-10-05T15:00:00Z" not in starts


def _both(server: Server, *extra: str | Path) -> Result:
    return _run("--caldav", server.alice_work, "--caldav", server.bob_work, *WINDOW, *GRID, *extra)


def test_a_wrong_password_is_unauthorized_naming_the_url_not_the_password(
    server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wrong = "not-Bobs-Password-1"
    monkeypatch.setenv("ALICE_DAV", PASSWORDS["alice"])
    monkeypatch.setenv("WRONG_DAV", wrong)
    result = _both(server, "--caldav-credentials", _credentials(tmp_path, server, "WRONG_DAV"))
    assert result.exit_code == 2
    assert result.stderr.startswith("error caldav.unauthorized")
    assert server.bob_work in result.stderr
    assert "user 'bob' from credentials file" in result.stderr
    assert wrong not in result.stderr + result.stdout
    assert PASSWORDS["alice"] not in result.stderr + result.stdout


def test_one_default_login_cannot_read_two_peoples_calendars(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CEREBRI_CALDAV_USER", "alice")
    monkeypatch.setenv("CEREBRI_CALDAV_PASSWORD", PASSWORDS["alice"])
    result = _both(server)
    assert result.exit_code == 2
    assert result.stderr.startswith("error caldav.unauthorized")
    assert server.bob_work in result.stderr and "the default login" in result.stderr


def test_entry_then_netrc_then_default(
    server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # netrc holds Alice's login for the host; the credentials file only Bob's URL; the
    # default login is wrong for both, so success means each URL took the more specific one.
    netrc = _private(
        tmp_path / "netrc", f"machine 127.0.0.1 login alice password {PASSWORDS['alice']}\n"
    )
    monkeypatch.setenv("NETRC", str(netrc))
    monkeypatch.setenv("CEREBRI_CALDAV_USER", "mallory")
    monkeypatch.setenv("CEREBRI_CALDAV_PASSWORD", "wrong-Default-9")
    monkeypatch.setenv("BOB_DAV", PASSWORDS["bob"])
    bob_only = _private(
        tmp_path / "bob.json",
        json.dumps({server.bob_work: {"user": "bob", "password_env": "BOB_DAV"}}),
    )
    result = _both(server, "--caldav-credentials", bob_only, "--json")
    assert result.exit_code == 0, result.stderr
    # Without the file, Bob's URL is read with netrc's Alice login, which may not read it.
    result = _both(server, "--json")
    assert result.exit_code == 2
    assert f"user 'alice' from netrc file {netrc}" in result.stderr
    assert server.bob_work in result.stderr


def test_a_credentials_file_others_can_read_is_refused(
    server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ALICE_DAV", PASSWORDS["alice"])
    monkeypatch.setenv("BOB_DAV", PASSWORDS["bob"])
    logins = _credentials(tmp_path, server)
    logins.chmod(0o644)
    result = _both(server, "--caldav-credentials", logins)
    assert result.exit_code == 2
    assert result.stderr.startswith("error credentials.insecure")
    assert f"chmod 600 {logins}" in result.stderr


def test_an_unset_password_variable_is_invalid(
    server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ALICE_DAV", PASSWORDS["alice"])
    result = _both(server, "--caldav-credentials", _credentials(tmp_path, server, "NOT_SET_DAV"))
    assert result.exit_code == 2
    assert result.stderr.startswith("error credentials.invalid")
    assert "$NOT_SET_DAV" in result.stderr


@pytest.mark.parametrize("command", ["find-slot", "freebusy"])
def test_a_credentials_file_without_a_caldav_calendar_is_refused(
    command: str, tmp_path: Path
) -> None:
    calendar = tmp_path / "me.ics"
    calendar.write_text(_event("m", MONDAY, MONDAY + HOUR), encoding="utf-8")
    logins = _private(tmp_path / "logins.json", "{}")
    args = [command, "--ics", str(calendar), "--caldav-credentials", str(logins), *WINDOW]
    result = CliRunner().invoke(app, [*args, *(GRID if command == "find-slot" else [])])
    assert result.exit_code == 2
    assert result.stderr == (
        "error input.invalid_option: --caldav-credentials gives logins for CalDAV calendars, "
        f"and no {'--caldav or --optional-caldav' if command == 'find-slot' else '--caldav'} "
        "is given\n"
    )
