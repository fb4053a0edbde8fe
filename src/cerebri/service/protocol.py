"""uvicorn's HTTP/1.1 protocol with a deadline for a request's head.

uvicorn times a connection out only between requests (``timeout_keep_alive``, restarted by
every byte received), so a client that connects and sends nothing, or sends a request line
and then one header byte a second, holds its connection (and a file descriptor) for ever.
:class:`HeadTimeoutProtocol` gives every request head a deadline: from the moment the
connection opens, or the previous response completed, the request line and all headers must
have arrived within ``head_timeout_seconds`` (the service's read timeout, ``--body-timeout``,
10 seconds by default); otherwise the connection is closed without a reply (no request
exists to answer yet, so 408 would be unsolicited; RFC 9110 section 15.5.9 allows either).
The body then has its own deadline (:func:`cerebri.service.body.read_json_body`).

This is the one place that reaches into uvicorn's protocol class; the alternative, a
server-wide accept loop of our own, would be hand-rolled HTTP.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from uvicorn.config import Config
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.server import ServerState

__all__ = ["HeadTimeoutProtocol", "protocol_with_head_timeout"]

_LOG = logging.getLogger("cerebri.service")


class HeadTimeoutProtocol(H11Protocol):
    """:class:`H11Protocol` closing a connection whose request head is late.

    ``head_timeout_seconds`` is set on the subclass made by :func:`protocol_with_head_timeout`.
    """

    head_timeout_seconds: float = 10.0

    def __init__(self, config: Config, server_state: ServerState, **kwargs: Any) -> None:
        super().__init__(config, server_state, **kwargs)
        self._head_deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm_head_deadline()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.cycle is not None and not self.cycle.response_complete:
            self._disarm_head_deadline()  # the head arrived: a request is being handled

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm_head_deadline()  # the next request on this connection

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm_head_deadline()
        super().connection_lost(exc)

    def _arm_head_deadline(self) -> None:
        self._disarm_head_deadline()
        self._head_deadline = self.loop.call_later(self.head_timeout_seconds, self._head_late)

    def _disarm_head_deadline(self) -> None:
        if self._head_deadline is not None:
            self._head_deadline.cancel()
            self._head_deadline = None

    def _head_late(self) -> None:
        self._head_deadline = None
        if self.transport.is_closing():
            return
        if self.cycle is not None and not self.cycle.response_complete:
            return  # a request arrived in the meantime and is being handled
        client = "%s:%d" % self.client if self.client else "a client"  # noqa: UP031
        _LOG.warning(
            "closed the connection of %s: no complete request head within %g s",
            client,
            self.head_timeout_seconds,
        )
        self.transport.close()


def protocol_with_head_timeout(seconds: float) -> type[HeadTimeoutProtocol]:
    """A :class:`HeadTimeoutProtocol` subclass whose heads must arrive within ``seconds``
    (a finite number above 0), for ``uvicorn.Config(http=...)``."""
    return type("BoundedHeadProtocol", (HeadTimeoutProtocol,), {"head_timeout_seconds": seconds})
