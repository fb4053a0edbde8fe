"""Plan graph validation and proposal signing, as ratios against baselines in one process.

Run from the repository root::

    .venv/bin/python bench/plan_graph_scaling.py          # 5 repeats
    .venv/bin/python bench/plan_graph_scaling.py --quick  # 2 repeats, smaller drafts

(1) Drafts of n steps (n/2 ``calendar.event.create`` steps, each followed by a ``verify``
    step reading the event back; every create depends on the previous verify, so the graph
    is one chain). Baseline: ``PlanDraft.model_validate_json`` of the same text (shapes
    only). Measured: ``parse_draft`` + ``validate_draft`` (every rule, the params of every
    capability use checked against its JSON Schema). Reported: the ratio, and the growth
    of the measured time from n to 10 n (linear work gives 10).
(2) A signed envelope around the plan graph of ``examples/design-review.json``. Baseline:
    one raw Ed25519 signature and its verification over the same payload bytes
    (``cryptography``). Measured: ``propose`` (schema check, RFC 8785 bytes, signature) plus
    ``check_envelope`` (every check except replay). Reported: the ratio.

Times are the minimum over repeats (``time.perf_counter``, ``gc.collect()`` before each).
"""

from __future__ import annotations

import argparse
import gc
import itertools
import json
import platform
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

import cerebri
from _machine import load_average, source_revision
from cerebri.planner import action_plan_for
from cerebri.plans import (
    PlanDraft,
    builtin_registry,
    draft_from_action_plan,
    parse_draft,
    validate_draft,
)
from cerebri.proposals import (
    PROPOSAL_PAYLOAD_TYPE,
    ArtifactType,
    Classification,
    ExecutorMode,
    KeyRegistry,
    Subject,
    SubjectKind,
    artifact_for,
    canonical_json,
    check_envelope,
    envelope_payload,
    load_json,
    pae,
    propose,
)
from cerebri.temporal import Instant

ROOT = Path(__file__).resolve().parent.parent
KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))


def best_of(repeats: int, work: Callable[[], object]) -> float:
    """Minimum wall time of ``work`` over ``repeats`` runs, in seconds."""
    best = float("inf")
    for _ in range(repeats):
        gc.collect()
        start = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - start)
    return best


def draft_text(steps: int) -> str:
    """A valid draft of ``steps`` steps (create/verify pairs in one chain) as JSON text."""
    out: list[dict[str, Any]] = []
    for i in range(steps // 2):
        start = f"2026-10-{1 + i % 28:02d}T{9 + i % 8:02d}:00:00Z"
        end = start.replace(":00:00Z", ":30:00Z")
        event = f"evt-{i}"
        out.append(
            {
                "key": f"create-{i}",
                "kind": "capability",
                "depends_on": [f"verify-{i - 1}"] if i else [],
                "capability": "calendar.event.create",
                "target": event,
                "params": {
                    "calendar_id": "work",
                    "integration_id": "local",
                    "object_id": event,
                    "start": start,
                    "end": end,
                    "idempotency_key": f"k-{i}",
                },
                "require_approval": True,
                "expectation": {"description": "placed", "confidence": 0.9, "within_seconds": 60},
            }
        )
        out.append(
            {
                "key": f"verify-{i}",
                "kind": "verify",
                "depends_on": [f"create-{i}"],
                "verify": {
                    "of": f"create-{i}",
                    "check": {
                        "capability": "calendar.event.get",
                        "target": event,
                        "params": {"calendar_id": "work", "object_id": event},
                        "path": "range",
                        "op": "eq",
                        "value": {"start": start, "end": end},
                    },
                    "within_seconds": 60,
                    "interval_seconds": 5,
                },
            }
        )
    document = {
        "objective": "place many events",
        "origin": "operator",
        "strategy": "direct_action_verified",
        "steps": out,
        "budget": {"max_capability_invocations": 100 * steps},
    }
    return json.dumps(document)


def bench_validation(repeats: int, sizes: tuple[int, ...]) -> None:
    registry = builtin_registry()
    print("(1) plan graph validation")
    print(f"{'steps':>7} {'baseline s':>11} {'validate s':>11} {'ratio':>6}")
    measured: dict[int, float] = {}
    for steps in sizes:
        text = draft_text(steps)
        report = validate_draft(parse_draft(text), registry)
        assert report.valid, report.codes[:5]
        base = best_of(repeats, lambda t=text: PlanDraft.model_validate_json(t))
        full = best_of(repeats, lambda t=text: validate_draft(parse_draft(t), registry))
        measured[steps] = full
        print(f"{steps:>7} {base:>11.4f} {full:>11.4f} {full / base:>6.2f}")
    for small, large in itertools.pairwise(sizes):
        growth = measured[large] / measured[small]
        print(f"growth {small} -> {large} steps: {growth:.1f} (linear: {large / small:.0f})")


def bench_signing(repeats: int) -> None:
    request = cerebri.parse_request((ROOT / "examples" / "design-review.json").read_bytes())
    actions = action_plan_for(request)
    artifact_bytes = canonical_json(draft_from_action_plan(actions).to_wire())
    artifact = artifact_for(artifact_bytes)
    proposed = Instant.parse("2026-10-04T19:00:00Z")
    now = Instant.parse("2026-10-04T20:00:00Z")
    registry = KeyRegistry().add(
        "k1", KEY.public_key(), valid_from=Instant.parse("2026-01-01T00:00:00Z")
    )

    def make() -> bytes:
        return propose(
            artifact,
            ArtifactType.PLAN_GRAPH,
            author=Subject(kind=SubjectKind.SERVICE, id="planner"),
            author_node_id="node",
            query_id=request.request_id,
            room_id="room",
            turn_id="turn",
            class_key=Classification.PERSONAL,
            executor_mode=ExecutorMode.PLAN_EXECUTOR,
            proposed_at=proposed,
            expires_at=Instant.parse("2026-10-05T07:00:00Z"),
            idempotency_key=actions.plan_id,
            signing_keys=[(KEY, "k1")],
        )

    envelope = make()
    payload = pae(PROPOSAL_PAYLOAD_TYPE, envelope_payload(load_json(envelope)))

    def raw() -> None:
        KEY.public_key().verify(KEY.sign(payload), payload)

    def full() -> None:
        report = check_envelope(
            make(), registry=registry, clock_now=now, artifact_bytes=artifact_bytes
        )
        assert report.checks[0].verdict.value == "passed"

    loops = 200
    base = best_of(repeats, lambda: [raw() for _ in range(loops)]) / loops
    ours = best_of(repeats, lambda: [full() for _ in range(loops)]) / loops
    print("(2) propose + check_envelope vs a raw Ed25519 sign + verify")
    print(f"raw {base * 1e3:.3f} ms, ours {ours * 1e3:.3f} ms, ratio {ours / base:.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2 repeats, smaller drafts")
    args = parser.parse_args()
    repeats = 2 if args.quick else 5
    sizes = (100, 1_000) if args.quick else (100, 1_000, 10_000)
    print(
        f"cerebri {source_revision()} · Python {platform.python_version()} · load {load_average()}"
    )
    bench_validation(repeats, sizes)
    bench_signing(repeats)


if __name__ == "__main__":
    main()
