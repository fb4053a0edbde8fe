"""The plans repository: reads and writes of one plan row (decision 0043).

Every function runs in the caller's transaction (``connection``); a plan function touches the
row of ``plan_id`` only. Instants are nanoseconds since the epoch. A status write names the statuses
it may leave (``leaving``) when it must not overwrite a plan that moved meanwhile; without it
the row is written whatever its status (the caller read it in this transaction).

The envelopes a plan was taken in from are kept with it: :func:`add_envelope` records one
under its idempotency key (the table's primary key, so a second intake of the key raises
``sqlalchemy.exc.IntegrityError``), :func:`envelope` and :func:`ledger_of` read it back.

The claim's statements, which start a plan and count its invocations in the same statement
group as the step's lease, stay with the claim (:mod:`cerebri.execution.claims`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import Connection, Row, insert, select, update

from cerebri.execution.store.schema import envelopes, plans
from cerebri.plans.vocabulary import OPEN_PLAN_STATUSES, PlanStatus

__all__ = [
    "add_envelope",
    "add_revision",
    "close",
    "count_approval_request",
    "count_down",
    "count_invocation",
    "envelope",
    "find",
    "finished_open",
    "get",
    "give_back_invocation",
    "ledger_of",
    "limits_of_revisions",
    "listed",
    "open_or_among",
    "provenance",
    "revisions_of",
    "set_status",
    "spend",
    "status_of",
]


def get(connection: Connection, plan_id: str) -> Row[Any]:
    """The plan row; ``sqlalchemy.exc.NoResultFound`` when there is none."""
    return connection.execute(select(plans).where(plans.c.id == plan_id)).one()


def add_revision(connection: Connection, **values: Any) -> None:
    """Insert a plan revision with ``values`` (every column of ``plans`` it sets: ``id``,
    ``intention_id``, ``revision``, ``supersedes``, ``status``, ``draft``, ``limits``, ...)."""
    connection.execute(insert(plans).values(**values))


def find(connection: Connection, plan_id: str) -> Row[Any] | None:
    """The plan row, or ``None`` when there is none."""
    return connection.execute(select(plans).where(plans.c.id == plan_id)).first()


def status_of(connection: Connection, plan_id: str) -> str | None:
    """The plan's status (wire value), or ``None`` when there is no such plan."""
    status = connection.execute(select(plans.c.status).where(plans.c.id == plan_id)).scalar()
    return None if status is None else str(status)


def provenance(connection: Connection, plan_id: str) -> Any:
    """The plan's ``revision`` and the ``author``, ``envelope_digest`` and
    ``envelope_expires_at`` (ns) of the envelope it came from (``None`` for a bare draft);
    ``sqlalchemy.exc.NoResultFound`` when there is no such plan."""
    return connection.execute(
        select(
            plans.c.revision,
            plans.c.author,
            plans.c.envelope_digest,
            plans.c.envelope_expires_at,
        ).where(plans.c.id == plan_id)
    ).one()


def finished_open(connection: Connection, limit: int) -> list[str]:
    """The ids of at most ``limit`` open plans with no open step left (``open_steps = 0``),
    by id: plans whose completion a stopped worker did not write."""
    rows = connection.execute(
        select(plans.c.id)
        .where(
            plans.c.status.in_(tuple(s.value for s in OPEN_PLAN_STATUSES)),
            plans.c.open_steps == 0,
        )
        .order_by(plans.c.id)
        .limit(limit)
    ).all()
    return [str(row.id) for row in rows]


def limits_of_revisions(
    connection: Connection, intention_id: str, statuses: Iterable[PlanStatus]
) -> list[str | None]:
    """The ``limits`` (JSON text) of the intention's plan revisions in ``statuses``."""
    rows = connection.execute(
        select(plans.c.limits).where(
            plans.c.intention_id == intention_id,
            plans.c.status.in_(tuple(s.value for s in statuses)),
        )
    ).all()
    return [row.limits for row in rows]


def listed(
    connection: Connection,
    *,
    status: str | None = None,
    among: Iterable[str] | None = None,
) -> list[Row[Any]]:
    """Plan rows by (``created_at``, ``id``): only those in ``status`` when given, only those
    whose status is one of ``among`` (wire values) when given."""
    query = select(plans).order_by(plans.c.created_at, plans.c.id)
    if status is not None:
        query = query.where(plans.c.status == status)
    if among is not None:
        query = query.where(plans.c.status.in_(tuple(among)))
    return list(connection.execute(query).all())


def revisions_of(connection: Connection, intention_id: str) -> list[Any]:
    """``id``, ``revision``, ``status``, ``supersedes`` and ``superseded_by`` of every plan
    revision of the intention, by (``revision``, ``id``)."""
    return list(
        connection.execute(
            select(
                plans.c.id,
                plans.c.revision,
                plans.c.status,
                plans.c.supersedes,
                plans.c.superseded_by,
            )
            .where(plans.c.intention_id == intention_id)
            .order_by(plans.c.revision, plans.c.id)
        ).all()
    )


def open_or_among(
    connection: Connection, statuses: Iterable[str], plan_ids: Iterable[str]
) -> list[Row[Any]]:
    """The plan rows whose status is one of ``statuses`` (wire values) or whose id is one of
    ``plan_ids`` (in no promised order)."""
    return list(
        connection.execute(
            select(plans).where(
                plans.c.status.in_(tuple(statuses)) | plans.c.id.in_(list(plan_ids))
            )
        ).all()
    )


