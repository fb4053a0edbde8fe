"""validate_draft and topological_order: every rule of plans.md section 3, with its code."""

from __future__ import annotations

import itertools
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cerebri.plans
from cerebri.plans import (
    Capability,
    CapabilityRegistry,
    DraftError,
    DraftProblem,
    DraftReport,
    Risk,
    TargetRule,
    builtin_registry,
    topological_order,
    validate_draft,
)
from cerebri.plans.validate import MAX_GRANT_SECONDS, MAX_STEP_ATTEMPTS, RULES
from tests.plans.drafts import (
    CALENDAR,
    END,
    EVENT,
    START,
    build,
    check,
    create_params,
    create_step,
    event_check,
    expectation,
    internal_step,
    monitor_step,
    request_step,
    service_check,
    step,
    valid_draft,
    verify_step,
    wait_step,
)
from tests.strategies import dags, messy_steps

Row = tuple[str, str | None, str]
PROPERTY_SETTINGS = settings(max_examples=150, deadline=None)


def rows(report: DraftReport) -> list[Row]:
    return [(p.code, p.step, p.path) for p in report.problems]


def custom_registry() -> CapabilityRegistry:
    """The built-ins plus a read-only prompting read and a silent write, both free-target."""
    registry = builtin_registry()
    for name, read_only, prompts in (("x.ask", True, True), ("x.write", False, False)):
        registry = registry.register(
            Capability(
                name=name,
                description=name,
                params_schema={"type": "object"},
                read_only=read_only,
                idempotent=True,
                risk=Risk.LOW,
                target_rule=TargetRule.FREE,
                requires_approval=prompts,
            )
        )
    return registry


def with_steps(*steps: dict[str, Any], **overrides: Any) -> dict[str, Any]:
    return valid_draft(steps=list(steps), **overrides)


def plus(*steps: dict[str, Any]) -> dict[str, Any]:
    """The valid create+verify draft with ``steps`` appended (positions 2, 3, ...)."""
    return with_steps(create_step(), verify_step(), *steps)


VERIFY_SPEC = verify_step()["verify"]
FREEBUSY_PARAMS = {
    "calendar_ids": [CALENDAR],
    "start": "2026-10-24T09:00:00Z",
    "end": "2026-10-24T10:00:00Z",
}
S0, S1, S2 = "/steps/0", "/steps/1", "/steps/2"

