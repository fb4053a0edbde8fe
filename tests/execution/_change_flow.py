"""The user's path through a change of an event already on CalDAV calendars, with real
processes (issue #23's Must show; ``tests/execution/test_changes_end_to_end.py``).

:class:`ChangeFlow` runs the ``cerebri`` commands the people run:
``reschedule``/``cancel-event``/``update-event`` with ``--emit-request``, ``propose --as
plan-graph`` signed with alice's key, ``submit``, ``approvals approve`` as bob with his key
(in this process, through typer's test runner over the same application: a process start
costs 2-6 s of imports on a loaded machine, four per change), and ``worker`` over each
person's calendar (``--caldav-calendar``) with ``--outbox`` and ``--smtp`` as a real
process of the ``cerebri`` executable: one worker left running in the background
(:meth:`ChangeFlow.start_worker`, as a deployment runs it), or one ``worker --until-idle``
(:meth:`ChangeFlow.run_worker_once`).

The chores around them (store, keys, principals, grants; listing approvals, a plan's
status) run in this process too (:meth:`ChangeFlow.admin`).

Nothing here reads a calendar or a message: the test does that, independently.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from contextlib import chdir, closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlsplit

from typer.testing import CliRunner

from cerebri.cli import app
from tests._dav_servers import CalDavServer

__all__ = ["CEREBRI", "ZONE", "ChangeFlow", "Outcome", "calendar_id"]

CEREBRI: Final = Path(sys.executable).parent / "cerebri"
"""The ``cerebri`` executable installed beside the running interpreter."""

ZONE: Final = "Europe/Berlin"
TIMEOUT_SECONDS: Final = 120
WAIT_SECONDS: Final = 120.0
POLL_SECONDS: Final = 0.25
GRANTS: Final = (
    "calendar.event.move",
    "calendar.event.cancel",
    "calendar.event.update",
    "message.itip.send",
)
DELIVER: Final = "calendar.itip.deliver"
FINISHED: Final = frozenset({"completed", "failed", "cancelled", "abandoned"})
_RUNNER: Final = CliRunner()


def calendar_id(url: str) -> str:
    """The id cerebri gives a CalDAV collection read beside others whose last path
    segments differ (decision 0037, the shortest unique path suffix): its last segment."""
    return [part for part in urlsplit(url).path.split("/") if part][-1]


@dataclass(frozen=True)
class Outcome:
    """What one change came to: the plan id, its final status and status reason."""

    plan: str
    status: str
    reason: str


@dataclass
class ChangeFlow:
    """One team's setup on one server: ``folder`` holds the store, keys, object store,
    outbox and requests; ``calendars`` maps person -> calendar URL; ``smtp_port`` is the
    test's SMTP server."""

    server: CalDavServer
    calendars: dict[str, str]
    folder: Path
    smtp_port: int
    env: dict[str, str] = field(default_factory=dict)
    _worker: subprocess.Popen[str] | None = None

    @property
    def store(self) -> str:
        """The store URL (SQLite in ``folder``)."""
        return f"sqlite:///{self.folder / 'store.sqlite3'}"

    @property
    def outbox(self) -> Path:
        """The worker's outbox folder."""
        return self.folder / "outbox"

    @property
    def credentials(self) -> Path:
        """The CalDAV credentials file (decision 0037) for alice, bob and carol."""
        return self.folder / "dav-credentials.json"

    def ids(self) -> dict[str, str]:
        """person -> calendar id."""
        return {person: calendar_id(url) for person, url in self.calendars.items()}

    def _environment(self) -> dict[str, str]:
        env = {**os.environ, **self.env, "CEREBRI_STORE": self.store}
        env.pop("CEREBRI_CALDAV_PASSWORD", None)
        env.pop("CEREBRI_CALDAV_USER", None)
        return env

    def cli(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        """Run ``cerebri ARGS`` in ``folder`` with the flow's store and environment; fail the
        test on a non-zero exit when ``check``.

        In this process (typer's test runner over the same ``cerebri`` application the
        executable runs): a ``cerebri`` process costs about 2 s of imports, and every change
        runs four of these commands. The worker, whose crash and concurrency rules are what
        processes test, stays a real process (:meth:`start_worker`, :meth:`run_worker_once`).
        """
        environment = {**self._environment()}
        with chdir(self.folder):
            done = _RUNNER.invoke(app, list(args), env=environment, catch_exceptions=False)
        ran = subprocess.CompletedProcess(
            ["cerebri", *args], done.exit_code, done.stdout, done.stderr
        )
        if check and ran.returncode != 0:
            raise AssertionError(
                f"cerebri {' '.join(args)} exited {ran.returncode}\n"
                f"stdout:\n{ran.stdout}\nstderr:\n{ran.stderr}"
            )
        return ran

    def admin(self, *args: str, store: bool = True) -> str:
        """Run ``cerebri ARGS`` in this process (typer's test runner), with the flow's store
        unless ``store`` is false; its stdout. Fails the test on a non-zero exit."""
        full = [*args, "--store", self.store] if store else list(args)
        done = _RUNNER.invoke(app, full, env=dict(self.env), catch_exceptions=False)
        if done.exit_code != 0:
            raise AssertionError(f"cerebri {' '.join(args)} exited {done.exit_code}: {done.output}")
        return done.stdout

    def prepare(self) -> None:
        """Store, keys (alice proposes, bob approves), principals and alice's grants on her
        calendar (and to deliver copies into bob's and carol's), as
        examples/put-on-calendar.sh makes them; the credentials file."""
        self.folder.mkdir(parents=True, exist_ok=True)
        self.server.write_credentials(self.credentials)
        self.env["CEREBRI_CACHE_DIR"] = str(self.folder / "cache")
        self.admin("store", "init")
        keys = str(self.folder / "keys")
        for person, role in (("alice", "requester"), ("bob", "approver")):
            principal = f"principal:{person}"
            self.admin("keys", "new", "--dir", keys, person, "--principal", principal, store=False)
            self.admin("principals", "add", principal, "--role", role)
            self.admin("principals", "key", principal, "--keys", keys, "--keyid", person)
        ids = self.ids()
        for capability in GRANTS:
            self.admin(
                "principals", "grant", "principal:alice", capability, "--calendar", ids["alice"]
            )
        for person in ("bob", "carol"):  # the copies of her events (decision 0057)
            self.admin("principals", "grant", "principal:alice", DELIVER, "--calendar", ids[person])

    def reading(self) -> list[str]:
        """The calendar options of a change command: alice's (the organizer's, first) and
        bob's calendars required, carol's optional, times in :data:`ZONE`."""
        return [
            "--caldav",
            self.calendars["alice"],
            "--caldav",
            self.calendars["bob"],
            "--optional-caldav",
            self.calendars["carol"],
            "--caldav-credentials",
            str(self.credentials),
            "--tz",
            ZONE,
            "--no-cache",
        ]

    def request(self, name: str, command: str, uid: str, *options: str) -> dict[str, Any]:
        """``cerebri COMMAND UID <reading> OPTIONS --emit-request > <name>.json``; the
        request."""
        done = self.cli(command, uid, *self.reading(), *options, "--emit-request")
        (self.folder / f"{name}.json").write_text(done.stdout, encoding="utf-8")
        request: dict[str, Any] = json.loads(done.stdout)
        return request

    def propose(self, name: str, *, check: bool = True) -> subprocess.CompletedProcess[str]:
        """``cerebri propose <name>.json --as plan-graph``, signed by alice, into
        ``<name>.envelope.json`` (valid 200 days: the events lie months ahead)."""
        return self.cli(
            "propose",
            f"{name}.json",
            "--as",
            "plan-graph",
            "--limits",
            "local",
            "--key",
            "keys/alice.pem",
            "--keyid",
            "alice",
            "--objects",
            "objects",
            "--expires-in",
            "200d",
            "--out",
            f"{name}.envelope.json",
            check=check,
        )

    def submit(self, name: str) -> str:
        """``cerebri submit <name>.envelope.json``; the new plan's id."""
        done = self.cli("submit", f"{name}.envelope.json", "--objects", "objects", "--json")
        plan: str = json.loads(done.stdout)["plan_id"]
        return plan

    def _worker_args(self, *extra: str) -> list[str]:
        serves = [
            option
            for url in self.calendars.values()
            for option in ("--caldav-calendar", f"{calendar_id(url)}={url}")
        ]
        return [
            str(CEREBRI),
            "worker",
            *extra,
            "--poll",
            "200ms",
            *serves,
            "--caldav-credentials",
            str(self.credentials),
            "--outbox",
            str(self.outbox),
            "--smtp",
            f"smtp://127.0.0.1:{self.smtp_port}",
        ]

    def start_worker(self) -> None:
        """Start ``cerebri worker`` (no ``--until-idle``) in the background."""
        if self._worker is not None:
            raise AssertionError("a worker is already running")
        log = (self.folder / "worker.log").open("a", encoding="utf-8")
        with log:
            self._worker = subprocess.Popen(
                self._worker_args(),
                cwd=self.folder,
                env=self._environment(),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                text=True,
            )

    def stop_worker(self) -> str:
        """SIGTERM the background worker (steps in flight finish first); its log so far.
        Fails the test when it exits non-zero (an unexpected step error)."""
        worker, self._worker = self._worker, None
        if worker is not None and worker.poll() is None:
            worker.send_signal(signal.SIGTERM)
            try:
                worker.wait(timeout=TIMEOUT_SECONDS)
            except subprocess.TimeoutExpired:
                worker.kill()
                worker.wait()
        log = (self.folder / "worker.log").read_text(encoding="utf-8")
        if worker is not None and worker.returncode != 0:
            raise AssertionError(f"the worker exited {worker.returncode}:\n{log}")
        return log

    def run_worker_once(self) -> subprocess.CompletedProcess[str]:
        """``cerebri worker --until-idle`` (foreground)."""
        args = self._worker_args("--until-idle")
        return self.cli(*args[1:])

    def _wait(self, what: str, ready: Callable[[], Any]) -> Any:
        """Poll ``ready()`` until it answers something truthy: another process (the worker)
        is working, nothing here moves time."""
        deadline = time.monotonic() + WAIT_SECONDS
        while time.monotonic() < deadline:
            if self._worker is not None and self._worker.poll() is not None:
                log = (self.folder / "worker.log").read_text(encoding="utf-8")
                raise AssertionError(f"the worker stopped while waiting for {what}:\n{log}")
            answer = ready()
            if answer:
                return answer
            time.sleep(POLL_SECONDS)
        raise AssertionError(f"gave up waiting for {what} after {WAIT_SECONDS} s")

    def _query(self, sql: str, *args: str) -> list[tuple[Any, ...]]:
        """A read-only look into the SQLite store (the polls of :meth:`_wait`: a process or
        a CLI run per poll would cost more than the worker's own work)."""
        path = self.folder / "store.sqlite3"
        with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)) as db:
            return list(db.execute(sql, args).fetchall())

    def _status(self, plan: str) -> tuple[str, str]:
        ((status, reason),) = self._query(
            "SELECT status, status_reason FROM plans WHERE id = ?", plan
        )
        return str(status), str(reason or "")

    def _finished(self, plan: str) -> tuple[str, str] | None:
        status = self._status(plan)
        return status if status[0] in FINISHED else None

    def plan(self, plan: str) -> dict[str, Any]:
        """``plans show PLAN --json``."""
        shown: dict[str, Any] = json.loads(self.admin("plans", "show", plan, "--json"))
        return shown

    def asked(self, plan: str) -> str:
        """Wait until the plan asks for approval and check it asks exactly once (one
        approval covers the change and its messages, decision 0056); the approval id."""
        sql = "SELECT id FROM approvals WHERE plan_id = ? AND status = 'open'"
        asked = self._wait(
            f"plan {plan} to ask for approval",
            lambda: self._query(sql, plan) or self._finished(plan),
        )
        if not isinstance(asked, list):
            raise AssertionError(f"plan {plan} ended without asking: {self.plan(plan)}")
        if len(asked) != 1:
            raise AssertionError(f"plan {plan} asks {len(asked)} approvals, not one: {asked}")
        return str(asked[0][0])

    def approve(self, plan: str) -> str:
        """Approve the plan's one approval (:meth:`asked`) as bob with his key;
        the approval id."""
        approval = self.asked(plan)
        self.cli("approvals", "approve", approval, "--as", "principal:bob", "--key", "keys/bob.pem")
        return approval

    def finish(self, plan: str) -> Outcome:
        """Wait until the plan is finished; its outcome."""
        status, reason = self._wait(f"plan {plan} to finish", lambda: self._finished(plan))
        return Outcome(plan, status, reason)

    def carry_out(self, name: str) -> Outcome:
        """Propose ``<name>.json``, submit it, approve it as bob once the running worker
        asks, and wait for the plan to finish."""
        self.propose(name)
        plan = self.submit(name)
        self.approve(plan)
        return self.finish(plan)
