"""Running the service with uvicorn on a socket bound here (``cerebri serve``, api.md 1).

The socket is bound and listening before ``CEREBRI_LISTEN_ADDR=<ip>:<port>`` is printed
(port 0 prints the real port), then uvicorn serves on it. Non-loopback hosts are refused
unless remote access is allowed and a bearer token is configured, or the served execution
store has registered principals (their tokens count as tokens: beyond loopback every request
then needs the service token or a principal's token).
"""

from __future__ import annotations

import ipaddress
import socket
import sys
from typing import TYPE_CHECKING, TextIO

import uvicorn

from cerebri.errors import CerebriError
from cerebri.service.app import create_app
from cerebri.service.protocol import protocol_with_head_timeout
from cerebri.service.settings import BODY_TIMEOUT_SECONDS, ServiceSettings

if TYPE_CHECKING:
    from cerebri.execution import Executor

__all__ = ["ServeError", "bind", "serve"]


class ServeError(CerebriError):
    """The server cannot start. Codes: ``serve.requires_loopback`` (non-loopback host
    without ``--allow-remote`` and a token or principals), ``serve.bind_failed``."""

    code = "serve.bind_failed"


def _address(host: str, port: int) -> tuple[socket.AddressFamily, tuple[str, int]]:
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        raise ServeError(f"cannot resolve host {host!r}: {exc}") from None
    family, _, _, _, sockaddr = infos[0]
    return family, (str(sockaddr[0]), int(sockaddr[1]))


def _loopback(ip: str) -> bool:
    return ipaddress.ip_address(ip.split("%", maxsplit=1)[0]).is_loopback


def bind(
    host: str, port: int, *, allow_remote: bool, token: str | None, principals: bool = False
) -> socket.socket:
    """A listening TCP socket on ``host:port``.

    Raises:
        ServeError: ``serve.requires_loopback`` for a non-loopback address unless
            ``allow_remote`` and a non-empty ``token`` or ``principals`` (the served store
            has registered principals, whose tokens count); ``serve.bind_failed`` otherwise.
    """
    family, (ip, _) = _address(host, port)
    if not _loopback(ip) and not (allow_remote and (token or principals)):
        raise ServeError(
            f"development API requires loopback: {host} is not a loopback address "
            "(use --allow-remote with a token in the --token-env variable, or a --store "
            "with registered principals)",
            code="serve.requires_loopback",
        )
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((ip, port))
        sock.listen(128)
    except OSError as exc:
        sock.close()
        raise ServeError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    return sock


def serve(
    host: str = "127.0.0.1",
    port: int = 3000,
    *,
    allow_remote: bool = False,
    token: str | None = None,
    out: TextIO | None = None,
    body_timeout: float = BODY_TIMEOUT_SECONDS,
    executor: Executor | None = None,
) -> None:
    """Bind, print ``CEREBRI_LISTEN_ADDR=<ip>:<port>`` and serve until interrupted.

    A configured ``token`` is required on every request (``Authorization: Bearer``). A
    request body not received within ``body_timeout`` seconds gets 408; a connection whose
    request line and headers do not arrive within that time is closed. ``executor`` serves
    its store (plans, executions, approvals: :func:`~cerebri.service.create_app`); beyond
    loopback every request then needs a token (the service token or a principal's).

    Raises:
        SettingsError: ``serve.invalid_option``, ``body_timeout`` is not finite or not in
            ``(0, 3600]`` seconds (checked before binding).
        ServeError: see :func:`bind`.
    """
    remote = not _loopback(_address(host, port)[1][0])
    settings = ServiceSettings(
        token=token or None, body_timeout_seconds=body_timeout, require_token=remote
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