# (id, draft, registry or None for the built-ins, expected rows)
BROKEN: list[tuple[str, dict[str, Any], CapabilityRegistry | None, list[Row]]] = [
    (
        "duplicate_key",
        plus(wait_step("create")),
        None,
        [("draft.duplicate_key", "create", f"{S2}/key")],
    ),
    (
        "unknown_dependency",
        plus(wait_step("w", depends_on=["create", "ghost"])),
        None,
        [("draft.unknown_dependency", "w", f"{S2}/depends_on/1")],
    ),
    (
        "self_dependency",
        plus(wait_step("w", depends_on=["w"])),
        None,
        [("draft.self_dependency", "w", f"{S2}/depends_on/0")],
    ),
    (
        "cycle",
        plus(wait_step("b", depends_on=["a"]), wait_step("a", depends_on=["b"])),
        None,
        [("draft.cycle", "a", "/steps/3/depends_on")],
    ),
    (
        "unknown_kind",
        plus(step(key="w", kind="dance", wait={"seconds": 1})),
        None,
        [("draft.unknown_kind", "w", f"{S2}/kind")],
    ),
    (
        "spec_mismatch.capability_missing",
        with_steps(step(key="c", kind="capability")),
        None,
        [("draft.spec_mismatch", "c", f"{S0}/capability")],
    ),
    (
        "spec_mismatch.capability_with_spec",
        with_steps(create_step(wait={"seconds": 1}), verify_step()),
        None,
        [("draft.spec_mismatch", "create", f"{S0}/wait")],
    ),
    (
        "spec_mismatch.spec_missing",
        plus({"key": "w", "kind": "wait"}),
        None,
        [("draft.spec_mismatch", "w", f"{S2}/wait")],
    ),
    (
        "spec_mismatch.request_missing",
        plus({"key": "r", "kind": "request_capability"}),
        None,
        [("draft.spec_mismatch", "r", f"{S2}/request")],
    ),
    (
        "spec_mismatch.capability_members",
        plus(
            wait_step("w", capability="service.status", target="mail", params={"service": "mail"})
        ),
        None,
        [
            ("draft.spec_mismatch", "w", f"{S2}/capability"),
            ("draft.spec_mismatch", "w", f"{S2}/params"),
            ("draft.spec_mismatch", "w", f"{S2}/target"),
        ],
    ),
    (
        "spec_mismatch.other_spec",
        plus(request_step(depends_on=["create"], verify=VERIFY_SPEC)),
        None,
        [("draft.spec_mismatch", "access", f"{S2}/verify")],
    ),
    (
        "unknown_internal_action",
        plus(internal_step(action="dance")),
        None,
        [("draft.unknown_internal_action", "summary", f"{S2}/internal/action")],
    ),
    (
        "unknown_capability.step",
        with_steps(create_step(capability="calendar.event.delete"), verify_step()),
        None,
        [("draft.unknown_capability", "create", f"{S0}/capability")],
    ),
    (
        "unknown_capability.verify_check",
        with_steps(create_step(), verify_step(verify={**VERIFY_SPEC, "check": check("x.nope")})),
        None,
        [("draft.unknown_capability", "verify", f"{S1}/verify/check/capability")],
    ),
    (
        "unknown_capability.precondition",
        with_steps(create_step(precondition={"check": check("x.nope")}), verify_step()),
        None,
        [("draft.unknown_capability", "create", f"{S0}/precondition/check/capability")],
    ),
    (
        "unknown_capability.monitor",
        with_steps(monitor_step(monitor={**monitor_step()["monitor"], "check": check("x.nope")})),
        None,
        [("draft.unknown_capability", "monitor", f"{S0}/monitor/check/capability")],
    ),
    (
        "unknown_capability.request",
        plus(request_step(capability="x.nope")),
        None,
        [("draft.unknown_capability", "access", f"{S2}/request/capability")],
    ),
    (
        "capability_locked.step",
        valid_draft(),
        builtin_registry().lock("calendar.event.create"),
        [("draft.capability_locked", "create", f"{S0}/capability")],
    ),
    (
        "capability_locked.check",
        valid_draft(),
        builtin_registry().lock("calendar.event.get"),
        [("draft.capability_locked", "verify", f"{S1}/verify/check/capability")],
    ),
    (
        "capability_locked.request",
        plus(request_step()),
        builtin_registry().lock("calendar.freebusy"),
        [("draft.capability_locked", "access", f"{S2}/request/capability")],
    ),
    (
        "params_invalid.pattern",
        with_steps(create_step(params=create_params(start="9 o'clock")), verify_step()),
        None,
        [("draft.params_invalid", "create", f"{S0}/params/start")],
    ),
    (
        "params_invalid.nested",
        plus(
            step(
                key="fb",
                kind="capability",
                capability="calendar.freebusy",
                params={**FREEBUSY_PARAMS, "calendar_ids": [CALENDAR, ""]},
            )
        ),
        None,
        [("draft.params_invalid", "fb", f"{S2}/params/calendar_ids/1")],
    ),
    (
        "params_invalid.check_extra",
        with_steps(
            create_step(),
            verify_step(
                verify={
                    **VERIFY_SPEC,
                    "check": event_check(
                        params={"calendar_id": CALENDAR, "object_id": EVENT, "x": 1}
                    ),
                }
            ),
        ),
        None,
        [("draft.params_invalid", "verify", f"{S1}/verify/check/params/x")],
    ),
    (
        "params_invalid.missing_params",
        with_steps(
            create_step(precondition={"check": check("calendar.freebusy", path="busy")}),
            verify_step(),
        ),
        None,
        [("draft.params_invalid", "create", f"{S0}/precondition/check/params")] * 3,
    ),
    (
        "target_mismatch.none_rule",
        plus(
            step(
                key="fb",
                kind="capability",
                capability="calendar.freebusy",
                target=CALENDAR,
                params=FREEBUSY_PARAMS,
            )
        ),
        None,
        [("draft.target_mismatch", "fb", f"{S2}/target")],
    ),
    (
        "target_mismatch.param_missing",
        with_steps(create_step(target=None), verify_step()),
        None,
        [("draft.target_mismatch", "create", f"{S0}/target")],
    ),
    (
        "target_mismatch.param_differs",
        with_steps(
            create_step(),
            verify_step(
                verify={
                    **VERIFY_SPEC,
                    "check": event_check(params={"calendar_id": CALENDAR, "object_id": "evt-2"}),
                }
            ),
        ),
        None,
        [("draft.target_mismatch", "verify", f"{S1}/verify/check/target")],
    ),
    (
        "check_not_read_only",
        with_steps(create_step(precondition={"check": check("x.write")}), verify_step()),
        custom_registry(),
        [("draft.check_not_read_only", "create", f"{S0}/precondition/check/capability")],
    ),
    (
        "check_prompts.capability",
        with_steps(create_step(), verify_step(verify={**VERIFY_SPEC, "check": check("x.ask")})),
        custom_registry(),
        [("draft.check_prompts", "verify", f"{S1}/verify/check/capability")],
    ),
    (
        "check_prompts.verify_step",
        with_steps(create_step(), verify_step(require_approval=True)),
        None,
        [("draft.check_prompts", "verify", f"{S1}/require_approval")],
    ),
    (
        "check_prompts.monitor_step",
        with_steps(monitor_step(require_approval=True)),
        None,
        [("draft.check_prompts", "monitor", f"{S0}/require_approval")],
    ),
    (
        "verify_target_missing",
        with_steps(create_step(), verify_step(of="ghost", depends_on=("create",))),
        None,
        [("draft.verify_target_missing", "verify", f"{S1}/verify/of")],
    ),
    (
        "verify_without_expectation",
        with_steps(create_step(expectation=None), verify_step()),
        None,
        [("draft.verify_without_expectation", "verify", f"{S1}/verify/of")],
    ),
    (
        "verify_not_dependency",
        with_steps(create_step(), verify_step(depends_on=())),
        None,
        [("draft.verify_not_dependency", "verify", f"{S1}/verify/of")],
    ),
    (
        "invalid_attempts",
        with_steps(create_step(max_attempts=0), verify_step()),
        None,
        [("draft.invalid_attempts", "create", f"{S0}/max_attempts")],
    ),
    (
        "invalid_attempts.above_cap",
        with_steps(create_step(max_attempts=MAX_STEP_ATTEMPTS + 1), verify_step()),
        None,
        [("draft.invalid_attempts", "create", f"{S0}/max_attempts")],
    ),
    (
        "retry_not_idempotent",
        with_steps(create_step(max_attempts=2), verify_step()),
        None,
        [("draft.retry_not_idempotent", "create", f"{S0}/max_attempts")],
    ),
    (
        "params_invalid.inverted_range",
        with_steps(create_step(params=create_params(start=END, end=START)), verify_step()),
        None,
        [("draft.params_invalid", "create", f"{S0}/params/end")],
    ),
    (
        "params_invalid.empty_range",
        with_steps(create_step(params=create_params(end=START)), verify_step()),
        None,
        [("draft.params_invalid", "create", f"{S0}/params/end")],
    ),
    (
        "budget_below_estimate",
        valid_draft(
            budget={"max_capability_invocations": 2, "max_human_approvals": 1},
            estimate={"capability_invocations": 3, "human_approvals": 2},
        ),
        None,
        [
            ("draft.budget_below_estimate", None, "/budget/max_capability_invocations"),
            ("draft.budget_below_estimate", None, "/budget/max_human_approvals"),
        ],
    ),
    (
        "spec_mismatch.expectation_on_wait",
        plus(wait_step("w", expectation=expectation())),
        None,
        [("draft.spec_mismatch", "w", f"{S2}/expectation")],
    ),
    (
        "spec_mismatch.precondition_on_verify",
        with_steps(
            create_step(),
            verify_step(precondition={"check": event_check(), "satisfied_if_false": False}),
        ),
        None,
        [("draft.spec_mismatch", "verify", f"{S1}/precondition")],
    ),
    (
        "grant_risk_understated.writer",
        plus(
            request_step(
                request={
                    **request_step()["request"],
                    "capability": "calendar.event.create",
                    "target_pattern": "evt-1",
                }
            )
        ),
        None,
        [("draft.grant_risk_understated", "access", f"{S2}/request/risk")],
    ),
    (
        "grant_too_long",
        plus(
            request_step(
                request={**request_step()["request"], "duration_seconds": MAX_GRANT_SECONDS + 1}
            )
        ),
        None,
        [("draft.grant_too_long", "access", f"{S2}/request/duration_seconds")],
    ),
    (
        "grant_unscoped",
        plus(
            request_step(
                request={
                    **request_step()["request"],
                    "capability": "calendar.event.create",
                    "risk": "medium",
                    "target_pattern": "evt-*",
                }
            )
        ),
        None,
        [("draft.grant_unscoped", "access", f"{S2}/request/target_pattern")],
    ),
    (
        "verify_target_differs",
        with_steps(
            create_step(),
            verify_step(
                verify={
                    **VERIFY_SPEC,
                    "check": event_check(
                        target="other", params={"calendar_id": CALENDAR, "object_id": "other"}
                    ),
                }
            ),
        ),
        None,
        [("draft.verify_target_differs", "verify", f"{S1}/verify/check/target")],
    ),
    (
        "negative_estimate",
        valid_draft(estimate={"capability_invocations": -5, "money": -1.0}),
        None,
        [
            ("draft.negative_estimate", None, "/estimate/capability_invocations"),
            ("draft.negative_estimate", None, "/estimate/money"),
        ],
    ),
    (
        "budget_below_estimate.minimum",
        # two creates + two verifies need at least 4 invocations, whatever the estimate says
        with_steps(
            create_step(),
            verify_step(),
            create_step("create2", params=create_params(object_id="e2"), target="e2"),
            verify_step(
                "verify2",
                of="create2",
                verify={
                    **VERIFY_SPEC,
                    "of": "create2",
                    "check": event_check(
                        target="e2", params={"calendar_id": CALENDAR, "object_id": "e2"}
                    ),
                },
            ),
            budget={"max_capability_invocations": 3},
        ),
        None,
        [("draft.budget_below_estimate", None, "/budget/max_capability_invocations")],
    ),
    (
        "negative_budget.one",
        valid_draft(budget={"max_money": -0.5}),
        None,
        [("draft.negative_budget", None, "/budget/max_money")],
    ),
    (
        "negative_budget.all",
        valid_draft(
            budget={
                "max_capability_invocations": -1,
                "max_wall_seconds": -1,
                "max_money": -1.0,
                "max_human_approvals": -1,
            }
        ),
        None,
        [
            ("draft.negative_budget", None, "/budget/max_capability_invocations"),
            ("draft.negative_budget", None, "/budget/max_human_approvals"),
            ("draft.negative_budget", None, "/budget/max_money"),
            ("draft.negative_budget", None, "/budget/max_wall_seconds"),
        ],
    ),
    ("empty", valid_draft(steps=[]), None, [("draft.empty", None, "/steps")]),
]


