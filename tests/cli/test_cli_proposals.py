"""``cerebri keys``, ``cerebri propose`` and ``cerebri verify`` through typer's CliRunner.

Exit codes: keys/propose 0 or 2; verify 0 (every check that ran passed), 1 (a check failed),
2 (unreadable input).
"""

from __future__ import annotations

import json
import re
import stat
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

import cerebri
from cerebri.cli import app
from cerebri.planner import action_plan_for, to_action_plan, validate_proposal
from cerebri.plans import draft_from_action_plan
from cerebri.proposals import (
    STILL_REQUIRED,
    ObjectStore,
    canonical_json,
    load_json,
    sha256_digest,
)
from tests.plans.drafts import valid_draft

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "design-review.json"
KEY_AT = "2026-10-01T00:00:00Z"
PROPOSE_AT = "2026-10-04T19:00:00Z"
VERIFY_AT = "2026-10-04T20:00:00Z"
AFTER_EXPIRY = "2026-10-05T19:00:00Z"  # PROPOSE_AT + 86400 s: expires-at is exclusive
ERROR_LINE = re.compile(
    r"error (?P<code>[a-z_]+\.[a-z_]+)(?: at (?P<path>\(document root\)|\S+))?: .+\n"
)


def run(*args: str | Path) -> Result:
    return CliRunner().invoke(app, [str(a) for a in args])


def error_code(result: Result) -> str:
    match = ERROR_LINE.fullmatch(result.stderr)
    assert match is not None, result.stderr
    return match["code"]


@pytest.fixture
def setup(tmp_path: Path) -> dict[str, Path]:
    keys = tmp_path / "keys"
    created = run(
        "keys", "new", "alice", "--dir", keys, "--at", KEY_AT, "--principal", "principal:alice"
    )
    assert created.exit_code == 0, created.output
    return {"keys": keys, "store": tmp_path / "store", "tmp": tmp_path}


def propose(paths: dict[str, Path], source: Path, *extra: str) -> Result:
    return run(
        "propose", source, "--key", paths["keys"] / "alice.pem", "--keyid", "alice",
        "--store", paths["store"], "--at", PROPOSE_AT, "--out", paths["tmp"] / "env.json", *extra,
    )  # fmt: skip


def verify(paths: dict[str, Path], *extra: str) -> Result:
    return run(
        "verify", paths["tmp"] / "env.json", "--registry", paths["keys"] / "registry.json",
        "--store", paths["store"], *extra,
    )  # fmt: skip


def report(result: Result) -> dict[str, Any]:
    wire: dict[str, Any] = json.loads(result.stdout)
    return wire


def verdicts(result: Result) -> dict[str, str]:
    return {c["check"]: c["verdict"] for c in report(result)["checks"]}


def test_keys_new_writes_pem_and_registry(setup: dict[str, Path]) -> None:
    keys = setup["keys"]
    assert sorted(p.name for p in keys.iterdir()) == ["alice.pem", "registry.json"]
    assert stat.S_IMODE((keys / "alice.pem").stat().st_mode) == 0o600
    registry = json.loads((keys / "registry.json").read_text())
    assert registry["version"] == 1
    assert [(k["keyid"], k["valid_from"]) for k in registry["keys"]] == [("alice", KEY_AT)]
    again = run("keys", "new", "alice", "--dir", keys, "--at", KEY_AT)
    assert (again.exit_code, error_code(again)) == (2, "proposal.key_registry")
    bad = run("keys", "new", "../evil", "--dir", keys)
    assert (bad.exit_code, error_code(bad)) == (2, "proposal.key_registry")


def test_keys_new_prints_the_public_key(tmp_path: Path) -> None:
    result = run("keys", "new", "bob", "--dir", tmp_path, "--at", KEY_AT)
    keyid, public = result.stdout.split()
    registry = json.loads((tmp_path / "registry.json").read_text())
    assert (keyid, public) == ("bob", registry["keys"][0]["public_key"])


