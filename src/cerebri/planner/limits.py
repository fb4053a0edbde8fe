"""Named admission limits of the planner (cpir-0.2.md section 12, planner.md 2.3).

Defaults match the reference. Raise them for workloads that need more; every limit is a
count or a byte size, never a duration.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DEFAULT_LIMITS", "PlannerLimits"]


@dataclass(frozen=True, slots=True)
class PlannerLimits:
    """Admission limits checked by validation before any search.

    Attributes:
        max_request_bytes: compact canonical re-serialisation of the request, in bytes;
            None switches the check off (and saves one serialisation of the request).
        max_request_work_bytes: that size multiplied by ``budget.max_candidates``; None
            switches it off.
        max_objects: ``context.objects`` entries.
        max_facts: ``context.facts`` entries.
        max_constraints: ``constraints`` entries (all kinds).
        max_candidates: largest allowed ``budget.max_candidates`` (grid positions).
        max_work_units: ``max_candidates × (objects + 1) × (constraints + facts + objects + 1)``.
    """

    max_request_bytes: int | None = 262_144
    max_request_work_bytes: int | None = 16_777_216
    max_objects: int = 256
    max_facts: int = 1024
    max_constraints: int = 1024
    max_candidates: int = 4096
    max_work_units: int = 1_000_000

    def __post_init__(self) -> None:
        for name in self.__slots__:
            value = getattr(self, name)
            if value is None and name in {"max_request_bytes", "max_request_work_bytes"}:
                continue
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ValueError(f"limit {name} must be a non-negative integer, got {value!r}")


DEFAULT_LIMITS = PlannerLimits()
"""The reference limits: 256 KiB, 16 MiB, 256 objects, 1024 facts, 1024 constraints,
4096 grid positions, 1 000 000 work units."""
