"""Malformed and unplannable requests, one table row each (cpir-0.2.md 1, 4, 5, 12; planner.md 2).

Every row starts from a deep copy of ``examples/design-review.json`` and applies small,
named mutations. A row expects exactly one of:

* :class:`Rejected`: ``parse_request`` raises ``ParseError`` with this ``code`` and ``path``;
* :class:`Parsed`: the request parses and ``validate()`` reports exactly these issues (and
  ``plan()`` reports ``plan_issues``, which default to the same list).

No other exception may escape for any row.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import cerebri
from cerebri import ParseError, PlanningRequest

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "design-review.json"
BASE: dict[str, Any] = json.loads(EXAMPLE.read_text(encoding="utf-8"))

LIMITS = cerebri.PlannerLimits()
MAX_NESTING = 128

Doc = dict[str, Any]
Change = Callable[[Doc], None]
Source = Doc | str | bytes
Builder = Callable[[], Source]

# Pointers into the base document that the rows below mutate.
STANDUP = "/context/objects/1"
STANDUP_TIME = f"{STANDUP}/time"
STANDUP_KNOWLEDGE = f"{STANDUP_TIME}/value/knowledge"
STANDUP_RANGE = f"{STANDUP_KNOWLEDGE}/data"
DURATION_DATA = "/duration/value/knowledge/data"
TIME_RANGE = "/scope/time_range"
PREFERENCE_EVIDENCE = "/preferences/preferences/0/evidence"
SENTINEL = "__cerebri_test_sentinel__"


# --------------------------------------------------------------------------- helpers


def base_doc() -> Doc:
    """A fresh deep copy of the example request."""
    return copy.deepcopy(BASE)


def _steps(pointer: str) -> list[str | int]:
    steps: list[str | int] = []
    for raw in pointer.split("/")[1:]:
        token = raw.replace("~1", "/").replace("~0", "~")
        steps.append(int(token) if token.isdigit() else token)
    return steps


def at(doc: Any, pointer: str) -> Any:
    """The value at an RFC 6901 pointer."""
    node = doc
    for step in _steps(pointer):
        node = node[step]
    return node


def _parent(doc: Doc, pointer: str) -> tuple[Any, str | int]:
    steps = _steps(pointer)
    return at(doc, "".join(f"/{s}" for s in steps[:-1])), steps[-1]


def put(pointer: str, value: Any) -> Change:
    """Set (or add) the value at ``pointer``."""

    def change(doc: Doc) -> None:
        parent, last = _parent(doc, pointer)
        parent[last] = copy.deepcopy(value)

    return change


def drop(pointer: str) -> Change:
    """Remove the member or element at ``pointer``."""

    def change(doc: Doc) -> None:
        parent, last = _parent(doc, pointer)
        del parent[last]

    return change


def extra(pointer: str, key: str = "unexpected") -> Change:
    """Add an unknown key ``key`` (value 1) to the object at ``pointer``."""
    return put(f"{pointer}/{key}", 1)


def edit(*changes: Change) -> Builder:
    """A builder: the base document with ``changes`` applied in order."""

    def build() -> Doc:
        doc = base_doc()
        for change in changes:
            change(doc)
        return doc

    return build


def raw_value(pointer: str, raw: str, *changes: Change) -> Builder:
    """JSON text of the edited base with the value at ``pointer`` replaced by ``raw``."""

    def build() -> str:
        doc = edit(*changes, put(pointer, SENTINEL))()
        text = json.dumps(doc, indent=2)
        assert text.count(f'"{SENTINEL}"') == 1
        return text.replace(f'"{SENTINEL}"', raw)

    return build


def duplicate_member(pointer: str, key: str) -> Builder:
    """JSON text of the base where the object at ``pointer`` repeats its member ``key``."""

    def build() -> str:
        doc = base_doc()
        target = at(doc, pointer)
        assert key in target
        target[SENTINEL] = None
        member = f"{json.dumps(key)}: {json.dumps(target[key])}"
        text = json.dumps(doc, indent=2)
        assert text.count(f'"{SENTINEL}": null') == 1
        return text.replace(f'"{SENTINEL}": null', member)

    return build


def text_of(build: Callable[[str], str | bytes]) -> Builder:
    """A builder deriving raw text from the pretty JSON text of the base document."""
    return lambda: build(json.dumps(base_doc(), indent=2))


def nested_lists(levels: int) -> list[Any]:
    """``levels`` nested arrays: 1 → ``[]``, 2 → ``[[]]``."""
    value: list[Any] = []
    for _ in range(levels - 1):
        value = [value]
    return value


def nesting_depth(value: Any) -> int:
    """Levels of arrays/objects; the outermost container is level 1, a scalar is 0."""
    if isinstance(value, dict):
        return 1 + max((nesting_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((nesting_depth(v) for v in value), default=0)
    return 0


# Size padding for the admission limits (planner.md 2.3 step 5). Padding objects are copies
# of the existing "standup" event with new ids; facts restate its known time; constraints are
# NO_OVERLAP rules on the target. None of them adds a validation issue on its own.


def pad_objects(total: int) -> Change:
    def change(doc: Doc) -> None:
        objects = doc["context"]["objects"]
        template = at(doc, STANDUP)
        for i in range(total - len(objects)):
            objects.append({**copy.deepcopy(template), "id": f"pad-{i:04d}"})
        assert len(objects) == total

    return change


def pad_facts(total: int) -> Change:
    def change(doc: Doc) -> None:
        known = at(doc, STANDUP_RANGE)
        facts = doc["context"]["facts"]
        for i in range(total - len(facts)):
            facts.append(
                {
                    "id": f"fact-{i:04d}",
                    "object_id": "standup",
                    "value": {"kind": "SCHEDULED_TIME", "value": dict(known)},
                    "provenance": "INTEGRATION_FACT",
                }
            )
        assert len(facts) == total

    return change


def pad_constraints(total: int) -> Change:
    def change(doc: Doc) -> None:
        constraints = doc["constraints"]
        while len(constraints) < total:
            constraints.append(
                {"object_id": "design-review", "rule": {"kind": "NO_OVERLAP"}, "evidence": []}
            )
        assert len(constraints) == total

    return change


def candidates(count: int) -> Change:
    return put("/budget/max_candidates", count)


def compact_size(doc: Doc) -> int:
    """Bytes of the compact serialisation (the basis of the size admission limits)."""
    return len(json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))


def work_units(doc: Doc) -> int:
    objects = len(doc["context"]["objects"])
    facts = len(doc["context"]["facts"])
    constraints = len(doc["constraints"])
    return doc["budget"]["max_candidates"] * (objects + 1) * (constraints + facts + objects + 1)


def exceeded_limits(doc: Doc) -> set[str]:
    """Names of the size/cardinality/work admission limits that ``doc`` breaks."""
    size = compact_size(doc)
    checks = {
        "request_bytes": size > LIMITS.max_request_bytes,
        "request_work_bytes": size * doc["budget"]["max_candidates"]
        > LIMITS.max_request_work_bytes,
        "objects": len(doc["context"]["objects"]) > LIMITS.max_objects,
        "facts": len(doc["context"]["facts"]) > LIMITS.max_facts,
        "constraints": len(doc["constraints"]) > LIMITS.max_constraints,
        "max_candidates": doc["budget"]["max_candidates"] > LIMITS.max_candidates,
        "work_units": work_units(doc) > LIMITS.max_work_units,
    }
    return {name for name, broken in checks.items() if broken}


# --------------------------------------------------------------------------- expectations


@dataclass(frozen=True)
class Rejected:
    """``parse_request`` raises ``ParseError`` with exactly this code and path."""

    code: str
    path: str | None


@dataclass(frozen=True)
class Parsed:
    """The request parses; ``validate()`` gives exactly ``issues``, ``plan()`` ``plan_issues``.

    ``over`` names the admission limits the document is built to break (checked separately,
    so the limit rows prove their own arithmetic). ``check`` inspects the parsed request.
    """

    issues: list[Any]
    plan_issues: list[Any] | None = None
    over: frozenset[str] | None = None
    check: Callable[[PlanningRequest], None] | None = None


def unknown_field(pointer: str, case_id: str, key: str = "unexpected") -> Any:
    """A case: the base document with an unknown member ``key`` added to the object at
    ``pointer`` is rejected as ``cpir.unknown_field`` at ``pointer/key``."""
    return pytest.param(
        edit(extra(pointer, key)), Rejected("cpir.unknown_field", f"{pointer}/{key}"), id=case_id
    )


def over_and_at(over: str, limit: int, changes: Callable[[int], tuple[Change, ...]]) -> list[Any]:
    """Two cases of an admission limit (planner.md 2.3 step 5): the base document with
    ``changes(limit + 1)`` is ``InputLimit`` with ``over`` exceeded, id ``OVER-<limit + 1>``;
    with ``changes(limit)`` it passes, id ``OVER-<limit>`` (``_`` in ``over`` written ``-``)."""
    tag = over.replace("_", "-")
    return [
        pytest.param(
            edit(*changes(limit + 1)),
            Parsed(["InputLimit"], over=frozenset({over})),
            id=f"{tag}-{limit + 1}",
        ),
        pytest.param(edit(*changes(limit)), Parsed([], over=NO_LIMIT), id=f"{tag}-{limit}"),
    ]


def _standup_range_is(start: str, end: str) -> Callable[[PlanningRequest], None]:
    def check(request: PlanningRequest) -> None:
        standup = next(o for o in request.context.objects if o.id == "standup")
        data = standup.time.value.knowledge.data  # type: ignore[union-attr]
        assert (data.start.format(), data.end.format()) == (start, end)

    return check


NO_LIMIT: frozenset[str] = frozenset()

# Sizes for the admission rows, chosen so that exactly the named limit is broken (the
# arithmetic is asserted by test_limit_rows_break_exactly_the_intended_limit).
OBJECT_ROW_CANDIDATES = 14  # 14 × 258 × 261 = 942 732 ≤ 1 000 000 with 257 objects
FACT_ROW_CANDIDATES = 50  # 50 × 6 × 1 034 = 310 200 with 1 025 facts
CONSTRAINT_ROW_CANDIDATES = 100  # 100 × 6 × 1 031 = 618 600 with 1 025 constraints
# Work units exactly at the limit: 1 000 × (24 + 1) × (15 + 0 + 24 + 1) = 1 000 000.
WORK_ROW = (pad_objects(24), pad_constraints(15))


CASES = [
    # ---- unknown keys in strict records (cpir-0.2.md 1.2) -> cpir.unknown_field
    unknown_field("", "unknown-root"),
    unknown_field("/scope", "unknown-scope"),
    unknown_field("/scope", "unknown-scope-typo", key="max_mutations_typo"),
    unknown_field("/context", "unknown-context"),
    unknown_field(STANDUP, "unknown-object"),
    unknown_field(STANDUP_TIME, "unknown-object-time-evidence-field"),
    unknown_field(STANDUP_KNOWLEDGE, "unknown-time-knowledge-wrapper"),
    unknown_field("/duration", "unknown-duration"),
    unknown_field("/constraints/0", "unknown-constraint"),
    unknown_field("/constraints/1/rule", "unknown-constraint-rule"),
    unknown_field("/preferences/preferences/0", "unknown-preference-entry"),
    unknown_field("/policy", "unknown-policy"),
    unknown_field("/policy/snapshot", "unknown-policy-snapshot"),
    unknown_field("/planning_capability/mutations/0", "unknown-capability-grant"),
    unknown_field("/budget", "unknown-budget"),
    unknown_field(TIME_RANGE, "unknown-time-range"),
    # ---- missing required fields
    pytest.param(
        edit(drop("/budget")), Rejected("cpir.missing_field", "/budget"), id="missing-budget"
    ),
    pytest.param(
        edit(drop("/duration/evidence")),
        Rejected("cpir.missing_field", "/duration/evidence"),
        id="missing-duration-evidence",
    ),
    # ---- strict JSON (cpir-0.2.md 1.1)
    pytest.param(
        duplicate_member("", "request_id"),
        Rejected("json.duplicate_key", None),
        id="duplicate-key-root",
    ),
    pytest.param(
        duplicate_member("/scope", "max_mutations"),
        Rejected("json.duplicate_key", None),
        id="duplicate-key-nested",
    ),
    pytest.param(
        raw_value("/granularity", "NaN"), Rejected("json.non_finite_number", None), id="nan"
    ),
    pytest.param(
        raw_value("/granularity", "Infinity"),
        Rejected("json.non_finite_number", None),
        id="infinity",
    ),
    pytest.param(
        raw_value("/granularity", "-Infinity"),
        Rejected("json.non_finite_number", None),
        id="minus-infinity",
    ),
    pytest.param(
        raw_value("/duration/confidence", "1e400"),
        Rejected("json.non_finite_number", None),
        id="number-overflows-double",
    ),
    pytest.param(
        edit(put("/duration/confidence", float("nan"))),
        Rejected("json.non_finite_number", None),
        id="nan-in-decoded-mapping",
    ),
    pytest.param(
        edit(put(PREFERENCE_EVIDENCE, nested_lists(MAX_NESTING + 1 - 4))),
        Rejected("json.too_deep", PREFERENCE_EVIDENCE + "/0" * (MAX_NESTING + 1 - 5)),
        id="nesting-129-levels",
    ),
    pytest.param(
        lambda: json.dumps([base_doc()]), Rejected("json.not_object", ""), id="top-level-array"
    ),
    pytest.param(lambda: "", Rejected("json.syntax", None), id="empty-text"),
    pytest.param(lambda: b"", Rejected("json.syntax", None), id="empty-bytes"),
    pytest.param(
        text_of(lambda text: text[: len(text) // 2]), Rejected("json.syntax", None), id="truncated"
    ),
    pytest.param(
        text_of(lambda text: text.encode("utf-8").replace(b'"alex"', b'"al\xffex"')),
        Rejected("json.syntax", None),
        id="bytes-not-utf8",
    ),
    # ---- enum spellings (cpir-0.2.md 1.4, 5.1)
    pytest.param(
        edit(put("/operation", "create")),
        Rejected("cpir.invalid_enum", "/operation"),
        id="operation-lowercase",
    ),
    pytest.param(
        edit(put(f"{STANDUP_KNOWLEDGE}/state", "known")),
        Rejected("cpir.invalid_enum", STANDUP_KNOWLEDGE),
        id="knowledge-state-lowercase",
    ),
    pytest.param(
        edit(put("/policy/snapshot/mode", "test")),
        Rejected("cpir.invalid_enum", "/policy/snapshot/mode"),
        id="mode-lowercase",
    ),
    pytest.param(
        edit(put("/constraints/0/rule", {"kind": "no_overlap"})),
        Rejected("cpir.invalid_enum", "/constraints/0/rule"),
        id="rule-kind-lowercase",
    ),
    pytest.param(
        edit(put("/operation", "EXECUTE")),
        Rejected("cpir.invalid_enum", "/operation"),
        id="operation-execute",
    ),
    # ---- time ranges (cpir-0.2.md 1.6: start < end while parsing)
    pytest.param(
        edit(put(f"{TIME_RANGE}/end", "2026-10-05T07:00:00Z")),
        Rejected("cpir.invalid_value", TIME_RANGE),
        id="scope-range-start-equals-end",
    ),
    pytest.param(
        edit(put(f"{TIME_RANGE}/end", "2026-10-05T06:59:59Z")),
        Rejected("cpir.invalid_value", TIME_RANGE),
        id="scope-range-start-after-end",
    ),
    pytest.param(
        edit(put(f"{STANDUP_RANGE}/end", "2026-10-05T07:30:00Z")),
        Rejected("cpir.invalid_value", STANDUP_RANGE),
        id="known-time-start-equals-end",
    ),
    pytest.param(
        edit(put(f"{STANDUP_RANGE}/end", "2026-10-05T07:00:00Z")),
        Rejected("cpir.invalid_value", STANDUP_RANGE),
        id="known-time-start-after-end",
    ),
    # ---- durations (cpir-0.2.md 1.6)
    pytest.param(
        edit(put(DURATION_DATA, 0)),
        Rejected("cpir.invalid_value", DURATION_DATA),
        id="duration-zero",
    ),
    pytest.param(
        edit(put(DURATION_DATA, -5)),
        Rejected("cpir.invalid_value", DURATION_DATA),
        id="duration-negative",
    ),
    pytest.param(
        edit(put(DURATION_DATA, 1.5)),
        Rejected("cpir.invalid_value", DURATION_DATA),
        id="duration-fraction",
    ),
    pytest.param(
        edit(put(DURATION_DATA, "1800")),
        Rejected("cpir.invalid_value", DURATION_DATA),
        id="duration-string",
    ),
    pytest.param(
        edit(put(DURATION_DATA, True)),
        Rejected("cpir.invalid_value", DURATION_DATA),
        id="duration-bool",
    ),
    pytest.param(
        edit(put(DURATION_DATA, 9_223_372_036_854_776)),
        Rejected("cpir.invalid_value", DURATION_DATA),
        id="duration-one-over-max",
    ),
    pytest.param(edit(put(DURATION_DATA, 9_223_372_036_854_775)), Parsed([]), id="duration-at-max"),
    pytest.param(
        edit(put("/granularity", 0)),
        Rejected("cpir.invalid_value", "/granularity"),
        id="granularity-zero",
    ),
    pytest.param(
        edit(put("/granularity", -900)),
        Rejected("cpir.invalid_value", "/granularity"),
        id="granularity-negative",
    ),
    # ---- confidence (cpir-0.2.md 1.6: finite, within [0, 1])
    pytest.param(
        edit(put("/duration/confidence", 1.5)),
        Rejected("cpir.invalid_value", "/duration/confidence"),
        id="confidence-above-one",
    ),
    pytest.param(
        edit(put("/duration/confidence", -0.1)),
        Rejected("cpir.invalid_value", "/duration/confidence"),
        id="confidence-negative",
    ),
    # ---- instants (cpir-0.2.md 1.6: any offset accepted and converted to UTC)
    pytest.param(
        edit(
            put(f"{STANDUP_RANGE}/start", "2026-10-05T09:30:00+02:00"),
            put(f"{STANDUP_RANGE}/end", "2026-10-05T03:45:00-04:00"),
        ),
        Parsed([], check=_standup_range_is("2026-10-05T07:30:00Z", "2026-10-05T07:45:00Z")),
        id="instant-with-offset-converted",
    ),
    pytest.param(
        edit(put(f"{STANDUP_RANGE}/start", "2026-13-01T00:00:00Z")),
        Rejected("cpir.invalid_value", f"{STANDUP_RANGE}/start"),
        id="instant-month-13",
    ),
    pytest.param(
        edit(put(f"{TIME_RANGE}/start", "2026-10-01T10:00:00")),
        Rejected("cpir.invalid_value", f"{TIME_RANGE}/start"),
        id="instant-without-offset",
    ),
    # ---- time zones (cpir-0.2.md 1.6: exact IANA name, case-sensitive)
    pytest.param(
        edit(put(f"{STANDUP}/timezone", "Mars/Olympus")),
        Rejected("cpir.invalid_value", f"{STANDUP}/timezone"),
        id="timezone-unknown",
    ),
    pytest.param(
        edit(put(f"{STANDUP}/timezone", "europe/berlin")),
        Rejected("cpir.invalid_value", f"{STANDUP}/timezone"),
        id="timezone-wrong-case",
    ),
    # ---- identifiers (cpir-0.2.md 1.6: 1..128 of [A-Za-z0-9._-])
    pytest.param(
        edit(put("/request_id", "design review")),
        Rejected("cpir.invalid_value", "/request_id"),
        id="identifier-with-space",
    ),
    pytest.param(
        edit(put("/request_id", "r" * 129)),
        Rejected("cpir.invalid_value", "/request_id"),
        id="identifier-129-chars",
    ),
    pytest.param(edit(put("/request_id", "r" * 128)), Parsed([]), id="identifier-128-chars"),
    pytest.param(
        edit(put("/request_id", "")),
        Rejected("cpir.invalid_value", "/request_id"),
        id="identifier-empty",
    ),
    # ---- parse, then validation issues (cpir-0.2.md 4, 5; planner.md 2.2)
    pytest.param(
        edit(put("/schema_version/minor", 3)), Parsed(["UnsupportedSchema"]), id="schema-0.3"
    ),
    # OPTIMIZE is answered by the batch optimiser, which needs its batch member (decision
    # 0070); the reference planner alone still calls it unsupported
    pytest.param(
        edit(put("/operation", "OPTIMIZE")),
        Parsed([{"BatchRequired": "OPTIMIZE"}]),
        id="operation-optimize",
    ),
    # UPDATE and CANCEL are planned (decision 0049): on the example's prospective target
    # they are an invalid target state, and its CREATE_EVENT grant does not cover them
    pytest.param(
        edit(put("/operation", "UPDATE")),
        Parsed(
            [
                {"InvalidTargetState": "design-review"},
                {"MissingPlanningCapability": "design-review"},
                {"PolicyDenied": "design-review"},
            ]
        ),
        id="operation-update-prospective",
    ),
    pytest.param(
        edit(put("/operation", "CANCEL")),
        Parsed(
            [
                {"InvalidTargetState": "design-review"},
                {"MissingPlanningCapability": "design-review"},
                {"PolicyDenied": "design-review"},
            ]
        ),
        id="operation-cancel-prospective",
    ),
    pytest.param(
        edit(put("/budget/max_depth", 1)), Parsed(["UnsupportedSearchBudget"]), id="max-depth-1"
    ),
    pytest.param(
        edit(put("/target_ids", [])),
        # design-review is then a non-target EVENT whose time is MISSING (planner.md 2.3 step 8)
        Parsed(
            ["NoTargets", {"RequiredTime": {"object_id": "design-review", "reason": "Missing"}}]
        ),
        id="no-targets",
    ),
    pytest.param(
        edit(put("/target_ids", ["design-review", "design-review"])),
        Parsed([{"DuplicateTarget": "design-review"}]),
        id="duplicate-target",
    ),
    pytest.param(
        edit(put("/operation", "FIND_SLOT"), put("/target_ids", ["design-review", "standup"])),
        Parsed([], plan_issues=["UnsupportedTargetCount"]),
        id="two-targets-plan-only-issue",
    ),
    pytest.param(
        edit(put("/planning_capability/read", False)),
        # capability permits only with read and plan (cpir-0.2.md 11.2), so the mutating
        # target also lacks capability
        Parsed(["PlanningPermissionDenied", {"MissingPlanningCapability": "design-review"}]),
        id="read-false",
    ),
    # ---- admission limits, exactly one over and exactly at (planner.md 2.3 step 5)
    *over_and_at(
        "objects", LIMITS.max_objects, lambda n: (pad_objects(n), candidates(OBJECT_ROW_CANDIDATES))
    ),
    *over_and_at(
        "facts", LIMITS.max_facts, lambda n: (pad_facts(n), candidates(FACT_ROW_CANDIDATES))
    ),
    *over_and_at(
        "constraints",
        LIMITS.max_constraints,
        lambda n: (pad_constraints(n), candidates(CONSTRAINT_ROW_CANDIDATES)),
    ),
    *over_and_at("max_candidates", LIMITS.max_candidates, lambda n: (candidates(n),)),
    pytest.param(
        edit(*WORK_ROW, candidates(1001)),
        Parsed(["InputLimit"], over=frozenset({"work_units"})),
        id="work-units-1001000",
    ),
    pytest.param(
        edit(*WORK_ROW, candidates(1000)),
        Parsed([], over=NO_LIMIT),
        id="work-units-1000000",
    ),
    pytest.param(
        edit(
            pad_objects(LIMITS.max_objects + 1),
            candidates(OBJECT_ROW_CANDIDATES),
            put("/schema_version/minor", 3),
            put("/operation", "MOVE"),
            put("/planning_capability/plan", False),
        ),
        # the cardinality early exit discards the schema/target/permission issues (MOVE of
        # a prospective target is an InvalidTargetState)
        Parsed(["InputLimit"], over=frozenset({"objects"})),
        id="objects-257-discards-earlier-issues",
    ),
]


def _parse(source: Source) -> PlanningRequest:
    try:
        return cerebri.parse_request(source)
    except ParseError:
        raise
    except Exception as exc:  # the contract: nothing but ParseError escapes
        pytest.fail(f"parse_request raised {type(exc).__name__} (not ParseError): {exc}")


@pytest.mark.parametrize(("build", "expected"), CASES)
def test_bad_input(build: Builder, expected: Rejected | Parsed) -> None:
    source = build()
    if isinstance(expected, Rejected):
        with pytest.raises(ParseError) as caught:
            _parse(source)
        error = caught.value
        assert (error.code, error.path) == (expected.code, expected.path)
        assert expected.code in str(error)
        return

    request = _parse(source)
    if expected.check is not None:
        expected.check(request)
    try:
        report = cerebri.validate(request)
        result = cerebri.plan(request)
    except Exception as exc:  # a parsed request is always answered, never raised
        pytest.fail(f"planning a parsed request raised {type(exc).__name__}: {exc}")
    assert [issue.to_wire() for issue in report.issues] == expected.issues
    assert report.state == ("InsufficientInformation" if expected.issues else "Valid")
    plan_issues = expected.issues if expected.plan_issues is None else expected.plan_issues
    assert [issue.to_wire() for issue in result.validation.issues] == plan_issues
    wire = result.to_wire()
    if plan_issues:
        assert (wire["outcome"], wire["search_space"]["evaluated"]) == (
            "InsufficientInformation",
            0,
        )
        assert (wire["candidates"], wire["conflicts"]["rejections"]) == ([], [])
    else:
        assert wire["outcome"] != "InsufficientInformation"


LIMIT_CASES = [
    case for case in CASES if isinstance(case.values[1], Parsed) and case.values[1].over is not None
]


@pytest.mark.parametrize(("build", "expected"), LIMIT_CASES)
def test_limit_rows_break_exactly_the_intended_limit(build: Builder, expected: Parsed) -> None:
    doc = build()
    assert isinstance(doc, dict)
    assert exceeded_limits(doc) == expected.over
    # the canonical re-serialisation the planner measures is this compact text
    assert len(cerebri.parse_request(doc).model_dump_json().encode("utf-8")) == compact_size(doc)


def test_work_row_arithmetic() -> None:
    at_limit = edit(*WORK_ROW, candidates(1000))()
    over = edit(*WORK_ROW, candidates(1001))()
    assert work_units(at_limit) == 1_000 * 25 * 40 == LIMITS.max_work_units
    assert work_units(over) == 1_001_000
    assert work_units(edit(pad_objects(257), candidates(OBJECT_ROW_CANDIDATES))()) == 942_732
    assert work_units(edit(pad_facts(1025), candidates(FACT_ROW_CANDIDATES))()) == 310_200
    assert (
        work_units(edit(pad_constraints(1025), candidates(CONSTRAINT_ROW_CANDIDATES))()) == 618_600
    )
    assert work_units(edit(candidates(4097))()) == 4097 * 6 * 9


def test_nesting_row_is_129_levels_deep() -> None:
    doc = edit(put(PREFERENCE_EVIDENCE, nested_lists(MAX_NESTING + 1 - 4)))()
    assert nesting_depth(doc) == MAX_NESTING + 1
    # the pointer of the first node past the limit addresses a real (empty) array
    assert at(doc, PREFERENCE_EVIDENCE + "/0" * (MAX_NESTING + 1 - 5)) == []


def test_table_is_large_enough() -> None:
    assert len(CASES) >= 35
    ids = [case.id for case in CASES]
    assert len(ids) == len(set(ids))


def test_base_example_is_valid() -> None:
    """The rows are meaningful only because the unmutated example is clean."""
    report = cerebri.validate(edit()())
    assert (report.state, list(report.issues)) == ("Valid", [])
    assert exceeded_limits(base_doc()) == set()


# ------------------------------------------------------------------ known defects (src/)


@pytest.mark.parametrize("digits", [65, 5000])
def test_huge_integer_literal_is_a_parse_error(digits: int) -> None:
    text = raw_value("/context/revision", "9" * digits)()
    with pytest.raises(ParseError) as caught:
        _parse(text)
    assert caught.value.code == "json.number_out_of_range"


def test_huge_integer_in_a_mapping_is_a_parse_error() -> None:
    document = base_doc()
    document["context"]["revision"] = 10**5000
    with pytest.raises(ParseError) as caught:
        cerebri.parse_request(document)
    assert caught.value.code == "json.number_out_of_range"


def test_twenty_digit_integer_is_range_checked_not_length_checked() -> None:
    text = raw_value("/context/revision", str(2**64))()  # u64 max + 1: parses, out of range
    with pytest.raises(ParseError) as caught:
        _parse(text)
    assert (caught.value.code, caught.value.path) == ("cpir.invalid_value", "/context/revision")


def test_lone_surrogate_is_a_json_error_with_its_path() -> None:
    text = raw_value("/request_id", r'"ab\ud800"')()
    assert "\\ud800" in text
    with pytest.raises(ParseError) as caught:
        _parse(text)
    assert (caught.value.code, caught.value.path) == ("json.syntax", "/request_id")


def test_utf8_byte_order_mark_is_rejected() -> None:
    data = b"\xef\xbb\xbf" + json.dumps(base_doc()).encode("utf-8")
    with pytest.raises(ParseError) as caught:
        cerebri.parse_request(data)
    assert caught.value.code == "json.syntax"


@pytest.mark.parametrize("encoding", ["utf-16", "utf-32"])
def test_non_utf8_encodings_are_rejected(encoding: str) -> None:
    data = json.dumps(base_doc()).encode(encoding)
    with pytest.raises(ParseError) as caught:
        cerebri.parse_request(data)
    assert caught.value.code == "json.syntax"
