"""A whole-request time limit for the ``caldav`` client: :class:`BoundedClient`.

The HTTP client under ``caldav`` (niquests) applies its timeout to connecting and to each
socket read, never to a request as a whole: a server that sends a ``207`` header and then
one byte every few seconds keeps a read going for as long as it likes. Neither niquests nor
its ``urllib3-future`` offers a total deadline (their ``total`` timeout, too, restarts at
every read), so each request runs in a worker thread that the caller waits for at most the
limit; past it the caller gets :class:`DeadlineError` and the read fails.

The abandoned worker is a daemon thread: it never keeps the process alive, holds no lock
the caller needs, and ends at its socket's next read timeout or when the server closes the
connection; its reply is thrown away. No clock is read here: the wait is
``threading.Thread.join(timeout)``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from caldav.davclient import DAVClient
from caldav.response import DAVResponse

_T = TypeVar("_T")


class DeadlineError(Exception):
    """A request did not finish within ``seconds``."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"the request did not finish within {seconds:g} s")
        self.seconds = seconds


def call_within(seconds: float, call: Callable[[], _T]) -> _T:
    """``call()``'s result or exception, if it finishes within ``seconds`` (> 0).

    Raises:
        DeadlineError: it did not; it goes on in its daemon thread, unobserved.
    """
    outcome: list[tuple[bool, object]] = []

    def run() -> None:
        try:
            outcome.append((True, call()))
        except BaseException as exc:  # handed to the waiting caller below
            outcome.append((False, exc))

    worker = threading.Thread(target=run, name="cerebri-caldav-request", daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive() or not outcome:
        raise DeadlineError(seconds)
    finished, value = outcome[0]
    if not finished:
        assert isinstance(value, BaseException)
        raise value
    return value  # type: ignore[return-value]  # call()'s own result


class BoundedClient(DAVClient):
    """A ``caldav`` client whose every request (with its ``401`` authentication handshake)
    must finish, last body byte included, within ``request_seconds``.

    Every request of the library goes through :meth:`DAVClient.request`.
    """

    def __init__(self, *, request_seconds: float, **options: Any) -> None:
        self.request_seconds = request_seconds  # set first: the base class may send requests
        super().__init__(**options)

    def request(
        self,
        url: str,
        method: str = "GET",
        body: str = "",
        headers: Mapping[str, str] | None = None,
        rate_limit_time_slept: Any = 0,
    ) -> DAVResponse:
        parent = super().request
        return call_within(
            self.request_seconds,
            lambda: parent(url, method, body, headers, rate_limit_time_slept),  # type: ignore[arg-type]
        )