def test_propose_then_verify_passes(setup: dict[str, Path]) -> None:
    proposed = propose(setup, EXAMPLE)
    assert proposed.exit_code == 0, proposed.output
    envelope = load_json((setup["tmp"] / "env.json").read_bytes())
    request = cerebri.parse_request(EXAMPLE.read_bytes())
    best = cerebri.plan(request).candidates[0]
    plan = to_action_plan(validate_proposal(request, best.proposed.placements, request.context))
    stored = ObjectStore(setup["store"]).get(envelope["candidate"]["artifact/ref"])
    assert stored == canonical_json(plan.to_wire())
    assert envelope["candidate"]["artifact/type"] == "cerebri.action-plan.v1"
    assert envelope["query/id"] == "example-design-review"
    assert envelope["idempotency/key"] == plan.plan_id
    assert (envelope["proposed-at"], envelope["expires-at"]) == (PROPOSE_AT, AFTER_EXPIRY)
    assert envelope["executor"] == {"mode": "plan-executor"}
    assert f"artifact {envelope['candidate']['artifact/ref']}\n" in proposed.stdout

    checked = verify(setup, "--at", VERIFY_AT, "--json")
    assert checked.exit_code == 0, checked.output
    assert set(verdicts(checked).values()) == {"passed", "not_run"}
    assert verdicts(checked)["replay"] == "not_run"
    assert report(checked)["still_required"] == list(STILL_REQUIRED)

    ledger = setup["tmp"] / "ledger.json"
    text = verify(setup, "--at", VERIFY_AT, "--ledger", ledger)
    assert text.exit_code == 0, text.output
    lines = text.stdout.splitlines()
    assert [line.split()[:2] for line in lines[:6]] == [
        [name, "passed"]
        for name in ("schema", "signature", "artifact", "window", "executor_mode", "replay")
    ]
    assert lines[-4:] == [
        "this envelope grants nothing by itself; still required:",
        *[f"  - {need}" for need in STILL_REQUIRED],
    ]
    assert plan.plan_id in ledger.read_text()
    again = verify(setup, "--at", VERIFY_AT, "--ledger", ledger)
    assert again.exit_code == 0
    replay_line = again.stdout.splitlines()[5]
    assert replay_line.startswith("replay        passed  (already recorded at ")
    assert "not a second acceptance" in replay_line


def test_verify_after_expiry_fails_the_window_check(setup: dict[str, Path]) -> None:
    assert propose(setup, EXAMPLE).exit_code == 0
    result = verify(setup, "--at", AFTER_EXPIRY, "--json")
    assert result.exit_code == 1
    window = report(result)["checks"][3]
    assert (window["check"], window["verdict"], window["code"]) == (
        "window",
        "failed",
        "proposal.expired",
    )
    assert verdicts(result)["executor_mode"] == "not_run"
    text = verify(setup, "--at", AFTER_EXPIRY)
    assert text.exit_code == 1
    assert "window        failed  proposal.expired at /expires-at" in text.stdout
    assert "still required:" in text.stdout


def test_tampered_envelope_fails(setup: dict[str, Path]) -> None:
    assert propose(setup, EXAMPLE, "--room", "room-1").exit_code == 0
    path = setup["tmp"] / "env.json"
    path.write_bytes(path.read_bytes().replace(b'"room-1"', b'"room-2"'))
    result = verify(setup, "--at", VERIFY_AT, "--json")
    assert result.exit_code == 1
    signature = report(result)["checks"][1]
    assert (signature["verdict"], signature["code"]) == ("failed", "proposal.signature")


def test_verify_with_a_tampered_store_fails(setup: dict[str, Path]) -> None:
    assert propose(setup, EXAMPLE).exit_code == 0
    envelope = load_json((setup["tmp"] / "env.json").read_bytes())
    store = ObjectStore(setup["store"])
    store.path_for(envelope["candidate"]["artifact/ref"]).write_bytes(b"{}")
    result = verify(setup, "--at", VERIFY_AT, "--json")
    assert result.exit_code == 1
    assert report(result)["checks"][2]["code"] == "proposal.digest_mismatch"


