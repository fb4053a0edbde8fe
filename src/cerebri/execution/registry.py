"""Principals known to the store: roles, API tokens, Ed25519 keys and capability grants
(issue #13, docs/decisions/0023).

A principal is ``principal:<name>`` (a person) or ``agent:<name>``
(:func:`~cerebri.execution.principals.principal_id`). Registered, it has:

* **roles** from :data:`ROLES`: ``requester`` (submits plans and envelopes, cancels its own
  plans, withdraws its own requests), ``approver`` (decides approvals; never an agent),
  ``operator`` (cancels any plan, resolves steps);
* **bearer tokens** for the API, kept only as ``sha256:<hex>`` digests of the secret (the
  caller chooses the secret and shows it once), revocable;
* **Ed25519 public keys** that sign its proposals and its approval decisions, revocable;
* **capability grants**: a plan's effect on ``capability`` in ``calendar`` runs only while its
  requester holds an unrevoked grant for that pair (``*`` matches any calendar), checked when
  the step acts.

A store with no principal registered is **ungoverned**: one local user trusted at the
terminal, unsigned decisions, no grants (the rules of issue #12). Registering the first
principal makes it **governed** and every rule here applies (:func:`governed`).

Errors: :class:`~cerebri.execution.errors.AuthError` (``auth.*``, listed in
:mod:`cerebri.execution.errors`), :class:`~cerebri.execution.errors.ExecutionError`
``execution.not_found`` / ``execution.invalid_principal``. Instants on the wire are RFC 3339
UTC text; the store keeps nanoseconds.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import re
from collections.abc import Sequence
from types import NoneType
from typing import Any, Final

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from cerebri._guard import arguments
from cerebri._json import JSONValue
from cerebri.execution._rows import dumps, loads
from cerebri.execution.context import Executor
from cerebri.execution.errors import AuthError, ExecutionError, execution_argument_error
from cerebri.execution.principals import is_agent, principal_id
from cerebri.execution.store import principals as principal_store
from cerebri.execution.store.connection import Connection, IntegrityError
from cerebri.execution.views import instant_text
from cerebri.proposals import KEYID_PATTERN, KeyRegistry
from cerebri.temporal import Instant

__all__ = [
    "MAX_TOKEN_CHARS",
    "MIN_TOKEN_CHARS",
    "ROLES",
    "add_principal",
    "authenticate",
    "disable_principal",
    "governed",
    "grant",
    "has_grant",
    "issue_token",
    "key_owner",
    "key_registry",
    "list_principals",
    "principal_info",
    "public_key_of",
    "register_key",
    "registry_of",
    "require_role",
    "revoke_grant",
    "revoke_key",
    "revoke_token",
    "token_digest",
]

ROLES: Final = ("approver", "operator", "requester")
"""The roles a principal may hold (see the module doc)."""
MIN_TOKEN_CHARS: Final = 16
"""Shortest token secret accepted, in characters."""
MAX_TOKEN_CHARS: Final = 512
"""Longest token accepted, in characters (longer ones are refused unread)."""


def token_digest(secret: str) -> str:
    """``sha256:<hex>`` of the token's UTF-8 bytes: what the store keeps of a token."""
    return "sha256:" + hashlib.sha256(secret.encode("utf-8")).hexdigest()


def governed(connection: Connection) -> bool:
    """Whether the store has at least one registered principal (see the module doc)."""
    return principal_store.governed(connection)


def _principal_row(connection: Connection, principal: str) -> Any:
    row = principal_store.get(connection, principal)
    if row is None:
        raise ExecutionError(
            f"no principal {principal!r} is registered", code="execution.not_found"
        )
    return row


def _principal_wire(row: Any) -> dict[str, JSONValue]:
    return {
        "id": row.id,
        "kind": row.kind,
        "roles": loads(row.roles),
        "display_name": row.display_name,
        "created_at": instant_text(row.created_at),
        "disabled_at": instant_text(row.disabled_at),
    }


def _roles(principal: str, roles: Sequence[str]) -> list[str]:
    chosen = sorted(set(roles))
    for role in chosen:
        if role not in ROLES:
            raise AuthError(
                f"{role!r} is not a role; roles are {', '.join(ROLES)}", code="auth.invalid_role"
            )
    if is_agent(principal) and "approver" in chosen:
        raise AuthError(
            f"{principal} is an agent: an agent may propose and watch, never approve",
            code="auth.invalid_role",
        )
    return chosen


