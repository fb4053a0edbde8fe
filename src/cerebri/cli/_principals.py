"""``cerebri principals``: people and agents in the store, their roles, API tokens, keys,
capability grants (issue #13, decision 0023) and the calendars they own (decision 0082). Thin
shells over :mod:`cerebri.execution`.

A token is shown once, when it is issued, and stored only as a digest. A key is the public
half of an Ed25519 key made with ``cerebri keys new`` (its ``registry.json``) or read from a
PKCS#8 PEM private key file, whose public half is registered (the private file stays where it
is). Registering the first principal makes the store governed: decisions must then be signed.
"""

from __future__ import annotations

import secrets
import sys
from pathlib import Path
from typing import Annotated, Final

import typer

from cerebri.cli._app import app
from cerebri.cli._execution_common import (
    JsonOption,
    answer_on_store,
    emit,
    errors_to_exit,
    new_table,
    open_executor,
    print_table,
    safe_text,
)
from cerebri.cli._store import StoreOption

__all__ = ["TOKEN_PREFIX", "principals_app"]

TOKEN_PREFIX: Final = "cbr_"  # noqa: S105 - a prefix, not a secret
"""Prefix of the tokens the CLI issues (then 43 URL-safe characters: 256 random bits)."""

principals_app = typer.Typer(
    no_args_is_help=True,
    help="People and agents: roles, API tokens, signing keys, capability grants, calendar owners.",
    short_help="People and agents: roles, tokens, keys, grants, owners.",
)
app.add_typer(principals_app, name="principals")

PrincipalArgument = Annotated[
    str, typer.Argument(metavar="PRINCIPAL", help="principal:<name> or agent:<name>.")
]


def _print_line(text: str) -> None:
    sys.stdout.write(safe_text(text) + "\n")


@principals_app.command("add")
def principals_add(
    principal: PrincipalArgument,
    roles: Annotated[
        list[str] | None,
        typer.Option(
            "--role",
            metavar="ROLE",
            help="requester, approver or operator (repeatable; agents never approve).",
        ),
    ] = None,
    name: Annotated[str | None, typer.Option("--name", metavar="TEXT", help="Display name.")] = (
        None
    ),
    store: StoreOption = None,
    as_json: JsonOption = False,
) -> None:
    """Register a principal with its roles (the store is governed from then on)."""
    from cerebri.execution import add_principal  # noqa: PLC0415 - fast CLI start

    done = answer_on_store(
        store, as_json, add_principal, principal, roles=roles or [], display_name=name
    )
    if done is None:
        return  # printed as JSON
    roles_text = ", ".join(str(r) for r in done["roles"]) if isinstance(done["roles"], list) else ""
    _print_line(f"{done['id']} ({done['kind']}): {roles_text or 'no roles'}")


@principals_app.command("list")
def principals_list(store: StoreOption = None, as_json: JsonOption = False) -> None:
    """Every principal with its roles, keys and grants."""
    from cerebri.execution import list_principals  # noqa: PLC0415 - fast CLI start

    with errors_to_exit(as_json):
        rows = list_principals(open_executor(store))
    if as_json:
        emit(list(rows))
        return
    table = new_table("principal", "roles", "keys", "grants", "disabled")
    for row in rows:
        keys = row["keys"] if isinstance(row["keys"], list) else []
        grants = row["grants"] if isinstance(row["grants"], list) else []
        table.add_row(
            safe_text(row["id"]),
            safe_text(", ".join(str(r) for r in row["roles"] or [])),  # type: ignore[union-attr]
            safe_text(
                ", ".join(
                    str(k["keyid"]) + (" (revoked)" if k["revoked_at"] else "")
                    for k in keys
                    if isinstance(k, dict)
                )
            ),
            safe_text(
                ", ".join(
                    f"{g['capability']} on {g['calendar']}"
                    + (" (revoked)" if g["revoked_at"] else "")
                    for g in grants
                    if isinstance(g, dict)
                )
            ),
            safe_text(row["disabled_at"]),
        )
    print_table(table)


