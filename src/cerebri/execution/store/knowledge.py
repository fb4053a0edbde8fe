"""The knowledge repository: predictions, beliefs and procedural memories (decision 0043).

* A prediction is inserted ``open`` when a step with an expectation completes
  (:func:`open_prediction`) and resolved once, ``confirmed`` or ``missed``, by a conditional
  update that matches it only while it is still open (:func:`resolve_prediction`).
* A belief is a confidence in ``[0, 1]`` with the evidence that last moved it
  (:func:`belief`, :func:`add_belief`, :func:`set_belief`); the arithmetic is the caller's.
* A procedural memory keeps the draft of a completed plan under a goal key
  (:func:`remember`, :func:`recall`).

Every function runs in the caller's transaction; JSON columns are given and returned as
canonical JSON text; instants are nanoseconds since the epoch.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, Row, insert, select, update

from cerebri.execution.store.errors import StoreError
from cerebri.execution.store.schema import beliefs, predictions, procedural_memories, steps
from cerebri.execution.store.vocabulary import PredictionStatus

__all__ = [
    "add_belief",
    "belief",
    "open_prediction",
    "open_predictions",
    "prediction_of_step",
    "predictions_of_plan",
    "recall",
    "remember",
    "resolve_prediction",
    "set_belief",
]

_OPEN = PredictionStatus.OPEN.value


# -- predictions -------------------------------------------------------------------------------


def open_prediction(connection: Connection, **values: Any) -> None:
    """Insert an ``open`` prediction with ``values`` (``id``, ``plan_id``, ``step_id``,
    ``expectation`` as JSON text, ``due_at``, ``created_at``)."""
    connection.execute(insert(predictions).values(status=_OPEN, **values))


def prediction_of_step(connection: Connection, plan_id: str, key: str) -> Any:
    """The plan's step ``key`` with the prediction it made, if any: ``id`` (the step's),
    ``prediction_id``, and the prediction's ``due_at`` and ``created_at`` (``None`` without
    one). ``sqlalchemy.exc.NoResultFound`` when the plan has no such step."""
    return connection.execute(
        select(
            steps.c.id,
            steps.c.prediction_id,
            predictions.c.due_at,
            predictions.c.created_at,
        )
        .outerjoin(predictions, predictions.c.id == steps.c.prediction_id)
        .where(steps.c.plan_id == plan_id, steps.c.key == key)
    ).one()


def resolve_prediction(
    connection: Connection,
    prediction_id: str,
    status: PredictionStatus,
    observation: str,
    now: int,
) -> Row[Any] | None:
    """Resolve the prediction as ``status`` at ``now`` with ``observation`` (JSON text), only
    while it is open; its row's ``expectation`` (JSON text) when it was, else ``None``.
    Raises :class:`StoreError` ``store.illegal_transition`` for ``status`` ``open``."""
    if status is PredictionStatus.OPEN:
        raise StoreError("a prediction is never reopened", code="store.illegal_transition")
    return connection.execute(
        update(predictions)
        .where(predictions.c.id == prediction_id, predictions.c.status == _OPEN)
        .values(status=status.value, observation=observation, resolved_at=now)
        .returning(predictions.c.expectation)
    ).first()


def predictions_of_plan(connection: Connection, plan_id: str) -> list[Row[Any]]:
    """The plan's prediction rows by (``created_at``, ``id``)."""
    return list(
        connection.execute(
            select(predictions)
            .where(predictions.c.plan_id == plan_id)
            .order_by(predictions.c.created_at, predictions.c.id)
        ).all()
    )


def open_predictions(connection: Connection) -> list[Row[Any]]:
    """Every ``open`` prediction row, of any plan (in no promised order)."""
    return list(connection.execute(select(predictions).where(predictions.c.status == _OPEN)).all())


# -- beliefs -----------------------------------------------------------------------------------


def belief(connection: Connection, belief_id: str) -> Row[Any] | None:
    """The belief row (``id``, ``confidence``, ``evidence``, ``updated_at``), or ``None``."""
    return connection.execute(select(beliefs).where(beliefs.c.id == belief_id)).first()


def add_belief(
    connection: Connection, belief_id: str, confidence: float, evidence: str, now: int
) -> None:
    """Insert a belief with its first ``confidence`` and ``evidence`` (JSON text)."""
    connection.execute(
        insert(beliefs).values(
            id=belief_id, confidence=confidence, evidence=evidence, updated_at=now
        )
    )


def set_belief(
    connection: Connection, belief_id: str, confidence: float, evidence: str, now: int
) -> None:
    """Write a stored belief's new ``confidence`` and the ``evidence`` (JSON text) that
    moved it."""
    connection.execute(
        update(beliefs)
        .where(beliefs.c.id == belief_id)
        .values(confidence=confidence, evidence=evidence, updated_at=now)
    )


# -- procedural memories -----------------------------------------------------------------------


def remember(connection: Connection, **values: Any) -> None:
    """Insert a procedural memory with ``values`` (``id``, ``plan_id``, ``intention_id``,
    ``goal_key``, ``steps``: the draft as JSON text, ``created_at``)."""
    connection.execute(insert(procedural_memories).values(**values))


def recall(connection: Connection, goal_key: str) -> str | None:
    """The draft (JSON text) most recently remembered under ``goal_key`` (latest
    ``created_at``, then greatest id), or ``None``."""
    text: str | None = connection.execute(
        select(procedural_memories.c.steps)
        .where(procedural_memories.c.goal_key == goal_key)
        .order_by(procedural_memories.c.created_at.desc(), procedural_memories.c.id.desc())
        .limit(1)
    ).scalar()
    return text