@pytest.mark.parametrize(
    ("wire", "registry", "expected"),
    [pytest.param(w, r, e, id=i) for i, w, r, e in BROKEN],
)
def test_each_rule_alone(
    wire: dict[str, Any], registry: CapabilityRegistry | None, expected: list[Row]
) -> None:
    report = validate_draft(build(wire), registry or builtin_registry())
    assert rows(report) == expected
    assert report.valid is False


def test_every_code_has_a_case() -> None:
    assert {e[0] for _, _, _, expected in BROKEN for e in expected} == set(RULES)
    assert len(RULES) == len(set(RULES)) == 26


def test_problem_fields_and_messages() -> None:
    wire = with_steps(
        wait_step("b", depends_on=["c"]),
        wait_step("c", depends_on=["b"]),
        create_step(capability="x.nope"),
        verify_step(of="ghost", depends_on=("create",)),
        budget={"max_money": -2.0},
    )
    report = validate_draft(build(wire), builtin_registry())
    assert [p.to_wire() for p in report.problems] == [
        {
            "code": "draft.cycle",
            "step": "b",
            "path": "/steps/0/depends_on",
            "message": "dependency cycle: b -> c -> b",
        },
        {
            "code": "draft.unknown_capability",
            "step": "create",
            "path": "/steps/2/capability",
            "message": "no capability 'x.nope' is registered",
        },
        {
            "code": "draft.verify_target_missing",
            "step": "verify",
            "path": "/steps/3/verify/of",
            "message": "verify.of names no step: 'ghost'",
        },
        {
            "code": "draft.negative_budget",
            "step": None,
            "path": "/budget/max_money",
            "message": "budget max_money may not be negative (-2.0)",
        },
    ]


