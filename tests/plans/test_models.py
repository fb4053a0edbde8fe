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
    MAX_DRAFT_STEPS,
    MAX_DURATION_SECONDS,
    OPEN_PLAN_STATUSES,
    TERMINAL_STEP_STATUSES,
    Check,
    CheckOp,
    DraftError,
    DraftProblem,
    Origin,
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
from tests.plans.drafts import (
    create_step,
    event_check,
    monitor_step,
    request_step,
    valid_draft,
    verify_step,
    wait_step,
)

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
    document["estimate"] = {"llm_tokens": 2**53 - 1}  # the largest exact integer passes
    assert parse_draft(document).estimate.llm_tokens == 2**53 - 1


@pytest.mark.parametrize(
    ("text", "needle"),
    [(b"", "a plan draft is a JSON object"), (b"```json\n{}\n```", "code fence")],
)
def test_syntax_errors_speak_of_drafts(text: bytes, needle: str) -> None:
    with pytest.raises(ParseError) as caught:
        parse_draft(text)
    assert caught.value.code == "json.syntax"
    assert needle in caught.value.message


# --------------------------------------------------------------------------------------
# Shape rules found by a new-user trial (each a draft.schema error at a precise pointer)
# --------------------------------------------------------------------------------------

CHECK = "/steps/1/verify/check"


def refused_at(document: dict[str, Any]) -> tuple[str, str | None]:
    with pytest.raises(DraftError) as caught:
        parse_draft(document)
    return caught.value.code, caught.value.path


def with_check(**fields: Any) -> dict[str, Any]:
    """The valid create+verify draft whose verify check has ``fields`` (no ``value`` unless
    given)."""
    check = {k: v for k, v in event_check().items() if k != "value"}
    check.update(fields)
    document = valid_draft()
    document["steps"][1]["verify"]["check"] = check
    return document


@pytest.mark.parametrize("path", ["a..b", ".", "range.", ".range", " ", "a b", "a.\tb", ""])
def test_check_path_is_a_dot_path(path: str) -> None:
    document = with_check(path=path, op="exists")
    assert refused_at(document) == ("draft.schema", f"{CHECK}/path")


@pytest.mark.parametrize(
    "path", ["start", "properties.ActiveState", "range[0]", "/range", "a.b-c.d_e"]
)
def test_check_path_segments_are_any_other_characters(path: str) -> None:
    draft = parse_draft(with_check(path=path, op="exists"))
    assert draft.steps[1].verify.check.path == path  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("fields", "suffix"),
    [
        ({"op": "exists", "value": "x"}, "/value"),
        ({"op": "exists", "value": None}, "/value"),
        ({"op": "eq"}, ""),
        ({"op": "ne"}, ""),
        ({"op": "contains"}, ""),
        ({"op": "lt"}, ""),
        ({"op": "lt", "value": True}, "/value"),
        ({"op": "lte", "value": None}, "/value"),
        ({"op": "gt", "value": [1]}, "/value"),
        ({"op": "gte", "value": {"a": 1}}, "/value"),
    ],
)
def test_check_value_fits_its_op(fields: dict[str, Any], suffix: str) -> None:
    assert refused_at(with_check(**fields)) == ("draft.schema", CHECK + suffix)


@pytest.mark.parametrize(
    "fields",
    [
        {"op": "exists"},
        {"op": "eq", "value": None},
        {"op": "ne", "value": None},
        {"op": "eq", "value": {"start": "x"}},
        {"op": "lt", "value": 3},
        {"op": "lte", "value": 2.5},
        {"op": "gt", "value": "2026-10-24T09:00:00Z"},
        {"op": "gte", "value": -1},
        {"op": "contains", "value": None},
        {"op": "contains", "value": [1, "a"]},
    ],
)
def test_check_values_that_fit(fields: dict[str, Any]) -> None:
    draft = parse_draft(with_check(**fields))
    check = draft.steps[1].verify.check  # type: ignore[union-attr]
    assert ("value" in check.model_fields_set) == ("value" in fields)
    # the wire form keeps an explicit null, so it parses back to the same draft
    assert check.to_wire().get("value", "absent") == fields.get("value", "absent")
    assert parse_draft(draft.to_wire()) == draft