def test_rotate_and_revoke_through_the_cli(setup: dict[str, Path]) -> None:
    keys = setup["keys"]
    assert propose(setup, EXAMPLE).exit_code == 0
    rotated = run("keys", "rotate", "alice", "alice-2", "--dir", keys, "--at", VERIFY_AT)
    assert rotated.exit_code == 0, rotated.output
    assert rotated.stdout.startswith("alice-2 ")
    assert (keys / "alice-2.pem").exists()
    # signed with alice before the rotation, checked after it: still valid
    later = verify(setup, "--at", "2026-10-04T21:00:00Z", "--json")
    assert later.exit_code == 0, later.output
    assert report(later)["checks"][1]["verdict"] == "passed"
    # signing with alice after the rotation is refused at once: the registry beside the key
    # would refuse the signature
    late = propose(setup, EXAMPLE, "--at", "2026-10-04T20:30:00Z")
    assert (late.exit_code, error_code(late)) == (2, "proposal.key_inactive")
    # without that registry beside the key, the envelope is signed, and verification refuses it
    # (proposed-at >= valid_until of alice); no registry names the author: --author does
    aside = keys.parent / "registry-aside.json"
    (keys / "registry.json").rename(aside)
    unnamed = propose(setup, EXAMPLE, "--at", "2026-10-04T20:30:00Z")
    assert (unnamed.exit_code, error_code(unnamed)) == (2, "proposal.author_required")
    named = propose(setup, EXAMPLE, "--at", "2026-10-04T20:30:00Z", "--author", "principal:alice")
    assert named.exit_code == 0, named.output
    aside.rename(keys / "registry.json")
    stale = verify(setup, "--at", "2026-10-04T21:00:00Z", "--json")
    assert (stale.exit_code, report(stale)["checks"][1]["code"]) == (1, "proposal.key_inactive")
    again = run("keys", "rotate", "alice", "alice-3", "--dir", keys, "--at", "2026-10-04T21:00:00Z")
    assert (again.exit_code, error_code(again)) == (2, "proposal.key_registry")
    assert not (keys / "alice-3.pem").exists()
    revoked = run("keys", "revoke", "alice-2", "--dir", keys, "--at", "2026-10-04T22:00:00Z")
    assert revoked.stdout == "alice-2 revoked at 2026-10-04T22:00:00Z\n"
    registry = json.loads((keys / "registry.json").read_text())
    assert [k.get("valid_until") for k in registry["keys"]] == [VERIFY_AT, None]
    assert registry["keys"][1]["revoked_at"] == "2026-10-04T22:00:00Z"
    missing = run("keys", "revoke", "nobody", "--dir", keys)
    assert (missing.exit_code, error_code(missing)) == (2, "proposal.key_registry")


def test_propose_refuses_a_key_its_registry_would_refuse(setup: dict[str, Path]) -> None:
    keys = setup["keys"]
    assert run("keys", "new", "bob", "--dir", keys, "--at", KEY_AT).exit_code == 0
    wrong = run(
        "propose", EXAMPLE, "--key", keys / "alice.pem", "--keyid", "bob",
        "--store", setup["store"], "--at", PROPOSE_AT, "--out", setup["tmp"] / "env.json",
    )  # fmt: skip
    assert (wrong.exit_code, error_code(wrong)) == (2, "proposal.private_key")
    early = propose(setup, EXAMPLE, "--at", "2026-09-30T00:00:00Z")  # before alice's valid_from
    assert (early.exit_code, error_code(early)) == (2, "proposal.key_inactive")
    assert not (setup["tmp"] / "env.json").exists()


