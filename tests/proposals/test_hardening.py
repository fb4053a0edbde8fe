"""Defects from the new-user trial: replay check-and-set, deep JSON, file-system errors,
half-done key writes, RFC 3339 instants, rotation versus revocation."""

from __future__ import annotations

import errno
import json
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

import cerebri._files as atomic
from cerebri.proposals import (
    MAX_JSON_DEPTH,
    FileReplayLedger,
    InMemoryReplayLedger,
    KeyRegistry,
    ObjectStore,
    ProposalError,
    ReplayLedger,
    VerifiedEnvelope,
    artifact_for,
    check_envelope,
    envelope_json_schema,
    load_json,
    load_private_key,
    load_registry,
    new_key,
    parse_registry,
    parse_subject,
    propose,
    revoke_key,
    rotate_key,
    save_registry,
    verify,
    write_private_key,
)
from cerebri.proposals.checks import check_schema
from cerebri.temporal import Instant
from tests.proposals.helpers import ARTIFACT, KEY, NOW, T0, body, registry, signed

SRC = Path(__file__).resolve().parents[2] / "src"


def code_of(action: Any) -> str:
    with pytest.raises(ProposalError) as caught:
        action()
    return caught.value.code


def result_for(data: bytes, verified_at: Instant = NOW) -> VerifiedEnvelope:
    parsed = check_schema(data)
    return VerifiedEnvelope(parsed.envelope, parsed.payload_digest, ("k1",), verified_at)


# ------------------------------------------------------------------ 1. replay check-and-set


def test_claim_returns_the_first_result() -> None:
    ledger = InMemoryReplayLedger()
    first = result_for(signed(body()))
    second = result_for(signed(body(**{"room/id": "room-2"})))
    assert ledger.claim("idem-1", first) is first
    assert ledger.claim("idem-1", second) is first
    assert ledger.recorded("idem-1") is first


def _race(ledger: ReplayLedger, count: int) -> list[str]:
    envelopes = [signed(body(**{"room/id": f"room-{n}"})) for n in range(count)]
    barrier = threading.Barrier(count)
    outcomes: list[str] = []
    lock = threading.Lock()

    def attempt(data: bytes) -> None:
        barrier.wait()
        try:
            verify(data, registry=registry(), clock_now=NOW, artifact_bytes=ARTIFACT, replay=ledger)
            outcome = "verified"
        except ProposalError as exc:
            outcome = exc.code
        with lock:
            outcomes.append(outcome)

    threads = [threading.Thread(target=attempt, args=(data,)) for data in envelopes]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sorted(outcomes)


@pytest.mark.parametrize("kind", ["memory", "file"])
def test_concurrent_verifications_of_different_payloads_one_wins(kind: str, tmp_path: Path) -> None:
    ledger: ReplayLedger = (
        InMemoryReplayLedger() if kind == "memory" else FileReplayLedger(tmp_path / "ledger.json")
    )
    outcomes = _race(ledger, 12)
    assert outcomes == ["proposal.replayed"] * 11 + ["verified"]
    if isinstance(ledger, FileReplayLedger):
        assert ledger.keys() == ("idem-1",)


CLAIMER = """
import sys
from pathlib import Path
from cerebri.proposals import FileReplayLedger, ProposalError, verify
from tests.proposals.helpers import ARTIFACT, NOW, body, registry, signed

ledger = FileReplayLedger(Path(sys.argv[1]))
data = signed(body(**{"room/id": sys.argv[2]}))
sys.stdin.read()  # start together
try:
    verify(data, registry=registry(), clock_now=NOW, artifact_bytes=ARTIFACT, replay=ledger)
    print("verified")
except ProposalError as exc:
    print(exc.code)
"""


def test_concurrent_processes_sharing_a_ledger_file(tmp_path: Path) -> None:
    path = tmp_path / "ledger.json"
    root = SRC.parent
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", CLAIMER, str(path), f"room-{n}"],
            cwd=root,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for n in range(4)
    ]
    outputs = sorted(process.communicate("", timeout=120)[0].strip() for process in processes)
    assert outputs == ["proposal.replayed"] * 3 + ["verified"]
    assert FileReplayLedger(path).keys() == ("idem-1",)