def test_check_value_rules_apply_to_python_construction() -> None:
    common: dict[str, Any] = {"capability": "service.status", "path": "active"}
    assert Check(**common, op=CheckOp.EQ, value=None).to_wire()["value"] is None
    with pytest.raises(ValidationError):
        Check(**common, op=CheckOp.EQ)
    with pytest.raises(ValidationError):
        Check(**common, op=CheckOp.EXISTS, value=None)


MONITOR = "/steps/0/monitor"


@pytest.mark.parametrize(
    ("timing", "path"),
    [
        ({"interval_seconds": 601}, f"{MONITOR}/deadline_seconds"),
        ({"stable_seconds": 601}, f"{MONITOR}/deadline_seconds"),
        ({"interval_seconds": 700, "stable_seconds": 700}, f"{MONITOR}/deadline_seconds"),
    ],
)
def test_monitor_timings_fit_in_the_deadline(timing: dict[str, int], path: str) -> None:
    step = monitor_step()
    step["monitor"].update(timing)
    assert refused_at(valid_draft(steps=[step])) == ("draft.schema", path)
    step["monitor"]["deadline_seconds"] = 700  # equal is enough
    assert parse_draft(valid_draft(steps=[step])).steps[0].monitor is not None


def test_verify_polls_within_its_window() -> None:
    document = valid_draft()
    document["steps"][1]["verify"].update(within_seconds=5, interval_seconds=10)
    assert refused_at(document) == ("draft.schema", "/steps/1/verify/interval_seconds")
    document["steps"][1]["verify"].update(within_seconds=0)  # once, no window
    assert parse_draft(document).steps[1].verify is not None
    document["steps"][1]["verify"].update(within_seconds=10)
    assert parse_draft(document).steps[1].verify is not None


def _set(document: dict[str, Any], at: str, value: int) -> None:
    *parents, last = at.split("/")[1:]
    node: Any = document
    for part in parents:
        node = node[int(part)] if isinstance(node, list) else node[part]
    node[last] = value


DURATIONS = [
    "/steps/0/wait/seconds",
    "/steps/1/expectation/within_seconds",
    "/steps/2/verify/within_seconds",
    "/steps/2/verify/interval_seconds",
    "/steps/3/monitor/interval_seconds",
    "/steps/3/monitor/stable_seconds",
    "/steps/3/monitor/deadline_seconds",
    "/steps/4/request/duration_seconds",
    "/budget/max_wall_seconds",
]


def every_duration() -> dict[str, Any]:
    return valid_draft(
        steps=[
            wait_step(),
            create_step(),
            verify_step(),
            monitor_step(),
            request_step(),
        ],
        budget={"max_wall_seconds": 0},
    )


@pytest.mark.parametrize("at", DURATIONS)
def test_durations_are_capped_at_one_year(at: str) -> None:
    assert MAX_DURATION_SECONDS == 365 * 24 * 3600
    document = every_duration()
    _set(document, at, MAX_DURATION_SECONDS + 1)
    assert refused_at(document) == ("draft.schema", at)


def test_one_year_everywhere_is_allowed() -> None:
    document = every_duration()
    for at in DURATIONS:
        _set(document, at, MAX_DURATION_SECONDS)
    assert parse_draft(document).budget.max_wall_seconds == MAX_DURATION_SECONDS


@pytest.mark.parametrize(
    "key",
    [
        "",
        "a\x00b",
        "a\u202eb",  # right-to-left override
        "a\u200bb",  # zero-width space
        "a b",
        "a\n",
        "\u00e9t\u00e9",
        "-lead",
        ".lead",
        "k" * 129,
        "k" * 100_000,
    ],
)
def test_step_key_is_an_identifier(key: str) -> None:
    document = json.loads(json.dumps(MINIMAL))
    document["steps"][0]["key"] = key
    assert refused_at(document) == ("draft.schema", "/steps/0/key")


