"""Request-side enumerations, spelled exactly as on the wire (cpir-0.2.md section 1.4).

Spelling differs by family: operations, provenance, mutation kinds and the tag values of
tagged records are SCREAMING_SNAKE; deployment modes, preference sources, coverage and the
DST policies are PascalCase. Values are matched case-sensitively. ``Coverage``, ``GapPolicy`` and
``FoldPolicy`` are the temporal layer's own enums (:mod:`cerebri.temporal.policies`), used here
as they are.
"""

from __future__ import annotations

from enum import StrEnum

from cerebri.temporal.policies import Coverage, FoldPolicy, GapPolicy

__all__ = [
    "ANALYSIS_OPERATIONS",
    "CHANGE_OPERATIONS",
    "FACT_SOURCES",
    "SUPPORTED_OPERATIONS",
    "Coverage",
    "DeploymentMode",
    "FoldPolicy",
    "GapPolicy",
    "MutationKind",
    "Operation",
    "PreferenceSource",
    "Provenance",
    "Weekday",
]


class Operation(StrEnum):
    """What the caller asks for (cpir-0.2.md 5.1; ``RESCHEDULE``, ``CANCEL`` and ``UPDATE``
    are planned by cerebri, decision 0049)."""

    CREATE = "CREATE"
    MOVE = "MOVE"
    UPDATE = "UPDATE"
    CANCEL = "CANCEL"
    FIND_SLOT = "FIND_SLOT"
    RESCHEDULE = "RESCHEDULE"
    OPTIMIZE = "OPTIMIZE"
    PLAN = "PLAN"
    ANALYZE = "ANALYZE"


CHANGE_OPERATIONS = frozenset({Operation.RESCHEDULE, Operation.CANCEL, Operation.UPDATE})
"""Operations on an existing event, planned by cerebri although cpir-0.2.md 5.1 lists them
as vocabulary only (an extension, docs/decisions/0049-cpir-change-operations.md)."""

SUPPORTED_OPERATIONS = frozenset(
    {
        Operation.CREATE,
        Operation.MOVE,
        Operation.FIND_SLOT,
        Operation.PLAN,
        Operation.ANALYZE,
        *CHANGE_OPERATIONS,
    }
)
"""Operations the planner executes; the rest (``OPTIMIZE``) yield ``UnsupportedOperation``."""

ANALYSIS_OPERATIONS = frozenset({Operation.FIND_SLOT, Operation.ANALYZE})
"""Operations that are analysis-only whatever ``scope.max_mutations`` says (cpir-0.2.md 5.3)."""


class Provenance(StrEnum):
    """Where a value came from (cpir-0.2.md 2.1)."""

    USER_EXPLICIT = "USER_EXPLICIT"
    INTEGRATION_FACT = "INTEGRATION_FACT"
    SYSTEM_FACT = "SYSTEM_FACT"
    PERSONAL_LEARNED = "PERSONAL_LEARNED"
    GLOBAL_LEARNED = "GLOBAL_LEARNED"
    MODEL_INFERENCE = "MODEL_INFERENCE"
    DEFAULT = "DEFAULT"


FACT_SOURCES = frozenset(
    {Provenance.USER_EXPLICIT, Provenance.INTEGRATION_FACT, Provenance.SYSTEM_FACT}
)
"""Provenances allowed for existing objects' times, facts and temporal series."""


class MutationKind(StrEnum):
    """A change to an external calendar (cpir-0.2.md 11)."""

    CREATE_EVENT = "CREATE_EVENT"
    MOVE_EVENT = "MOVE_EVENT"
    UPDATE_EVENT = "UPDATE_EVENT"
    DELETE_EVENT = "DELETE_EVENT"


class DeploymentMode(StrEnum):
    """How far the deployment may act; ``Shadow`` and ``Suggestion`` permit no mutation."""

    LOCAL = "Local"
    TEST = "Test"
    SHADOW = "Shadow"
    SUGGESTION = "Suggestion"
    CONFIRMATION = "Confirmation"
    LIMITED_AUTOMATION = "LimitedAutomation"


class PreferenceSource(StrEnum):
    """Origin of a preferred start, strongest first (declaration order = precedence)."""

    EXPLICIT_CURRENT_REQUEST = "ExplicitCurrentRequest"
    SESSION_CONTEXT = "SessionContext"
    PERSONAL_LEARNED = "PersonalLearned"
    GLOBAL_LEARNED = "GlobalLearned"
    DEFAULT = "Default"

    @property
    def rank(self) -> int:
        """Precedence rank: 0 for ``ExplicitCurrentRequest`` … 4 for ``Default``."""
        return _SOURCE_RANK[self]


_SOURCE_RANK = {source: rank for rank, source in enumerate(PreferenceSource)}


class Weekday(StrEnum):
    """A day of the week, Monday first; ``index`` is 0 for Monday … 6 for Sunday."""

    MON = "Mon"
    TUE = "Tue"
    WED = "Wed"
    THU = "Thu"
    FRI = "Fri"
    SAT = "Sat"
    SUN = "Sun"

    @property
    def number(self) -> int:
        """0 for Monday … 6 for Sunday (ISO weekday minus one)."""
        return _WEEKDAY_INDEX[self]


_WEEKDAY_INDEX = {day: index for index, day in enumerate(Weekday)}