def test_plan_graph_draft(setup: dict[str, Path]) -> None:
    draft = setup["tmp"] / "draft.json"
    draft.write_text(json.dumps(valid_draft()), encoding="utf-8")
    # its create step starts 2026-10-24T09:00Z: the default day of validity ends before that
    short = propose(setup, draft)
    assert (short.exit_code, error_code(short)) == (2, "proposal.expires_before_slot")
    assert (
        "--expires-in 20d or more (the slot starts 1692000 s after" in short.stderr
    )  # 19 days 14 hours to the slot
    assert propose(setup, draft, "--expires-in", "20d").exit_code == 0  # as suggested
    assert propose(setup, draft, "--expires-in", "1692000").exit_code == 0
    envelope = load_json((setup["tmp"] / "env.json").read_bytes())
    digest = envelope["candidate"]["artifact/digest"]
    assert envelope["candidate"]["artifact/type"] == "cerebri.plan-graph.v1"
    assert envelope["query/id"] == digest
    assert envelope["idempotency/key"] == digest
    assert verify(setup, "--at", VERIFY_AT).exit_code == 0
    assert propose(setup, draft, "--query-id", "q-7", "--expires-in", "1692000").exit_code == 0
    assert load_json((setup["tmp"] / "env.json").read_bytes())["query/id"] == "q-7"


def test_invalid_draft_is_never_signed(setup: dict[str, Path]) -> None:
    document = valid_draft()
    document["steps"][0]["capability"] = "calendar.event.delete"
    draft = setup["tmp"] / "draft.json"
    draft.write_text(json.dumps(document), encoding="utf-8")
    result = propose(setup, draft)
    assert (result.exit_code, error_code(result)) == (2, "draft.invalid")
    assert not (setup["tmp"] / "env.json").exists()
    document["steps"][0]["status"] = "completed"
    draft.write_text(json.dumps(document), encoding="utf-8")
    result = propose(setup, draft)
    assert (result.exit_code, error_code(result)) == (2, "draft.schema")


def test_request_as_plan_graph(setup: dict[str, Path]) -> None:
    assert propose(setup, EXAMPLE, "--as", "plan-graph").exit_code == 0
    envelope = load_json((setup["tmp"] / "env.json").read_bytes())
    request = cerebri.parse_request(EXAMPLE.read_bytes())
    actions = action_plan_for(request)
    raw = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    zones = {
        o["id"]: o["timezone"] for o in raw["context"]["objects"] if o["id"] in raw["target_ids"]
    }
    expected = canonical_json(draft_from_action_plan(actions, zones=zones).to_wire())
    assert envelope["candidate"]["artifact/type"] == "cerebri.plan-graph.v1"
    assert envelope["candidate"]["artifact/digest"] == sha256_digest(expected)
    assert envelope["idempotency/key"] == actions.plan_id
    assert envelope["query/id"] == request.request_id
    assert verify(setup, "--at", VERIFY_AT).exit_code == 0


def test_propose_refusals(setup: dict[str, Path]) -> None:
    analysis = json.loads(EXAMPLE.read_text())
    analysis["operation"] = "FIND_SLOT"
    path = setup["tmp"] / "find.json"
    path.write_text(json.dumps(analysis), encoding="utf-8")
    result = propose(setup, path)
    assert (result.exit_code, error_code(result)) == (2, "plan.analysis_only")
    result = propose(setup, EXAMPLE, "--candidate", "100000")
    assert (result.exit_code, error_code(result)) == (2, "plan.no_candidate")
    garbage = setup["tmp"] / "garbage.json"
    garbage.write_text('{"nothing": 1}', encoding="utf-8")
    result = propose(setup, garbage)
    assert result.exit_code == 2
    assert error_code(result).startswith("cpir.")
    result = propose(setup, EXAMPLE, "--author", "robot:x")
    assert (result.exit_code, error_code(result)) == (2, "proposal.schema")
    result = propose(setup, EXAMPLE, "--at", "tomorrow")
    assert (result.exit_code, error_code(result)) == (2, "input.invalid_option")
    result = run(
        "propose", EXAMPLE, "--key", setup["tmp"] / "none.pem", "--keyid", "alice",
        "--store", setup["store"],
    )  # fmt: skip
    assert (result.exit_code, error_code(result)) == (2, "proposal.private_key")
    assert not (setup["tmp"] / "env.json").exists()


