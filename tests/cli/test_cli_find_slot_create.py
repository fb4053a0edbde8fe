"""``find-slot --create`` -> ``--emit-request`` -> ``propose --as plan-graph`` -> ``verify``,
and the refusals of ``propose`` on the way (docs/decisions/0025-proposing-calendar-slots.md)."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from cerebri.cli import app
from cerebri.proposals import ObjectStore, digest_of_ref, load_json

KEY_AT = "2026-10-01T00:00:00Z"
PROPOSE_AT = "2026-10-04T19:00:00Z"
VERIFY_AT = "2026-10-04T20:00:00Z"
WINDOW = "2026-10-05T09:00Z/2026-10-05T13:00Z"
SLOT_START = "2026-10-05T11:30:00Z"  # after alice 09:00-10:00 and bob 10:00-11:30
ERROR_LINE = re.compile(r"error (?P<code>[a-z_]+\.[a-z_]+)(?: at (?P<path>\S+))?: .+\n")


def run(*args: str | Path) -> Result:
    return CliRunner().invoke(app, [str(a) for a in args])


def error_code(result: Result) -> str:
    match = ERROR_LINE.fullmatch(result.stderr)
    assert match is not None, result.stderr
    return match["code"]


def _ics(path: Path, uid: str, start: str, end: str) -> Path:
    path.write_bytes(
        (
            "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VEVENT\r\n"
            f"UID:{uid}\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:{start}\r\nDTEND:{end}\r\n"
            "SUMMARY:busy\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        ).encode()
    )
    return path


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    keys = tmp_path / "keys"
    made = run(
        "keys", "new", "alice", "--dir", keys, "--at", KEY_AT, "--principal", "Principal:Alice"
    )
    assert made.exit_code == 0, made.output
    return {
        "alice": _ics(tmp_path / "alice.ics", "a1", "20261005T090000Z", "20261005T100000Z"),
        "bob": _ics(tmp_path / "bob.ics", "b1", "20261005T100000Z", "20261005T113000Z"),
        "keys": keys,
        "store": tmp_path / "objects",
        "tmp": tmp_path,
    }


def find_slot(files: dict[str, Path], *extra: str) -> Result:
    return run(
        "find-slot", "--ics", files["alice"], "--ics", files["bob"], "--between", WINDOW,
        "--duration", "30m", *extra,
    )  # fmt: skip


def emit(files: dict[str, Path], *extra: str) -> Path:
    result = find_slot(files, "--create", "Design review", "--emit-request", *extra)
    assert result.exit_code == 0, result.output
    path = files["tmp"] / "request.json"
    path.write_text(result.stdout, encoding="utf-8")
    return path


def propose(files: dict[str, Path], request: Path, *extra: str) -> Result:
    return run(
        "propose", request, "--key", files["keys"] / "alice.pem", "--keyid", "alice",
        "--objects", files["store"], "--limits", "local", "--out", files["tmp"] / "env.json",
        *extra,
    )  # fmt: skip


def envelope(files: dict[str, Path]) -> dict[str, Any]:
    value: dict[str, Any] = load_json((files["tmp"] / "env.json").read_bytes())
    return value


def _target(calendar: str) -> str:
    seed = f"Design review\n{calendar}\nics\n2026-10-05T09:00:00Z\n2026-10-05T13:00:00Z"
    return "event-" + hashlib.sha256(seed.encode()).hexdigest()[:32]


def test_find_slot_create_to_a_verified_plan_graph_envelope(files: dict[str, Path]) -> None:
    request = emit(files)
    document = json.loads(request.read_text())
    assert document["operation"] == "CREATE"
    assert document["target_ids"] == [_target("alice")]  # default: the first --ics calendar
    made = propose(
        files, request, "--as", "plan-graph", "--at", PROPOSE_AT, "--title", "Design review"
    )
    assert made.exit_code == 0, made.output
    signed = envelope(files)
    assert signed["author"] == {"kind": "principal", "id": "alice"}  # from the registry
    assert signed["candidate"]["artifact/type"] == "cerebri.plan-graph.v1"
    assert signed["query/id"] == document["request_id"]
    checked = run(
        "verify", files["tmp"] / "env.json", "--registry", files["keys"] / "registry.json",
        "--store", files["store"], "--at", VERIFY_AT, "--json",
    )  # fmt: skip
    assert checked.exit_code == 0, checked.output
    verdicts = {c["check"]: c["verdict"] for c in json.loads(checked.stdout)["checks"]}
    assert verdicts["signature"] == verdicts["artifact"] == verdicts["window"] == "passed"
    digest = digest_of_ref(signed["candidate"]["artifact/ref"])
    graph = load_json(ObjectStore(files["store"]).get(digest))
    steps = {step["key"]: step for step in graph["steps"]}
    assert list(steps) == ["create-0", "verify-0", "record"]
    create = steps["create-0"]
    assert create["capability"] == "calendar.event.create"
    assert create["require_approval"] is True
    assert create["params"]["title"] == "Design review"
    assert create["params"]["calendar_id"] == "alice"
    assert create["params"]["integration_id"] == "ics"
    assert (create["params"]["start"], create["params"]["end"]) == (
        SLOT_START,
        "2026-10-05T12:00:00Z",
    )
    assert steps["verify-0"]["kind"] == "verify"
    assert steps["verify-0"]["verify"]["of"] == "create-0"


def test_calendar_option_picks_the_calendar_and_the_request_is_stable(
    files: dict[str, Path],
) -> None:
    first = emit(files, "--calendar", "bob").read_text()
    assert json.loads(first)["target_ids"] == [_target("bob")]
    assert emit(files, "--calendar", "bob").read_text() == first  # same options, same bytes


def test_plan_graph_from_request_accepts_the_request(files: dict[str, Path]) -> None:
    request = emit(files)
    refused = run("plan-graph", "from-request", request)
    assert error_code(refused) == "plan.no_candidate"
    assert "--limits local" in refused.stderr
    made = run("plan-graph", "from-request", request, "--limits", "local", "--title", "Sync")
    assert made.exit_code == 0, made.output
    draft = json.loads(made.stdout)
    assert draft["steps"][0]["params"]["title"] == "Sync"
    assert draft["steps"][0]["require_approval"] is True


def test_without_create_propose_still_refuses_analysis_only(files: dict[str, Path]) -> None:
    result = find_slot(files, "--emit-request")
    request = files["tmp"] / "plain.json"
    request.write_text(result.stdout, encoding="utf-8")
    assert json.loads(result.stdout)["operation"] == "FIND_SLOT"
    refused = propose(files, request, "--at", PROPOSE_AT)
    assert error_code(refused) == "plan.analysis_only"


def test_create_option_errors(files: dict[str, Path]) -> None:
    unknown = find_slot(files, "--create", "x", "--calendar", "carol", "--emit-request")
    assert (unknown.exit_code, error_code(unknown)) == (2, "calendars.no_calendar")
    assert "alice, bob" in unknown.stderr
    alone = find_slot(files, "--calendar", "bob")
    assert (alone.exit_code, error_code(alone)) == (2, "input.invalid_option")
    blank = find_slot(files, "--create", " ", "--emit-request")
    assert (blank.exit_code, error_code(blank)) == (2, "input.invalid_option")


def test_a_slot_that_has_begun_is_refused(files: dict[str, Path]) -> None:
    request = emit(files)
    for at in (SLOT_START, "2026-10-05T11:45:00Z"):  # at its start, and within it
        refused = propose(files, request, "--as", "plan-graph", "--at", at)
        assert (refused.exit_code, error_code(refused)) == (2, "proposal.slot_started")
        assert not (files["tmp"] / "env.json").exists()
        assert not files["store"].exists()  # nothing stored
    just_before = propose(files, request, "--at", "2026-10-05T11:29:59Z")
    assert just_before.exit_code == 0, just_before.output


def test_a_validity_ending_before_the_slot_is_refused(files: dict[str, Path]) -> None:
    request = emit(files)
    early = "2026-10-01T11:30:00Z"  # four days before the slot; the default validity is a day
    refused = propose(files, request, "--at", early)
    assert (refused.exit_code, error_code(refused)) == (2, "proposal.expires_before_slot")
    assert "at /expires-at" in refused.stderr
    assert (
        "--expires-in 4d or more (the slot starts 345600 s after" in refused.stderr
    )  # exactly four days
    assert not (files["tmp"] / "env.json").exists()
    assert not files["store"].exists()
    enough = propose(files, request, "--at", early, "--expires-in", "345600")
    assert enough.exit_code == 0, enough.output  # valid until the slot starts: accepted


def test_author_defaults_to_the_registered_principal_or_is_required(
    files: dict[str, Path],
) -> None:
    request = emit(files)
    registry = json.loads((files["keys"] / "registry.json").read_text())
    assert registry["keys"][0]["principal"] == "principal:alice"  # canonical form recorded
    assert propose(files, request, "--at", PROPOSE_AT).exit_code == 0
    assert envelope(files)["author"] == {"kind": "principal", "id": "alice"}
    chosen = propose(files, request, "--at", PROPOSE_AT, "--author", "service:planner")
    assert chosen.exit_code == 0, chosen.output
    assert envelope(files)["author"] == {"kind": "service", "id": "planner"}
    # a key without a principal: --author is required
    assert run("keys", "new", "bob", "--dir", files["keys"], "--at", KEY_AT).exit_code == 0
    (files["tmp"] / "env.json").unlink()
    unnamed = run(
        "propose", request, "--key", files["keys"] / "bob.pem", "--keyid", "bob",
        "--objects", files["store"], "--limits", "local", "--at", PROPOSE_AT,
        "--out", files["tmp"] / "env.json",
    )  # fmt: skip
    assert (unnamed.exit_code, error_code(unnamed)) == (2, "proposal.author_required")
    assert "--author" in unnamed.stderr
    assert not (files["tmp"] / "env.json").exists()


def test_registry_option_and_agent_principal(files: dict[str, Path]) -> None:
    request = emit(files)
    elsewhere = files["tmp"] / "elsewhere"
    made = run(
        "keys", "new", "robot", "--dir", elsewhere, "--at", KEY_AT, "--principal", "agent:robot"
    )
    assert made.exit_code == 0, made.output
    key = files["tmp"] / "robot.pem"
    (elsewhere / "robot.pem").rename(key)  # no registry beside the key any more
    args = ("--key", key, "--keyid", "robot", "--objects", files["store"], "--limits", "local")
    out = ("--at", PROPOSE_AT, "--out", files["tmp"] / "env.json")
    unnamed = run("propose", request, *args, *out)
    assert error_code(unnamed) == "proposal.author_required"
    found = run("propose", request, *args, *out, "--registry", elsewhere / "registry.json")
    assert found.exit_code == 0, found.output
    assert envelope(files)["author"] == {"kind": "service", "id": "robot"}
    missing = run("propose", request, *args, *out, "--registry", files["tmp"] / "none.json")
    assert error_code(missing) == "proposal.key_registry"


def test_keys_new_refuses_a_malformed_principal(tmp_path: Path) -> None:
    for bad in ("alice", "user:alice", "principal:a b", "principal:", "principal:a:b"):
        result = run("keys", "new", "k", "--dir", tmp_path, "--principal", bad)
        assert (result.exit_code, error_code(result)) == (2, "proposal.key_registry")
        assert not (tmp_path / "k.pem").exists()


def test_store_is_an_alias_of_objects(files: dict[str, Path]) -> None:
    request = emit(files)
    key = files["keys"] / "alice.pem"
    common = ("--key", key, "--keyid", "alice", "--limits", "local", "--at", PROPOSE_AT)
    by_objects = run("propose", request, *common, "--objects", files["tmp"] / "a")
    by_store = run("propose", request, *common, "--store", files["tmp"] / "b")
    assert by_objects.exit_code == by_store.exit_code == 0
    assert by_objects.stdout == by_store.stdout
    assert sorted(p.name for p in (files["tmp"] / "a").rglob("*") if p.is_file()) == sorted(
        p.name for p in (files["tmp"] / "b").rglob("*") if p.is_file()
    )


def test_title_needs_a_plan_graph(files: dict[str, Path]) -> None:
    request = emit(files)
    refused = propose(files, request, "--at", PROPOSE_AT, "--title", "x")
    assert (refused.exit_code, error_code(refused)) == (2, "input.invalid_option")
