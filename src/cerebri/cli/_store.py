"""``cerebri store init|upgrade|status``: create, migrate and inspect the execution store.

The store URL is ``--store URL``, else ``CEREBRI_STORE``, else the embedded SQLite file
``platformdirs.user_data_dir("cerebri")/store.sqlite3``. Errors (``store.invalid_url``,
``store.unreachable``, ``store.unavailable``, ``store.full``, ``store.too_new``) print one
``error <code>: <message>`` line and exit 2
(:func:`~cerebri.cli._execution_common.errors_to_exit`).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated

import typer

from cerebri._json import pretty
from cerebri.cli._app import app
from cerebri.cli._execution_common import errors_to_exit

if TYPE_CHECKING:
    from cerebri.execution.store import StoreStatus

__all__ = ["store_app"]

store_app = typer.Typer(
    no_args_is_help=True,
    help="The durable execution store (SQLite file or PostgreSQL): init, upgrade, status.",
    short_help="The durable execution store: init, upgrade, status.",
)
app.add_typer(store_app, name="store")

StoreOption = Annotated[
    str | None,
    typer.Option(
        "--store",
        metavar="URL",
        help="sqlite:///PATH or a postgresql+psycopg:// URL; default: $CEREBRI_STORE, "
        "else store.sqlite3 in the user data folder.",
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print the status as JSON.")]


def _write(result: StoreStatus, as_json: bool) -> None:
    if as_json:
        sys.stdout.write(pretty(result.to_wire()))
        return
    current = result.current if result.current is not None else "(not initialised)"
    state = "up to date" if result.up_to_date else "needs `cerebri store upgrade`"
    sys.stdout.write(
        f"store: {result.url}\nrevision: {current}\nhead: {result.head}\nstate: {state}\n"
    )


def _run(action: str, store: str | None, as_json: bool) -> None:
    from cerebri.execution import store as execution_store  # noqa: PLC0415 - fast CLI start

    operations = {
        "init": execution_store.init,
        "upgrade": execution_store.upgrade,
        "status": execution_store.status,
    }
    with errors_to_exit(as_json=False):  # errors are one text line, even with --json
        result = operations[action](execution_store.resolve_store_url(store))
    _write(result, as_json)


@store_app.command("init")
def init(store: StoreOption = None, as_json: JsonOption = False) -> None:
    """Create the store (SQLite: file and folders) and migrate it to the newest revision."""
    _run("init", store, as_json)


@store_app.command("upgrade")
def upgrade(store: StoreOption = None, as_json: JsonOption = False) -> None:
    """Migrate an existing store to the newest revision this cerebri knows."""
    _run("upgrade", store, as_json)


@store_app.command("status")
def status(store: StoreOption = None, as_json: JsonOption = False) -> None:
    """Show the store URL (password hidden), its revision and the head revision."""
    _run("status", store, as_json)
