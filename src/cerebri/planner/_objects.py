"""Context objects by id, the first of each id winning (planner.md 2: duplicates are issues)."""

from __future__ import annotations

from collections.abc import Sequence

from cerebri.cpir import PlanningObject

__all__ = ["first_by_id"]


def first_by_id(objects: Sequence[PlanningObject]) -> dict[str, PlanningObject]:
    """Object id -> the first object with that id, in order of first appearance.

    Built by ``dict(zip(...))`` in C when the ids are unique (the common case), otherwise
    by a loop keeping the first of each id.
    """
    ids = [obj.id for obj in objects]
    by_id = dict(zip(ids, objects, strict=True))
    if len(by_id) == len(ids):
        return by_id
    first: dict[str, PlanningObject] = {}
    for obj in objects:
        first.setdefault(obj.id, obj)
    return first
