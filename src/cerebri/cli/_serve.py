"""``cerebri serve``: the HTTP API and the Lab."""

from __future__ import annotations

import os
from typing import Annotated

import typer

from cerebri.cli._app import app, fail
from cerebri.errors import CerebriError

__all__ = ["serve"]

BODY_TIMEOUT_SECONDS = 10.0
"""Default of ``--body-timeout``; equals ``cerebri.service.settings.BODY_TIMEOUT_SECONDS``
(not imported here: importing the service loads FastAPI and slows every CLI start)."""


@app.command()
def serve(
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
        float,
        typer.Option(
            "--body-timeout",
            metavar="SECONDS",
            help="Seconds a client has to send a whole request body (408 after); "
            "0 < SECONDS <= 3600.",
        ),
    ] = BODY_TIMEOUT_SECONDS,
) -> None:
    """Run the HTTP API (/health, /v1/plan, /v1/validate, /v1/temporal, /v1/integration/*,
    /lab/). Prints CEREBRI_LISTEN_ADDR=<ip>:<port> once listening. Non-loopback hosts exit 2
    (serve.requires_loopback) unless --allow-remote and a token is set; a configured token
    is required on every request as Authorization: Bearer <token>. A request body not
    received within --body-timeout seconds gets 408 (http.body_timeout)."""
    from cerebri.service import serve as run_server  # noqa: PLC0415 - keep CLI start fast

    token = os.environ.get(token_env) or None
    try:
        run_server(host, port, allow_remote=allow_remote, token=token, body_timeout=body_timeout)
    except CerebriError as error:
        raise fail(error) from None
