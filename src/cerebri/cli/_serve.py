"""``cerebri serve``: the HTTP API and the Lab."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from cerebri.cli._app import app, fail
from cerebri.cli._durations import DURATION_FORMS, parse_duration
from cerebri.errors import CerebriError

if TYPE_CHECKING:
    from cerebri.execution import Executor

__all__ = ["serve"]

BODY_TIMEOUT_SECONDS = 10.0
"""Default of ``--body-timeout``; equals ``cerebri.service.settings.BODY_TIMEOUT_SECONDS``
(not imported here: importing the service loads FastAPI and slows every CLI start)."""


@app.command(short_help="Run the HTTP API: planning, temporal, plans and approvals.")
def serve(  # noqa: PLR0917 - typer maps every option to a parameter
    host: Annotated[str, typer.Option("--host", help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[
        int, typer.Option("--port", min=0, max=65535, help="TCP port (0 = any free port).")
    ] = 3000,
    allow_remote: Annotated[
        bool,
        typer.Option(
            "--allow-remote", help="Permit a non-loopback --host (requires the token variable)."
        ),
    ] = False,
    token_env: Annotated[
        str,
        typer.Option("--token-env", help="Environment variable holding the bearer token (if set)."),
    ] = "CEREBRI_API_TOKEN",  # noqa: S107 - a variable name, not a secret
    body_timeout: Annotated[
        str,
        typer.Option(
            "--body-timeout",
            metavar="DURATION",
            help=f"How long a client has to send a whole request body, 408 after "
            f"({DURATION_FORMS}): more than 0, at most 1h.",
        ),
    ] = f"{BODY_TIMEOUT_SECONDS:g}s",
    store: Annotated[
        str | None,
        typer.Option(
            "--store",
            metavar="URL",
            help="Execution store to serve plans and approvals from (default: CEREBRI_STORE, "
            "else the embedded store when it is initialised; none otherwise).",
        ),
    ] = None,
    outbox: Annotated[
        Path | None,
        typer.Option(
            "--outbox",
            metavar="DIR",
            envvar="CEREBRI_OUTBOX",
            readable=False,  # cerebri judges the folder (itip.outbox_*), not a usage box
            help="The workers' iTIP outbox folder, where POST /v1/outbox/resolve settles an "
            "interrupted send (default: CEREBRI_OUTBOX, else none: that route answers 409 "
            "outbox.not_configured).",
        ),
    ] = None,
) -> None:
    """Run the HTTP API (/health, /v1/plan, /v1/optimize, /v1/validate, /v1/temporal,
    /v1/integration/*, /lab/) and, with an execution store, /v1/plans, /v1/executions and
    /v1/approvals behind principals' tokens. Prints CEREBRI_LISTEN_ADDR=<ip>:<port> once
    listening. Non-loopback hosts exit 2 (serve.requires_loopback) unless --allow-remote and
    a token is set or the store has principals; a configured token is required on every
    request as Authorization: Bearer <token>. A request body not received within
    --body-timeout seconds gets 408 (http.body_timeout)."""
    from cerebri.service import serve as run_server  # noqa: PLC0415 - keep CLI start fast

    token = os.environ.get(token_env) or None
    try:
        timeout = parse_duration(
            body_timeout, option="--body-timeout", above_minimum=True, maximum=3600
        )
        executor = _store_executor(store)
        run_server(
            host,
            port,
            allow_remote=allow_remote,
            token=token,
            body_timeout=float(timeout),
            executor=executor,
            outbox=outbox,
        )
    except CerebriError as error:
        raise fail(error) from None


def _store_executor(store: str | None) -> Executor | None:
    """The executor of the store to serve: ``--store`` or ``CEREBRI_STORE`` must be an
    initialised store (``store.not_initialised`` otherwise); without either, the embedded
    store is served when it is initialised and up to date, else none (no store routes: a
    missing, older, newer or unreadable embedded store never stops the planning API)."""
    from cerebri.cli._execution_common import open_executor  # noqa: PLC0415 - fast start
    from cerebri.execution import store as execution_store  # noqa: PLC0415

    explicit = store or os.environ.get(execution_store.STORE_ENV, "").strip() or None
    if explicit is not None:
        return open_executor(explicit)
    url = execution_store.resolve_store_url(None)
    try:
        return open_executor(url) if execution_store.status(url).up_to_date else None
    except execution_store.StoreError:
        return None