def test_report_order_is_position_then_rule_then_path() -> None:
    wire = with_steps(
        create_step(max_attempts=0, target="evt-9", wait={"seconds": 1}),
        verify_step(depends_on=("ghost",)),
        wait_step("create"),
        budget={"max_human_approvals": -1},
    )
    report = validate_draft(build(wire), builtin_registry())
    assert rows(report) == [
        ("draft.spec_mismatch", "create", "/steps/0/wait"),
        ("draft.target_mismatch", "create", "/steps/0/target"),
        ("draft.invalid_attempts", "create", "/steps/0/max_attempts"),
        ("draft.unknown_dependency", "verify", "/steps/1/depends_on/0"),
        ("draft.verify_not_dependency", "verify", "/steps/1/verify/of"),
        ("draft.duplicate_key", "create", "/steps/2/key"),
        ("draft.negative_budget", None, "/budget/max_human_approvals"),
    ]


def test_checks_on_a_write_report_both_check_rules() -> None:
    wire = with_steps(
        create_step(),
        verify_step(
            verify={
                **VERIFY_SPEC,
                "check": check("calendar.event.create", target=EVENT, params=create_params()),
            }
        ),
    )
    report = validate_draft(build(wire), builtin_registry())
    assert rows(report) == [
        ("draft.check_not_read_only", "verify", "/steps/1/verify/check/capability"),
        ("draft.check_prompts", "verify", "/steps/1/verify/check/capability"),
    ]


