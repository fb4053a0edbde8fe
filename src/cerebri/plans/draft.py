"""The plan draft and its parts as frozen, strict models (plans.md sections 1 and 2).

A draft is what a planner, template, operator or language model proposes. The models check
*shapes* (types, required fields, no unknown fields, closed sets that are not validation
rules such as ``origin``, ``risk`` and a check's ``op``); the *rules* of plans.md section 3
(unique keys, known dependencies, no cycle, a step kind from the closed set with exactly its
spec, registered capabilities, budgets not negative...) are checked by
:func:`cerebri.plans.validate_draft`, which reports every problem with a stable code instead
of stopping at the first. That is why ``StepSpec.kind``, ``InternalSpec.action`` and the
budget numbers are plain values here.

Units: every ``*_seconds`` field is a whole number of seconds; confidences are in ``[0, 1]``;
``money`` is a plain number in the operator's currency.
"""

from __future__ import annotations

from typing import Annotated, Any, Final

from pydantic import BaseModel, ConfigDict, Field

from cerebri.plans.vocabulary import CheckOp, Origin, Risk

__all__ = [
    "DEFAULT_MAX_INVOCATIONS",
    "Alternative",
    "Assumption",
    "Budget",
    "CapabilityRequestSpec",
    "Check",
    "Estimate",
    "Expectation",
    "InternalSpec",
    "MonitorSpec",
    "PlanDraft",
    "Precondition",
    "StepSpec",
    "VerifySpec",
    "WaitSpec",
]

DEFAULT_MAX_INVOCATIONS: Final = 20
"""Capability invocations a plan may make when its budget does not say (plans.md section 1)."""

_CONFIG: Final = ConfigDict(frozen=True, extra="forbid", strict=True)
_Text = Annotated[str, Field(min_length=1)]
_Confidence = Annotated[float, Field(ge=0.0, le=1.0)]
_Seconds = Annotated[int, Field(ge=0)]
_PositiveSeconds = Annotated[int, Field(gt=0)]
JSONObject = dict[str, Any]


class _Model(BaseModel):
    model_config = _CONFIG

    def to_wire(self) -> JSONObject:
        """The JSON object form: wire names, fields that are ``None`` left out."""
        return self.model_dump(mode="json", exclude_none=True)


class Check(_Model):
    """An observation through a read-only capability, compared at a dot ``path``.

    ``path`` walks the capability's structured result (``properties.ActiveState``); ``op``
    compares the value found with ``value`` (``exists`` ignores ``value``).
    """

    capability: _Text
    target: str | None = None
    params: JSONObject | None = None
    path: _Text
    op: CheckOp
    value: Any = None
    description: str | None = None


class Expectation(_Model):
    """What a consequential step should bring about within ``within_seconds`` of completing."""

    description: _Text
    confidence: _Confidence
    within_seconds: _Seconds
    belief_id: str | None = None


class Precondition(_Model):
    """Must hold before the step acts, else the step is skipped.

    With ``satisfied_if_false`` the skip means the desired state already holds.
    """

    check: Check
    satisfied_if_false: bool = False


class CapabilityRequestSpec(_Model):
    """A ``request_capability`` step: ask for a temporary, scoped grant.

    ``duration_seconds`` is how long the grant would last; ``max_operations`` caps the
    invocations it would allow (``None``: the grant's duration is the only bound).
    """

    capability: _Text
    target_pattern: _Text
    param_constraints: JSONObject = Field(default_factory=dict)
    duration_seconds: _PositiveSeconds
    max_operations: Annotated[int, Field(gt=0)] | None = None
    reason: _Text
    risk: Risk
    mitigation: _Text
    fallback: _Text
    alternatives: tuple[str, ...] = ()


class VerifySpec(_Model):
    """A ``verify`` step: resolve step ``of``'s expectation by observing ``check``.

    Polls every ``interval_seconds`` for at most ``within_seconds``.
    """

    of: _Text
    check: Check
    within_seconds: _Seconds
    interval_seconds: _PositiveSeconds


class WaitSpec(_Model):
    """A ``wait`` step: pause the branch for ``seconds``."""

    seconds: _Seconds


class MonitorSpec(_Model):
    """A ``monitor`` step: repeat ``check`` every ``interval_seconds`` until it has held for
    ``stable_seconds``; fail when ``deadline_seconds`` pass first."""

    check: Check
    interval_seconds: _PositiveSeconds
    stable_seconds: _Seconds
    deadline_seconds: _PositiveSeconds


class InternalSpec(_Model):
    """An ``internal`` step's action (closed vocabulary checked by validation)."""

    action: _Text


class StepSpec(_Model):
    """One step of a draft: common fields plus exactly one kind-specific spec.

    For ``kind == "capability"`` the spec is ``capability``/``target``/``params`` themselves;
    for the other kinds it is the member named like the kind (``request`` for
    ``request_capability``). ``max_attempts`` counts invocations, the first included.
    """

    key: _Text
    title: str = ""
    kind: _Text
    depends_on: tuple[str, ...] = ()
    capability: str | None = None
    target: str | None = None
    params: JSONObject | None = None
    require_approval: bool = False
    max_attempts: int = 1
    expectation: Expectation | None = None
    precondition: Precondition | None = None
    request: CapabilityRequestSpec | None = None
    verify: VerifySpec | None = None
    wait: WaitSpec | None = None
    monitor: MonitorSpec | None = None
    internal: InternalSpec | None = None


class Assumption(_Model):
    """A belief the plan rests on; below ``min_confidence`` the plan is reconsidered."""

    belief_id: str | None = None
    proposition: _Text
    min_confidence: _Confidence | None = None


class Estimate(_Model):
    """Expected (or, on a stored plan, actual) resource use; all counts are whole numbers."""

    capability_invocations: int = 0
    human_approvals: int = 0
    wall_seconds: int = 0
    network_operations: int = 0
    money: float = 0.0
    llm_tokens: int = 0


class Alternative(_Model):
    """A strategy that was considered, with why it was or was not selected."""

    strategy: _Text
    description: str
    estimate: Estimate = Field(default_factory=Estimate)
    expected_confidence: _Confidence
    score: float
    selected: bool
    why: str | None = None


class Budget(_Model):
    """Limits that stop a runaway plan.

    Zero means unlimited, except ``max_capability_invocations`` whose default is
    :data:`DEFAULT_MAX_INVOCATIONS` so that no plan loops without bound. Negative values are
    reported by validation (``draft.negative_budget``).
    """

    max_capability_invocations: int = DEFAULT_MAX_INVOCATIONS
    max_wall_seconds: int = 0
    max_money: float = 0.0
    max_human_approvals: int = 0


class PlanDraft(_Model):
    """A proposed plan graph. ``ignored`` lists, as JSON pointers, the fields of a model
    proposal that were dropped (filled by :func:`cerebri.plans.parse_model_draft`)."""

    objective: _Text
    origin: Origin
    strategy: _Text
    steps: tuple[StepSpec, ...]
    assumptions: tuple[Assumption, ...] = ()
    completion_criteria: tuple[str, ...] = ()
    abort_conditions: tuple[str, ...] = ()
    alternatives: tuple[Alternative, ...] = ()
    risk: Risk = Risk.LOW
    budget: Budget = Field(default_factory=Budget)
    require_approval: bool = False
    estimate: Estimate = Field(default_factory=Estimate)
    ignored: tuple[str, ...] = ()

    def step(self, key: str) -> StepSpec | None:
        """The first step with ``key``, or ``None``."""
        return next((s for s in self.steps if s.key == key), None)