@pytest.mark.parametrize("key", ["a", "7", "check_slot", "create-0", "v1.2:x", "k" * 128])
def test_identifier_keys_are_allowed(key: str) -> None:
    document = json.loads(json.dumps(MINIMAL))
    document["steps"][0]["key"] = key
    assert parse_draft(document).steps[0].key == key


def test_depends_on_names_a_step_once() -> None:
    document = valid_draft(steps=[create_step(), verify_step()])
    document["steps"][1]["depends_on"] = ["create", "create"]
    assert refused_at(document) == ("draft.schema", "/steps/1/depends_on")


def test_too_many_steps_are_refused_before_reading_them() -> None:
    step = {"key": "bad key", "kind": "wait", "wait": {"seconds": 0}}
    document = {**MINIMAL, "steps": [step] * 100_000}
    with pytest.raises(DraftError) as caught:
        parse_draft(document)
    assert (caught.value.code, caught.value.path) == ("draft.schema", "/steps")
    assert len(caught.value.problems) == 1  # no step was read
    steps = [{"key": f"w{i}", "kind": "wait", "wait": {"seconds": 0}} for i in range(10_000)]
    assert len(parse_draft({**MINIMAL, "steps": steps}).steps) == MAX_DRAFT_STEPS == 10_000
    assert refused_at({**MINIMAL, "steps": [*steps, steps[0]]}) == ("draft.schema", "/steps")


def test_operator_drafts_may_not_fill_ignored() -> None:
    assert refused_at({**MINIMAL, "ignored": ["/status"]}) == ("draft.schema", "/ignored")
    assert parse_draft({**MINIMAL, "ignored": []}).ignored == ()


def test_draft_error_carries_every_shape_problem() -> None:
    document = json.loads(json.dumps(MINIMAL))
    document["steps"].append({"key": "x y", "kind": "wait", "wait": {"seconds": -1}})
    document["budget"] = {"max_wall_seconds": "long"}
    document["ignored"] = ["/steps/0/status"]
    with pytest.raises(DraftError) as caught:
        parse_draft(document)
    error = caught.value
    assert [(p.code, p.step, p.path) for p in error.problems] == [
        ("draft.schema", "x y", "/steps/1/key"),
        ("draft.schema", "x y", "/steps/1/wait/seconds"),
        ("draft.schema", None, "/budget/max_wall_seconds"),
        ("draft.schema", None, "/ignored"),
    ]
    assert (error.code, error.path, error.message) == (
        "draft.schema",
        "/steps/1/key",
        error.problems[0].message,
    )


def test_a_raised_draft_error_is_its_own_single_problem() -> None:
    error = DraftError("no", code="draft.cycle", path="/steps/0/depends_on")
    assert error.problems == (DraftProblem("draft.cycle", None, "/steps/0/depends_on", "no"),)


def test_python_callers_may_pass_wire_strings_and_lists() -> None:
    draft = parse_draft(MINIMAL)
    assert PlanDraft.model_validate(draft.to_wire()) == draft
    built = PlanDraft(
        objective="x",
        origin="operator",  # type: ignore[arg-type]
        strategy="s",
        steps=[{"key": "a", "kind": "wait", "wait": {"seconds": 1}}],  # type: ignore[list-item]
    )
    assert built.origin is Origin.OPERATOR and isinstance(built.steps, tuple)
    # only enums and sequences are lenient: numbers and unknown enum values stay refused
    with pytest.raises(ValidationError):
        PlanDraft.model_validate({**draft.to_wire(), "origin": "Operator"})
    with pytest.raises(ValidationError):
        PlanDraft.model_validate({**draft.to_wire(), "completion_criteria": [1]})


def test_stored_records_round_trip_through_python_json() -> None:
    plan, step = _stored()
    plan = plan.model_copy(update={"status": PlanStatus.EXECUTING})
    assert StoredPlan.model_validate(plan.model_dump(mode="json")) == plan
    assert StoredStep.model_validate(step.model_dump(mode="json")) == step
