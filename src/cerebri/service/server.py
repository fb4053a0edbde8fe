"""Running the service with uvicorn on a socket bound here (``cerebri serve``, api.md 1).

The socket is bound and listening before ``CEREBRI_LISTEN_ADDR=<ip>:<port>`` is printed
(port 0 prints the real port), then uvicorn serves on it. Non-loopback hosts are refused
unless remote access is allowed and a bearer token is configured, or the served execution
store has registered principals (their tokens count as tokens: beyond loopback every request
then needs the service token or a principal's token).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, TextIO

import uvicorn

from cerebri._http import ServeError, bind, is_loopback
from cerebri.service.app import create_app
from cerebri.service.protocol import protocol_with_head_timeout
from cerebri.service.settings import BODY_TIMEOUT_SECONDS, ServiceSettings

if TYPE_CHECKING:
    from pathlib import Path

    from cerebri.execution import Executor

__all__ = ["ServeError", "bind", "serve"]


def serve(
    host: str = "127.0.0.1",
    port: int = 3000,
    *,
    allow_remote: bool = False,
    token: str | None = None,
    out: TextIO | None = None,
    body_timeout: float = BODY_TIMEOUT_SECONDS,
    executor: Executor | None = None,
    outbox: Path | None = None,
) -> None:
    """Bind, print ``CEREBRI_LISTEN_ADDR=<ip>:<port>`` and serve until interrupted.

    A configured ``token`` is required on every request (``Authorization: Bearer``). A
    request body not received within ``body_timeout`` seconds gets 408; a connection whose
    request line and headers do not arrive within that time is closed. ``executor`` serves
    its store (plans, executions, approvals: :func:`~cerebri.service.create_app`); beyond
    loopback every request then needs a token (the service token or a principal's).
    ``outbox`` is the iTIP outbox folder ``POST /v1/outbox/resolve`` settles sends in
    (:attr:`ServiceSettings.outbox`; ``None``: that route answers 409).

    Raises:
        SettingsError: ``serve.invalid_option``, ``body_timeout`` is not finite or not in
            ``(0, 3600]`` seconds (checked before binding).
        ServeError: see :func:`bind`.
    """
    remote = not is_loopback(host, port)
    settings = ServiceSettings(
        token=token or None,
        body_timeout_seconds=body_timeout,
        require_token=remote,
        outbox=outbox,
    )
    principals = False
    if executor is not None:
        from cerebri.execution import list_principals  # noqa: PLC0415 - optional part

        principals = bool(list_principals(executor))
    sock = bind(host, port, allow_remote=allow_remote, token=token, principals=principals)
    ip, real_port = sock.getsockname()[:2]
    shown = f"[{ip}]" if ":" in ip else ip
    stream = out or sys.stdout
    stream.write(f"CEREBRI_LISTEN_ADDR={shown}:{real_port}\n")
    stream.flush()
    app = create_app(settings, executor=executor)
    config = uvicorn.Config(
        app,
        log_level="warning",
        lifespan="off",
        # Request heads get the same read deadline as bodies (cerebri.service.protocol).
        http=protocol_with_head_timeout(body_timeout),
    )
    try:
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        sock.close()
