"""Draft, stored plan and step models; status sets; strict reading of operator drafts."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import ValidationError

from cerebri.errors import ParseError
from cerebri.plans import (
    DEFAULT_MAX_INVOCATIONS,
    DONE_STEP_STATUSES,
    OPEN_PLAN_STATUSES,
    TERMINAL_STEP_STATUSES,
    DraftError,
    PlanDraft,
    PlanStatus,
    StepStatus,
    StoredPlan,
    StoredStep,
    is_done,
    is_open,
    is_terminal,
    parse_draft,
)
from cerebri.temporal import Instant

MINIMAL: dict[str, Any] = {
    "objective": "wait a little",
    "origin": "operator",
    "strategy": "manual",
    "steps": [{"key": "pause", "kind": "wait", "wait": {"seconds": 30}}],
}


def test_status_sets_are_the_spec_s() -> None:
    assert {s.value for s in OPEN_PLAN_STATUSES} == {
        "validated",
        "waiting",
        "executing",
        "blocked",
        "awaiting_approval",
        "replanning",
    }
    assert {s.value for s in DONE_STEP_STATUSES} == {"completed", "skipped"}
    assert {s.value for s in TERMINAL_STEP_STATUSES} == {
        "completed",
        "skipped",
        "failed",
        "cancelled",
    }
    assert [s for s in PlanStatus if is_open(s)] == sorted(
        OPEN_PLAN_STATUSES, key=list(PlanStatus).index
    )
    assert not is_open(PlanStatus.DRAFT) and not is_open(PlanStatus.SUPERSEDED)
    for status in StepStatus:
        assert is_done(status) == (status.value in {"completed", "skipped"})
        assert is_terminal(status) == (
            status.value in {"completed", "skipped", "failed", "cancelled"}
        )
        # done implies terminal
        assert not is_done(status) or is_terminal(status)


def test_minimal_draft_gets_documented_defaults() -> None:
    draft = parse_draft(json.dumps(MINIMAL))
    assert draft.budget.max_capability_invocations == DEFAULT_MAX_INVOCATIONS == 20
    assert draft.budget.max_wall_seconds == 0
    assert draft.risk == "low"
    assert draft.require_approval is False
    assert draft.ignored == ()
    assert draft.step("pause") is draft.steps[0]
    assert draft.step("missing") is None


@pytest.mark.parametrize(
    ("mutate", "path"),
    [
        (lambda d: d.update(status="completed"), "/status"),
        (lambda d: d["steps"][0].update(approval_id="a-1"), "/steps/0/approval_id"),
        (lambda d: d.update(origin="oracle"), "/origin"),
        (lambda d: d.update(risk="extreme"), "/risk"),
        (lambda d: d.update(steps="all of them"), "/steps"),
        (lambda d: d["steps"][0]["wait"].update(seconds=-1), "/steps/0/wait/seconds"),
        (lambda d: d["steps"][0]["wait"].update(seconds="30"), "/steps/0/wait/seconds"),
        (lambda d: d.pop("objective"), "/objective"),
    ],
)
def test_operator_drafts_are_read_strictly(mutate: Any, path: str) -> None:
    document = json.loads(json.dumps(MINIMAL))
    mutate(document)
    with pytest.raises(DraftError) as caught:
        parse_draft(json.dumps(document).encode())
    assert (caught.value.code, caught.value.path) == ("draft.schema", path)


@pytest.mark.parametrize(
    ("source", "code"),
    [(b"{", "json.syntax"), (b'{"a":1,"a":2}', "json.duplicate_key"), (b"NaN", None)],
)
def test_text_that_is_not_strict_json(source: bytes, code: str | None) -> None:
    with pytest.raises(ParseError) as caught:
        parse_draft(source)
    assert caught.value.code.startswith("json.")
    if code is not None:
        assert caught.value.code == code


def test_a_draft_is_an_object() -> None:
    with pytest.raises(DraftError) as caught:
        parse_draft(b"[]")
    assert (caught.value.code, caught.value.path) == ("draft.schema", "")


def test_models_are_frozen() -> None:
    draft = parse_draft(MINIMAL)
    with pytest.raises(ValidationError):
        draft.objective = "other"  # type: ignore[misc]
    changed = draft.model_copy(update={"objective": "other"})
    assert (draft.objective, changed.objective) == ("wait a little", "other")


def _stored() -> tuple[StoredPlan, StoredStep]:
    draft = PlanDraft.model_validate_json(json.dumps(MINIMAL))
    at = Instant.parse("2026-11-30T10:00:00Z")
    plan = StoredPlan(id="plan-1", intention_id="int-1", draft=draft, created_at=at, updated_at=at)
    step = StoredStep(id="step-1", plan_id="plan-1", position=0, spec=draft.steps[0])
    return plan, step


def test_stored_plan_and_step_defaults_and_helpers() -> None:
    plan, step = _stored()
    assert (plan.revision, plan.status, plan.max_replans) == (1, PlanStatus.DRAFT, 3)
    assert not plan.open
    assert plan.model_copy(update={"status": PlanStatus.EXECUTING}).open
    assert (step.status, step.attempts, step.key) == (StepStatus.PENDING, 0, "pause")
    assert not step.done and not step.terminal
    skipped = step.model_copy(update={"status": StepStatus.SKIPPED})
    assert skipped.done and skipped.terminal
    failed = step.model_copy(update={"status": StepStatus.FAILED})
    assert failed.terminal and not failed.done
    assert step.invocation_origin() == "plan_step:step-1"


@pytest.mark.parametrize("value", [float("nan"), {1, 2}, object()])
def test_a_mapping_with_values_json_cannot_carry(value: Any) -> None:
    with pytest.raises(DraftError) as caught:
        parse_draft({**MINIMAL, "objective": value})
    assert (caught.value.code, caught.value.path) == ("draft.schema", "")


@pytest.mark.parametrize(
    ("where", "path"),
    [
        (lambda d: d["steps"][0].update(max_attempts=2**53), "/steps/0/max_attempts"),
        (lambda d: d["steps"][0]["wait"].update(seconds=-(2**53)), "/steps/0/wait/seconds"),
        (lambda d: d.update(budget={"max_money": 10**30}), "/budget/max_money"),
    ],
)
def test_integers_beyond_2_53_cannot_be_content_addressed(where: Any, path: str) -> None:
    document = json.loads(json.dumps(MINIMAL))
    where(document)
    with pytest.raises(DraftError) as caught:
        parse_draft(json.dumps(document))
    assert (caught.value.code, caught.value.path) == ("draft.schema", path)
    document = json.loads(json.dumps(MINIMAL))
    document["steps"][0]["wait"]["seconds"] = 2**53 - 1  # the largest exact integer passes
    assert parse_draft(document).steps[0].wait.seconds == 2**53 - 1  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("text", "needle"),
    [(b"", "a plan draft is a JSON object"), (b"```json\n{}\n```", "code fence")],
)
def test_syntax_errors_speak_of_drafts(text: bytes, needle: str) -> None:
    with pytest.raises(ParseError) as caught:
        parse_draft(text)
    assert caught.value.code == "json.syntax"
    assert needle in caught.value.message
