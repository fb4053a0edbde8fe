"""The plan draft and its parts as frozen, strict models (plans.md sections 1 and 2).

A draft is what a planner, template, operator or language model proposes. The models check
*shapes* (types, required fields, no unknown fields, closed sets that are not validation
rules such as ``origin``, ``risk`` and a check's ``op``); the *rules* of plans.md section 3
(unique keys, known dependencies, no cycle, a step kind from the closed set with exactly its
spec, registered capabilities, budgets not negative...) are checked by
:func:`cerebri.plans.validate_draft`, which reports every problem with a stable code instead
of stopping at the first. That is why ``StepSpec.kind``, ``InternalSpec.action`` and the
budget numbers are plain values here.

Shape rules added after a new-user trial (each a ``draft.schema`` error with the pointer of
the offending member): a step ``key`` is an identifier (:data:`KEY_PATTERN`) and its
``depends_on`` names no step twice; a check's ``path`` is a dot path (:data:`CHECK_PATH_PATTERN`)
and its ``value`` fits its ``op`` (see :class:`Check`); a verify polls no slower than its
window and a monitor's interval and stable time fit in its deadline; every duration is at most
:data:`MAX_DURATION_SECONDS`; a draft has at most :data:`MAX_DRAFT_STEPS` steps.

Units: every ``*_seconds`` field is a whole number of seconds; confidences are in ``[0, 1]``;
``money`` is a plain number in the operator's currency.
"""

from __future__ import annotations

from typing import Annotated, Any, Final

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    ValidationInfo,
    field_validator,
    model_serializer,
    model_validator,
)
from pydantic_core import PydanticCustomError

from cerebri.plans.vocabulary import CheckOp, Origin, Risk

