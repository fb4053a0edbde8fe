"""The calendar owners repository (decision 0082; the rules are in
:mod:`cerebri.execution.ownership`).

Every function runs in the caller's connection; instants are nanoseconds since the epoch.
A calendar has at most one row whose ``revoked_at`` is ``NULL`` (a unique index): inserting
a second raises ``sqlalchemy.exc.IntegrityError``, which the caller turns into
``auth.duplicate``. A revocation is written once: the first one's instant is kept.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import Connection, Row, insert, select, update

from cerebri.execution.store.schema import calendar_owners

__all__ = ["add", "all_owners", "of_calendars", "revoke"]


def add(connection: Connection, **values: Any) -> None:
    """Insert an ownership (``id``, ``calendar``, ``principal_id``, ``created_at``)."""
    connection.execute(insert(calendar_owners).values(**values))


def of_calendars(connection: Connection, calendars: Iterable[str]) -> list[Row[Any]]:
    """Every ownership row, revoked ones included, of the given calendars, by
    (``calendar``, ``created_at``, ``id``)."""
    wanted = sorted(set(calendars))
    if not wanted:
        return []
    query = select(calendar_owners).where(calendar_owners.c.calendar.in_(wanted))
    order = (calendar_owners.c.calendar, calendar_owners.c.created_at, calendar_owners.c.id)
    return list(connection.execute(query.order_by(*order)).all())


def all_owners(connection: Connection) -> list[Row[Any]]:
    """Every ownership row, revoked ones included, by (``calendar``, ``created_at``,
    ``id``)."""
    order = (calendar_owners.c.calendar, calendar_owners.c.created_at, calendar_owners.c.id)
    return list(connection.execute(select(calendar_owners).order_by(*order)).all())


def revoke(connection: Connection, calendar: str, now: int) -> Row[Any] | None:
    """Revoke the calendar's current ownership at ``now``; the row as revoked, or ``None``
    when the calendar has no current owner."""
    row = connection.execute(
        select(calendar_owners).where(
            calendar_owners.c.calendar == calendar, calendar_owners.c.revoked_at.is_(None)
        )
    ).first()
    if row is None:
        return None
    connection.execute(
        update(calendar_owners)
        .where(calendar_owners.c.id == row.id, calendar_owners.c.revoked_at.is_(None))
        .values(revoked_at=now)
    )
    return connection.execute(select(calendar_owners).where(calendar_owners.c.id == row.id)).first()
