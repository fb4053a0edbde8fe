"""JSON Schemas (draft 2020-12, OpenAPI 3.1) of the CPIR answers, as named components.

:func:`component_schemas` is what the HTTP service puts in its OpenAPI document's
``components.schemas`` and what the MCP server's output schemas are cut from: the request
schemas (:func:`~cerebri.cpir.request_json_schema`, :func:`~cerebri.cpir.temporal_json_schema`,
their ``$defs`` as ``Cpir*`` and ``Temporal*`` components), a caller's own components, then
the result schemas below.

The results, the core routes' 200 bodies:

``ValidationReport`` (``/v1/validate``), ``PlanningResult`` (``/v1/plan``) and
``TemporalResult`` (``/v1/temporal``), as written by the ``to_wire()`` encoders
(planner.md 2.1, 2.2, 3.2, 3.4, 4, 6, 7, 8, 8.1; temporal.md 2.2), with cerebri's
change-operation tags (docs/decisions/0049-cpir-change-operations.md). Fixed-key objects forbid
extra keys; externally tagged variants are a ``oneOf`` of a string enum (unit variants) and
one-key objects (payload variants). The schemas are merged into ``components.schemas`` and
``$ref`` the CPIR request components for what the planner echoes from the request (hard
constraint rules, temporal series, provenance, operation, preference source).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cerebri.cpir.schema import request_json_schema, temporal_json_schema

__all__ = [
    "PLANNING_REQUEST_REF",
    "PLANNING_RESULT_REF",
    "TEMPORAL_REQUEST_REF",
    "TEMPORAL_RESULT_REF",
    "VALIDATION_REPORT_REF",
    "component_schemas",
    "response_schemas",
]

_PREFIX = "#/components/schemas/"
VALIDATION_REPORT_REF = _PREFIX + "ValidationReport"
PLANNING_RESULT_REF = _PREFIX + "PlanningResult"
TEMPORAL_RESULT_REF = _PREFIX + "TemporalResult"
PLANNING_REQUEST_REF = _PREFIX + "PlanningRequest"
TEMPORAL_REQUEST_REF = _PREFIX + "TemporalRequest"


Schema = dict[str, Any]


def _ref(name: str) -> Schema:
    return {"$ref": _PREFIX + name}


def _object(properties: dict[str, Schema]) -> Schema:
    """A fixed-key object: every key required, no other key allowed."""
    return {
        "type": "object",
        "additionalProperties": False,
        "required": list(properties),
        "properties": properties,
    }


def _array(items: Schema) -> Schema:
    return {"type": "array", "items": items}


def _enum(*values: str) -> Schema:
    return {"type": "string", "enum": list(values)}


def _tagged(units: tuple[str, ...], payloads: dict[str, Schema]) -> Schema:
    """Externally tagged variants: a bare name, or ``{name: payload}``."""
    variants: list[Schema] = []
    if units:
        variants.append(_enum(*units))
    variants.extend(_object({name: payload}) for name, payload in payloads.items())
    return {"oneOf": variants}


_ID: Schema = {"type": "string", "minLength": 1}
_SECONDS: Schema = {"type": "integer", "minimum": 0}
_COUNT: Schema = {"type": "integer", "minimum": 0}
_INSTANT: Schema = {
    "type": "string",
    "description": "RFC 3339 instant in UTC with Z (years outside 0-9999 carry a sign).",
    "pattern": r"^([0-9]{4}|[+-][0-9]{4,})-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}"
    r"(\.[0-9]{1,9})?Z$",
}
_DATE: Schema = {"type": "string", "pattern": r"^([0-9]{4}|[+-][0-9]{4,})-[0-9]{2}-[0-9]{2}$"}
_LOCAL_TIME: Schema = {"type": "string", "pattern": r"^[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,9})?$"}
_REVISION: Schema = {"type": "integer", "minimum": 0}
_NULLABLE_ID: Schema = {"oneOf": [_ID, {"type": "null"}]}

_TEMPORAL_ERRORS = (
    "InvalidRange",
    "InvalidDuration",
    "Overflow",
    "AmbiguousLocalTime",
    "NonexistentLocalTime",
    "InvalidRecurrence",
    "InputLimit",
    "OccurrenceLimitExceeded",
    "DateLimitExceeded",
)
_REQUIRED_FIELD_ERRORS = ("Missing", "Unknown", "Uncertain", "Ambiguous", "Unresolved")


def _temporal() -> dict[str, Schema]:
    range_ref = _ref("UtcRange")
    return {
        "UtcRange": _object({"start": _INSTANT, "end": _INSTANT}),
        "FreeBusyReport": _object(
            {
                "horizon": range_ref,
                "coverage": _enum("Complete", "Incomplete"),
                "busy": _array(range_ref),
                "free": _array(range_ref),
                "unknown": _array(range_ref),
                "trace": _array(
                    _object(
                        {
                            "input_index": _COUNT,
                            "original": range_ref,
                            "buffered": range_ref,
                            "clipped": {"oneOf": [range_ref, {"type": "null"}]},
                        }
                    )
                ),
            }
        ),
        "ExpandedOccurrence": _object(
            {
                "sequence": {"type": "integer", "minimum": 1},
                "date": _DATE,
                "local_time": _LOCAL_TIME,
                "range": range_ref,
                "visible_range": range_ref,
                "resolution": _enum("Unique", "EarlierFold", "LaterFold"),
            }
        ),
        "ExpansionReport": _object(
            {
                "horizon": range_ref,
                "timezone": {"type": "string", "minLength": 1},
                "occurrences": _array(_ref("ExpandedOccurrence")),
                "skipped": _array(
                    _object(
                        {
                            "sequence": {"type": "integer", "minimum": 1},
                            "date": _DATE,
                            "reason": _enum("NonexistentLocalTime"),
                        }
                    )
                ),
                "examined_dates": _COUNT,
            }
        ),
        "TemporalResult": {
            "oneOf": [
                _object(
                    {
                        "status": {"const": "Complete"},
                        "data": _object(
                            {
                                "availability": _ref("FreeBusyReport"),
                                "expansions": _array(_ref("ExpansionReport")),
                            }
                        ),
                    }
                ),
                _object(
                    {
                        "status": {"const": "Rejected"},
                        "data": _enum(
                            "Overflow",
                            "AmbiguousLocalTime",
                            "NonexistentLocalTime",
                            "InputLimit",
                            "OccurrenceLimitExceeded",
                            "DateLimitExceeded",
                        ),
                    }
                ),
            ]
        },
    }


_CHANGE_FIELDS = ("scope", "recurrence_id", "etag", "sequence", "attendees", "previous_attendees")
"""The ``change`` fields an ``InvalidChange`` issue names (decisions 0049, 0061)."""

_BATCH_FIELDS = (
    "meeting",
    "target",
    "person",
    "room",
    "attendees",
    "duration",
    "window",
    "after",
    "not_same_day_as",
    "travel",
    "time",
    "movable",
    "preferred_start",
    "dependency",
)
"""What an ``InvalidBatch`` issue names (decision 0070)."""

_CONSTRAINT_KINDS = (
    "NO_OVERLAP",
    "EXPLICIT_TIME",
    "EXPLICIT_DATE",
    "EARLIEST_START",
    "LATEST_END",
    "DEADLINE",
    "MIN_DURATION",
    "FIXED_DURATION",
    "AVAILABILITY_WINDOW",
    "DEPENDENCY_ORDER",
    "REQUIRED_BUFFER",
    "RECURRENCE_RULE",
    "TIMEZONE_INTEGRITY",
    "EXTERNAL_LOCK",
)


def _validation() -> dict[str, Schema]:
    by_id = (
        "UnsupportedObject",
        "DuplicateObject",
        "DuplicateFact",
        "DuplicateTarget",
        "UnknownObject",
        "ContradictoryFact",
        "InvalidFactSource",
        "ScopeViolation",
        "MissingPlanningCapability",
        "PolicyDenied",
        "InvalidTargetState",
    )
    return {
        "ValidationIssue": _tagged(
            (
                "UnsupportedSchema",
                "PlanningPermissionDenied",
                "NoTargets",
                "UnsupportedSearchBudget",
                "UnsupportedTargetCount",
                "InputLimit",
                "IncompleteCoverage",
            ),
            {
                "UnsupportedOperation": _ref("CpirOperation"),
                **{name: _ID for name in by_id},
                # the change member (decision 0049)
                "ChangeNotAllowed": _ref("CpirOperation"),
                "RequiredRecurrenceId": _enum("INSTANCE", "THIS_AND_FUTURE"),
                "InvalidChange": _enum(*_CHANGE_FIELDS),
                # the batch member of OPTIMIZE (decision 0070)
                "BatchRequired": _enum("OPTIMIZE"),
                "BatchNotAllowed": _ref("CpirOperation"),
                "InvalidBatch": _object({"id": _ID, "field": _enum(*_BATCH_FIELDS)}),
                "UnsupportedBatchConstraint": _object(
                    {"object_id": _ID, "kind": _enum(*_CONSTRAINT_KINDS)}
                ),
                "BatchLimit": _enum("max_mutations"),
                "RequiredDuration": _enum(*_REQUIRED_FIELD_ERRORS),
                "RequiredTime": _object(
                    {"object_id": _ID, "reason": _enum(*_REQUIRED_FIELD_ERRORS)}
                ),
                "Compilation": _ref("CompilationError"),
                "Dependency": _ref("DependencyIssue"),
            },
        ),
        "CompilationError": _tagged(
            ("HorizonMismatch", "InputLimit"),
            {
                "DuplicateSeries": _ID,
                "IdentityCollision": _ID,
                "ProspectiveSeries": _ID,
                "InvalidProvenance": _ID,
                "UnknownObjectTime": _ID,
                "Temporal": _enum(*_TEMPORAL_ERRORS),
            },
        ),
        "ValidationReport": _object(
            {
                "state": _enum("Valid", "ValidWithUncertainty", "InsufficientInformation"),
                "issues": _array(_ref("ValidationIssue")),
            }
        ),
    }


def _graph() -> dict[str, Schema]:
    edge = _ref("DependencyEdge")
    return {
        "DependencyEdge": _object({"predecessor": _ID, "dependent": _ID}),
        "DependencyIssue": _tagged(
            ("InputLimit",),
            {
                "MissingReference": edge,
                "Cycle": _object({"members": _array(_ID), "edges": _array(edge)}),
            },
        ),
        "DependencyGraph": _object(
            {
                "nodes": _array(_ID),
                "edges": _array(edge),
                "order": _array(_ID),
                "issues": _array(_ref("DependencyIssue")),
            }
        ),
    }


def _compilation() -> dict[str, Schema]:
    return {
        "CompiledOccurrence": _object(
            {
                "id": {"type": "string", "pattern": "^occ-[0-9a-f]{64}$"},
                "series_id": _ID,
                "source_revision": _REVISION,
                "provenance": _ref("CpirProvenance"),
                "evidence": _array(_ID),
                "occurrence": _ref("ExpandedOccurrence"),
            }
        ),
        "CompiledContextSnapshot": _object(
            {
                "source_revision": _REVISION,
                "horizon": _ref("UtcRange"),
                "occurrences": _array(_ref("CompiledOccurrence")),
                "series": _array(
                    _object(
                        {
                            "series": _ref("CpirTemporalSeries"),
                            "expansion": _ref("ExpansionReport"),
                        }
                    )
                ),
                "availability": _ref("FreeBusyReport"),
            }
        ),
    }


def _candidates() -> dict[str, Schema]:
    sources = _ref("CpirPreferenceSource")
    return {
        "Placement": _object({"object_id": _ID, "range": _ref("UtcRange")}),
        "ProposedPlan": _object(
            {
                "id": {"type": "string", "pattern": "^p-[0-9a-f]{64}$"},
                "source_revision": _REVISION,
                "placements": _array(_ref("Placement")),
            }
        ),
        "PlanReason": _tagged(
            (
                "FeasibleWithinScope",
                "EarliestTieBreak",
                "AnalysisOnly",
                "DurationUncertain",
                "Cancellation",
                "UpdateInPlace",
            ),
            {
                "PreferredStart": sources,
                # OPTIMIZE's score and its named terms (decision 0070)
                "BatchScore": _object({"hard": _COUNT, "medium": _COUNT, "soft": _COUNT}),
                "BatchTerm": _object(
                    {
                        "name": {"type": "string"},
                        "meeting_id": _ID,
                        "other": _NULLABLE_ID,
                        "person": _NULLABLE_ID,
                        "amount": _COUNT,
                    }
                ),
                # RESCHEDULE's least-disruption rank (decision 0049)
                "Disruption": _object(
                    {
                        "class": {"type": "integer", "enum": [0, 1, 2]},
                        "shift_seconds": _SECONDS,
                    }
                ),
            },
        ),
        "ScoreComponent": _object({"reason": _ref("PlanReason"), "cost": _SECONDS}),
        "RankingFeatures": {
            **_object(
                {
                    "schema_version": _object({"major": {"const": 0}, "minor": {"const": 1}}),
                    "preferred_start_distance_seconds": {"oneOf": [_SECONDS, {"type": "null"}]},
                    "preferred_start_source": {"oneOf": [sources, {"type": "null"}]},
                    "mutation_count": _COUNT,
                    "shift_seconds": _SECONDS,
                }
            ),
            # Both nullable features are null, or both are set.
            "oneOf": [
                {
                    "properties": {
                        "preferred_start_distance_seconds": {"type": "null"},
                        "preferred_start_source": {"type": "null"},
                    }
                },
                {
                    "properties": {
                        "preferred_start_distance_seconds": {"type": "integer"},
                        "preferred_start_source": {"type": "string"},
                    }
                },
            ],
        },
        "RankedCandidate": _object(
            {
                "proposed": _ref("ProposedPlan"),
                "cost": _SECONDS,
                "mutation_count": _COUNT,
                "shifted_seconds": _SECONDS,
                "start": _INSTANT,
                "object_id": _ID,
                "explanation": {**_array(_ref("ScoreComponent")), "minItems": 1},
                "ordering_key": _object(
                    {
                        "preference_distance_seconds": _SECONDS,
                        "mutation_count": _COUNT,
                        "shifted_seconds": _SECONDS,
                        "start": _INSTANT,
                        "object_id": _ID,
                    }
                ),
                "ranking_features": _ref("RankingFeatures"),
            }
        ),
    }


def _conflicts() -> dict[str, Schema]:
    return {
        "ConstraintViolation": _object(
            {
                "constraint": _ref("HardConstraintRule"),
                "object_id": _ID,
                "reason": _enum(
                    "Overlap",
                    "OutsideBounds",
                    "WrongDuration",
                    "DependencyMissing",
                    "DependencyOrder",
                    "InsufficientBuffer",
                    "TimezoneMismatch",
                    "Locked",
                    "UnsupportedRecurrence",
                ),
                "evidence": _object(
                    {
                        "facts": _array(_ID),
                        "blocking_objects": _array(_ID),
                        "blocking_occurrences": _array(_ID),
                    }
                ),
            }
        ),
        "CandidateRejectionReason": _tagged(
            ("MutationLimit", "MovedObjectLimit", "InvalidTargets"),
            {
                "Scope": _ID,
                "HardConstraint": _ref("ConstraintViolation"),
                "InvalidDuration": _ID,
                "Capability": _ID,
                "Policy": _ID,
                # decision 0049: UPDATE/CANCEL keep the start, RESCHEDULE must change it
                "StartChanged": _ID,
                "Unchanged": _ID,
            },
        ),
        "CandidateRejection": _object(
            {
                "start": _INSTANT,
                "reasons": {**_array(_ref("CandidateRejectionReason")), "minItems": 1},
            }
        ),
    }


# planner.md 8: which assessments go with which outcome.
_OUTCOME_ASSESSMENTS = {
    "Solution": ("ProvenOptimal", "BestFound"),
    "NoSolution": ("Complete",),
    "NeedsRelaxation": ("BestFound",),
    "InsufficientInformation": ("BestFound",),
}


def _planning() -> dict[str, Schema]:
    result = _object(
        {
            "outcome": _enum(*_OUTCOME_ASSESSMENTS),
            "assessment": _enum("ProvenOptimal", "Complete", "BestFound"),
            "validation": _ref("ValidationReport"),
            "candidates": _array(_ref("RankedCandidate")),
            "conflicts": _object({"rejections": _array(_ref("CandidateRejection"))}),
            "search_space": _ref("SearchSpace"),
            "compilation": {"oneOf": [_ref("CompiledContextSnapshot"), {"type": "null"}]},
            "dependency_graph": _ref("DependencyGraph"),
        }
    )
    # OPTIMIZE only (decision 0070): present when the batch was solved, absent otherwise
    result["properties"] = {**result["properties"], "batch": _ref("BatchReport")}
    return {
        "SearchSpace": _object(
            {
                "horizon": _ref("UtcRange"),
                "granularity": {"type": "integer", "minimum": 1},
                "objective": {"type": "string"},
                "evaluated": _COUNT,
                "exhausted": {"type": "boolean"},
            }
        ),
        **_batch(),
        "PlanningResult": {
            **result,
            "allOf": [
                {
                    "if": {"properties": {"outcome": {"const": outcome}}},
                    "then": {"properties": {"assessment": _enum(*assessments)}},
                }
                for outcome, assessments in _OUTCOME_ASSESSMENTS.items()
            ],
        },
    }


def _batch() -> dict[str, Schema]:
    """The ``batch`` member of an OPTIMIZE answer (decision 0070)."""
    return {
        "BatchReport": _object(
            {
                "status": _enum("OPTIMAL", "FEASIBLE", "INFEASIBLE", "UNKNOWN"),
                "score": {
                    "oneOf": [
                        _object({"hard": _COUNT, "medium": _COUNT, "soft": _COUNT}),
                        {"type": "null"},
                    ]
                },
                "bound": {"oneOf": [{"type": "integer"}, {"type": "null"}]},
                "assignments": _array(
                    _object(
                        {
                            "object_id": _ID,
                            "range": _ref("UtcRange"),
                            "room_id": _NULLABLE_ID,
                            "moved": {"type": "boolean"},
                            "new": {"type": "boolean"},
                        }
                    )
                ),
                "terms": _array(
                    _object(
                        {
                            "name": {"type": "string"},
                            "meeting_id": _ID,
                            "other": _NULLABLE_ID,
                            "person": _NULLABLE_ID,
                            "amount": _COUNT,
                            "cost": _COUNT,
                        }
                    )
                ),
                "conflict": _array(_object({"kind": {"type": "string"}, "ids": _array(_ID)})),
                "stats": _object(
                    {
                        "deterministic_time": {"type": "number", "minimum": 0},
                        "branches": _COUNT,
                        "conflicts": _COUNT,
                    }
                ),
            }
        )
    }


def response_schemas(constraint_rule: Schema) -> dict[str, Schema]:
    """Schemas to merge into ``components.schemas`` (they ``$ref`` the ``Cpir*`` ones).

    ``constraint_rule`` is the request's hard-constraint rule union (``ConstraintSpec.rule``,
    already re-pointed at the components): a violation echoes the rule as written.
    """
    return {
        "HardConstraintRule": constraint_rule,
        **_temporal(),
        **_validation(),
        **_graph(),
        **_compilation(),
        **_candidates(),
        **_conflicts(),
        **_planning(),
    }


def _rehome(node: Any, prefix: str) -> Any:
    if isinstance(node, dict):
        return {
            key: "#/components/schemas/" + prefix + value.removeprefix("#/$defs/")
            if key == "$ref" and isinstance(value, str)
            else _rehome(value, prefix)
            for key, value in node.items()
        }
    if isinstance(node, list):
        return [_rehome(item, prefix) for item in node]
    return node


def _split(schema: dict[str, Any], name: str, prefix: str) -> dict[str, Any]:
    schema = dict(schema)
    schema.pop("$schema", None)
    defs = schema.pop("$defs", {})
    out = {prefix + key: _rehome(value, prefix) for key, value in defs.items()}
    out[name] = _rehome(schema, prefix)
    return out


def component_schemas(extra: Mapping[str, Schema] | None = None) -> dict[str, Schema]:
    """Components for ``components.schemas``, ``$ref`` as ``#/components/schemas/<name>``:
    the CPIR request (``PlanningRequest``, its ``$defs`` as ``Cpir*``) and temporal request
    (``TemporalRequest``, ``Temporal*``) schemas, then ``extra`` (a caller's own components,
    in its order), then the result schemas (:func:`response_schemas`).

    Raises:
        RuntimeError: a name of ``extra`` or of the results clashes with another (a
            programming mistake).
    """
    schemas = {
        **_split(request_json_schema(), "PlanningRequest", "Cpir"),
        **_split(temporal_json_schema(), "TemporalRequest", "Temporal"),
    }
    clashes = sorted(schemas.keys() & (extra or {}).keys())
    schemas.update(extra or {})
    rule = dict(schemas["CpirConstraintSpec"]["properties"]["rule"])
    rule["title"] = "HardConstraintRule"
    results = response_schemas(rule)
    clashes += sorted(results.keys() & schemas.keys())
    if clashes:  # pragma: no cover - a naming mistake, caught by any test
        raise RuntimeError(f"component schema names clash: {clashes}")
    return {**schemas, **results}