@principals_app.command("disable")
def principals_disable(
    principal: PrincipalArgument, store: StoreOption = None, as_json: JsonOption = False
) -> None:
    """Disable a principal: its tokens and signatures stop counting, also for approvals it
    gave that have not been acted on yet."""
    from cerebri.execution import disable_principal  # noqa: PLC0415 - fast CLI start

    done = answer_on_store(store, as_json, disable_principal, principal)
    if done is None:
        return  # printed as JSON
    _print_line(f"{done['id']} disabled at {done['disabled_at']}")


@principals_app.command("token")
def principals_token(
    principal: PrincipalArgument,
    label: Annotated[
        str | None, typer.Option("--label", metavar="TEXT", help="What the token is for.")
    ] = None,
    store: StoreOption = None,
    as_json: JsonOption = False,
) -> None:
    """Issue an API bearer token for PRINCIPAL. It is printed once and stored only as a
    SHA-256 digest: keep it now."""
    from cerebri.execution import issue_token  # noqa: PLC0415 - fast CLI start

    secret = TOKEN_PREFIX + secrets.token_urlsafe(32)
    with errors_to_exit(as_json):
        done = issue_token(open_executor(store), principal, secret=secret, label=label)
    if as_json:
        emit({**done, "token": secret})
        return
    _print_line(f"token {done['token_id']} for {done['principal']} (shown once):")
    sys.stdout.write(secret + "\n")


@principals_app.command("revoke-token")
def principals_revoke_token(
    token_id: Annotated[str, typer.Argument(metavar="TOKEN_ID", help="The token's id.")],
    store: StoreOption = None,
    as_json: JsonOption = False,
) -> None:
    """Revoke an API token (by the id printed when it was issued)."""
    from cerebri.execution import revoke_token  # noqa: PLC0415 - fast CLI start

    done = answer_on_store(store, as_json, revoke_token, token_id)
    if done is None:
        return  # printed as JSON
    _print_line(f"token {done['token_id']} of {done['principal']} revoked at {done['revoked_at']}")


@principals_app.command("key")
def principals_key(  # noqa: PLR0917 - typer maps every option to a parameter
    principal: PrincipalArgument,
    keyid: Annotated[str, typer.Option("--keyid", metavar="KEYID", help="The key's id.")],
    keys: Annotated[
        Path | None,
        typer.Option(
            "--keys",
            metavar="DIR",
            readable=False,
            help="A key folder of `cerebri keys` (its registry.json holds the public key).",
        ),
    ] = None,
    private_key: Annotated[
        Path | None,
        typer.Option(
            "--private-key",
            metavar="PATH",
            readable=False,
            help="Or a PKCS#8 PEM private key file.",
        ),
    ] = None,
    store: StoreOption = None,
    as_json: JsonOption = False,
) -> None:
    """Register the public half of an Ed25519 key for PRINCIPAL: what verifies its proposals
    and its approval decisions. Give --keys DIR or --private-key PATH."""
    from cerebri.execution import ExecutionError, register_key  # noqa: PLC0415
    from cerebri.proposals import load_private_key, load_registry  # noqa: PLC0415

    with errors_to_exit(as_json):
        if (keys is None) == (private_key is None):
            raise ExecutionError(
                "give exactly one of --keys DIR and --private-key PATH",
                code="execution.invalid_argument",
            )
        valid_from = None
        if keys is not None:
            registered = load_registry(keys / "registry.json").keys.get(keyid)
            if registered is None:
                raise ExecutionError(
                    f"{keys / 'registry.json'} holds no key {keyid!r}", code="execution.not_found"
                )
            public_key, valid_from = registered.public_key, registered.valid_from
        else:
            assert private_key is not None
            public_key = load_private_key(private_key).public_key()
        done = register_key(
            open_executor(store),
            principal,
            keyid=keyid,
            public_key=public_key,
            valid_from=valid_from,
        )
    if as_json:
        emit(done)
        return
    _print_line(f"key {done['keyid']} of {done['principal']}, valid from {done['valid_from']}")