def test_same_payload_returns_the_recorded_result(tmp_path: Path) -> None:
    ledger = FileReplayLedger(tmp_path / "ledger.json")
    data = signed(body())
    first = verify(data, registry=registry(), clock_now=NOW, artifact_bytes=ARTIFACT, replay=ledger)
    later = Instant(NOW.ns + 5)
    again = verify(
        data, registry=registry(), clock_now=later, artifact_bytes=ARTIFACT, replay=ledger
    )
    assert (again, again.verified_at) == (first, NOW)


# ------------------------------------------------------------------ 3. deep JSON


def nested(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


def test_load_json_refuses_deep_nesting_with_a_typed_error() -> None:
    assert load_json(nested(MAX_JSON_DEPTH)) is not None
    for depth in (MAX_JSON_DEPTH + 1, 5000, 100_000):
        with pytest.raises(ProposalError) as caught:
            load_json(nested(depth))
        assert (caught.value.code, caught.value.message) == (
            "proposal.schema",
            f"JSON nested deeper than {MAX_JSON_DEPTH} levels",
        )


def test_deep_envelope_registry_and_ledger_are_typed(tmp_path: Path) -> None:
    deep = b'{"schema/v": ' + nested(100_000) + b"}"
    report = check_envelope(deep, registry=registry(), clock_now=NOW)
    assert report.checks[0].code == "proposal.schema"
    assert code_of(lambda: parse_registry(deep)) == "proposal.key_registry"
    ledger_path = tmp_path / "ledger.json"
    ledger_path.write_bytes(b'{"version": 1, "entries": ' + nested(100_000) + b"}")
    assert code_of(lambda: FileReplayLedger(ledger_path).keys()) == "proposal.ledger"
    # deep but within what json accepts: never reaches pydantic
    ledger_path.write_bytes(b'{"version": 1, "entries": {"k": ' + nested(500) + b"}}")
    assert code_of(lambda: FileReplayLedger(ledger_path).keys()) == "proposal.ledger"


# ------------------------------------------------------------------ 3. file-system errors


def fail_writes(monkeypatch: pytest.MonkeyPatch, number: int, only: str | None = None) -> None:
    real = atomic.write_atomic

    def refuse(path: Path, data: bytes, **kwargs: Any) -> None:
        if only is None or Path(path).name == only:
            raise OSError(number, "simulated failure")
        real(path, data, **kwargs)

    for module in ("store", "keyfile", "ledger"):
        monkeypatch.setattr(f"cerebri.proposals.{module}.write_atomic", refuse)


def test_store_file_system_errors(tmp_path: Path) -> None:
    regular = tmp_path / "file"
    regular.write_bytes(b"x")
    assert code_of(lambda: ObjectStore(regular).put(ARTIFACT)) == "proposal.store"
    assert code_of(lambda: ObjectStore(regular).get(artifact_for(ARTIFACT).ref)) == (
        "proposal.store"
    )
    store = ObjectStore(tmp_path / "store")
    store.path_for(artifact_for(ARTIFACT).digest).mkdir(parents=True)
    assert code_of(lambda: store.get(artifact_for(ARTIFACT).ref)) == "proposal.store"
    assert code_of(lambda: store.put(ARTIFACT)) == "proposal.store"
    report = check_envelope(signed(body()), registry=registry(), clock_now=NOW, store=store)
    assert (report.checks[2].code, report.checks[5].verdict.value) == ("proposal.store", "not_run")


@pytest.mark.parametrize("number", [errno.EROFS, errno.ENOSPC])
def test_read_only_or_full_disk_is_typed(
    number: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fail_writes(monkeypatch, number)
    assert code_of(lambda: ObjectStore(tmp_path / "s").put(ARTIFACT)) == "proposal.store"
    assert code_of(lambda: save_registry(registry(), tmp_path / "r.json")) == (
        "proposal.key_registry"
    )
    assert code_of(lambda: write_private_key(KEY, tmp_path / "k.pem")) == "proposal.private_key"
    ledger = FileReplayLedger(tmp_path / "ledger.json")
    data = signed(body())
    assert code_of(lambda: ledger.claim("idem-1", result_for(data))) == "proposal.ledger"
    report = check_envelope(
        data, registry=registry(), clock_now=NOW, artifact_bytes=ARTIFACT, replay=ledger
    )
    assert report.checks[5].code == "proposal.ledger"
    assert not (tmp_path / "ledger.json").exists()


def test_key_directory_that_is_a_file(tmp_path: Path) -> None:
    regular = tmp_path / "keys"
    regular.write_bytes(b"")
    assert code_of(
        lambda: new_key(
            "k1",
            private_key_path=regular / "k1.pem",
            registry_path=regular / "registry.json",
            valid_from=T0,
        )
    ) == ("proposal.key_registry")
    assert code_of(lambda: load_registry(tmp_path)) == "proposal.key_registry"
    assert code_of(lambda: FileReplayLedger(regular / "ledger.json").keys()) == "proposal.ledger"
    assert code_of(
        lambda: FileReplayLedger(regular / "ledger.json").claim("k", result_for(signed(body())))
    ) == ("proposal.ledger")
    assert code_of(lambda: FileReplayLedger(tmp_path).keys()) == "proposal.ledger"


# ------------------------------------------------------------------ 4. no half-done keys


def test_new_key_removes_the_pem_when_the_registry_write_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pem, reg = tmp_path / "k1.pem", tmp_path / "registry.json"
    with monkeypatch.context() as patch:
        fail_writes(patch, errno.ENOSPC, only="registry.json")
        with pytest.raises(ProposalError) as caught:
            new_key("k1", private_key_path=pem, registry_path=reg, valid_from=T0)
        assert caught.value.code == "proposal.key_registry"
    assert sorted(p.name for p in tmp_path.iterdir()) == []
    key = new_key("k1", private_key_path=pem, registry_path=reg, valid_from=T0)  # retry works
    assert load_registry(reg).keys["k1"].raw == key.raw


def test_rotate_key_removes_the_pem_when_the_registry_write_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reg = tmp_path / "registry.json"
    new_key("k1", private_key_path=tmp_path / "k1.pem", registry_path=reg, valid_from=T0)
    before = reg.read_bytes()
    later = Instant(T0.ns + 10**9)
    with monkeypatch.context() as patch:
        fail_writes(patch, errno.EROFS, only="registry.json")
        with pytest.raises(ProposalError) as caught:
            rotate_key(
                "k1", "k2", private_key_path=tmp_path / "k2.pem", registry_path=reg, at=later
            )
        assert caught.value.code == "proposal.key_registry"
    assert (reg.read_bytes(), (tmp_path / "k2.pem").exists()) == (before, False)
    rotate_key("k1", "k2", private_key_path=tmp_path / "k2.pem", registry_path=reg, at=later)
    assert list(load_registry(reg).keys) == ["k1", "k2"]


# ------------------------------------------------------------------ 5. RFC 3339 instants


@pytest.mark.parametrize(
    "text",
    [
        "+10000-01-01T00:00:00Z",
        "+33715-08-27T16:46:39Z",
        "-0001-01-01T00:00:00Z",
        "2025-03-02t09:00:00Z",
        "2025-03-02T09:00:00z",
        "2025-03-02 09:00:00Z",
        "2025-03-02T09:00:00.1234567891Z",
    ],
)
def test_envelope_instants_must_be_rfc3339_utc(text: str) -> None:
    with pytest.raises(ProposalError) as caught:
        check_schema(signed(body(**{"expires-at": text})))
    assert (caught.value.code, caught.value.path) == ("proposal.schema", "/expires-at")
    schema = Draft202012Validator(envelope_json_schema())
    assert not schema.is_valid(json.loads(signed(body(**{"expires-at": text}))))


def test_rfc3339_fraction_is_accepted() -> None:
    data = signed(body(**{"expires-at": "2025-03-02T09:00:00.5Z"}))
    assert check_schema(data).envelope.expires_at == Instant.parse("2025-03-02T09:00:00.5Z")
    assert Draft202012Validator(envelope_json_schema()).is_valid(json.loads(data))


def test_propose_refuses_an_extended_year() -> None:
    proposed = Instant.parse("9999-12-31T23:59:59Z")
    with pytest.raises(ProposalError) as caught:
        propose(
            artifact_for(ARTIFACT),
            "cerebri.action-plan.v1",
            author=parse_subject("principal:alice"),
            author_node_id="n",
            query_id="q",
            room_id="r",
            turn_id="t",
            class_key="Personal",
            executor_mode="plan-executor",
            proposed_at=proposed,
            expires_at=Instant(proposed.ns + 10**9),
            idempotency_key="i",
            signing_keys=[(KEY, "k1")],
        )
    assert (caught.value.code, caught.value.path) == ("proposal.schema", "/expires-at")


def test_registry_instants_must_be_rfc3339_utc(tmp_path: Path) -> None:
    wire = {
        "version": 1,
        "keys": [
            {
                "keyid": "k1",
                "public_key": "A" * 43 + "=",
                "valid_from": "+10000-01-01T00:00:00Z",
            }
        ],
    }
    with pytest.raises(ProposalError) as caught:
        parse_registry(json.dumps(wire).encode())
    assert (caught.value.code, caught.value.path) == ("proposal.key_registry", "/keys/0/valid_from")
    far = KeyRegistry().add(
        "k1", KEY.public_key(), valid_from=Instant.parse("+10000-01-01T00:00:00Z")
    )
    assert code_of(lambda: save_registry(far, tmp_path / "r.json")) == "proposal.key_registry"
    assert not (tmp_path / "r.json").exists()
    assert code_of(
        lambda: new_key(
            "k1",
            private_key_path=tmp_path / "k1.pem",
            registry_path=tmp_path / "r.json",
            valid_from=Instant.parse("+10000-01-01T00:00:00Z"),
        )
    ) == ("proposal.key_registry")
    assert sorted(p.name for p in tmp_path.iterdir()) == []


# ------------------------------------------------------------------ 6. rotation vs revocation


def test_rotation_is_judged_at_signing_revocation_at_verification(tmp_path: Path) -> None:
    reg_path = tmp_path / "registry.json"
    new_key("k1", private_key_path=tmp_path / "k1.pem", registry_path=reg_path, valid_from=T0)
    signing = load_private_key(tmp_path / "k1.pem")
    before = signed(body(), [(signing, "k1")])  # proposed-at 2025-03-01T09:00:00Z
    rotation = Instant.parse("2025-03-01T10:00:00Z")
    rotate_key(
        "k1", "k2", private_key_path=tmp_path / "k2.pem", registry_path=reg_path, at=rotation
    )
    reg = load_registry(reg_path)

    def check(data: bytes, registry_: KeyRegistry) -> str | None:
        report = check_envelope(data, registry=registry_, clock_now=NOW, artifact_bytes=ARTIFACT)
        return report.checks[1].code

    assert check(before, reg) is None  # signed before the rotation, verified after it
    after = signed(
        body(**{"proposed-at": "2025-03-01T10:00:00Z"}), [(signing, "k1")]
    )  # the old key after its valid_until
    assert check(after, reg) == "proposal.key_inactive"
    revoke_key("k1", registry_path=reg_path, at=Instant.parse("2025-03-01T11:00:00Z"))
    assert check(before, load_registry(reg_path)) == "proposal.revoked_key"


def test_rotate_key_refuses_revoked_or_ended_keys(tmp_path: Path) -> None:
    reg = tmp_path / "registry.json"
    new_key("k1", private_key_path=tmp_path / "k1.pem", registry_path=reg, valid_from=T0)
    revoke_key("k1", registry_path=reg, at=NOW)
    later = Instant(NOW.ns + 10**9)
    assert code_of(
        lambda: rotate_key(
            "k1", "k2", private_key_path=tmp_path / "k2.pem", registry_path=reg, at=later
        )
    ) == ("proposal.key_registry")
    new_key("a", private_key_path=tmp_path / "a.pem", registry_path=reg, valid_from=T0)
    rotate_key("a", "b", private_key_path=tmp_path / "b.pem", registry_path=reg, at=NOW)
    assert code_of(
        lambda: rotate_key(
            "a", "c", private_key_path=tmp_path / "c.pem", registry_path=reg, at=later
        )
    ) == ("proposal.key_registry")
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "a.pem",
        "b.pem",
        "k1.pem",
        "registry.json",
    ]
