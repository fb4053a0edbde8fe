"""What a proposal carries: the artifact bytes made from a CPIR request or a plan graph draft.

:func:`proposal_artifact` is shared by ``cerebri propose`` and the MCP ``propose`` tool; it
stores nothing and reads no clock. Its input is the JSON text of either

* a **plan graph draft** (a JSON object with ``steps``): read strictly, validated against the
  built-in capabilities (``draft.invalid`` when it breaks a rule, with the first problem's
  path), canonicalised (RFC 8785) and wrapped as ``cerebri.plan-graph.v1``; its query id is
  the one given, else its digest, and its idempotency key is its digest; or
* a **CPIR request**: planned (:func:`cerebri.planner.action_plan_for` under ``limits``), and
  its ranked candidate ``candidate`` becomes a ``cerebri.action-plan.v1``, or with
  ``wrap=ArtifactChoice.PLAN_GRAPH`` the plan graph that carries it out (events a CREATE
  makes titled ``title``). Query id: the request's ``request_id``; idempotency key: the
  action plan's id, the same for both wrappings, since they describe the same effects and at
  most one of them may ever act.

  An ``OPTIMIZE`` request (decision 0077) is planned by the batch optimiser
  (:func:`cerebri.optimize.batch_action_plan`; it has one candidate, so ``candidate`` must
  be 1, else ``plan.no_candidate``); its plan graph is one batch (decision 0076,
  ``batch=BatchApprovals.from_batch(...)``): one ``approve-batch`` gate, an owner's gate for
  each move in a calendar another batch person owns, ``requester`` being who asks
  (``principal:<name>``; ``draft.invalid_argument`` when it is missing or not a principal).
  Each created meeting is titled with its ``batch.meetings[].title`` (decision 0081), and
  ``title`` only where the batch gives none.

Errors are the parsers' and the planner's (``json.*``, ``cpir.*``, ``plan.*``, ``draft.*``,
``proposal.canonical_json`` for what RFC 8785 cannot hold), raised before anything is made.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum
from types import NoneType
from typing import Any

from cerebri._guard import arguments
from cerebri.cpir import MutationKind, Operation, PlanningRequest, parse_request
from cerebri.optimize import batch_action_plan
from cerebri.planner import DEFAULT_LIMITS, ActionPlan, PlanError, PlannerLimits, action_plan_for
from cerebri.plans import (
    BatchApprovals,
    DraftError,
    PlanDraft,
    builtin_registry,
    change_inputs,
    draft_from_action_plan,
    parse_draft,
    validate_draft,
)
from cerebri.proposals.digest import canonical_json, load_json, sha256_digest
from cerebri.proposals.envelope import ArtifactType
from cerebri.proposals.errors import proposal_argument_error

__all__ = [
    "ArtifactChoice",
    "ProposalArtifact",
    "created_titles",
    "proposal_artifact",
    "target_zones",
]


class ArtifactChoice(StrEnum):
    """What is proposed for a CPIR request: its action plan or the plan graph carrying it."""

    ACTION_PLAN = "action-plan"
    PLAN_GRAPH = "plan-graph"


@dataclass(frozen=True, slots=True)
class ProposalArtifact:
    """The artifact of a proposal: its bytes (canonical JSON), type, query id and
    idempotency key (the envelope members ``query/id`` and ``idempotency/key``)."""

    payload: bytes
    artifact_type: ArtifactType
    query_id: str
    idempotency_key: str


@arguments(proposal_argument_error, actions=ActionPlan, title=(str, NoneType))
def created_titles(actions: ActionPlan, title: str | None) -> dict[str, str]:
    """``title`` for every event the action plan creates (CPIR requests carry no titles);
    ``{}`` without a title."""
    if title is None:
        return {}
    return {a.target: title for a in actions.actions if a.kind is MutationKind.CREATE_EVENT}


@arguments(proposal_argument_error, request=PlanningRequest, actions=ActionPlan)
def target_zones(request: PlanningRequest, actions: ActionPlan) -> dict[str, str]:
    """The IANA zone (the CPIR object's ``timezone``) of every object the action plan
    creates or moves, by object id; objects the request does not hold are left out."""
    zones = {obj.id: obj.timezone for obj in request.context.objects}
    return {a.target: zones[a.target] for a in actions.actions if a.target in zones}


def _batch_titles(request: PlanningRequest, actions: ActionPlan) -> dict[str, str]:
    """The ``batch.meetings[].title`` of every meeting the action plan creates (decision
    0081: each interview keeps its own title; ``--title`` only fills the meetings without)."""
    created = {a.target for a in actions.actions if a.kind is MutationKind.CREATE_EVENT}
    meetings = request.batch.meetings if request.batch is not None else ()
    return {
        m.object_id: m.title
        for m in meetings
        if m.object_id in created and m.title is not None and m.title.strip()
    }


def _moved_from(request: PlanningRequest, actions: ActionPlan) -> dict[str, str]:
    """Each moved event's range in the request (its known time), ``[start, end)`` in UTC,
    for its owner's approval."""
    moved = {a.target for a in actions.actions if a.kind is MutationKind.MOVE_EVENT}
    found: dict[str, str] = {}
    for obj in request.context.objects:
        span = obj.known_time if obj.id in moved else None
        if span is not None:
            found.setdefault(obj.id, f"[{span.start}, {span.end})")
    return found


def _valid_graph(draft: PlanDraft) -> dict[str, Any]:
    """The draft's wire form, refused with ``draft.invalid`` when it breaks a rule."""
    report = validate_draft(draft, builtin_registry())
    if not report.valid:
        first = report.problems[0]
        raise DraftError(
            f"the draft breaks {len(report.problems)} rule(s), first {first.code}: "
            f"{first.message} (see `cerebri plan-graph validate`)",
            code="draft.invalid",
            path=first.path,
        )
    return draft.to_wire()


def _decoded(data: bytes) -> Any:
    """The JSON value of ``data`` (``None`` if it is not JSON: the CPIR parser says why)."""
    try:
        return json.loads(data)
    except RecursionError:
        return load_json(data)  # raises proposal.schema: nested too deeply
    except ValueError:
        return None


def _batch_actions(request: PlanningRequest, candidate: int) -> ActionPlan:
    """The action plan of an ``OPTIMIZE``: its one candidate (``plan.no_candidate`` for any
    other rank)."""
    if candidate != 1:
        raise PlanError(
            f"an OPTIMIZE answer has one candidate, so there is no candidate {candidate}",
            code="plan.no_candidate",
            wire="NoCandidate",
        )
    return batch_action_plan(request)


@arguments(
    proposal_argument_error,
    data=bytes,
    candidate=int,
    query_id=(str, NoneType),
    wrap=ArtifactChoice,
    limits=PlannerLimits,
    title=(str, NoneType),
    requester=(str, NoneType),
)
def proposal_artifact(  # noqa: PLR0917 - the choices that shape the artifact
    data: bytes,
    candidate: int = 1,
    query_id: str | None = None,
    wrap: ArtifactChoice = ArtifactChoice.ACTION_PLAN,
    limits: PlannerLimits = DEFAULT_LIMITS,
    title: str | None = None,
    requester: str | None = None,
) -> ProposalArtifact:
    """The artifact for ``data``, a CPIR request or a plan graph draft (rules and errors:
    the module docstring). ``candidate`` is 1-based; ``query_id`` only names a draft's query.
    ``requester`` (``principal:<name>``) is who asks for an ``OPTIMIZE`` batch's plan graph.
    An argument of the wrong type is ``proposal.invalid_argument``.
    """
    document = _decoded(data)
    if isinstance(document, dict) and "steps" in document:
        payload = canonical_json(_valid_graph(parse_draft(load_json(data))))
        digest = sha256_digest(payload)
        return ProposalArtifact(payload, ArtifactType.PLAN_GRAPH, query_id or digest, digest)
    request = parse_request(data)
    batch = request.operation is Operation.OPTIMIZE
    actions = (
        _batch_actions(request, candidate)
        if batch
        else action_plan_for(request, rank=candidate, limits=limits)
    )
    if wrap is ArtifactChoice.PLAN_GRAPH:
        if batch:
            assert request.batch is not None  # batch_action_plan refuses a request without
            draft = draft_from_action_plan(
                actions,
                titles={**created_titles(actions, title), **_batch_titles(request, actions)},
                zones=target_zones(request, actions),
                batch=BatchApprovals.from_batch(
                    request.batch,
                    actions.actions,
                    requester=requester or "(none given)",
                    moved_from=_moved_from(request, actions),
                ),
            )
        else:
            draft = draft_from_action_plan(
                actions,
                titles=created_titles(actions, title),
                zones=target_zones(request, actions),
                **change_inputs(request, actions),
            )
        graph = canonical_json(_valid_graph(draft))
        return ProposalArtifact(graph, ArtifactType.PLAN_GRAPH, request.request_id, actions.plan_id)
    return ProposalArtifact(
        canonical_json(actions.to_wire()),
        ArtifactType.ACTION_PLAN,
        request.request_id,
        actions.plan_id,
    )