@principals_app.command("revoke-key")
def principals_revoke_key(
    keyid: Annotated[str, typer.Argument(metavar="KEYID", help="The key's id.")],
    store: StoreOption = None,
    as_json: JsonOption = False,
) -> None:
    """Revoke a key: signatures by it stop counting, also approvals not yet acted on."""
    from cerebri.execution import revoke_key  # noqa: PLC0415 - fast CLI start

    done = answer_on_store(store, as_json, revoke_key, keyid)
    if done is None:
        return  # printed as JSON
    _print_line(f"key {done['keyid']} of {done['principal']} revoked at {done['revoked_at']}")


@principals_app.command("grant")
def principals_grant(
    principal: PrincipalArgument,
    capability: Annotated[
        str, typer.Argument(metavar="CAPABILITY", help="e.g. calendar.event.create.")
    ],
    calendar: Annotated[
        str, typer.Option("--calendar", metavar="ID", help="Which calendar (* = any).")
    ] = "*",
    store: StoreOption = None,
    as_json: JsonOption = False,
) -> None:
    """Let PRINCIPAL's plans use CAPABILITY on a calendar (checked when each step acts)."""
    from cerebri.execution import grant  # noqa: PLC0415 - fast CLI start

    done = answer_on_store(store, as_json, grant, principal, capability, calendar=calendar)
    if done is None:
        return  # printed as JSON
    _print_line(
        f"grant {done['id']}: {done['principal']} may use {done['capability']} on "
        f"{done['calendar']}"
    )


@principals_app.command("revoke-grant")
def principals_revoke_grant(
    grant_id: Annotated[str, typer.Argument(metavar="GRANT_ID", help="The grant's id.")],
    store: StoreOption = None,
    as_json: JsonOption = False,
) -> None:
    """Revoke a grant: a plan relying on it stops when its step next tries to act."""
    from cerebri.execution import revoke_grant  # noqa: PLC0415 - fast CLI start

    done = answer_on_store(store, as_json, revoke_grant, grant_id)
    if done is None:
        return  # printed as JSON
    _print_line(f"grant {done['id']} of {done['principal']} revoked at {done['revoked_at']}")


CalendarArgument = Annotated[
    str, typer.Argument(metavar="CALENDAR", help="The calendar's id (as the workers name it).")
]


@principals_app.command("own")
def principals_own(
    principal: PrincipalArgument,
    calendar: CalendarArgument,
    store: StoreOption = None,
    as_json: JsonOption = False,
) -> None:
    """Record PRINCIPAL as the owner of CALENDAR: a move, cancel or update of an event there
    by another person's plan then needs PRINCIPAL's approval (checked at submit and again
    when each step acts). One owner per calendar."""
    from cerebri.execution import own_calendar  # noqa: PLC0415 - fast CLI start

    done = answer_on_store(store, as_json, own_calendar, principal, calendar)
    if done is None:
        return  # printed as JSON
    _print_line(f"{done['principal']} owns calendar {done['calendar']}")


@principals_app.command("revoke-owner")
def principals_revoke_owner(
    calendar: CalendarArgument, store: StoreOption = None, as_json: JsonOption = False
) -> None:
    """Revoke the ownership of CALENDAR: its owner's approvals stop counting, also those not
    acted on yet, and nobody may approve others' changes there until it has an owner again."""
    from cerebri.execution import revoke_calendar_owner  # noqa: PLC0415 - fast CLI start

    done = answer_on_store(store, as_json, revoke_calendar_owner, calendar)
    if done is None:
        return  # printed as JSON
    _print_line(
        f"{done['principal']} no longer owns calendar {done['calendar']} "
        f"(revoked at {done['revoked_at']})"
    )


@principals_app.command("owners")
def principals_owners(store: StoreOption = None, as_json: JsonOption = False) -> None:
    """Every calendar ownership recorded, revoked ones included."""
    from cerebri.execution import list_calendar_owners  # noqa: PLC0415 - fast CLI start

    with errors_to_exit(as_json):
        rows = list_calendar_owners(open_executor(store))
    if as_json:
        emit(list(rows))
        return
    table = new_table("calendar", "owner", "since", "revoked")
    for row in rows:
        table.add_row(
            safe_text(row["calendar"]),
            safe_text(row["principal"]),
            safe_text(row["created_at"]),
            safe_text(row["revoked_at"]),
        )
    print_table(table)
