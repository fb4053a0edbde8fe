"""Reading an ActionPlan back from its wire form (a ``cerebri.action-plan.v1`` artifact).

:func:`parse_action_plan` is the inverse of :meth:`cerebri.planner.ActionPlan.to_wire`: strict
JSON (no unknown fields, exact types), RFC 3339 UTC instants, half-open ranges
(``start < end``). It lets an envelope carrying an action plan be turned into the plan graph
that carries it out (:func:`~cerebri.plans.draft_from_action_plan`).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from cerebri.cpir import MutationKind, load_json
from cerebri.cpir.result import Placement
from cerebri.cpir.scalars import TimeRange
from cerebri.planner import Action, ActionPlan
from cerebri.plans.parse import pointer
from cerebri.plans.report import DraftError

__all__ = ["parse_action_plan"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class _Change(_Strict):
    kind: Literal["CREATE_EVENT", "MOVE_EVENT", "UPDATE_EVENT", "DELETE_EVENT"]
    range: dict[str, str]
    room_id: str | None = None


class _Action(_Strict):
    id: str
    source_plan: str
    target: str
    expected_revision: int | None
    idempotency_key: str
    calendar_id: str
    integration_id: str
    confirmation_required: bool
    action: _Change


class _ActionPlan(_Strict):
    plan_id: str
    actions: list[_Action]


def parse_action_plan(data: bytes) -> ActionPlan:
    """The :class:`~cerebri.planner.ActionPlan` whose ``to_wire()`` JSON is ``data``.

    Raises :class:`~cerebri.plans.DraftError` ``draft.schema`` (with the JSON pointer of the
    first problem) for anything else; ``json.*`` (:class:`~cerebri.errors.ParseError`) for
    bytes that are not strict JSON.
    """
    document = load_json(data)
    try:
        wire = _ActionPlan.model_validate(document)
        actions = []
        for index, item in enumerate(wire.actions):
            try:
                span = TimeRange.model_validate(item.action.range)
            except ValidationError as exc:
                raise DraftError(
                    f"action {index}: {exc.errors()[0]['msg']}",
                    code="draft.schema",
                    path=f"/actions/{index}/action/range",
                ) from None
            actions.append(
                Action(
                    id=item.id,
                    source_plan=item.source_plan,
                    target=item.target,
                    expected_revision=item.expected_revision,
                    idempotency_key=item.idempotency_key,
                    calendar_id=item.calendar_id,
                    integration_id=item.integration_id,
                    confirmation_required=item.confirmation_required,
                    kind=MutationKind(item.action.kind),
                    placement=Placement(item.target, span),
                    room_id=item.action.room_id,
                )
            )
    except ValidationError as exc:
        first = exc.errors()[0]
        path = pointer(list(first["loc"]))
        raise DraftError(
            f"not an action plan: {first['msg']}", code="draft.schema", path=path
        ) from None
    return ActionPlan(wire.plan_id, tuple(actions))
