"""The principals repository: principals, their API tokens, Ed25519 keys and capability grants
(decision 0043; the rules are decision 0023's, in :mod:`cerebri.execution.registry`).

Every function runs in the caller's connection; instants are nanoseconds since the epoch.
Inserts raise ``sqlalchemy.exc.IntegrityError`` for a duplicate (the caller turns it into
``auth.duplicate``). A revocation or a disabling is written once: the first one's instant is
kept, and doing it again changes nothing.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Column, Connection, Row, Table, exists, insert, select, update

from cerebri.execution.store.schema import grants, principal_keys, principal_tokens, principals

__all__ = [
    "add",
    "add_grant",
    "add_key",
    "add_token",
    "all_grants",
    "all_keys",
    "all_principals",
    "disable",
    "get",
    "get_grant",
    "get_key",
    "get_token",
    "governed",
    "has_grant",
    "keys_of",
    "revoke_grant",
    "revoke_key",
    "revoke_token",
    "token_by_digest",
]


def governed(connection: Connection) -> bool:
    """Whether the store has at least one registered principal."""
    return bool(connection.execute(select(exists().select_from(principals))).scalar())


def get(connection: Connection, principal_id: str) -> Row[Any] | None:
    """The ``principals`` row, or ``None``."""
    return connection.execute(select(principals).where(principals.c.id == principal_id)).first()


def all_principals(connection: Connection) -> list[Row[Any]]:
    """Every principal row, by id."""
    return list(connection.execute(select(principals).order_by(principals.c.id)).all())


def add(connection: Connection, **values: Any) -> None:
    """Insert a principal (``id``, ``kind``, ``roles`` as JSON text, ``display_name``,
    ``created_at``)."""
    connection.execute(insert(principals).values(**values))


def disable(connection: Connection, principal_id: str, now: int) -> None:
    """Disable the principal at ``now`` unless it already is."""
    connection.execute(
        update(principals)
        .where(principals.c.id == principal_id, principals.c.disabled_at.is_(None))
        .values(disabled_at=now)
    )


def _revoke(connection: Connection, table: Table, key: Column[Any], value: str, now: int) -> Any:
    """Set ``revoked_at`` = ``now`` on the row whose ``key`` is ``value`` unless it is set;
    the row's ``revoked_at`` after."""
    connection.execute(
        update(table).where(key == value, table.c.revoked_at.is_(None)).values(revoked_at=now)
    )
    return connection.execute(select(table.c.revoked_at).where(key == value)).scalar_one()


# -- tokens ---------------------------------------------------------------------------------


def add_token(connection: Connection, **values: Any) -> None:
    """Insert a token (``id``, ``principal_id``, ``digest``, ``label``, ``created_at``)."""
    connection.execute(insert(principal_tokens).values(**values))


def get_token(connection: Connection, token_id: str) -> Row[Any] | None:
    """The ``principal_tokens`` row, or ``None``."""
    return connection.execute(
        select(principal_tokens).where(principal_tokens.c.id == token_id)
    ).first()


def token_by_digest(connection: Connection, digest: str) -> Row[Any] | None:
    """The token row with this digest and its principal's ``disabled_at``, or ``None``."""
    return connection.execute(
        select(principal_tokens, principals.c.disabled_at)
        .join(principals, principals.c.id == principal_tokens.c.principal_id)
        .where(principal_tokens.c.digest == digest)
    ).first()


def revoke_token(connection: Connection, token_id: str, now: int) -> Any:
    """Revoke the token (once); its ``revoked_at``."""
    return _revoke(connection, principal_tokens, principal_tokens.c.id, token_id, now)


# -- keys -----------------------------------------------------------------------------------


def add_key(connection: Connection, **values: Any) -> None:
    """Insert a key (``keyid``, ``principal_id``, ``public_key`` as base64 text,
    ``valid_from``, ``created_at``)."""
    connection.execute(insert(principal_keys).values(**values))


def get_key(connection: Connection, keyid: str) -> Row[Any] | None:
    """The ``principal_keys`` row of ``keyid``, or ``None``."""
    return connection.execute(select(principal_keys).where(principal_keys.c.keyid == keyid)).first()


def all_keys(connection: Connection) -> list[Row[Any]]:
    """Every key row, by keyid."""
    return list(connection.execute(select(principal_keys).order_by(principal_keys.c.keyid)).all())


def revoke_key(connection: Connection, keyid: str, now: int) -> Any:
    """Revoke the key (once); its ``revoked_at``."""
    return _revoke(connection, principal_keys, principal_keys.c.keyid, keyid, now)


# -- grants ---------------------------------------------------------------------------------


def add_grant(connection: Connection, **values: Any) -> None:
    """Insert a grant (``id``, ``principal_id``, ``capability``, ``calendar``,
    ``created_at``)."""
    connection.execute(insert(grants).values(**values))


def get_grant(connection: Connection, grant_id: str) -> Row[Any] | None:
    """The ``grants`` row, or ``None``."""
    return connection.execute(select(grants).where(grants.c.id == grant_id)).first()


def all_grants(connection: Connection) -> list[Row[Any]]:
    """Every grant row, by (``created_at``, ``id``)."""
    return list(connection.execute(select(grants).order_by(grants.c.created_at, grants.c.id)).all())


def revoke_grant(connection: Connection, grant_id: str, now: int) -> Any:
    """Revoke the grant (once); its ``revoked_at``."""
    return _revoke(connection, grants, grants.c.id, grant_id, now)


def has_grant(connection: Connection, principal_id: str, capability: str, calendar: str) -> bool:
    """Whether the principal holds an unrevoked grant of ``capability`` on ``calendar`` (or on
    ``*``)."""
    return bool(
        connection.execute(
            select(
                exists().where(
                    grants.c.principal_id == principal_id,
                    grants.c.capability == capability,
                    grants.c.calendar.in_((calendar, "*")),
                    grants.c.revoked_at.is_(None),
                )
            )
        ).scalar()
    )


def keys_of(
    connection: Connection, principal_id: str, keyids: list[str] | None = None
) -> list[Row[Any]]:
    """The principal's key rows by keyid (only those in ``keyids`` when it is given)."""
    query = select(principal_keys).where(principal_keys.c.principal_id == principal_id)
    if keyids is not None:
        query = query.where(principal_keys.c.keyid.in_(keyids))
    return list(connection.execute(query.order_by(principal_keys.c.keyid)).all())
