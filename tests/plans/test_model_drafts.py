"""Drafts proposed by a language model (plans.md section 3, "Model proposals").

The recorded answers under ``model_drafts/`` are what a model might send for "move the design
review to Thursday 10:00"; each hostile one is stripped or refused, and reported.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cerebri.errors import ParseError
from cerebri.plans import (
    DraftError,
    DraftProblem,
    DraftReport,
    ModelDraft,
    Origin,
    PlanDraft,
    StepSpec,
    builtin_registry,
    parse_draft,
    parse_model_draft,
)
from tests.plans.drafts import event_check, step, valid_draft, verify_step, wait_step
from tests.strategies import json_scalars, json_values

RECORDED = Path(__file__).resolve().parent / "model_drafts"
REGISTRY = builtin_registry()


def recorded(name: str) -> bytes:
    return (RECORDED / name).read_bytes()


def model_valid_draft(**overrides: Any) -> dict[str, Any]:
    return valid_draft(**{"origin": "model", **overrides})


def remove(document: Any, pointer: str) -> None:
    """Delete the member at ``pointer`` (no ``~`` escapes in the recorded drafts)."""
    *parents, last = pointer.split("/")[1:]
    for part in parents:
        document = document[int(part)] if isinstance(document, list) else document[part]
    del document[last]


def expected_draft(name: str, ignored: tuple[str, ...]) -> PlanDraft:
    """The recorded draft without the ignored members, origin ``model``, read strictly."""
    document = json.loads(recorded(name))
    for pointer in ignored:
        remove(document, pointer)
    draft = parse_draft({**document, "origin": "model"})  # parse_draft refuses `ignored`
    return draft.model_copy(update={"ignored": ignored})


# --------------------------------------------------------------------------------------
# Recorded model answers: exact ignored pointers and problem codes
# --------------------------------------------------------------------------------------

RECORDED_CASES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "benign.json": ((), ()),
    "claims_progress.json": (
        (
            "/steps/0/attempts",
            "/steps/0/completed_at",
            "/steps/0/execution_id",
            "/steps/0/result",
            "/steps/0/status",
            "/steps/1/status",
        ),
        (),
    ),
    "claims_approval.json": (
        ("/approval", "/steps/1/approval_id", "/steps/1/approved_by"),
        (),
    ),
    "waives_approval.json": (("/require_approval", "/steps/1/require_approval"), ()),
    "grants.json": (
        ("/grants", "/steps/0/grant", "/steps/1/request/grant_id", "/steps/1/request/granted"),
        ("draft.unknown_kind",),
    ),
    "unregistered_capability.json": ((), ("draft.unknown_capability",)),
    "cycle.json": ((), ("draft.cycle",)),
    "params_invalid.json": ((), ("draft.params_invalid",) * 4),
    "writing_check.json": ((), ("draft.check_not_read_only", "draft.check_prompts") * 2),
    "claims_operator.json": (("/origin",), ()),
    "own_ignored.json": (("/ignored",), ()),
    "stored_plan_fields.json": (
        (
            "/actual",
            "/created_at",
            "/id",
            "/intention_id",
            "/max_replans",
            "/revision",
            "/status",
            "/steps/0/id",
            "/steps/0/plan_id",
            "/steps/0/position",
            "/steps/0/status",
            "/steps/1/lease_until",
            "/steps/1/next_run_at",
            "/supersedes",
            "/updated_at",
            "/validation",
        ),
        (),
    ),
    "nested_unknown.json": (
        (
            "/alternatives/0/approved",
            "/alternatives/0/estimate/discount",
            "/assumptions/0/confirmed",
            "/budget/unlimited",
            "/steps/1/expectation/verified",
            "/steps/1/precondition/bypass",
            "/steps/1/precondition/check/trusted",
            "/steps/2/verify/check/skip",
            "/steps/2/verify/passed",
        ),
        (),
    ),
}


@pytest.mark.parametrize("name", sorted(RECORDED_CASES))
def test_recorded_draft_is_stripped_and_reported(name: str) -> None:
    ignored, codes = RECORDED_CASES[name]
    parsed = parse_model_draft(recorded(name), REGISTRY)
    assert parsed.draft == expected_draft(name, ignored)
    assert parsed.draft.ignored == ignored
    assert parsed.draft.origin is Origin.MODEL
    assert parsed.report.ignored == ignored
    assert parsed.report.codes == codes
    assert parsed.runnable is (codes == ())


def test_every_recorded_draft_has_a_case() -> None:
    unparsable = {"fenced.json", "not_object.json", "step_shape_error.json", "steps_not_list.json"}
    assert sorted(p.name for p in RECORDED.glob("*.json")) == sorted({*RECORDED_CASES, *unparsable})


def test_benign_draft_is_runnable_as_sent() -> None:
    parsed = parse_model_draft(recorded("benign.json"), REGISTRY)
    assert parsed == ModelDraft(parse_draft(recorded("benign.json")), DraftReport(), True)
    assert parsed.draft is not None
    assert parsed.draft.origin == "model"
    assert parsed.draft.ignored == ()
    assert parsed.draft.require_approval is True


def test_progress_claims_leave_no_trace_in_the_draft() -> None:
    parsed = parse_model_draft(recorded("claims_progress.json"), REGISTRY)
    assert parsed.draft is not None
    wire = parsed.draft.to_wire()
    assert [sorted(s) for s in wire["steps"]] == [
        [
            "capability",
            "depends_on",
            "key",
            "kind",
            "max_attempts",
            "params",
            "require_approval",
            "title",
        ],
        [
            "capability",
            "depends_on",
            "expectation",
            "key",
            "kind",
            "max_attempts",
            "params",
            "require_approval",
            "target",
            "title",
        ],
        ["depends_on", "key", "kind", "max_attempts", "require_approval", "title", "verify"],
    ]


def test_a_model_may_ask_for_approval_but_never_waive_it() -> None:
    parsed = parse_model_draft(recorded("waives_approval.json"), REGISTRY)
    assert parsed.draft is not None
    assert parsed.draft.require_approval is False
    assert [s.require_approval for s in parsed.draft.steps] == [True, False, False]
    asked = parse_model_draft(model_valid_draft(require_approval=True), REGISTRY)
    assert asked.draft is not None
    assert asked.draft.require_approval is True
    assert asked.report == DraftReport()


@pytest.mark.parametrize(
    ("document", "path", "step_key", "message"),
    [
        (
            model_valid_draft(require_approval="no"),
            "/require_approval",
            None,
            "not a plan draft: Input should be a valid boolean",
        ),
        (
            model_valid_draft(steps=[wait_step(require_approval=0)]),
            "/steps/0/require_approval",
            "wait",
            "not a plan draft: Input should be a valid boolean",
        ),
    ],
)
def test_non_boolean_require_approval_is_left_for_the_schema(
    document: dict[str, Any], path: str, step_key: str | None, message: str
) -> None:
    problem = DraftProblem("draft.schema", step_key, path, message)
    assert parse_model_draft(document, REGISTRY) == ModelDraft(
        None, DraftReport((problem,)), runnable=False
    )


def test_grant_step_of_an_unknown_kind_is_refused() -> None:
    parsed = parse_model_draft(recorded("grants.json"), REGISTRY)
    assert [(p.code, p.step, p.path) for p in parsed.report.problems] == [
        ("draft.unknown_kind", "grant_write", "/steps/0/kind"),
    ]


def test_unregistered_capability_is_refused_not_stripped() -> None:
    parsed = parse_model_draft(recorded("unregistered_capability.json"), REGISTRY)
    assert parsed.draft is not None
    assert parsed.draft.steps[0].capability == "calendar.event.delete"
    assert [(p.code, p.step, p.path) for p in parsed.report.problems] == [
        ("draft.unknown_capability", "delete_old", "/steps/0/capability"),
    ]


REQUIRED = "'idempotency_key' is a required property"
NOT_AN_INSTANT = (
    r"'Thursday 10:00' does not match "
    r"'^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?Z$'"
)


def test_params_are_not_walked_but_checked_against_the_capability() -> None:
    parsed = parse_model_draft(recorded("params_invalid.json"), REGISTRY)
    assert parsed.draft is not None
    move = parsed.draft.step("move_review")
    assert move is not None
    assert move.params is not None
    assert move.params["approval_id"] == "appr-2f9c"
    assert [(p.code, p.step, p.path, p.message) for p in parsed.report.problems] == [
        ("draft.params_invalid", "move_review", "/steps/1/params", REQUIRED),
        (
            "draft.params_invalid",
            "move_review",
            "/steps/1/params/approval_id",
            "unknown member 'approval_id'",
        ),
        (
            "draft.params_invalid",
            "move_review",
            "/steps/1/params/notify_attendees",
            "unknown member 'notify_attendees'",
        ),
        ("draft.params_invalid", "move_review", "/steps/1/params/start", NOT_AN_INSTANT),
    ]


def test_cycle_is_refused() -> None:
    parsed = parse_model_draft(recorded("cycle.json"), REGISTRY)
    assert parsed.report.problems == (
        DraftProblem(
            "draft.cycle",
            "check_slot",
            "/steps/0/depends_on",
            "dependency cycle: check_slot -> verify_move -> move_review -> check_slot",
        ),
    )
    assert parsed.runnable is False


def test_checks_through_a_writing_capability_are_refused() -> None:
    parsed = parse_model_draft(recorded("writing_check.json"), REGISTRY)
    assert [(p.code, p.step, p.path) for p in parsed.report.problems] == [
        ("draft.check_not_read_only", "move_review", "/steps/1/precondition/check/capability"),
        ("draft.check_prompts", "move_review", "/steps/1/precondition/check/capability"),
        ("draft.check_not_read_only", "verify_move", "/steps/2/verify/check/capability"),
        ("draft.check_prompts", "verify_move", "/steps/2/verify/check/capability"),
    ]
    assert parsed.runnable is False


def test_free_form_check_value_is_not_walked() -> None:
    check = event_check(op="eq", value={"status": "completed", "grant": "all"})
    document = model_valid_draft()
    document["steps"][1] = verify_step(verify={**document["steps"][1]["verify"], "check": check})
    parsed = parse_model_draft(document, REGISTRY)
    assert parsed.draft is not None
    assert parsed.draft.ignored == ()
    assert parsed.draft.steps[1].verify is not None
    assert parsed.draft.steps[1].verify.check.value == {"status": "completed", "grant": "all"}


# --------------------------------------------------------------------------------------
# origin, ignored, pointers and sources
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("origin", "ignored"),
    [("operator", ("/origin",)), ("template", ("/origin",)), (7, ("/origin",)), ("model", ())],
)
def test_origin_is_forced_to_model(origin: object, ignored: tuple[str, ...]) -> None:
    parsed = parse_model_draft(valid_draft(origin=origin), REGISTRY)
    assert parsed.draft is not None
    assert parsed.draft.origin is Origin.MODEL
    assert parsed.report == DraftReport(ignored=ignored)


def test_missing_origin_is_set_without_being_listed() -> None:
    document = valid_draft()
    del document["origin"]
    parsed = parse_model_draft(document, REGISTRY)
    assert parsed.draft is not None
    assert parsed.draft.origin is Origin.MODEL
    assert parsed.report == DraftReport()
    assert parsed.runnable is True


def test_pointers_are_escaped_and_ordered_by_position() -> None:
    steps = [wait_step(key=f"w{i}", status="completed") for i in range(11)]
    parsed = parse_model_draft(model_valid_draft(steps=steps, **{"a/b~c": 1}), REGISTRY)
    assert parsed.report.ignored == (
        "/a~1b~0c",
        *(f"/steps/{i}/status" for i in range(11)),
    )
    assert parsed.runnable is True


def test_sources_agree_and_a_mapping_is_not_changed() -> None:
    document = json.loads(recorded("stored_plan_fields.json"))
    before = copy.deepcopy(document)
    from_mapping = parse_model_draft(document, REGISTRY)
    assert document == before
    assert from_mapping == parse_model_draft(recorded("stored_plan_fields.json"), REGISTRY)
    assert from_mapping == parse_model_draft(recorded("stored_plan_fields.json").decode(), REGISTRY)


# --------------------------------------------------------------------------------------
# Documents that are not drafts
# --------------------------------------------------------------------------------------


def test_non_object_raises_draft_error() -> None:
    with pytest.raises(DraftError) as caught:
        parse_model_draft(recorded("not_object.json"), REGISTRY)
    assert (caught.value.code, caught.value.path) == ("draft.schema", "")


def test_broken_json_raises_parse_error() -> None:
    with pytest.raises(ParseError) as caught:
        parse_model_draft(recorded("fenced.json"), REGISTRY)
    assert caught.value.code == "json.syntax"


def test_steps_not_a_list_is_kept_with_its_report() -> None:
    problem = DraftProblem(
        "draft.schema", None, "/steps", "not a plan draft: Input should be a valid array"
    )
    assert parse_model_draft(recorded("steps_not_list.json"), REGISTRY) == ModelDraft(
        None, DraftReport((problem,), ("/status",)), runnable=False
    )


def test_shape_error_inside_a_step_names_the_step() -> None:
    problem = DraftProblem(
        "draft.schema",
        "move_review",
        "/steps/1/expectation/confidence",
        "not a plan draft: Input should be a valid number",
    )
    assert parse_model_draft(recorded("step_shape_error.json"), REGISTRY) == ModelDraft(
        None, DraftReport((problem,), ("/steps/1/status",)), runnable=False
    )


# --------------------------------------------------------------------------------------
# Property: members outside the schema are always dropped, and only them
# --------------------------------------------------------------------------------------

JSON_VALUES = json_values(
    json_scalars(max_text=8, integers=st.integers(min_value=-(2**63), max_value=2**63)),
    keys=st.text(max_size=5),
    max_items=3,
    max_members=3,
    max_leaves=6,
)
NAMES = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=12)


def extra_members(fields: set[str]) -> st.SearchStrategy[dict[str, Any]]:
    return st.dictionaries(NAMES.filter(lambda n: n not in fields), JSON_VALUES, max_size=4)


def without_ignored(draft: PlanDraft | None) -> dict[str, Any]:
    assert draft is not None
    return {k: v for k, v in draft.to_wire().items() if k != "ignored"}


def escaped(name: str) -> str:
    return name.replace("~", "~0").replace("/", "~1")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    top=extra_members(set(PlanDraft.model_fields)),
    in_step=extra_members(set(StepSpec.model_fields)),
    position=st.integers(min_value=0, max_value=1),
)
def test_members_outside_the_schema_are_ignored(
    top: dict[str, Any], in_step: dict[str, Any], position: int
) -> None:
    baseline = parse_model_draft(model_valid_draft(), REGISTRY)
    document = model_valid_draft()
    document.update(top)
    document["steps"][position].update(in_step)
    parsed = parse_model_draft(json.dumps(document), REGISTRY)
    pointers = {f"/{escaped(n)}" for n in top} | {
        f"/steps/{position}/{escaped(n)}" for n in in_step
    }
    assert set(parsed.report.ignored) == pointers
    assert len(parsed.report.ignored) == len(pointers)
    assert parsed.draft is not None
    assert parsed.draft.ignored == parsed.report.ignored
    assert without_ignored(parsed.draft) == without_ignored(baseline.draft)
    assert parsed.report.problems == baseline.report.problems == ()


def test_step_builder_members_outside_the_schema_are_ignored() -> None:
    parsed = parse_model_draft(model_valid_draft(steps=[step(grant="all")]), REGISTRY)
    assert parsed.report == DraftReport(ignored=("/steps/0/grant",))


# --------------------------------------------------------------------------------------
# Every shape problem at once; ignored is the parser's alone
# --------------------------------------------------------------------------------------


def test_every_shape_problem_is_reported_at_once() -> None:
    document = model_valid_draft()
    document["steps"][0]["expectation"]["within_seconds"] = 10**9
    document["steps"][1]["verify"]["check"]["path"] = "a..b"
    document["steps"][1]["depends_on"] = ["create", "create"]
    parsed = parse_model_draft(document, REGISTRY)
    assert parsed.draft is None and parsed.runnable is False
    assert [(p.code, p.step, p.path) for p in parsed.report.problems] == [
        ("draft.schema", "create", "/steps/0/expectation/within_seconds"),
        ("draft.schema", "verify", "/steps/1/depends_on"),
        ("draft.schema", "verify", "/steps/1/verify/check/path"),
    ]
    with pytest.raises(DraftError) as caught:
        parse_draft(document)
    assert caught.value.problems == parsed.report.problems
    first = caught.value.problems[0]
    assert (caught.value.path, caught.value.message) == (first.path, first.message)


def test_ignored_is_set_by_the_model_parser_only() -> None:
    parsed = parse_model_draft(model_valid_draft(ignored=["/x"], status="done"), REGISTRY)
    assert parsed.draft is not None
    assert parsed.draft.ignored == parsed.report.ignored == ("/ignored", "/status")
    assert parsed.runnable is True
    with pytest.raises(DraftError) as caught:
        parse_draft(parsed.draft.to_wire())
    assert (caught.value.code, caught.value.path) == ("draft.schema", "/ignored")
    assert "filled only by parse_model_draft" in caught.value.message
