"""Plan graphs: drafts, steps, the capability registry and validation (plans.md).

::

    parse_draft(source) -> PlanDraft                 operator/template drafts, read strictly
    parse_model_draft(source, registry) -> ModelDraft  a model's draft: authority dropped,
                                                     listed in ignored, then validated
    builtin_registry() -> CapabilityRegistry         calendar.* and service.status
    validate_draft(draft, registry) -> DraftReport   every broken rule of section 3, coded
    topological_order(draft) -> tuple[str, ...]      step keys, dependencies first
    draft_from_action_plan(action_plan) -> PlanDraft the planner's CREATE/MOVE as a graph;
                                                     with a request's change (issue #23):
                                                     move/update/cancel + one iTIP message
                                                     per attendee (decision 0056)
                                                     with batch=BatchApprovals(...): one
                                                     approval, owners' approvals, then
                                                     every write (decision 0076)
    change_inputs(request, action_plan) -> dict      that change and the events' ranges
    choose_strategy(failed) -> Strategy | None       deterministic strategy order (section 4)
    PlanDraft, StepSpec, Check, ...                  frozen, strict models of sections 1-2
    StoredPlan, StoredStep, PlanStatus, StepStatus   what the store keeps (section 5)

A plan is not a promise and not authority: every effect goes through a registered
capability, and permission is checked when a step acts. Errors: :class:`DraftError`
(``draft.schema``), :class:`CapabilityError` (``capability.*``); broken rules are reported,
not raised, in a :class:`DraftReport`.
"""

from cerebri.plans.batch_steps import BatchApprovals
from cerebri.plans.capabilities import (
    BUILTIN_CAPABILITIES,
    Capability,
    CapabilityError,
    CapabilityRegistry,
    ParamsProblem,
    builtin_registry,
)
from cerebri.plans.change_facts import change_inputs
from cerebri.plans.draft import (
    DEFAULT_MAX_INVOCATIONS,
    MAX_DRAFT_STEPS,
    MAX_DURATION_SECONDS,
    Alternative,
    Assumption,
    Budget,
    CapabilityRequestSpec,
    Check,
    Estimate,
    Expectation,
    InternalSpec,
    MonitorSpec,
    PlanDraft,
    Precondition,
    StepSpec,
    VerifySpec,
    WaitSpec,
)
from cerebri.plans.from_action_plan import (
    GRANT_SECONDS,
    VERIFY_INTERVAL_SECONDS,
    VERIFY_WITHIN_SECONDS,
    draft_from_action_plan,
)
from cerebri.plans.graph import topological_order
from cerebri.plans.model_drafts import ModelDraft, parse_model_draft
from cerebri.plans.parse import parse_draft
from cerebri.plans.report import DraftError, DraftProblem, DraftReport
from cerebri.plans.stored import DEFAULT_MAX_REPLANS, StoredPlan, StoredStep
from cerebri.plans.strategies import (
    STRATEGY_ORDER,
    Strategy,
    choose_strategy,
    fulfils_intention,
)
from cerebri.plans.validate import validate_draft
from cerebri.plans.vocabulary import (
    DONE_STEP_STATUSES,
    OPEN_PLAN_STATUSES,
    TERMINAL_STEP_STATUSES,
    CheckOp,
    InternalAction,
    Origin,
    PlanStatus,
    Risk,
    StepKind,
    StepStatus,
    TargetRule,
    is_done,
    is_open,
    is_terminal,
)

__all__ = [
    "BUILTIN_CAPABILITIES",
    "DEFAULT_MAX_INVOCATIONS",
    "DEFAULT_MAX_REPLANS",
    "DONE_STEP_STATUSES",
    "GRANT_SECONDS",
    "MAX_DRAFT_STEPS",
    "MAX_DURATION_SECONDS",
    "OPEN_PLAN_STATUSES",
    "STRATEGY_ORDER",
    "TERMINAL_STEP_STATUSES",
    "VERIFY_INTERVAL_SECONDS",
    "VERIFY_WITHIN_SECONDS",
    "Alternative",
    "Assumption",
    "BatchApprovals",
    "Budget",
    "Capability",
    "CapabilityError",
    "CapabilityRegistry",
    "CapabilityRequestSpec",
    "Check",
    "CheckOp",
    "DraftError",
    "DraftProblem",
    "DraftReport",
    "Estimate",
    "Expectation",
    "InternalAction",
    "InternalSpec",
    "ModelDraft",
    "MonitorSpec",
    "Origin",
    "ParamsProblem",
    "PlanDraft",
    "PlanStatus",
    "Precondition",
    "Risk",
    "StepKind",
    "StepSpec",
    "StepStatus",
    "StoredPlan",
    "StoredStep",
    "Strategy",
    "TargetRule",
    "VerifySpec",
    "WaitSpec",
    "builtin_registry",
    "change_inputs",
    "choose_strategy",
    "draft_from_action_plan",
    "fulfils_intention",
    "is_done",
    "is_open",
    "is_terminal",
    "parse_draft",
    "parse_model_draft",
    "topological_order",
    "validate_draft",
]