def count_down(connection: Connection, plan_id: str, closed: int) -> int:
    """Subtract ``closed`` from the plan's ``open_steps``; the count left."""
    row = connection.execute(
        update(plans)
        .where(plans.c.id == plan_id)
        .values(open_steps=plans.c.open_steps - closed)
        .returning(plans.c.open_steps)
    ).one()
    return int(row.open_steps)


def count_invocation(connection: Connection, plan_id: str, most: int) -> bool:
    """Count one capability invocation against the plan's budget, only while fewer than
    ``most`` were counted; whether it was."""
    counted = connection.execute(
        update(plans)
        .where(plans.c.id == plan_id, plans.c.invocations < most)
        .values(invocations=plans.c.invocations + 1)
    )
    return counted.rowcount == 1


def spend(connection: Connection, plan_id: str, amount: float) -> None:
    """Add ``amount`` to the plan's ``money_spent``."""
    connection.execute(
        update(plans).where(plans.c.id == plan_id).values(money_spent=plans.c.money_spent + amount)
    )


def give_back_invocation(connection: Connection, plan_id: str) -> None:
    """Take back one capability invocation the plan's budget counted."""
    connection.execute(
        update(plans).where(plans.c.id == plan_id).values(invocations=plans.c.invocations - 1)
    )


def count_approval_request(connection: Connection, plan_id: str, now: int) -> None:
    """The plan asked a person: ``approvals_requested`` + 1, status ``awaiting_approval``."""
    connection.execute(
        update(plans)
        .where(plans.c.id == plan_id)
        .values(
            approvals_requested=plans.c.approvals_requested + 1,
            status=PlanStatus.AWAITING_APPROVAL.value,
            updated_at=now,
        )
    )


def set_status(
    connection: Connection,
    plan_id: str,
    status: PlanStatus,
    now: int,
    *,
    leaving: Iterable[PlanStatus] | None = None,
    **values: Any,
) -> bool:
    """Write the plan's ``status`` (and ``updated_at`` = ``now``, and ``values``), only from
    a status in ``leaving`` when it is given; whether the row was written."""
    statement = update(plans).where(plans.c.id == plan_id)
    if leaving is not None:
        froms = tuple(s.value for s in leaving)
        statement = statement.where(
            plans.c.status == froms[0] if len(froms) == 1 else plans.c.status.in_(froms)
        )
    written = connection.execute(statement.values(status=status.value, updated_at=now, **values))
    return written.rowcount == 1


def close(
    connection: Connection,
    plan_id: str,
    status: PlanStatus,
    now: int,
    *,
    reason: str,
    superseded_by: str | None,
    closed_steps: int,
) -> None:
    """Close the plan as ``status`` for ``reason`` (``superseded_by``: its next revision), its
    ``open_steps`` less the ``closed_steps`` just cancelled."""
    set_status(
        connection,
        plan_id,
        status,
        now,
        status_reason=reason,
        superseded_by=superseded_by,
        open_steps=plans.c.open_steps - closed_steps,
        closed_at=now,
    )


# -- envelopes ---------------------------------------------------------------------------------


def add_envelope(connection: Connection, **values: Any) -> None:
    """Record an envelope taken in, with ``values`` (``idempotency_key``, ``digest``,
    ``plan_id``, ``author``, ``expires_at``, ``created_at``, ``submitted_by``, ``keyids`` as
    JSON text). Raises ``sqlalchemy.exc.IntegrityError`` for a key already recorded."""
    connection.execute(insert(envelopes).values(**values))


def envelope(connection: Connection, idempotency_key: str) -> Row[Any] | None:
    """The envelope recorded under ``idempotency_key``, or ``None``."""
    return connection.execute(
        select(envelopes).where(envelopes.c.idempotency_key == idempotency_key)
    ).first()


def repoint_envelope(
    connection: Connection, idempotency_key: str, old_digest: str, **values: Any
) -> bool:
    """Record a re-proposal under ``idempotency_key`` (decision 0066): set ``values``
    (``digest``, ``plan_id``, ``author``, ``expires_at``, ``created_at``, ``submitted_by``,
    ``keyids``) only while the row still holds ``old_digest`` (compare-and-set: of two
    concurrent re-proposals one wins). ``True`` when this update won."""
    done = connection.execute(
        update(envelopes)
        .where(envelopes.c.idempotency_key == idempotency_key, envelopes.c.digest == old_digest)
        .values(**values)
    )
    return done.rowcount == 1


def latest_revision(connection: Connection, plan_id: str) -> Row[Any]:
    """The last revision of ``plan_id``'s chain: followed through ``superseded_by``."""
    row = get(connection, plan_id)
    while row.superseded_by is not None:
        row = get(connection, row.superseded_by)
    return row


def ledger_of(connection: Connection, digest: str | None) -> Any:
    """Who submitted the envelope of payload ``digest`` and which keys signed it:
    ``submitted_by`` and ``keyids`` (JSON text; both ``None`` for envelopes taken in before
    store revision 0004) of the first record by idempotency key, or ``None``."""
    return connection.execute(
        select(envelopes.c.submitted_by, envelopes.c.keyids)
        .where(envelopes.c.digest == digest)
        .order_by(envelopes.c.idempotency_key)
    ).first()