__all__ = [
    "CHECK_PATH_PATTERN",
    "DEFAULT_MAX_INVOCATIONS",
    "KEY_PATTERN",
    "MAX_DRAFT_STEPS",
    "MAX_DURATION_SECONDS",
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

MAX_DURATION_SECONDS: Final = 31_536_000
"""The longest duration a draft may name, in seconds (365 days): every ``*_seconds`` field of
a step (``wait.seconds``, ``expectation.within_seconds``, the verify and monitor timings,
``request.duration_seconds``) and ``budget.max_wall_seconds``. ``Estimate.wall_seconds`` is a
sum over steps (and an actual on a stored plan), so it is not capped."""

MAX_DRAFT_STEPS: Final = 10_000
"""The most steps a draft may hold; a longer ``steps`` array is refused (``draft.schema`` at
``/steps``) before any step is read."""

KEY_PATTERN: Final = r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$"
"""A step key: 1 to 128 ASCII letters, digits, ``.``, ``_``, ``:`` or ``-``, starting with a
letter or digit (no space, control or format character: keys are printed and logged)."""

CHECK_PATH_PATTERN: Final = r"^[^.\s]+(\.[^.\s]+)*$"
"""A check's dot path: non-empty segments separated by single dots, no whitespace anywhere.
A segment is any other characters (``range[0]`` and ``/range`` are single segments, read
literally as member names)."""

_CONFIG: Final = ConfigDict(frozen=True, extra="forbid", strict=True)
_LAX: Final = Field(strict=False)
"""For enum and tuple fields only: Python callers may pass the wire strings and lists
(``origin="model"``, ``depends_on=["a"]``), so ``PlanDraft.model_validate(d.to_wire())``
round-trips; numbers, strings and booleans stay strict."""
_Text = Annotated[str, Field(min_length=1)]
_Confidence = Annotated[float, Field(ge=0.0, le=1.0)]
_Seconds = Annotated[int, Field(ge=0, le=MAX_DURATION_SECONDS)]
_PositiveSeconds = Annotated[int, Field(gt=0, le=MAX_DURATION_SECONDS)]
_ORDERED_OPS: Final = frozenset({CheckOp.LT, CheckOp.LTE, CheckOp.GT, CheckOp.GTE})
JSONObject = dict[str, Any]


class _Model(BaseModel):
    model_config = _CONFIG

    def to_wire(self) -> JSONObject:
        """The JSON object form: wire names, fields that are ``None`` left out."""
        return self.model_dump(mode="json", exclude_none=True)


class Check(_Model):
    """An observation through a read-only capability, compared at a dot ``path``.

    ``path`` walks the capability's structured result (``properties.ActiveState``): non-empty
    segments separated by single dots, no whitespace (:data:`CHECK_PATH_PATTERN`); any other
    character belongs to a segment, so ``range[0]`` names the member ``range[0]``.

    ``op`` compares the value found with ``value``, and the pair is checked by shape (an
    absent ``value`` is told from ``null`` by ``model_fields_set``): ``exists`` takes no
    ``value`` at all; every other op needs one; ``eq``/``ne`` accept any JSON value, ``null``
    included; ``lt``/``lte``/``gt``/``gte`` a number (not a boolean) or a string; ``contains``
    any JSON value. A wrong ``value`` is reported at ``.../value``, a missing one at the
    check itself. An explicit ``null`` stays in the wire form.
    """

    capability: _Text
    target: str | None = None
    params: JSONObject | None = None
    path: Annotated[str, Field(pattern=CHECK_PATH_PATTERN)]
    op: Annotated[CheckOp, _LAX]
    value: Any = None
    description: str | None = None

    @field_validator("value")
    @classmethod
    def _value_fits_op(cls, value: Any, info: ValidationInfo) -> Any:
        op = info.data.get("op")
        if op is CheckOp.EXISTS:
            raise PydanticCustomError("check_value", "op 'exists' takes no value")
        if op in _ORDERED_OPS and (
            isinstance(value, bool) or not isinstance(value, int | float | str)
        ):
            raise PydanticCustomError(
                "check_value",
                "op '{op}' compares with a number or a string",
                {"op": str(op)},
            )
        return value

    @model_validator(mode="after")
    def _value_present(self) -> Check:
        if self.op is not CheckOp.EXISTS and "value" not in self.model_fields_set:
            raise PydanticCustomError(
                "check_value", "op '{op}' needs a value", {"op": str(self.op)}
            )
        return self

    @model_serializer(mode="wrap")
    def _keep_null_value(self, handler: SerializerFunctionWrapHandler) -> Any:
        out = handler(self)
        if isinstance(out, dict) and self.value is None and "value" in self.model_fields_set:
            out["value"] = None  # an explicit null is a value (eq null), not an absent one
        return out


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
    risk: Annotated[Risk, _LAX]
    mitigation: _Text
    fallback: _Text
    alternatives: Annotated[tuple[str, ...], _LAX] = ()


class VerifySpec(_Model):
    """A ``verify`` step: resolve step ``of``'s expectation by observing ``check``.

    Polls every ``interval_seconds`` for at most ``within_seconds``; when ``within_seconds``
    is positive the interval may not exceed it (reported at ``interval_seconds``).
    """

    of: _Text
    check: Check
    within_seconds: _Seconds
    interval_seconds: _PositiveSeconds

    @field_validator("interval_seconds")
    @classmethod
    def _interval_fits(cls, interval: int, info: ValidationInfo) -> int:
        within = info.data.get("within_seconds")
        if isinstance(within, int) and 0 < within < interval:
            raise PydanticCustomError(
                "timing",
                "interval_seconds {interval} exceeds within_seconds {within}",
                {"interval": interval, "within": within},
            )
        return interval


class WaitSpec(_Model):
    """A ``wait`` step: pause the branch for ``seconds``."""

    seconds: _Seconds


class MonitorSpec(_Model):
    """A ``monitor`` step: repeat ``check`` every ``interval_seconds`` until it has held for
    ``stable_seconds``; fail when ``deadline_seconds`` pass first. Both ``interval_seconds``
    and ``stable_seconds`` must fit in the deadline (reported at ``deadline_seconds``)."""

    check: Check
    interval_seconds: _PositiveSeconds
    stable_seconds: _Seconds
    deadline_seconds: _PositiveSeconds

    @field_validator("deadline_seconds")
    @classmethod
    def _deadline_fits(cls, deadline: int, info: ValidationInfo) -> int:
        longer = [
            f"{name} {info.data[name]}"
            for name in ("interval_seconds", "stable_seconds")
            if isinstance(info.data.get(name), int) and info.data[name] > deadline
        ]
        if longer:
            raise PydanticCustomError(
                "timing",
                "deadline_seconds {deadline} is shorter than {longer}",
                {"deadline": deadline, "longer": " and ".join(longer)},
            )
        return deadline


class InternalSpec(_Model):
    """An ``internal`` step's action (closed vocabulary checked by validation)."""

    action: _Text


class StepSpec(_Model):
    """One step of a draft: common fields plus exactly one kind-specific spec.

    For ``kind == "capability"`` the spec is ``capability``/``target``/``params`` themselves;
    for the other kinds it is the member named like the kind (``request`` for
    ``request_capability``). ``max_attempts`` counts invocations, the first included.
    ``key`` matches :data:`KEY_PATTERN`; ``depends_on`` names no step twice.
    ``approver`` names the one principal (``principal:<name>``) who may decide this step's
    approval, compared space-trimmed and case-folded (a calendar's owner for a move of their
    event, decision 0076); ``None``: any
    approver but the requester and the proposal's author (decision 0022).
    """

    key: Annotated[str, Field(pattern=KEY_PATTERN)]
    title: str = ""
    kind: _Text
    depends_on: Annotated[tuple[str, ...], _LAX] = ()
    capability: str | None = None
    target: str | None = None
    params: JSONObject | None = None
    require_approval: bool = False
    approver: str | None = None
    max_attempts: int = 1
    expectation: Expectation | None = None
    precondition: Precondition | None = None
    request: CapabilityRequestSpec | None = None
    verify: VerifySpec | None = None
    wait: WaitSpec | None = None
    monitor: MonitorSpec | None = None
    internal: InternalSpec | None = None

    @field_validator("depends_on")
    @classmethod
    def _no_repeated_dependency(cls, depends_on: tuple[str, ...]) -> tuple[str, ...]:
        seen: set[str] = set()
        for key in depends_on:
            if key in seen:
                raise PydanticCustomError(
                    "duplicate_dependency", "depends_on names '{key}' twice", {"key": key}
                )
            seen.add(key)
        return depends_on


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

    Zero means unlimited, except for ``max_capability_invocations``: absent or 0 it is
    :data:`DEFAULT_MAX_INVOCATIONS`, so that no plan loops without bound. Negative values are
    reported by validation (``draft.negative_budget``).
    """

    max_capability_invocations: int = DEFAULT_MAX_INVOCATIONS
    max_wall_seconds: Annotated[int, Field(le=MAX_DURATION_SECONDS)] = 0
    max_money: float = 0.0
    max_human_approvals: int = 0


class PlanDraft(_Model):
    """A proposed plan graph of at most :data:`MAX_DRAFT_STEPS` steps. ``ignored`` lists, as
    JSON pointers, the fields of a model proposal that were dropped (filled only by
    :func:`cerebri.plans.parse_model_draft`; :func:`cerebri.plans.parse_draft` refuses a
    non-empty one)."""

    objective: _Text
    origin: Annotated[Origin, _LAX]
    strategy: _Text
    steps: Annotated[tuple[StepSpec, ...], Field(max_length=MAX_DRAFT_STEPS), _LAX]
    assumptions: Annotated[tuple[Assumption, ...], _LAX] = ()
    completion_criteria: Annotated[tuple[str, ...], _LAX] = ()
    abort_conditions: Annotated[tuple[str, ...], _LAX] = ()
    alternatives: Annotated[tuple[Alternative, ...], _LAX] = ()
    risk: Annotated[Risk, _LAX] = Risk.LOW
    budget: Budget = Field(default_factory=Budget)
    require_approval: bool = False
    estimate: Estimate = Field(default_factory=Estimate)
    ignored: Annotated[tuple[str, ...], _LAX] = ()

    def step(self, key: str) -> StepSpec | None:
        """The first step with ``key``, or ``None``."""
        return next((s for s in self.steps if s.key == key), None)
