"""A hand-made optimised batch (issue #24, decision 0076) for the graph and execution tests.

Alice asks for three new meetings in her calendar ``alice`` (the first also booked in room
``room-a``) and for the move of bob's 1:1, an event in bob's own calendar ``bob`` that the
optimiser moved to make room. Bob owns ``bob``; alice is not the owner of his event.
"""

from __future__ import annotations

from typing import Final

from cerebri.cpir import MutationKind, Placement, TimeRange
from cerebri.planner import Action, ActionPlan
from cerebri.plans import BatchApprovals
from cerebri.temporal import Instant

PLAN_ID: Final = "p-batch0076"
REQUESTER: Final = "principal:alice"
BATCH_APPROVER: Final = "principal:carol"
OWNER: Final = "principal:bob"
ALICE_CAL, BOB_CAL, ROOM_CAL = "alice", "bob", "room-a"
INTEGRATION: Final = "radicale"

# (kind, object id, calendar, start, end, expected revision)
ROWS: Final = (
    (MutationKind.CREATE_EVENT, "batch-interview-1", ALICE_CAL, "2031-05-05T09:00:00Z",
     "2031-05-05T10:00:00Z", None),
    (MutationKind.CREATE_EVENT, "batch-interview-2", ALICE_CAL, "2031-05-05T10:00:00Z",
     "2031-05-05T11:00:00Z", None),
    (MutationKind.MOVE_EVENT, "bob-1on1", BOB_CAL, "2031-05-05T14:00:00Z",
     "2031-05-05T14:30:00Z", 0),
    (MutationKind.CREATE_EVENT, "batch-debrief", ALICE_CAL, "2031-05-05T11:00:00Z",
     "2031-05-05T11:30:00Z", None),
)  # fmt: skip
"""The moved 1:1 sat at 09:00-09:30 in bob's calendar, where the first interview now goes."""
MOVED_FROM: Final = ("2031-05-05T09:00:00Z", "2031-05-05T09:30:00Z")
ROOMS: Final = {"batch-interview-1": ROOM_CAL}
TITLES: Final = {
    "batch-interview-1": "Interview 1",
    "batch-interview-2": "Interview 2",
    "batch-debrief": "Debrief",
}


def action_plan() -> ActionPlan:
    """The batch as the planner's action plan: ids (and idempotency keys) ``<plan>-<i>``."""
    actions = tuple(
        Action(
            id=f"{PLAN_ID}-{index}",
            source_plan=PLAN_ID,
            target=target,
            expected_revision=revision,
            idempotency_key=f"{PLAN_ID}-{index}",
            calendar_id=calendar,
            integration_id=INTEGRATION,
            confirmation_required=True,
            kind=kind,
            placement=Placement(
                target, TimeRange(start=Instant.parse(start), end=Instant.parse(end))
            ),
        )
        for index, (kind, target, calendar, start, end, revision) in enumerate(ROWS)
    )
    return ActionPlan(PLAN_ID, actions)


def approvals() -> BatchApprovals:
    """Alice requests; bob owns his calendar (and, listed too, alice her own)."""
    return BatchApprovals(
        requester=REQUESTER, owners={BOB_CAL: OWNER, ALICE_CAL: REQUESTER}, rooms=ROOMS
    )
