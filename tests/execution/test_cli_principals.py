"""``cerebri principals``, signed ``approvals approve`` and ``submit ENVELOPE`` through typer's
runner on a SQLite store (the rules themselves run on both back ends in test_governed.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from cerebri.cli import app
from cerebri.clock import SystemClock, UuidIds
from cerebri.execution import Executor, authenticate
from cerebri.execution import store as execution_store
from cerebri.execution.context import NS
from cerebri.temporal import Instant

runner = CliRunner()

DRAFT: dict[str, Any] = {
    "objective": "one event",
    "origin": "operator",
    "strategy": "direct_action_verified",
    "steps": [
        {
            "key": "create",
            "kind": "capability",
            "capability": "calendar.event.create",
            "target": "e1",
            "params": {
                "calendar_id": "work",
                "integration_id": "local",
                "object_id": "e1",
                "start": "",  # set by _draft: 12 hours from now (the CLI runs on the system clock)
                "end": "",
                "idempotency_key": "k1",
            },
        }
    ],
}


def _draft() -> dict[str, Any]:
    """:data:`DRAFT` with its event 12 hours from now, whole hours, one hour long: a slot
    `propose` accepts with its default validity of one day."""
    start = SystemClock().now().ns // (3600 * NS) * 3600 * NS + 12 * 3600 * NS
    params = {
        **DRAFT["steps"][0]["params"],
        "start": Instant(start).format(),
        "end": Instant(start + 3600 * NS).format(),
    }
    return {**DRAFT, "steps": [{**DRAFT["steps"][0], "params": params}]}


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    url = f"sqlite:///{tmp_path / 'store.sqlite3'}"
    execution_store.init(url)
    monkeypatch.setenv("CEREBRI_STORE", url)
    monkeypatch.chdir(tmp_path)
    return url


def _ok(*args: str) -> Any:
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _error(*args: str) -> dict[str, Any]:
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 2, result.output
    error: dict[str, Any] = json.loads(result.stderr.strip().splitlines()[-1])
    return error


def _keys(folder: Path, *names: str) -> None:
    for name in names:
        result = runner.invoke(app, ["keys", "new", "--dir", str(folder), name])
        assert result.exit_code == 0, result.output


def test_principals_roles_tokens_keys_and_grants(store: str, tmp_path: Path) -> None:
    added = _ok("principals", "add", "principal:Alice", "--role", "requester", "--name", "A")
    assert (added["id"], added["kind"], added["roles"]) == (
        "principal:alice",
        "person",
        ["requester"],
    )
    assert _error("principals", "add", "agent:bot", "--role", "approver")["code"] == (
        "auth.invalid_role"
    )
    assert _error("principals", "add", "principal:alice")["code"] == "auth.duplicate"

    issued = _ok("principals", "token", "principal:alice", "--label", "laptop")
    assert issued["token"].startswith("cbr_") and len(issued["token"]) == 4 + 43
    engine = execution_store.open_engine(execution_store.parse_store_url(store))
    executor = Executor(engine, SystemClock(), UuidIds())
    assert authenticate(executor, issued["token"]) == "principal:alice"
    _ok("principals", "revoke-token", issued["token_id"])
    with pytest.raises(Exception, match="revoked"):
        authenticate(executor, issued["token"])

    _keys(tmp_path / "keys", "alice", "spare")
    key = _ok("principals", "key", "principal:alice", "--keys", "keys", "--keyid", "alice")
    assert key["principal"] == "principal:alice"
    from_pem = _ok(
        "principals", "key", "principal:alice", "--private-key", "keys/spare.pem", "--keyid", "s2"
    )
    assert from_pem["keyid"] == "s2"
    assert _error("principals", "key", "principal:alice", "--keyid", "x")["code"] == (
        "execution.invalid_argument"
    )
    assert (
        _error("principals", "key", "principal:alice", "--keys", "keys", "--keyid", "nope")["code"]
        == "execution.not_found"
    )
    _ok("principals", "revoke-key", "s2")

    granted = _ok("principals", "grant", "principal:alice", "calendar.event.create")
    assert granted["calendar"] == "*"
    assert _error("principals", "grant", "principal:alice", "no.such")["code"] == (
        "execution.invalid_argument"
    )
    _ok("principals", "revoke-grant", granted["id"])

    [listed] = _ok("principals", "list")
    assert [k["keyid"] for k in listed["keys"]] == ["alice", "s2"]
    assert listed["keys"][1]["revoked_at"] is not None
    assert listed["grants"][0]["revoked_at"] is not None
    assert _ok("principals", "disable", "principal:alice")["disabled_at"] is not None
    engine.dispose()


def test_envelope_submit_and_signed_approval(store: str, tmp_path: Path) -> None:
    _keys(tmp_path / "keys", "alice", "bob")
    _ok("principals", "add", "principal:alice", "--role", "requester")
    _ok("principals", "add", "principal:bob", "--role", "approver")
    _ok("principals", "key", "principal:alice", "--keys", "keys", "--keyid", "alice")
    _ok("principals", "key", "principal:bob", "--keys", "keys", "--keyid", "bob")
    _ok("principals", "grant", "principal:alice", "calendar.event.create", "--calendar", "work")
    (tmp_path / "draft.json").write_text(json.dumps(_draft()))
    proposed = runner.invoke(
        app,
        [
            "propose", "draft.json", "--key", "keys/alice.pem", "--keyid", "alice",
            "--store", "objects", "--author", "principal:alice", "--out", "env.json",
        ],
    )  # fmt: skip
    assert proposed.exit_code == 0, proposed.output

    assert _error("submit", "env.json")["code"] == "intake.artifact_required"
    # options that shape a plain draft would be silently ignored with an envelope: refused,
    # one line, exit 2, nothing stored (issue 21 item 15)
    for extra in (["--alternative", "draft.json"], ["--goal", "g"], ["--sandbox", "s"]):
        refused = runner.invoke(app, ["submit", "env.json", "--objects", "objects", *extra])
        assert refused.exit_code == 2, refused.output
        assert refused.stderr == (
            f"error input.invalid_option: {extra[0]} does not apply to a signed envelope: the "
            "envelope fixes what is proposed (only --as, --max-replans and --artifact/--objects "
            "go with it); submit a plan draft to use it\n"
        )
    assert _ok("plans", "list") == []
    # and the envelope's options with a plain draft
    assert _error("submit", "draft.json", "--objects", "objects") == {
        "code": "input.invalid_option",
        "path": None,
        "message": "--objects goes with a signed envelope (its artifact); this input is a plan "
        "draft",
    }
    assert _ok("plans", "list") == []
    first = _ok("submit", "env.json", "--objects", "objects")
    assert (first["author"], first["replayed"]) == ("principal:alice", False)
    again = _ok("submit", "env.json", "--objects", "objects")
    assert (again["plan_id"], again["replayed"]) == (first["plan_id"], True)

    calendar = f"work={tmp_path / 'work.ics'}"
    worker = runner.invoke(app, ["worker", "--until-idle", "--ics-calendar", calendar])
    assert worker.exit_code == 0, worker.output
    [asked] = _ok("approvals", "list")
    assert _error("approvals", "approve", asked["id"], "--as", "principal:bob")["code"] == (
        "approval.signature_required"
    )
    assert (
        _error(
            "approvals", "approve", asked["id"], "--as", "principal:bob", "--key", "keys/alice.pem"
        )["code"]
        == "approval.wrong_key"
    )  # keyid taken from the file name: alice
    decided = _ok(
        "approvals", "approve", asked["id"], "--as", "principal:bob", "--key", "keys/bob.pem"
    )
    assert (decided["status"], decided["signed"], decided["keyid"]) == ("approved", True, "bob")
    worker = runner.invoke(app, ["worker", "--until-idle", "--ics-calendar", calendar])
    assert worker.exit_code == 0, worker.output
    [plan] = _ok("plans", "list")
    assert plan["status"] == "completed"
    assert (tmp_path / "work.ics").read_text().count("BEGIN:VEVENT") == 1


def test_calendar_owners_on_the_command_line(store: str) -> None:
    _ok("principals", "add", "principal:bob", "--role", "approver")
    _ok("principals", "add", "principal:ann", "--role", "approver")
    owned = _ok("principals", "own", "principal:Bob", "bob-cal")
    assert (owned["principal"], owned["calendar"], owned["revoked_at"]) == (
        "principal:bob",
        "bob-cal",
        None,
    )
    assert _error("principals", "own", "principal:ann", "bob-cal")["code"] == "auth.duplicate"
    assert _error("principals", "own", "principal:zed", "z")["code"] == "execution.not_found"
    text = runner.invoke(app, ["principals", "own", "principal:ann", "ann-cal"])
    assert (text.exit_code, text.stdout) == (0, "principal:ann owns calendar ann-cal\n")
    revoked = _ok("principals", "revoke-owner", "bob-cal")
    assert (revoked["principal"], revoked["revoked_at"] is not None) == ("principal:bob", True)
    assert _error("principals", "revoke-owner", "bob-cal")["code"] == "execution.not_found"
    listed = _ok("principals", "owners")
    assert [(o["calendar"], o["principal"], o["revoked_at"] is None) for o in listed] == [
        ("ann-cal", "principal:ann", True),
        ("bob-cal", "principal:bob", False),
    ]
    table = runner.invoke(app, ["principals", "owners"])
    assert table.exit_code == 0
    assert [line.split()[:2] for line in table.stdout.splitlines()[1:]] == [
        ["ann-cal", "principal:ann"],
        ["bob-cal", "principal:bob"],
    ]
