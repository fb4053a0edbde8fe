"""One ``cerebri worker`` writes into two people's CalDAV calendars, each with its own login
(issue 21 item 12, docs/decisions/0037).

The Radicale of :mod:`tests.integrations.test_calendar_identity` (htpasswd, ``owner_only``:
Alice and Bob may each touch only their own ``work`` calendar). One plan creates an event
in each; once approved, one real worker process with ``--caldav-calendar alice.work=...
--caldav-calendar bob.work=... --caldav-credentials FILE`` carries out both, and each event
is read back with the ``caldav`` library as its owner. With one default login (Alice's) the
write to Bob's calendar is ``calendar.unauthorized``, naming where the login came from and
never the password.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from caldav.davclient import DAVClient
from typer.testing import CliRunner

from cerebri.cli import app
from cerebri.clock import FakeClock
from cerebri.execution.adapters import AdapterError, CalDavCalendar
from cerebri.integrations.credentials import CalDAVLogins
from cerebri.temporal import Instant
from tests.integrations.test_calendar_identity import (
    PASSWORDS,
    Server,
    _credentials,
    serve_two_users,
)

pytestmark = pytest.mark.processes

_SCRIPT = Path(sys.executable).with_name("cerebri")
CEREBRI = (
    [str(_SCRIPT)]
    if _SCRIPT.exists()
    else [sys.executable, "-c", "from cerebri.cli import main; main()"]
)
# Thursday of the seeded week: nothing of the seeded calendars is there.
SPANS = {
    "alice.work": ("2026-10-08T09:00:00Z", "2026-10-08T10:00:00Z"),
    "bob.work": ("2026-10-08T11:00:00Z", "2026-10-08T12:00:00Z"),
}
runner = CliRunner()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    yield from serve_two_users(tmp_path_factory.mktemp("radicale-worker-logins"))


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """No login from the machine (an empty home, no NETRC, no default login), here and in
    the worker process, which also gets the two passwords the credentials file names."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name in ("NETRC", "CEREBRI_CALDAV_USER", "CEREBRI_CALDAV_PASSWORD", "CEREBRI_STORE"):
        monkeypatch.delenv(name, raising=False)
    return {**os.environ, "ALICE_DAV": PASSWORDS["alice"], "BOB_DAV": PASSWORDS["bob"]}


def _create(calendar_id: str) -> dict[str, Any]:
    start, end = SPANS[calendar_id]
    uid = f"review-{calendar_id.replace('.', '-')}"
    return {
        "key": f"create-{calendar_id.partition('.')[0]}",
        "kind": "capability",
        "capability": "calendar.event.create",
        "target": uid,
        "params": {
            "calendar_id": calendar_id,
            "integration_id": "radicale",
            "object_id": uid,
            "start": start,
            "end": end,
            "idempotency_key": f"{uid}-1",
            "title": "Design review",
        },
        "expectation": {
            "description": f"the review is on {calendar_id}",
            "confidence": 0.9,
            "within_seconds": 60,
        },
    }


def _cli(*args: str) -> Any:
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, (args, result.stdout, result.stderr)
    return json.loads(result.stdout)


def _calendars(server: Server, calendar_ids: list[str]) -> list[str]:
    urls = {"alice.work": server.alice_work, "bob.work": server.bob_work}
    return [f"--caldav-calendar={c}={urls[c]}" for c in calendar_ids]


def _approved_plan(server: Server, store: str, tmp_path: Path, calendar_ids: list[str]) -> str:
    """A plan creating one event per calendar, submitted to an ungoverned store and every
    create approved (a worker run in-process, with no login, only asks for the approvals)."""
    draft = {
        "objective": "Put the design review on the calendars",
        "origin": "operator",
        "strategy": "direct_action",
        "steps": [_create(c) for c in calendar_ids],
    }
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(draft), encoding="utf-8")
    _cli("store", "init", "--store", store)
    plan_id: str = _cli("submit", str(path), "--store", store)["plan_id"]
    _cli(
        "worker",
        "--until-idle",
        "--poll",
        "0.05",
        *_calendars(server, calendar_ids),
        "--store",
        store,
    )
    asked = _cli("approvals", "list", "--store", store)
    assert len(asked) == len(calendar_ids)
    for approval in asked:
        _cli("approvals", "approve", approval["id"], "--as", "principal:ops", "--store", store)
    return plan_id


def _worker(env: dict[str, str], store: str, *options: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CEREBRI, "worker", "--until-idle", "--poll", "0.05", "--store", store, *options],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _steps(store: str, plan_id: str) -> dict[str, dict[str, Any]]:
    return {s["key"]: s for s in _cli("plans", "show", plan_id, "--store", store)["steps"]}


