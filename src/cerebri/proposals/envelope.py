"""The experiment proposal envelope, version 2 (proposals.md section 1).

Wire names are the spec's (``schema/v``, ``proposal/ref``, ``artifact/digest``...); Python
attributes are snake_case with those names as aliases, and models are read and written by
alias. Instants are RFC 3339 strings in UTC with a four-digit year (:data:`INSTANT_PATTERN`:
``YYYY-MM-DDTHH:MM:SS[.f{1,9}]Z``), held as :class:`~cerebri.temporal.Instant`; the signed,
extended-year spellings ``Instant.format`` uses outside 0000..9999 (``+10000-…``) are not
RFC 3339 and are refused (``proposal.schema``).
The validity window is half-open: an envelope is valid at ``now`` iff
``proposed-at <= now < expires-at``, and it spans at most :data:`MAX_VALIDITY_SECONDS`
(one year): ``propose`` refuses to sign and verification refuses a longer window
(``proposal.validity_too_long``).

An envelope is a description of a wish, never permission: see :mod:`cerebri.proposals.verify`.
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Annotated, Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic_core import PydanticCustomError

from cerebri.proposals.digest import DIGEST_PATTERN
from cerebri.temporal import Instant

__all__ = [
    "ALLOWED_EXECUTOR_MODES",
    "INSTANT_PATTERN",
    "MAX_VALIDITY_SECONDS",
    "ArtifactType",
    "Candidate",
    "Classification",
    "Envelope",
    "EnvelopeSignature",
    "Executor",
    "ExecutorMode",
    "SignatureEntry",
    "Subject",
    "SubjectKind",
    "Target",
    "is_rfc3339_utc",
]

_CONFIG: Final = ConfigDict(
    frozen=True, extra="forbid", strict=True, populate_by_name=False, serialize_by_alias=True
)
_Text = Annotated[str, Field(min_length=1)]

INSTANT_PATTERN: Final = r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$"
"""RFC 3339 UTC instant text with a four-digit year, as envelopes and key files carry it."""
_INSTANT_RE: Final = re.compile(INSTANT_PATTERN, re.ASCII)

MAX_VALIDITY_SECONDS: Final = 31_536_000
"""Longest validity window ``expires-at - proposed-at``, in seconds: one year of 365 days.
Proposals are short-lived wishes; ``propose`` (and ``cerebri propose --expires-in``) and
verification both hold this limit (``proposal.validity_too_long``)."""


def is_rfc3339_utc(text: str) -> bool:
    """Whether ``text`` matches :data:`INSTANT_PATTERN` (shape only; ``Instant`` checks fields).
    Anything but a ``str`` is ``False``."""
    return isinstance(text, str) and _INSTANT_RE.fullmatch(text) is not None


class ArtifactType(StrEnum):
    """Candidate artifact types (ours, plus the public task-pack type)."""

    ACTION_PLAN = "cerebri.action-plan.v1"
    PLAN_GRAPH = "cerebri.plan-graph.v1"
    TASK_EXPERIMENT = "operator-task-experiment-candidate.v1"


class ExecutorMode(StrEnum):
    """Executor modes a requester may select (ours)."""

    DETERMINISTIC_HOST_COMPILER = "deterministic-host-compiler"
    PLAN_EXECUTOR = "plan-executor"
    MANUAL = "manual"


ALLOWED_EXECUTOR_MODES: Final[dict[ArtifactType, frozenset[ExecutorMode]]] = {
    ArtifactType.ACTION_PLAN: frozenset({ExecutorMode.PLAN_EXECUTOR, ExecutorMode.MANUAL}),
    ArtifactType.PLAN_GRAPH: frozenset({ExecutorMode.PLAN_EXECUTOR, ExecutorMode.MANUAL}),
    ArtifactType.TASK_EXPERIMENT: frozenset({ExecutorMode.DETERMINISTIC_HOST_COMPILER}),
}
"""Which executor modes the verifier accepts for each artifact type (ours)."""


class Classification(StrEnum):
    """``class/key``: how widely the proposal may be shared."""

    PUBLIC = "Public"
    COMMUNITY = "Community"
    PERSONAL = "Personal"


class SubjectKind(StrEnum):
    """Who a subject is (ours)."""

    PRINCIPAL = "principal"
    SERVICE = "service"


class Subject(BaseModel):
    """The author: ``{"kind": "principal"|"service", "id": ...}`` (ours)."""

    model_config = _CONFIG

    kind: Annotated[SubjectKind, Field(strict=False)]  # "principal" also from Python
    id: _Text


class Executor(BaseModel):
    """The executor the requester selected."""

    model_config = _CONFIG

    mode: ExecutorMode


class Candidate(BaseModel):
    """The inert, content-addressed artifact; ``size`` is its length in bytes (ours)."""

    model_config = _CONFIG

    artifact_type: ArtifactType = Field(alias="artifact/type")
    artifact_ref: _Text = Field(alias="artifact/ref")
    artifact_digest: Annotated[str, Field(pattern=DIGEST_PATTERN)] = Field(alias="artifact/digest")
    artifact_size: Annotated[int, Field(ge=0)] = Field(alias="artifact/size")


class Target(BaseModel):
    """For a task-pack candidate: the exact task profile and local binding (ours)."""

    model_config = _CONFIG

    task_profile: _Text = Field(alias="task/profile")
    local_binding: _Text = Field(alias="local/binding")


class SignatureEntry(BaseModel):
    """One signature: the signer's ``keyid`` and the base64 Ed25519 signature ``sig``.

    ``sig`` is canonical standard base64 of the 64 signature bytes: 86 characters and
    ``==``, the last character carrying zero padding bits (``A``, ``Q``, ``g`` or ``w``), so
    no second spelling of the same signature exists.
    """

    model_config = _CONFIG

    keyid: _Text
    sig: Annotated[str, Field(pattern=r"^[A-Za-z0-9+/]{85}[AQgw]==$")]


MAX_SIGNATURES: Final = 16
"""The most signature entries an envelope may carry (``proposal.too_many_signatures``).

