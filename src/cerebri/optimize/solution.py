"""What the optimiser answers for a :class:`~cerebri.optimize.model.BatchProblem` (decision 0069).

``status`` is one of:

* ``OPTIMAL``: proven optimal (the soft/medium objective equals the solver's bound);
* ``FEASIBLE``: the best found within the budget; ``bound`` says how good it could at best be;
* ``INFEASIBLE``: proven that no placement meets every hard rule; ``conflict`` names a
  minimal set of rules that cannot hold together;
* ``UNKNOWN``: the budget ran out before any placement was found (nothing proven).

Scores are lexicographic ``(hard, medium, soft)``, written as non-negative penalties (0 is
best); ``hard`` is always 0 for a placement the solver returns, because hard rules are
constraints, never penalties.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

__all__ = ["Assignment", "BatchSolution", "RuleRef", "Score", "SolveStatus", "SolverStats", "Term"]


class SolveStatus(StrEnum):
    """How far the solver got: see the module docstring for each value."""

    OPTIMAL = "OPTIMAL"
    FEASIBLE = "FEASIBLE"
    INFEASIBLE = "INFEASIBLE"
    UNKNOWN = "UNKNOWN"


@dataclass(frozen=True, slots=True)
class Assignment:
    """Where a meeting goes: start grain index, room id (``None`` without a room) and whether an
    existing meeting moved (start or room differs from its current one)."""

    meeting_id: str
    start: int
    room_id: str | None
    moved: bool


@dataclass(frozen=True, slots=True)
class Term:
    """One named cost: ``name`` (a :class:`~cerebri.optimize.model.Weights` field, or
    ``"optional_conflict"`` for the medium level), the meeting it is charged to (the first
    of a pair by meeting id order), the other party (the other meeting of a pair, the larger
    room for ``larger_rooms_first``, or ``None``), the person it is about (``room_stability``
    and ``optional_conflict``, else ``None``), the unweighted ``amount`` and the weighted
    ``cost`` (``amount`` x weight; a medium term's weight is 1).

    Only terms with a non-zero cost are listed.
    """

    name: str
    meeting_id: str
    other: str | None
    amount: int
    cost: int
    person: str | None = None


@dataclass(frozen=True, slots=True)
class Score:
    """Lexicographic penalties ``(hard, medium, soft)``, each a non-negative integer, 0 best."""

    hard: int
    medium: int
    soft: int


@dataclass(frozen=True, slots=True)
class RuleRef:
    """A hard rule named in an infeasibility explanation: ``kind`` (``"window"``,
    ``"attendee_overlap"``, ``"room_overlap"``, ``"capacity"``, ``"after"``,
    ``"not_same_day"``, ``"travel"``, ``"hours"``, ``"max_repairs"``, ``"max_depth"``, ...) and
    the ids it ties together, sorted (for ``"after"``: the meeting, then the one it must
    follow).

    Kinds and their ids: ``window`` (meeting: its ``allowed_starts``), ``hours`` (meeting,
    person or room: open grains), ``busy`` (meeting, person or room: busy grains),
    ``capacity`` (meeting, room too small), ``attendee_overlap`` (two meetings and the
    required people they share), ``room_overlap`` (two meetings and a room), ``after``,
    ``not_same_day`` (two meetings), ``travel`` (two meetings), ``max_repairs`` and
    ``max_depth`` (no ids: the budget; with ``max_repairs = 0`` it is what pins existing
    meetings), ``day`` (meeting: longer than every day's run of grains) and ``rooms``
    (meeting: needs a room but has no candidate).
    """

    kind: str
    ids: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class SolverStats:
    """Counted work: CP-SAT's deterministic time used, branches and conflicts. No wall time
    (it would make the answer's bytes differ between runs)."""

    deterministic_time: float
    branches: int
    conflicts: int


@dataclass(frozen=True, slots=True)
class BatchSolution:
    """The answer. ``assignments`` sorted by meeting id; ``terms`` sorted by
    ``(name, meeting_id, other or "", person or "")``; ``bound``: the solver's best bound on
    ``(medium, soft)`` folded as ``medium * M + soft`` where ``M`` makes medium dominate
    (``None`` when nothing is known); ``conflict``: for ``INFEASIBLE``, sorted."""

    status: SolveStatus
    assignments: tuple[Assignment, ...]
    score: Score | None
    terms: tuple[Term, ...]
    bound: int | None
    conflict: tuple[RuleRef, ...]
    stats: SolverStats
