"""The optimiser's typed error (decision 0069)."""

from __future__ import annotations

from cerebri.errors import CerebriError

__all__ = ["OptimizeError"]


class OptimizeError(CerebriError, ValueError):
    """A :class:`~cerebri.optimize.model.BatchProblem` the optimiser cannot take, or a bug.

    Codes: ``optimize.duplicate_id`` (two meetings, people or rooms with one id),
    ``optimize.unknown_id`` (a meeting names a person, room or meeting the problem lacks),
    ``optimize.invalid_problem`` (a value out of range: a duration below 1 grain, a grain
    index that is not its position, a negative weight, capacity, travel time or budget, ...),
    ``optimize.internal`` (a bug guard: the score recomputed from the placement differs from
    the solver's objective, or CP-SAT rejected the model). ``path`` names the offending field
    in a JSON-pointer-like form (``/meetings/m1/duration``) or is ``None``.
    """

    code = "optimize.invalid_problem"