@arguments(
    execution_argument_error,
    executor=Executor,
    principal=str,
    roles=Sequence,
    display_name=(str, NoneType),
)
def add_principal(
    executor: Executor,
    principal: str,
    *,
    roles: Sequence[str],
    display_name: str | None = None,
) -> dict[str, JSONValue]:
    """Register ``principal`` with ``roles`` (a subset of :data:`ROLES`); returns its wire
    form ``{"id", "kind", "roles", "display_name", "created_at", "disabled_at"}``.

    Raises :class:`AuthError` ``auth.invalid_role``, ``auth.duplicate``;
    :class:`ExecutionError` ``execution.invalid_principal``.
    """
    canonical = principal_id(principal)
    chosen = _roles(canonical, [r for r in roles if isinstance(r, str)])
    if len(chosen) != len(set(roles)):
        raise AuthError("roles are text", code="auth.invalid_role")
    try:
        with executor.transaction() as connection:
            principal_store.add(
                connection,
                id=canonical,
                kind="agent" if is_agent(canonical) else "person",
                roles=dumps(list[JSONValue](chosen)),
                display_name=display_name,
                created_at=executor.now_ns(),
            )
    except IntegrityError:
        raise AuthError(f"{canonical} is already registered", code="auth.duplicate") from None
    return principal_info(executor, canonical)


@arguments(execution_argument_error, executor=Executor, principal=str)
def principal_info(executor: Executor, principal: str) -> dict[str, JSONValue]:
    """The wire form of a registered principal (see :func:`add_principal`); raises
    :class:`ExecutionError` ``execution.not_found``."""
    canonical = principal_id(principal)
    with executor.engine.connect() as connection:
        return _principal_wire(_principal_row(connection, canonical))


@arguments(execution_argument_error, executor=Executor)
def list_principals(executor: Executor) -> list[dict[str, JSONValue]]:
    """Every registered principal, ordered by id, with its keys (``keys``: keyid, created,
    revoked) and grants (``grants``: id, capability, calendar, revoked)."""
    with executor.engine.connect() as connection:
        rows = principal_store.all_principals(connection)
        keys = principal_store.all_keys(connection)
        given = principal_store.all_grants(connection)
    listed = []
    for row in rows:
        wire = _principal_wire(row)
        wire["keys"] = [
            {
                "keyid": k.keyid,
                "valid_from": instant_text(k.valid_from),
                "revoked_at": instant_text(k.revoked_at),
            }
            for k in keys
            if k.principal_id == row.id
        ]
        wire["grants"] = [
            {
                "id": g.id,
                "capability": g.capability,
                "calendar": g.calendar,
                "revoked_at": instant_text(g.revoked_at),
            }
            for g in given
            if g.principal_id == row.id
        ]
        listed.append(wire)
    return listed


@arguments(execution_argument_error, executor=Executor, principal=str)
def disable_principal(executor: Executor, principal: str) -> dict[str, JSONValue]:
    """Disable ``principal``: its tokens stop authenticating, its signatures stop counting
    (checked again when a step acts). Disabling twice is a no-op."""
    canonical = principal_id(principal)
    with executor.transaction() as connection:
        _principal_row(connection, canonical)
        principal_store.disable(connection, canonical, executor.now_ns())
    return principal_info(executor, canonical)


@arguments(execution_argument_error, executor=Executor, principal=str, role=str)
def require_role(executor: Executor, principal: str, role: str) -> None:
    """Nothing when ``principal`` is registered, enabled and holds ``role``; else
    :class:`AuthError` ``auth.forbidden``. In an ungoverned store everyone holds every role."""
    canonical = principal_id(principal)
    with executor.engine.connect() as connection:
        if not governed(connection):
            return
        row = principal_store.get(connection, canonical)
    if row is None:
        raise AuthError(f"{canonical} is not a registered principal", code="auth.forbidden")
    if row.disabled_at is not None:
        raise AuthError(
            f"{canonical} is disabled since {instant_text(row.disabled_at)}",
            code="auth.forbidden",
        )
    if role not in loads(row.roles):
        raise AuthError(f"{canonical} does not hold the role {role}", code="auth.forbidden")