def test_report_carries_ignored_fields() -> None:
    report = validate_draft(build(valid_draft(ignored=["/steps/0/status"])), builtin_registry())
    assert report == DraftReport((), ("/steps/0/status",))
    assert report.valid is True


# --- valid drafts of every kind ------------------------------------------------------------

FREEBUSY_STEP = step(
    key="observe",
    kind="capability",
    capability="calendar.freebusy",
    params=FREEBUSY_PARAMS,
    depends_on=["access"],
)
VALID: dict[str, dict[str, Any]] = {
    "create_verify": valid_draft(),
    "create_with_precondition": with_steps(
        create_step(precondition={"check": event_check(op="exists"), "satisfied_if_false": True}),
        verify_step(),
        internal_step("record", "record_procedure", depends_on=["verify"]),
    ),
    "move": with_steps(
        create_step(
            "move",
            capability="calendar.event.move",
            params={**create_params(), "expected_revision": 3},
            max_attempts=3,
        ),
        verify_step(of="move"),
    ),
    "request_capability": with_steps(
        request_step(),
        FREEBUSY_STEP,
        internal_step(depends_on=["observe"]),
    ),
    "wait": with_steps(wait_step("pause", 0), wait_step("then", 60, depends_on=["pause"])),
    "monitor": with_steps(
        monitor_step(precondition={"check": service_check("dns")}),
        internal_step(depends_on=["monitor"]),
    ),
    "internal_summarise": with_steps(internal_step("s", "summarise_findings")),
    "internal_record": with_steps(internal_step("r", "record_procedure")),
    "internal_await_approval": with_steps(
        {
            **internal_step("g", "await_approval"),
            "require_approval": True,
            "approver": "principal:bob",
        }
    ),
    "free_target": with_steps(
        step(key="x", kind="capability", capability="x.write", target="anything"),
        step(key="y", kind="capability", capability="x.write"),
    ),
    "budget_and_approvals": valid_draft(
        budget={"max_capability_invocations": 0, "max_money": 0.0},
        require_approval=True,
        risk="high",
    ),
}


@pytest.mark.parametrize("name", sorted(VALID))
def test_valid_drafts(name: str) -> None:
    report = validate_draft(build(VALID[name]), custom_registry())
    assert report == DraftReport()
    assert report.valid is True


def test_valid_drafts_cover_every_kind_and_action() -> None:
    drafts = [build(w) for w in VALID.values()]
    kinds = {s.kind for d in drafts for s in d.steps}
    actions = {s.internal.action for d in drafts for s in d.steps if s.internal is not None}
    assert kinds == {k.value for k in cerebri.plans.StepKind}
    assert actions == {a.value for a in cerebri.plans.InternalAction}


def test_locking_invalidates_and_unlocking_restores() -> None:
    draft = build(valid_draft())
    registry = builtin_registry()
    assert validate_draft(draft, registry).valid is True
    locked = registry.lock("calendar.event.create")
    assert rows(validate_draft(draft, locked)) == [
        ("draft.capability_locked", "create", "/steps/0/capability")
    ]
    assert validate_draft(draft, locked.unlock("calendar.event.create")).valid is True


