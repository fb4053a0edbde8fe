"""The new-user trial's path through a change of an event in ``.ics`` calendars
(docs/guide/change-an-event.md), every command in this process through typer's test runner:
``reschedule``/``cancel-event``/``update-event --emit-request``, ``propose --as plan-graph``
signed by alice, ``submit``, ``worker --until-idle``, ``approvals approve`` as bob,
``worker --until-idle`` again, with ``--ics-calendar alice=alice.ics --ics-calendar
bob=bob.ics --outbox outbox``.

Nothing here reads a calendar or a message: the tests do that, independently.
"""

from __future__ import annotations

import json
from contextlib import chdir
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from typer.testing import CliRunner, Result

from cerebri.cli import app

__all__ = ["IcsChangeFlow"]

GRANTS: Final = (
    "calendar.event.move",
    "calendar.event.cancel",
    "calendar.event.update",
    "message.itip.send",
)
_RUNNER: Final = CliRunner()


@dataclass
class IcsChangeFlow:
    """alice organizes events in ``alice.ics`` (``X-WR-CALNAME:alice``); bob's calendar
    ``bob.ics`` is named by his address (``X-WR-CALNAME:bob@example.org``) so that the change
    commands match him to it (decision 0055); bob approves."""

    folder: Path

    @property
    def store(self) -> str:
        """The SQLite store in ``folder``."""
        return f"sqlite:///{self.folder / 'store.sqlite3'}"

    def run(self, *args: str) -> Result:
        """``cerebri ARGS`` in ``folder`` with the flow's store; the result, any exit code."""
        with chdir(self.folder):
            return _RUNNER.invoke(app, list(args), env={"CEREBRI_STORE": self.store})

    def cli(self, *args: str) -> str:
        """``cerebri ARGS``; its stdout. Fails the test on a non-zero exit."""
        done = self.run(*args)
        if done.exit_code != 0:
            raise AssertionError(f"cerebri {' '.join(args)} exited {done.exit_code}: {done.output}")
        return done.stdout

    def prepare(self, alice: str, bob: str) -> None:
        """The two calendars' text, the store, keys, principals and grants of the guide."""
        (self.folder / "alice.ics").write_text(alice, encoding="utf-8", newline="")
        (self.folder / "bob.ics").write_text(bob, encoding="utf-8", newline="")
        self.cli("store", "init")
        for person, role in (("alice", "requester"), ("bob", "approver")):
            principal = f"principal:{person}"
            self.cli("keys", "new", "--dir", "keys", person, "--principal", principal)
            self.cli("principals", "add", principal, "--role", role)
            self.cli("principals", "key", principal, "--keys", "keys", "--keyid", person)
        for capability in GRANTS:
            self.cli("principals", "grant", "principal:alice", capability, "--calendar", "alice")
        self.cli(
            "principals", "grant", "principal:alice", "calendar.itip.deliver", "--calendar", "bob"
        )

    def worker(self) -> None:
        """``cerebri worker --until-idle`` over both calendars and the outbox."""
        self.cli(
            "worker", "--until-idle", "--poll", "0.05",
            "--ics-calendar", "alice=alice.ics", "--ics-calendar", "bob=bob.ics",
            "--outbox", "outbox",
        )  # fmt: skip

    def change(self, command: str, uid: str, *options: str) -> dict[str, Any]:
        """``cerebri COMMAND UID --ics alice.ics --ics bob.ics OPTIONS --emit-request``,
        proposed, submitted, approved by bob and carried out; the plan as ``plans show
        --json`` gives it."""
        request = self.cli(
            command, uid, "--ics", "alice.ics", "--ics", "bob.ics", *options, "--emit-request"
        )
        (self.folder / "request.json").write_text(request, encoding="utf-8")
        self.cli(
            "propose", "request.json", "--as", "plan-graph", "--title", f"{command} {uid}",
            "--limits", "local", "--key", "keys/alice.pem", "--keyid", "alice",
            "--objects", "objects", "--expires-in", "120d", "--out", "envelope.json",
        )  # fmt: skip
        submitted = json.loads(
            self.cli("submit", "envelope.json", "--objects", "objects", "--json")
        )
        self.worker()
        for asked in json.loads(self.cli("approvals", "list", "--json")):
            if asked.get("status", "open") == "open":
                self.cli(
                    "approvals", "approve", asked["id"], "--as", "principal:bob",
                    "--key", "keys/bob.pem",
                )  # fmt: skip
        self.worker()
        shown: dict[str, Any] = json.loads(
            self.cli("plans", "show", submitted["plan_id"], "--json")
        )
        return shown

    def messages(self) -> list[str]:
        """The text of every iTIP message in the outbox, in file name order."""
        return [
            path.read_text(encoding="utf-8")
            for path in sorted((self.folder / "outbox").glob("*.ics"))
        ]
