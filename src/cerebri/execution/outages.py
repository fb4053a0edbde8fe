"""Riding out a store outage: retry with backoff, say when it starts and ends, give up at a
limit (decision 0035).

An *outage* begins at the first store call that fails with an error
:func:`~cerebri.execution.store.errors.store_error_code` classifies (``store.unavailable``,
``store.full``) and ends at the first store call that succeeds afterwards; a ``store.full``
outage ends only at a call that wrote (a read of a full database works and proves nothing).
One :class:`OutageGuard` is shared by all threads of a worker, so a restart of the server
is one outage however many threads notice it. It reports an :class:`OutageEvent` when an
outage starts and when it ends, nothing in between.

:meth:`OutageGuard.retry` runs a store call again (through tenacity) after
:data:`FIRST_BACKOFF_SECONDS`, doubling up to :data:`MAX_BACKOFF_SECONDS` between tries,
until it succeeds, the outage has lasted ``limit_seconds`` (then :class:`StoreError` with the
outage's code) or ``stop`` is set (:class:`StoppedDuringOutageError`). Any other exception
propagates at once: a programming error is never retried. :meth:`OutageGuard.attempt` tries
a call once and answers a default during an outage (heartbeats, the idle check).

How long an outage lasted is read from the injected clock; the waits between tries pace the
loop and decide nothing (``threading.Event.wait`` on real time, or the ``sleep`` given).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, Literal, TypeVar

from tenacity import RetryCallState, Retrying, retry_if_exception, wait_exponential

from cerebri._json import JSONValue
from cerebri.execution.context import NS
from cerebri.execution.errors import ExecutionError
from cerebri.execution.store.errors import StoreError, store_error_code, store_error_from

__all__ = [
    "DEFAULT_OUTAGE_LIMIT_SECONDS",
    "FIRST_BACKOFF_SECONDS",
    "MAX_BACKOFF_SECONDS",
    "MAX_OUTAGE_LIMIT_SECONDS",
    "OutageEvent",
    "OutageGuard",
    "StoppedDuringOutageError",
]

DEFAULT_OUTAGE_LIMIT_SECONDS: Final = 60
"""How long a worker waits for its store to come back before it gives up, in seconds."""

MAX_OUTAGE_LIMIT_SECONDS: Final = 86_400
"""The longest outage limit accepted, in seconds (one day)."""

FIRST_BACKOFF_SECONDS: Final = 0.1
"""Seconds before the first retry of a failed store call; each next wait doubles."""

MAX_BACKOFF_SECONDS: Final = 5.0
"""Longest wait between two tries, in seconds: the store is noticed back at most this late,
and the worker gives up at most this long after the limit."""

T = TypeVar("T")


class StoppedDuringOutageError(Exception):
    """``stop`` was set while a call waited for the store to come back."""


@dataclass(frozen=True, slots=True)
class OutageEvent:
    """An outage ``started`` (``seconds``: the limit it may last) or ``ended`` (``seconds``:
    how long it lasted); ``code`` is ``store.unavailable`` or ``store.full``, ``message`` the
    first line of the error that started it."""

    kind: Literal["started", "ended"]
    code: str
    message: str
    seconds: float

    def to_text(self) -> str:
        """``store outage: MESSAGE; retrying for up to N s`` or ``store back after N s``:
        one line, no newline (the message says what failed: ``the store is unavailable:
        ...``, ``the store is full: ...``)."""
        if self.kind == "started":
            return f"store outage: {self.message}; retrying for up to {self.seconds:g} s"
        return f"store back after {self.seconds:.1f} s"

    def to_wire(self) -> dict[str, JSONValue]:
        """``{"event": "store.outage_started" | "store.outage_ended", "code", "message",
        "seconds"}``."""
        return {
            "event": f"store.outage_{self.kind}",
            "code": self.code,
            "message": self.message,
            "seconds": round(self.seconds, 3),
        }


def _check_limit(limit_seconds: float) -> None:
    number = isinstance(limit_seconds, int | float) and not isinstance(limit_seconds, bool)
    if not number or not 0 < limit_seconds <= MAX_OUTAGE_LIMIT_SECONDS:
        raise ExecutionError(
            f"the store outage limit is more than 0 and at most {MAX_OUTAGE_LIMIT_SECONDS} "
            f"seconds, not {limit_seconds!r}",
            code="execution.invalid_argument",
        )


class OutageGuard:
    """The outage state of one worker (module docstring); thread-safe.

    ``now_ns``: the injected clock (ns). ``limit_seconds``: more than 0, at most
    :data:`MAX_OUTAGE_LIMIT_SECONDS` (else :class:`ExecutionError`
    ``execution.invalid_argument``). ``stop``: ends the waits early. ``on_event``: called
    with each :class:`OutageEvent` (from the thread that noticed). ``sleep``: how to wait
    between tries (default ``stop.wait``).
    """

    def __init__(
        self,
        now_ns: Callable[[], int],
        *,
        limit_seconds: float = DEFAULT_OUTAGE_LIMIT_SECONDS,
        stop: threading.Event | None = None,
        on_event: Callable[[OutageEvent], None] | None = None,
        sleep: Callable[[float], object] | None = None,
    ) -> None:
        _check_limit(limit_seconds)
        self.limit_seconds = limit_seconds
        self._now_ns = now_ns
        self._stop = stop or threading.Event()
        self._on_event = on_event
        self._sleep = sleep or self._stop.wait
        self._lock = threading.Lock()
        self._since: int | None = None
        self._error: StoreError | None = None
        self.outages = 0
        """Outages that ended (the store came back)."""

    @property
    def stop(self) -> threading.Event:
        """The event that ends the waits (the worker's stop)."""
        return self._stop

    @property
    def ongoing(self) -> bool:
        """Whether the store is out of service now (as far as the last calls tell)."""
        with self._lock:
            return self._since is not None

    def _elapsed(self) -> float:
        with self._lock:
            since = self._since
        return 0.0 if since is None else (self._now_ns() - since) / NS

    def over_limit(self) -> bool:
        """Whether the outage in progress has lasted at least ``limit_seconds``."""
        return self.ongoing and self._elapsed() >= self.limit_seconds

    def failed(self, error: BaseException) -> bool:
        """Note that a store call raised ``error``; ``True`` when it is an outage (the first
        such failure starts one and reports it), ``False`` for any other error."""
        found = store_error_from(error)
        if found is None:
            return False
        started = None
        with self._lock:
            self._error = found
            if self._since is None:
                self._since = self._now_ns()
                started = OutageEvent("started", found.code, found.message, self.limit_seconds)
        if started is not None and self._on_event is not None:
            self._on_event(started)
        return True

    def succeeded(self, *, wrote: bool) -> None:
        """Note that a store call succeeded (``wrote``: it committed a write); this ends the
        outage in progress, unless it is ``store.full`` and the call did not write."""
        ended = None
        with self._lock:
            if self._since is None or self._error is None:
                return
            if self._error.code == "store.full" and not wrote:
                return
            seconds = (self._now_ns() - self._since) / NS
            ended = OutageEvent("ended", self._error.code, self._error.message, seconds)
            self._since, self._error = None, None
            self.outages += 1
        if self._on_event is not None:
            self._on_event(ended)

    def error(self) -> StoreError:
        """The error a worker ends with when the outage in progress lasts too long (or it
        is stopped during one): the outage's code, how long it lasted, the last error."""
        with self._lock:
            last = self._error
        code = last.code if last is not None else "store.unavailable"
        said = last.message if last is not None else "the store is unavailable"
        return StoreError(
            f"{said} (for {self._elapsed():.1f} s; the outage limit is {self.limit_seconds:g} s)",
            code=code,
        )

    def check(self) -> None:
        """Raise :meth:`error` when the outage in progress has lasted past the limit."""
        if self.over_limit():
            raise self.error()

    def _wait(self, seconds: float) -> None:
        self._sleep(seconds)

    def _give_up(self, _state: RetryCallState) -> bool:
        return self._stop.is_set() or self.over_limit()

    def retry(self, action: Callable[[], T], *, wrote: Callable[[T], bool]) -> T:
        """``action()``, tried again while it fails with an outage (module docstring);
        ``wrote(result)`` says whether the call that succeeded wrote. Raises
        :class:`StoreError` (``store.unavailable``/``store.full``) once the outage has lasted
        ``limit_seconds``, :class:`StoppedDuringOutageError` when ``stop`` is set meanwhile, and
        any other exception of ``action`` at once."""
        self.check()
        retrying = Retrying(
            retry=retry_if_exception(self.failed),
            stop=self._give_up,
            wait=wait_exponential(
                multiplier=FIRST_BACKOFF_SECONDS,
                min=FIRST_BACKOFF_SECONDS,
                max=MAX_BACKOFF_SECONDS,
            ),
            sleep=self._wait,
            reraise=True,
        )
        try:
            result = retrying(action)
        except Exception as error:
            if store_error_code(error) is None:
                raise
            if self.over_limit():
                raise self.error() from None
            raise StoppedDuringOutageError(str(error)) from None
        self.succeeded(wrote=wrote(result))
        return result

    def attempt(self, action: Callable[[], T], *, wrote: Callable[[T], bool], default: T) -> T:
        """``action()`` once; ``default`` when it fails with an outage (noted). Any other
        exception propagates."""
        try:
            result = action()
        except Exception as error:
            if not self.failed(error):
                raise
            return default
        self.succeeded(wrote=wrote(result))
        return result
