"""``cerebri worker --outbox DIR --smtp URL ...`` (decision 0052): the options refused up front
with ``input.invalid_option``, and a CANCEL plan carried out by the CLI worker through a
real SMTP server (aiosmtpd) after a second person approved it."""

from __future__ import annotations

import email
import json
from email import policy
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from cerebri.cli import app
from cerebri.cli._itip_worker import smtp_settings
from cerebri.errors import CerebriError
from cerebri.execution import store as execution_store
from tests.execution._itip_smtp import smtp_server

runner = CliRunner()
RECIPIENT = "mailto:bob@example.com"
KEY = "cli-cancel-1:itip:bob"


def _store(tmp_path: Path) -> tuple[str, str]:
    url = f"sqlite:///{tmp_path / 'store.sqlite3'}"
    execution_store.init(url)
    return "--store", url


@pytest.mark.parametrize(
    ("url", "options", "named"),
    [
        ("ftp://mail.example.com", {}, "smtp://HOST"),
        ("smtp://", {}, "smtp://HOST"),
        ("smtp://mail.example.com/inbox", {}, "smtp://HOST"),
        ("smtp://olga:pw@mail.example.com", {}, "--smtp-user"),
        ("smtp://mail.example.com:99999", {}, "--smtp"),
        ("smtps://mail.example.com", {"starttls": True}, "--smtp-starttls"),
        (None, {"sender": "x@example.com"}, "--smtp-from"),
        (None, {"user": "olga"}, "--smtp-user"),
        (None, {"starttls": True}, "--smtp-starttls"),
        ("smtp://mail.example.com", {"user": "olga"}, "CEREBRI_SMTP_PASSWORD"),
        ("smtp://mail.example.com", {"sender": "nobody"}, "--smtp-from"),
    ],
)
def test_smtp_options_refused(url: str | None, options: dict[str, Any], named: str) -> None:
    with pytest.raises(CerebriError) as refused:
        smtp_settings(url, environ={}, **options)
    assert refused.value.code == "input.invalid_option"
    assert named in refused.value.message


def test_smtp_options_read() -> None:
    plain = smtp_settings("smtp://mail.example.com", environ={})
    assert plain is not None
    assert (plain.host, plain.port, plain.tls, plain.username) == (
        "mail.example.com",
        25,
        "none",
        None,
    )
    tls = smtp_settings("smtps://[::1]:2465", environ={})
    assert tls is not None and (tls.host, tls.port, tls.tls) == ("::1", 2465, "implicit")
    login = smtp_settings(
        "smtp://mail.example.com:587",
        starttls=True,
        sender="cal@example.org",
        user="olga",
        environ={"CEREBRI_SMTP_PASSWORD": "s3cret"},
    )
    assert login is not None
    assert (login.port, login.tls, login.sender, login.username, login.password) == (
        587,
        "starttls",
        "cal@example.org",
        "olga",
        "s3cret",
    )
    assert smtp_settings(None, environ={"CEREBRI_SMTP_PASSWORD": "unused"}) is None


def _error(*args: str) -> dict[str, Any]:
    done = runner.invoke(app, [*args, "--json"])
    assert done.exit_code == 2, done.stdout
    wire: dict[str, Any] = json.loads(done.stderr)
    return wire


def test_worker_refuses_bad_delivery_options(tmp_path: Path) -> None:
    s = _store(tmp_path)
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    for args in (
        ("--smtp", "ftp://mail.example.com"),
        ("--smtp", "smtp://127.0.0.1:2525", "--server-schedules"),
        ("--server-schedules", "--no-server-schedules"),  # decision 0068
        ("--outbox", str(blocked)),
        ("--smtp-user", "olga"),
    ):
        wire = _error("worker", "--until-idle", *args, *s)
        assert wire["code"] == "input.invalid_option", args


def _draft(tmp_path: Path) -> Path:
    params = {
        "calendar_id": "work",
        "uid": "retro-7",
        "recurrence_id": None,
        "method": "CANCEL",
        "sequence": 1,
        "recipient": RECIPIENT,
        "organizer": "mailto:olga@example.com",
        "attendees": [{"address": RECIPIENT, "name": "Bob", "required": True}],
        "idempotency_key": KEY,
        "title": "Retrospective",
    }
    check = {
        "capability": "message.itip.get",
        "target": RECIPIENT,
        "params": {"idempotency_key": KEY, "recipient": RECIPIENT},
        "path": "done",
        "op": "eq",
        "value": True,
    }
    draft = {
        "objective": "tell Bob the retrospective is cancelled",
        "origin": "operator",
        "strategy": "direct_action_verified",
        "steps": [
            {
                "key": "itip-bob",
                "kind": "capability",
                "capability": "message.itip.send",
                "target": RECIPIENT,
                "params": params,
                "expectation": {"description": "sent", "confidence": 0.9, "within_seconds": 60},
                "require_approval": True,  # a send on its own asks a person (decision 0056)
            },
            {
                "key": "itip-bob-verified",
                "kind": "verify",
                "depends_on": ["itip-bob"],
                "verify": {"of": "itip-bob", "check": check, "within_seconds": 60,
                           "interval_seconds": 10},
            },
        ],
    }  # fmt: skip
    path = tmp_path / "cancel.json"
    path.write_text(json.dumps(draft))
    return path


def _json(*args: str) -> Any:
    done = runner.invoke(app, [*args, "--json"])
    assert done.exit_code == 0, (args, done.stdout, done.stderr)
    return json.loads(done.stdout)


def test_the_cli_worker_sends_an_approved_cancel_once(tmp_path: Path) -> None:
    s = _store(tmp_path)
    outbox = tmp_path / "outbox"
    plan = _json("submit", str(_draft(tmp_path)), "--as", "principal:olga", *s)
    with smtp_server() as (port, mailbox):
        delivery = ("--outbox", str(outbox), "--smtp", f"smtp://127.0.0.1:{port}",
                    "--smtp-from", "cerebri@example.org")  # fmt: skip
        _json("worker", "--until-idle", "--poll", "0.05", *delivery, *s)
        assert mailbox.received == []  # waits for a person
        [asked] = _json("approvals", "list", *s)
        _json("approvals", "approve", asked["id"], "--as", "principal:bob", *s)
        _json("worker", "--until-idle", "--poll", "0.05", *delivery, *s)
        _json("worker", "--until-idle", "--poll", "0.05", *delivery, *s)  # nothing more
    shown = _json("plans", "show", plan["plan_id"], *s)
    assert shown["status"] == "completed"
    [received] = mailbox.received
    assert (received.mail_from, received.rcpt_tos) == ("cerebri@example.org", ("bob@example.com",))
    mail = email.message_from_bytes(received.data, policy=policy.default)
    assert (mail["Subject"], mail["From"]) == ("Cancelled: Retrospective", "olga@example.com")
    assert sorted(p.suffix for p in outbox.iterdir() if not p.name.startswith(".")) == [
        ".eml",
        ".ics",
        ".json",
    ]
    [eml] = outbox.glob("*.eml")
    assert eml.name.startswith("cli-cancel-1_itip_bob.")
    assert eml.read_bytes() == received.data
