"""Bearer-token check for every request when a token is required.

A request passes with ``Authorization: Bearer <token>`` when ``<token>`` is the configured
service token (compared with ``hmac.compare_digest``) or, when the app serves an execution
store, a principal's token the store accepts (:func:`cerebri.execution.authenticate`). The
Lab's static files (``GET``/``HEAD`` of ``/lab`` and ``/lab/...``) pass without a token: they
hold no data, and the page asks for the token and sends it with every API call. Anything else
gets a 401 problem (code ``auth.unauthorized``). When the store cannot be reached to check a
principal's token the answer is 503 ``store.unavailable`` (:mod:`cerebri.service.store_outage`).
"""

from __future__ import annotations

from collections.abc import Callable

from starlette.responses import Response
from starlette.types import ASGIApp

from cerebri._http import BearerTokenMiddleware as TokenGate
from cerebri.service.store_outage import is_store_outage, outage_response

__all__ = ["BearerTokenMiddleware"]


def _outage(error: BaseException) -> Response | None:
    """A store outage while a principal's token is checked: 503 (``store.unavailable``)."""
    return outage_response(error) if is_store_outage(error) else None


class BearerTokenMiddleware(TokenGate):
    """ASGI middleware: without an accepted bearer token a request gets a 401 problem (code
    ``auth.unauthorized``); see the module docstring and
    :class:`cerebri._http.BearerTokenMiddleware`.

    ``token`` is the service token (``None``: none configured); ``accepts`` answers whether a
    token names a principal of the store (``None``: no store), and runs in a worker thread; a
    store outage meanwhile is answered 503.
    """

    def __init__(
        self,
        app: ASGIApp,
        token: str | None,
        accepts: Callable[[str], bool] | None = None,
    ) -> None:
        super().__init__(app, token, accepts, on_error=_outage)