def test_locked_capability_is_still_checked() -> None:
    wire = with_steps(create_step(target="evt-2"), verify_step())
    report = validate_draft(build(wire), builtin_registry().lock("calendar.event.create"))
    assert rows(report) == [
        ("draft.capability_locked", "create", "/steps/0/capability"),
        ("draft.target_mismatch", "create", "/steps/0/target"),
        ("draft.verify_target_differs", "verify", "/steps/1/verify/check/target"),
    ]


def test_unknown_kind_is_not_a_spec_mismatch_but_specs_are_checked() -> None:
    wire = with_steps(step(key="w", kind="dance", precondition={"check": check("x.nope")}))
    assert rows(validate_draft(build(wire), builtin_registry())) == [
        ("draft.unknown_kind", "w", "/steps/0/kind"),
        ("draft.unknown_capability", "w", "/steps/0/precondition/check/capability"),
    ]


# --- cycles --------------------------------------------------------------------------------

THREE_CYCLE = [
    wait_step("a", depends_on=["b"]),
    wait_step("b", depends_on=["c"]),
    wait_step("c", depends_on=["a"]),
]


@pytest.mark.parametrize("order", list(itertools.permutations(range(3))))
def test_named_cycle_is_independent_of_step_order(order: tuple[int, ...]) -> None:
    steps = [THREE_CYCLE[i] for i in order]
    report = validate_draft(build(with_steps(*steps)), builtin_registry())
    position = order.index(0)
    assert [p.to_wire() for p in report.problems] == [
        {
            "code": "draft.cycle",
            "step": "a",
            "path": f"/steps/{position}/depends_on",
            "message": "dependency cycle: a -> b -> c -> a",
        }
    ]


def test_two_disjoint_cycles_give_two_problems() -> None:
    wire = with_steps(
        wait_step("z", depends_on=["y"]),
        wait_step("y", depends_on=["z"]),
        wait_step("free"),
        wait_step("b", depends_on=["a", "free"]),
        wait_step("a", depends_on=["b"]),
    )
    report = validate_draft(build(wire), builtin_registry())
    assert [(p.step, p.path, p.message) for p in report.problems] == [
        ("y", "/steps/1/depends_on", "dependency cycle: y -> z -> y"),
        ("a", "/steps/4/depends_on", "dependency cycle: a -> b -> a"),
    ]


def test_cycles_sharing_a_step_are_one_problem() -> None:
    wire = with_steps(
        wait_step("a", depends_on=["b"]),
        wait_step("b", depends_on=["a", "c"]),
        wait_step("c", depends_on=["b"]),
    )
    report = validate_draft(build(wire), builtin_registry())
    assert [(p.code, p.step, p.message) for p in report.problems] == [
        ("draft.cycle", "a", "dependency cycle: a -> b -> a")
    ]


def test_cycle_detection_skips_unknown_and_self_dependencies() -> None:
    wire = with_steps(wait_step("a", depends_on=["a", "ghost"]), wait_step("b", depends_on=["a"]))
    assert rows(validate_draft(build(wire), builtin_registry())) == [
        ("draft.unknown_dependency", "a", "/steps/0/depends_on/1"),
        ("draft.self_dependency", "a", "/steps/0/depends_on/0"),
    ]


# --- topological order ---------------------------------------------------------------------


def test_topological_order_breaks_ties_by_position() -> None:
    wire = with_steps(
        wait_step("late", depends_on=["mid"]),
        wait_step("first"),
        wait_step("mid", depends_on=["first"]),
        wait_step("other"),
    )
    assert topological_order(build(wire)) == ("first", "mid", "late", "other")
    assert topological_order(build(valid_draft())) == ("create", "verify")


@pytest.mark.parametrize(
    ("steps", "code", "path"),
    [
        ([wait_step("a"), wait_step("a")], "draft.duplicate_key", "/steps/1/key"),
        ([wait_step("a", depends_on=["x"])], "draft.unknown_dependency", "/steps/0/depends_on/0"),
        ([wait_step("a", depends_on=["a"])], "draft.self_dependency", "/steps/0/depends_on/0"),
        (THREE_CYCLE, "draft.cycle", "/steps/0/depends_on"),
    ],
)
def test_topological_order_refuses_a_broken_graph(
    steps: list[dict[str, Any]], code: str, path: str
) -> None:
    with pytest.raises(DraftError) as caught:
        topological_order(build(with_steps(*steps)))
    assert (caught.value.code, caught.value.path) == (code, path)