def test_verify_unreadable_input_exits_2(setup: dict[str, Path]) -> None:
    assert propose(setup, EXAMPLE).exit_code == 0
    registry = setup["keys"] / "registry.json"
    absent = run("verify", setup["tmp"] / "nope.json", "--registry", registry)
    assert (absent.exit_code, error_code(absent)) == (2, "input.unreadable")
    bad_registry = setup["tmp"] / "bad.json"
    bad_registry.write_text('{"version": 1}', encoding="utf-8")
    result = run("verify", setup["tmp"] / "env.json", "--registry", bad_registry)
    assert (result.exit_code, error_code(result)) == (2, "proposal.key_registry")
    ledger = setup["tmp"] / "ledger.json"
    ledger.write_text("[]", encoding="utf-8")
    result = verify(setup, "--ledger", ledger, "--at", VERIFY_AT)
    assert (result.exit_code, error_code(result)) == (2, "proposal.ledger")
    not_json = setup["tmp"] / "not.json"
    not_json.write_text("{", encoding="utf-8")
    result = run("verify", not_json, "--registry", registry, "--json", "--at", VERIFY_AT)
    assert result.exit_code == 1
    assert report(result)["checks"][0]["code"] == "proposal.schema"


def store_files(store: Path) -> list[str]:
    return sorted(str(p.relative_to(store)) for p in store.rglob("*")) if store.exists() else []


def test_refused_propose_leaves_nothing_behind(setup: dict[str, Path]) -> None:
    result = propose(setup, EXAMPLE, "--author", "root")
    assert (result.exit_code, error_code(result)) == (2, "proposal.schema")
    assert store_files(setup["store"]) == []
    assert not (setup["tmp"] / "env.json").exists()
    late = propose(setup, EXAMPLE, "--at", "9999-12-31T23:59:59Z")
    assert (late.exit_code, error_code(late)) == (2, "proposal.schema")
    assert "at /expires-at:" in late.stderr
    assert store_files(setup["store"]) == []


def test_propose_instant_options(setup: dict[str, Path]) -> None:
    far = propose(setup, EXAMPLE, "--expires-in", "999999999999")
    assert far.exit_code == 2
    assert "at most 365d" in far.output  # 31 536 000 s
    assert not (setup["tmp"] / "env.json").exists()
    year = propose(setup, EXAMPLE, "--expires-in", "31536000")
    assert year.exit_code == 0, year.output
    envelope = load_json((setup["tmp"] / "env.json").read_bytes())
    assert envelope["expires-at"] == "2027-10-04T19:00:00Z"
    for at in ("+10000-01-01T00:00:00Z", "-0001-01-01T00:00:00Z", "9999-99-99T00:00:00Z"):
        result = propose(setup, EXAMPLE, "--at", at)
        assert (result.exit_code, error_code(result)) == (2, "input.invalid_option"), at


def test_propose_out_and_store_errors(setup: dict[str, Path]) -> None:
    tmp = setup["tmp"]
    for out in (tmp / "nodir" / "x" / "env.json", tmp):
        result = run(
            "propose", EXAMPLE, "--key", setup["keys"] / "alice.pem", "--keyid", "alice",
            "--store", setup["store"], "--at", PROPOSE_AT, "--out", out,
        )  # fmt: skip
        assert (result.exit_code, error_code(result)) == (2, "input.unwritable")
    regular = tmp / "regular"
    regular.write_bytes(b"")
    result = run(
        "propose", EXAMPLE, "--key", setup["keys"] / "alice.pem", "--keyid", "alice",
        "--store", regular, "--at", PROPOSE_AT, "--out", tmp / "env.json",
    )  # fmt: skip
    assert (result.exit_code, error_code(result)) == (2, "proposal.store")
    assert not (tmp / "env.json").exists()