@arguments(
    execution_argument_error,
    executor=Executor,
    principal=str,
    secret=str,
    label=(str, NoneType),
)
def issue_token(
    executor: Executor, principal: str, *, secret: str, label: str | None = None
) -> dict[str, JSONValue]:
    """Record a bearer token ``secret`` (chosen by the caller, at least
    :data:`MIN_TOKEN_CHARS` characters; the CLI uses ``secrets.token_urlsafe``) for
    ``principal``; only its digest is stored. Returns ``{"token_id", "principal", "label",
    "created_at"}``. Raises :class:`AuthError` ``auth.duplicate`` (the same secret again),
    ``auth.unauthorized`` (a secret too short or too long); :class:`ExecutionError`
    ``execution.not_found``."""
    canonical = principal_id(principal)
    if not MIN_TOKEN_CHARS <= len(secret) <= MAX_TOKEN_CHARS:
        raise AuthError(
            f"a token is {MIN_TOKEN_CHARS} to {MAX_TOKEN_CHARS} characters",
            code="auth.unauthorized",
        )
    token_id = executor.ids.new_id()
    now = executor.now_ns()
    try:
        with executor.transaction() as connection:
            _principal_row(connection, canonical)
            principal_store.add_token(
                connection,
                id=token_id,
                principal_id=canonical,
                digest=token_digest(secret),
                label=label,
                created_at=now,
            )
    except IntegrityError:
        raise AuthError("that token is already issued", code="auth.duplicate") from None
    return {
        "token_id": token_id,
        "principal": canonical,
        "label": label,
        "created_at": instant_text(now),
    }


@arguments(execution_argument_error, executor=Executor, token_id=str)
def revoke_token(executor: Executor, token_id: str) -> dict[str, JSONValue]:
    """Revoke a token by its id (from :func:`issue_token`); revoking twice is a no-op.
    Returns ``{"token_id", "principal", "revoked_at"}``; :class:`ExecutionError`
    ``execution.not_found``."""
    with executor.transaction() as connection:
        row = principal_store.get_token(connection, token_id)
        if row is None:
            raise ExecutionError(f"no token {token_id!r}", code="execution.not_found")
        revoked = principal_store.revoke_token(connection, token_id, executor.now_ns())
    return {
        "token_id": token_id,
        "principal": row.principal_id,
        "revoked_at": instant_text(revoked),
    }


@arguments(execution_argument_error, executor=Executor, token=str)
def authenticate(executor: Executor, token: str) -> str:
    """The canonical principal a bearer token belongs to.

    Raises :class:`AuthError` ``auth.unauthorized`` (unknown, empty or over-long token),
    ``auth.token_revoked``, ``auth.principal_disabled``. The lookup is by digest (a unique
    index), and the digest is compared again in constant time.
    """
    if not token or len(token) > MAX_TOKEN_CHARS:
        raise AuthError("a valid bearer token is required", code="auth.unauthorized")
    digest = token_digest(token)
    with executor.engine.connect() as connection:
        row = principal_store.token_by_digest(connection, digest)
    if row is None or not hmac.compare_digest(row.digest, digest):
        raise AuthError("a valid bearer token is required", code="auth.unauthorized")
    if row.revoked_at is not None:
        raise AuthError("this token was revoked", code="auth.token_revoked")
    if row.disabled_at is not None:
        raise AuthError(f"{row.principal_id} is disabled", code="auth.principal_disabled")
    return str(row.principal_id)


def _key_text(public_key: Ed25519PublicKey) -> str:
    return base64.b64encode(public_key.public_bytes(Encoding.Raw, PublicFormat.Raw)).decode()


def _key_of(text: str) -> Ed25519PublicKey:
    try:
        return Ed25519PublicKey.from_public_bytes(base64.b64decode(text, validate=True))
    except (binascii.Error, ValueError):  # pragma: no cover - only register_key writes keys
        raise ExecutionError(
            "a stored public key is damaged", code="execution.invalid_state"
        ) from None


@arguments(
    execution_argument_error,
    executor=Executor,
    principal=str,
    keyid=str,
    public_key=Ed25519PublicKey,
    valid_from=(Instant, NoneType),
)
def register_key(
    executor: Executor,
    principal: str,
    *,
    keyid: str,
    public_key: Ed25519PublicKey,
    valid_from: Instant | None = None,
) -> dict[str, JSONValue]:
    """Register an Ed25519 public key under ``keyid`` for ``principal``, usable for
    signatures made from ``valid_from`` (default: now) on. Returns ``{"keyid", "principal",
    "valid_from"}``. Raises :class:`AuthError` ``auth.duplicate`` (keyid taken),
    ``auth.invalid_key`` (a keyid outside ``KEYID_PATTERN``); :class:`ExecutionError`
    ``execution.not_found``."""
    canonical = principal_id(principal)
    if not re.fullmatch(KEYID_PATTERN, keyid):
        raise AuthError(f"{keyid!r} is not a keyid ({KEYID_PATTERN})", code="auth.invalid_key")
    now = executor.now_ns()
    start = now if valid_from is None else valid_from.ns
    try:
        with executor.transaction() as connection:
            _principal_row(connection, canonical)
            principal_store.add_key(
                connection,
                keyid=keyid,
                principal_id=canonical,
                public_key=_key_text(public_key),
                valid_from=start,
                created_at=now,
            )
    except IntegrityError:
        raise AuthError(f"keyid {keyid!r} is already registered", code="auth.duplicate") from None
    return {"keyid": keyid, "principal": canonical, "valid_from": instant_text(start)}