def test_exports() -> None:
    assert cerebri.plans.validate_draft is validate_draft
    assert cerebri.plans.topological_order is topological_order
    assert {"topological_order", "validate_draft"} <= set(cerebri.plans.__all__)


# --- properties ----------------------------------------------------------------------------

REGISTRY = builtin_registry()  # built once: compiling the schemas dominates a small draft


def edges(steps: list[dict[str, Any]]) -> set[tuple[str, str]]:
    return {(s["key"], d) for s in steps for d in s["depends_on"]}


def reaches(steps: list[dict[str, Any]], start: str, goal: str) -> bool:
    graph = edges(steps)
    seen, todo = {start}, [start]
    while todo:
        node = todo.pop()
        for a, b in graph:
            if a == node and b not in seen:
                seen.add(b)
                todo.append(b)
    return goal in seen


@PROPERTY_SETTINGS
@given(dags())
def test_random_dags_are_valid_and_ordered(steps: list[dict[str, Any]]) -> None:
    draft = build(with_steps(*steps))
    assert validate_draft(draft, REGISTRY) == DraftReport()
    order = topological_order(draft)
    assert order == tuple(s["key"] for s in steps)  # already in dependency order: kept
    shuffled = build(with_steps(*reversed(steps)))
    reordered = topological_order(shuffled)
    assert sorted(reordered) == sorted(order)
    where = {key: i for i, key in enumerate(reordered)}
    assert all(where[dep] < where[key] for key, dep in edges(steps))


@PROPERTY_SETTINGS
@given(dags(min_steps=2), st.data())
def test_one_back_edge_gives_exactly_one_cycle(
    steps: list[dict[str, Any]], data: st.DataObject
) -> None:
    i, j = data.draw(st.sampled_from(list(itertools.combinations(range(len(steps)), 2))))
    first, later = steps[i]["key"], steps[j]["key"]
    if not reaches(steps, later, first):
        steps[j]["depends_on"].append(first)  # a forward edge: still a DAG
    assert validate_draft(build(with_steps(*steps)), REGISTRY).valid is True
    steps[i]["depends_on"].append(later)  # the back edge
    report = validate_draft(build(with_steps(*steps)), REGISTRY)
    assert report.codes == ("draft.cycle",)
    (problem,) = report.problems
    named = problem.message.removeprefix("dependency cycle: ").split(" -> ")
    keys = [s["key"] for s in steps]
    assert named[0] == named[-1] == problem.step == min(named)
    assert problem.path == f"/steps/{keys.index(named[0])}/depends_on"
    assert len(set(named)) == len(named) - 1  # a simple cycle
    links = set(itertools.pairwise(named))
    assert links <= edges(steps)
    assert (first, later) in links


def contents(report: DraftReport) -> Counter[tuple[str, str | None, str]]:
    """The problems without their positional paths, as a multiset."""
    return Counter((p.code, p.step, p.message) for p in report.problems)


def order_key(problem: DraftProblem) -> tuple[int, int, str, str]:
    parts = problem.path.split("/")
    position = int(parts[2]) if parts[1] == "steps" and len(parts) > 2 else 10**6
    return position, RULES.index(problem.code), problem.path, problem.message


@PROPERTY_SETTINGS
@given(messy_steps(), st.randoms(use_true_random=False))
def test_report_is_independent_of_step_order(steps: list[dict[str, Any]], rnd: Any) -> None:
    shuffled = list(steps)
    rnd.shuffle(shuffled)
    reports = [validate_draft(build(with_steps(*s)), REGISTRY) for s in (steps, shuffled)]
    assert contents(reports[0]) == contents(reports[1])
    for report in reports:
        assert list(report.problems) == sorted(report.problems, key=order_key)
        assert report.valid == (not report.problems)
    assert reports[0] == validate_draft(build(with_steps(*steps)), REGISTRY)
    assert reports[0].codes.count("draft.cycle") == len(cyclic_components(steps))


def cyclic_components(steps: list[dict[str, Any]]) -> set[frozenset[str]]:
    """Reference: the sets of two or more keys that all reach each other."""
    keys = {s["key"] for s in steps}
    return {
        group
        for key in keys
        if len(
            group := frozenset(k for k in keys if reaches(steps, key, k) and reaches(steps, k, key))
        )
        > 1
    }


def test_expectation_builder_is_a_valid_expectation() -> None:
    assert build(valid_draft()).steps[0].expectation == cerebri.plans.Expectation(**expectation())