def test_verify_store_errors_exit_2(setup: dict[str, Path]) -> None:
    assert propose(setup, EXAMPLE).exit_code == 0
    regular = setup["tmp"] / "regular"
    regular.write_bytes(b"")
    registry = setup["keys"] / "registry.json"
    envelope = setup["tmp"] / "env.json"
    result = run("verify", envelope, "--registry", registry, "--store", regular, "--at", VERIFY_AT)
    assert (result.exit_code, error_code(result)) == (2, "proposal.store")
    ref = load_json(envelope.read_bytes())["candidate"]["artifact/ref"]
    object_path = ObjectStore(setup["store"]).path_for(ref)
    object_path.unlink()
    object_path.mkdir()
    result = verify(setup, "--at", VERIFY_AT)
    assert (result.exit_code, error_code(result)) == (2, "proposal.store")
    ledger = setup["tmp"] / "ledger"
    ledger.mkdir()
    object_path.rmdir()
    assert propose(setup, EXAMPLE).exit_code == 0
    result = verify(setup, "--at", VERIFY_AT, "--ledger", ledger)
    assert (result.exit_code, error_code(result)) == (2, "proposal.ledger")


def test_keys_new_in_a_regular_file(tmp_path: Path) -> None:
    regular = tmp_path / "keys"
    regular.write_bytes(b"")
    result = run("keys", "new", "alice", "--dir", regular, "--at", KEY_AT)
    assert (result.exit_code, error_code(result)) == (2, "proposal.key_registry")
    refused = run("keys", "new", "../evil", "--dir", tmp_path / "fresh", "--at", KEY_AT)
    assert (refused.exit_code, error_code(refused)) == (2, "proposal.key_registry")
    assert not (tmp_path / "fresh").exists()


def test_deep_json_is_a_one_line_error(setup: dict[str, Path]) -> None:
    deep = setup["tmp"] / "deep.json"
    deep.write_bytes(b'{"steps": ' + b"[" * 5000 + b"]" * 5000 + b"}")
    result = propose(setup, deep)
    assert (result.exit_code, error_code(result)) == (2, "proposal.schema")
    assert "nested deeper than 128 levels" in result.stderr
    deep.write_bytes(b"[" * 100_000 + b"]" * 100_000)
    result = propose(setup, deep)
    assert (result.exit_code, error_code(result)) == (2, "proposal.schema")
    result = run("verify", deep, "--registry", deep, "--at", VERIFY_AT)
    assert (result.exit_code, error_code(result)) == (2, "proposal.key_registry")
    assert propose(setup, EXAMPLE).exit_code == 0
    result = verify(setup, "--at", VERIFY_AT, "--ledger", deep)
    assert (result.exit_code, error_code(result)) == (2, "proposal.ledger")
    result = run("verify", deep, "--registry", setup["keys"] / "registry.json", "--json")
    assert result.exit_code == 1
    assert report(result)["checks"][0]["code"] == "proposal.schema"


def test_draft_with_an_unrepresentable_integer(setup: dict[str, Path]) -> None:
    document = valid_draft()
    document["steps"][0]["max_attempts"] = 9007199254740993
    draft = setup["tmp"] / "draft.json"
    draft.write_text(json.dumps(document), encoding="utf-8")
    result = propose(setup, draft)
    assert (result.exit_code, error_code(result)) == (2, "proposal.canonical_json")
    assert store_files(setup["store"]) == []


def test_verify_refuses_an_envelope_valid_for_more_than_a_year(setup: dict[str, Path]) -> None:
    from tests.proposals.helpers import body, signed

    envelope = setup["tmp"] / "long.json"
    envelope.write_bytes(signed(body(**{"expires-at": "9999-12-31T23:59:59Z"})))
    registry = setup["tmp"] / "k1-registry.json"
    from cerebri.proposals import registry_to_wire
    from tests.proposals.helpers import registry as k1_registry

    registry.write_text(json.dumps(registry_to_wire(k1_registry())), encoding="utf-8")
    result = run(
        "verify", envelope, "--registry", registry, "--json", "--at", "2025-03-01T12:00:00Z"
    )
    assert result.exit_code == 1, result.output
    checks = {c["check"]: c for c in report(result)["checks"]}
    assert checks["signature"]["verdict"] == "passed"
    assert (checks["window"]["verdict"], checks["window"]["code"]) == (
        "failed",
        "proposal.validity_too_long",
    )