@arguments(execution_argument_error, executor=Executor, keyid=str)
def revoke_key(executor: Executor, keyid: str) -> dict[str, JSONValue]:
    """Revoke a key: signatures by it stop counting, also for approvals already given and
    not yet acted on. Returns ``{"keyid", "principal", "revoked_at"}``; revoking twice is a
    no-op. :class:`ExecutionError` ``execution.not_found``."""
    with executor.transaction() as connection:
        row = key_owner(connection, keyid)
        if row is None:
            raise ExecutionError(f"no key {keyid!r}", code="execution.not_found")
        revoked = principal_store.revoke_key(connection, keyid, executor.now_ns())
    return {
        "keyid": keyid,
        "principal": row.principal_id,
        "revoked_at": instant_text(revoked),
    }


def key_owner(connection: Connection, keyid: str) -> Any:
    """The ``principal_keys`` row of ``keyid`` (``principal_id``, ``public_key``,
    ``valid_from``, ``revoked_at``), or ``None``."""
    return principal_store.get_key(connection, keyid)


def public_key_of(row: Any) -> Ed25519PublicKey:
    """The Ed25519 public key of a ``principal_keys`` row."""
    return _key_of(row.public_key)


@arguments(execution_argument_error, executor=Executor)
def key_registry(executor: Executor) -> KeyRegistry:
    """The store's keys as a :class:`~cerebri.proposals.KeyRegistry` (validity from
    ``valid_from``, revocation at ``revoked_at``), for envelope verification."""
    with executor.engine.connect() as connection:
        return registry_of(connection)


def registry_of(connection: Connection) -> KeyRegistry:
    """:func:`key_registry` inside a caller's connection."""
    registry = KeyRegistry()
    for row in principal_store.all_keys(connection):
        registry = registry.add(
            row.keyid, _key_of(row.public_key), valid_from=Instant(row.valid_from)
        )
        if row.revoked_at is not None:
            registry = registry.revoke(row.keyid, at=Instant(row.revoked_at))
    return registry


@arguments(execution_argument_error, executor=Executor, principal=str, capability=str, calendar=str)
def grant(
    executor: Executor, principal: str, capability: str, *, calendar: str = "*"
) -> dict[str, JSONValue]:
    """Let ``principal``'s plans use ``capability`` on ``calendar`` (``*``: any). Returns
    ``{"id", "principal", "capability", "calendar", "created_at"}``. Raises
    :class:`ExecutionError` ``execution.not_found`` (principal), ``execution.invalid_argument``
    (a capability the registry does not know)."""
    canonical = principal_id(principal)
    if executor.registry.get(capability) is None:
        raise ExecutionError(
            f"no capability {capability!r} is registered", code="execution.invalid_argument"
        )
    grant_id = executor.ids.new_id()
    now = executor.now_ns()
    with executor.transaction() as connection:
        _principal_row(connection, canonical)
        principal_store.add_grant(
            connection,
            id=grant_id,
            principal_id=canonical,
            capability=capability,
            calendar=calendar,
            created_at=now,
        )
    return {
        "id": grant_id,
        "principal": canonical,
        "capability": capability,
        "calendar": calendar,
        "created_at": instant_text(now),
    }


@arguments(execution_argument_error, executor=Executor, grant_id=str)
def revoke_grant(executor: Executor, grant_id: str) -> dict[str, JSONValue]:
    """Revoke a grant; a step of a plan relying on it stops when it next tries to act.
    Returns ``{"id", "principal", "revoked_at"}``; :class:`ExecutionError`
    ``execution.not_found``."""
    with executor.transaction() as connection:
        row = principal_store.get_grant(connection, grant_id)
        if row is None:
            raise ExecutionError(f"no grant {grant_id!r}", code="execution.not_found")
        revoked = principal_store.revoke_grant(connection, grant_id, executor.now_ns())
    return {"id": grant_id, "principal": row.principal_id, "revoked_at": instant_text(revoked)}


def has_grant(connection: Connection, principal: str, capability: str, calendar: str) -> bool:
    """Whether ``principal`` holds an unrevoked grant of ``capability`` on ``calendar``
    (or on ``*``)."""
    return principal_store.has_grant(connection, principal, capability, calendar)
