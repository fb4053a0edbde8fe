"""Notes for people about a validated request: redundant rules and what a bare issue means.

The ``ValidationReport`` wire form is fixed by planner.md 2.2 (a state and bare issues such
as ``{"Compilation":"HorizonMismatch"}``) and checked by the conformance data, so it has no
room for warnings or messages. These notes are computed beside it from the same request
(docs/decisions/0027-readable-answers.md): the CLI prints them on stderr and in ``--table``,
the Python API returns them. Pure: no I/O, no clock.
"""

from __future__ import annotations

from dataclasses import dataclass

from cerebri._guard import arguments, invalid_argument
from cerebri._json import JSONValue
from cerebri.cpir import NoOverlap, Operation, PlanningRequest, Tagged, TimeRange

__all__ = ["ValidationNote", "issue_note", "validation_warnings"]


@dataclass(frozen=True, slots=True)
class ValidationNote:
    """A warning or an explanation for a person.

    Attributes:
        code: stable machine-readable code, e.g. ``constraint.redundant`` or
            ``compilation.horizon_mismatch``.
        path: RFC 6901 pointer into the request (e.g. ``/constraints/2``); for a rule
            relating two fields, the first of them.
        message: one sentence naming the values, their JSON paths and the fix.
    """

    code: str
    path: str
    message: str

    def to_wire(self) -> dict[str, JSONValue]:
        """``{"code": …, "path": …, "message": …}``."""
        return {"code": self.code, "path": self.path, "message": self.message}


@arguments(invalid_argument, request=PlanningRequest)
def validation_warnings(request: PlanningRequest) -> tuple[ValidationNote, ...]:
    """Warnings about rules that change no answer, in constraint order.

    A ``NO_OVERLAP`` on a target repeats the overlap check every target placement gets
    anyway (cpir-0.2.md, constraint table: "an implicit ``NO_OVERLAP``"): the same starts
    pass, and each rejection only lists the overlap twice. It is a warning
    (``constraint.redundant``), never an issue: the request stays valid. ``NO_OVERLAP`` on an
    object that is not placed is a real rule (that object must not overlap other busy time)
    and gets no warning.

    An ``OPTIMIZE`` whose ``budget.max_repairs`` is above 0 while ``batch.meetings`` holds
    only new meetings (no existing event to move) is accepted and planned as with no
    repairs, with the warning ``budget.repairs_unused`` at ``/budget/max_repairs``
    (decision 0084).

    Raises:
        InvalidArgumentError: ``input.invalid_argument`` unless ``request`` is a parsed
            :class:`~cerebri.cpir.PlanningRequest`.
    """
    targets = set(request.target_ids)
    redundant = tuple(
        ValidationNote(
            "constraint.redundant",
            f"/constraints/{index}",
            f"NO_OVERLAP on target {constraint.object_id!r} is redundant: every target "
            "placement is already checked for overlap with all blocking items (cpir-0.2.md, "
            "implicit NO_OVERLAP); it changes no answer, only repeats the reason in each "
            "rejection. Remove it.",
        )
        for index, constraint in enumerate(request.constraints)
        if isinstance(constraint.rule, NoOverlap) and constraint.object_id in targets
    )
    return redundant + _repairs_unused(request, targets)


def _repairs_unused(request: PlanningRequest, targets: set[str]) -> tuple[ValidationNote, ...]:
    """``budget.repairs_unused`` (decision 0084): an ``OPTIMIZE`` whose
    ``budget.max_repairs`` allows moves while its batch lists no existing event to move."""
    batch = request.batch
    if request.operation is not Operation.OPTIMIZE or batch is None:
        return ()
    repairs = request.budget.max_repairs
    if repairs == 0 or any(m.object_id not in targets for m in batch.meetings):
        return ()
    return (
        ValidationNote(
            "budget.repairs_unused",
            "/budget/max_repairs",
            f"budget.max_repairs is {repairs} but batch.meetings lists no existing event "
            "(every entry is a new meeting of target_ids): only existing events listed in "
            "batch.meetings and in scope.movable_object_ids may move, so nothing is moved. "
            "List the events that may move, or set budget.max_repairs to 0.",
        ),
    )


@arguments(invalid_argument, request=PlanningRequest, issue=Tagged)
def issue_note(request: PlanningRequest, issue: Tagged) -> ValidationNote | None:
    """What a bare validation issue means for this request, or None when the issue says it
    all.

    ``{"Compilation":"HorizonMismatch"}`` (planner.md 3.1 step 2): names both ranges, their
    JSON paths and the fix. The issues of the ``change`` member (decision 0049):
    ``change.not_allowed``, ``change.recurrence_id_required``, ``change.invalid`` (path
    ``/change/<field>``).

    Raises:
        InvalidArgumentError: ``input.invalid_argument`` for a ``request`` that is not a
            :class:`~cerebri.cpir.PlanningRequest` or an ``issue`` that is not a
            :class:`~cerebri.cpir.Tagged`.
    """
    if issue.name == "Compilation" and issue.payload == "HorizonMismatch":
        temporal = request.context.temporal
        horizon = "?" if temporal is None else _range(temporal.horizon)
        return ValidationNote(
            "compilation.horizon_mismatch",
            "/context/temporal/horizon",
            f"context.temporal.horizon (/context/temporal/horizon) is {horizon} but "
            f"scope.time_range (/scope/time_range) is {_range(request.scope.time_range)}; "
            "they must be the same instants (planner.md 3.1): set both to the search window.",
        )
    return _change_note(request, issue)


_INVALID_CHANGE = {
    "scope": "a CREATE makes a new event: change.scope must be SERIES",
    "recurrence_id": "a CREATE makes a new event: change.recurrence_id must be null",
    "etag": "a CREATE makes a new event: change.etag must be null (nothing was read)",
    "attendees": "change.attendees names one address twice (compared case-insensitively)",
    "previous_attendees": "change.previous_attendees (the list as read) belongs to an UPDATE "
    "only and names each address once (compared case-insensitively)",
}


def _change_note(request: PlanningRequest, issue: Tagged) -> ValidationNote | None:
    """Notes for the issues of the ``change`` member (decision 0049)."""
    if issue.name == "ChangeNotAllowed":
        return ValidationNote(
            "change.not_allowed",
            "/change",
            f"change (/change) is only read with CREATE, RESCHEDULE, CANCEL or UPDATE, not "
            f"with {issue.payload}: remove it or use one of those operations.",
        )
    if issue.name == "RequiredRecurrenceId":
        return ValidationNote(
            "change.recurrence_id_required",
            "/change/recurrence_id",
            f"change.scope {issue.payload} names one occurrence (RFC 5545 3.8.4.4): set "
            "change.recurrence_id to its original start (UTC), or use scope SERIES.",
        )
    if issue.name != "InvalidChange" or not isinstance(issue.payload, str):
        return None
    field = issue.payload
    if field == "sequence":
        change = request.change
        sequence = "?" if change is None else change.sequence
        message = (
            f"change.sequence is {sequence}: a CREATE starts at 0, a change of an existing "
            "event must give the SEQUENCE read, which is the target's revision."
        )
    else:
        message = _INVALID_CHANGE.get(field, f"change.{field} contradicts the operation") + "."
    return ValidationNote("change.invalid", f"/change/{field}", message)


def _range(value: TimeRange) -> str:
    return f"{value.start.format()}/{value.end.format()}"