def _as(server: Server, user: str) -> DAVClient:
    return DAVClient(server.url, username=user, password=PASSWORDS[user], timeout=10)


def _events_as(server: Server, user: str, url: str) -> dict[str, tuple[str, str]]:
    """UID -> (start, end) of the events in ``url``, read as ``user``."""
    found = {}
    with _as(server, user) as client:
        for event in client.calendar(url=url).events():
            component = event.icalendar_component
            start, end = (component.decoded(n) for n in ("DTSTART", "DTEND"))
            found[str(component["UID"])] = (
                start.strftime("%Y-%m-%dT%H:%M:%SZ"),
                end.strftime("%Y-%m-%dT%H:%M:%SZ"),
            )
    return found


def test_one_worker_writes_each_calendar_with_its_own_login(
    server: Server, store_url: str, tmp_path: Path, env: dict[str, str]
) -> None:
    ids = ["alice.work", "bob.work"]
    plan_id = _approved_plan(server, store_url, tmp_path, ids)
    calendars = _calendars(server, ids)
    logins = _credentials(tmp_path, server)
    done = _worker(env, store_url, *calendars, "--caldav-credentials", str(logins), "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert (report["claims"], report["errors"]) == (2, 0), report
    steps = _steps(store_url, plan_id)
    assert {k: s["status"] for k, s in steps.items()} == {
        "create-alice": "completed",
        "create-bob": "completed",
    }
    # Read back as each owner; the seeded event of each calendar is still there, alone.
    alice = _events_as(server, "alice", server.alice_work)
    bob = _events_as(server, "bob", server.bob_work)
    assert alice == {"alice-work": alice["alice-work"], "review-alice-work": SPANS["alice.work"]}
    assert bob == {"bob-work": bob["bob-work"], "review-bob-work": SPANS["bob.work"]}
    for user, url in (("alice", server.alice_work), ("bob", server.bob_work)):
        with _as(server, user) as client:  # the other store's run starts from the seed again
            client.calendar(url=url).event_by_uid(f"review-{user}-work").delete()


def test_one_default_login_cannot_write_bobs_calendar(
    server: Server, tmp_path: Path, env: dict[str, str]
) -> None:
    store = f"sqlite:///{tmp_path / 'store.sqlite3'}"
    plan_id = _approved_plan(server, store, tmp_path, ["bob.work"])
    env = {**env, "CEREBRI_CALDAV_USER": "alice", "CEREBRI_CALDAV_PASSWORD": PASSWORDS["alice"]}
    done = _worker(env, store, *_calendars(server, ["bob.work"]), "--json")
    assert done.returncode == 0, done.stderr
    step = _steps(store, plan_id)["create-bob"]
    assert step["status"] == "failed", step
    assert step["error"]["code"] == "calendar.unauthorized"
    message = step["error"]["message"]
    assert server.bob_work in message
    assert "login: user 'alice' from the default login" in message
    shown = done.stdout + done.stderr + json.dumps(step)
    assert PASSWORDS["alice"] not in shown and PASSWORDS["bob"] not in shown
    assert "review-bob-work" not in _events_as(server, "bob", server.bob_work)


def test_a_credentials_file_without_a_caldav_calendar_is_refused(
    tmp_path: Path, env: dict[str, str]
) -> None:
    logins = tmp_path / "logins.json"
    logins.write_text("{}", encoding="utf-8")
    logins.chmod(0o600)
    store = f"sqlite:///{tmp_path / 'store.sqlite3'}"  # refused before the store is opened
    result = runner.invoke(
        app, ["worker", "--until-idle", "--caldav-credentials", str(logins), "--store", store]
    )
    assert result.exit_code == 2
    assert result.stderr == (
        "error input.invalid_option: --caldav-credentials gives logins for CalDAV calendars, "
        "and no --caldav-calendar is given\n"
    )


def test_logins_and_a_username_together_are_refused(tmp_path: Path) -> None:
    logins = CalDAVLogins.load(
        credentials_file=None, username="alice", password=None, environ={}, home=tmp_path
    )
    with pytest.raises(AdapterError) as raised:
        CalDavCalendar(
            {"work": "http://127.0.0.1:1/alice/work/"},
            FakeClock(Instant.parse("2026-10-05T00:00:00Z")),
            username="alice",
            logins=logins,
        )
    assert raised.value.code == "adapter.invalid_argument"