proposals.md section 3 counts distinct public keys toward a threshold and never duplicate
entries; a copied entry adds nothing but verification work, so it is refused outright."""


class EnvelopeSignature(BaseModel):
    """The ``signature`` field: 1 to :data:`MAX_SIGNATURES` signatures over the rest of the
    envelope, each by a different ``keyid`` (``proposal.duplicate_signature``)."""

    model_config = _CONFIG

    signatures: Annotated[
        tuple[SignatureEntry, ...],
        Field(
            min_length=1,
            max_length=MAX_SIGNATURES,
            description="One entry per keyid: a keyid appearing twice is refused.",
        ),
    ]

    @field_validator("signatures")
    @classmethod
    def _distinct_keyids(cls, value: tuple[SignatureEntry, ...]) -> tuple[SignatureEntry, ...]:
        seen: set[str] = set()
        for entry in value:
            if entry.keyid in seen:
                raise PydanticCustomError(
                    "duplicate_signature",
                    "keyid {keyid} signs more than once",
                    {"keyid": entry.keyid},
                )
            seen.add(entry.keyid)
        return value


def _utc_text(value: Any) -> Any:
    if isinstance(value, str) and not is_rfc3339_utc(value):
        raise ValueError("must be an RFC 3339 UTC instant YYYY-MM-DDTHH:MM:SS[.fraction]Z")
    return value


class Envelope(BaseModel):
    """Envelope v2. Validate with ``Envelope.model_validate_json(data)`` (aliases only).

    Beyond field shapes it enforces ``human-in-loop/required == true``,
    ``proposed-at < expires-at``, and the conditional rule: a
    ``operator-task-experiment-candidate.v1`` candidate needs ``target`` and executor mode
    ``deterministic-host-compiler``.
    """

    model_config = _CONFIG

    schema_v: Literal[2] = Field(alias="schema/v")
    proposal_ref: _Text = Field(alias="proposal/ref")
    query_id: _Text = Field(alias="query/id")
    room_id: _Text = Field(alias="room/id")
    turn_id: _Text = Field(alias="turn/id")
    author: Subject
    author_node_id: _Text = Field(alias="author/node-id")
    executor: Executor
    candidate: Candidate
    target: Target | None = None
    class_key: Classification = Field(alias="class/key")
    human_in_loop_required: Literal[True] = Field(alias="human-in-loop/required")
    proposed_at: Instant = Field(alias="proposed-at")
    expires_at: Instant = Field(alias="expires-at")
    idempotency_key: _Text = Field(alias="idempotency/key")
    signature: EnvelopeSignature

    @field_validator("proposed_at", "expires_at", mode="before")
    @classmethod
    def _require_utc(cls, value: Any) -> Any:
        return _utc_text(value)

    @field_validator("target", mode="before")
    @classmethod
    def _no_null_target(cls, value: Any) -> Any:
        if value is None:
            raise ValueError("target is omitted when absent, never null")
        return value

    @model_validator(mode="after")
    def _rules(self) -> Envelope:
        if not self.proposed_at < self.expires_at:
            raise ValueError("expires-at must be after proposed-at")
        if self.candidate.artifact_type is ArtifactType.TASK_EXPERIMENT:
            if self.target is None:
                raise ValueError("a task-pack candidate requires target")
            if self.executor.mode is not ExecutorMode.DETERMINISTIC_HOST_COMPILER:
                raise ValueError("a task-pack candidate requires deterministic-host-compiler")
        return self
