"""What the executor calls to act: an :class:`Invocation` in, a JSON object out.

An :class:`Adapter` carries out one invocation of a registered capability
(:mod:`cerebri.plans.capabilities`) and returns its structured result, the JSON object that
checks read with a dot path (plans.md section 2). It raises :class:`AdapterError` when the
capability could not be carried out; ``retryable`` says whether trying again may succeed
(plans.md section 6: only idempotent steps retry, and only then), and ``before_effect`` says
whether the adapter proves that the invocation changed nothing (decision 0040: such a refusal
of a write is retried, never read as "may have happened"). :class:`Adapters` is the immutable
table from capability name to adapter.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, ClassVar, Final, Protocol, TypeVar, runtime_checkable

from cerebri._json import JSONValue
from cerebri.errors import CerebriError

__all__ = [
    "Adapter",
    "AdapterError",
    "Adapters",
    "DispatchingAdapter",
    "Invocation",
    "adapter_argument_error",
    "before_any_effect",
    "configured_calendar",
    "serves",
    "unserved_calendar_message",
]

_Handler = Callable[[Any, "Invocation"], dict[str, JSONValue]]
_H = TypeVar("_H", bound=_Handler)
_T = TypeVar("_T")
_SERVES: Final = "_cerebri_serves"


@dataclass(frozen=True, slots=True)
class Invocation:
    """One call of a capability by the executor.

    Attributes:
        capability: registered capability name, e.g. ``"calendar.event.create"``.
        target: the step's target (``None`` for a capability that takes none).
        params: the step's params, already valid against the capability's JSON Schema.
        origin: who asks, ``"plan_step:<step id>"`` (plans.md section 5).
        idempotency_key: ``"<plan id>:<revision>:<step key>:<attempt group>"``; the same key
            names the same intended effect, so a writer may recognise a repeat.
    """

    capability: str
    target: str | None
    params: Mapping[str, JSONValue]
    origin: str
    idempotency_key: str


class AdapterError(CerebriError):
    """An adapter could not carry out an invocation.

    Codes: ``adapter.failed`` (the default), ``adapter.unavailable`` (the back end is missing
    or did not answer in time), ``adapter.invalid_params`` (params the back end cannot take),
    ``adapter.unsupported_capability`` (the adapter does not serve that capability),
    ``adapter.output_too_large``, ``adapter.invalid_argument`` (a public function or
    constructor of :mod:`cerebri.execution.adapters` got a wrong-typed Python argument,
    :func:`adapter_argument_error`); calendars add ``calendar.conflict``,
    ``calendar.not_found``, ``calendar.revision_mismatch``, ``calendar.unknown_calendar``,
    ``calendar.unreadable``, ``calendar.unsupported``, ``calendar.busy``,
    ``calendar.write_failed``, ``calendar.slot_taken`` (a create, move or update whose range
    is no longer free, in its own calendar or in a required attendee's calendar named by
    ``check_calendar_ids``, when the writer is about to write: nothing written, not
    retryable) and ``calendar.unauthorized`` (the CalDAV server refused the credentials, not
    retryable); a change to an existing event keeps the ``change.*`` codes of
    :func:`cerebri.calendars.changes.apply_change` (nothing written, decision 0051);
    ``service.status`` adds ``service.not_found``.

    Attributes:
        retryable: ``True`` when the same invocation may succeed later (a timeout, a busy
            lock, a refused connection); ``False`` when repeating it would fail the same way.
        before_effect: ``True`` when the adapter proves that this invocation changed nothing:
            it stopped before any effect could begin (``calendar.busy``: the lock was never
            taken; a connection refused before the request was sent; a check that refused
            the write). ``False`` (the default) claims nothing: a write may have happened.
            The executor (decision 0040) reads a retryable failure of a non-idempotent write
            as "may have happened" and blocks it for verification (plans.md section 6)
            unless ``before_effect`` is ``True``; then the step is tried again after a
            backoff, like an idempotent one.
    """

    code = "adapter.failed"

    def __init__(
        self,
        message: str,
        *,
        code: str | None = None,
        retryable: bool = False,
        before_effect: bool = False,
        path: str | None = None,
    ) -> None:
        super().__init__(message, code=code, path=path)
        self.retryable = retryable
        self.before_effect = before_effect


@contextmanager
def before_any_effect() -> Iterator[None]:
    """Mark every :class:`AdapterError` raised in the block ``before_effect`` (and re-raise
    it): for the part of a write that runs before its effect can begin (reading, checking,
    taking a lock), so each error there says that nothing was changed."""
    try:
        yield
    except AdapterError as error:
        error.before_effect = True
        raise


def adapter_argument_error(message: str) -> AdapterError:
    """The argument guard's error for :mod:`cerebri.execution.adapters`: code
    ``adapter.invalid_argument``, not retryable (see :mod:`cerebri._guard`)."""
    return AdapterError(message, code="adapter.invalid_argument")


def configured_calendar(calendars: Mapping[str, _T], calendar_id: str) -> _T:
    """What ``calendars`` holds for ``calendar_id`` (a path, a URL...).

    Raises:
        AdapterError: ``calendar.unknown_calendar``, no such calendar is configured.
    """
    found = calendars.get(calendar_id)
    if found is None:
        raise AdapterError(
            unserved_calendar_message(calendar_id, calendars), code="calendar.unknown_calendar"
        )
    return found


def unserved_calendar_message(calendar_id: str, served: Iterable[str]) -> str:
    """What a worker that was not given ``calendar_id`` says, naming the ones it serves and
    the fix (the ``cerebri worker`` options that give it a calendar)."""
    names = ", ".join(repr(name) for name in sorted(served)) or "none"
    return (
        f"this worker serves no calendar {calendar_id!r} (it serves: {names}): start it with "
        f"--ics-calendar {calendar_id}=FILE or --caldav-calendar {calendar_id}=URL"
    )


def serves(*capabilities: str) -> Callable[[_H], _H]:
    """Mark a method of a :class:`DispatchingAdapter` subclass as the handler of
    ``capabilities``: it takes the :class:`Invocation` and returns the result object."""

    def mark(handler: _H) -> _H:
        setattr(handler, _SERVES, capabilities)
        return handler

    return mark


class DispatchingAdapter:
    """Base of an adapter that serves each capability with one method marked :func:`serves`.

    :meth:`invoke` calls the method for ``invocation.capability``; the table is built once,
    when the subclass is defined (a subclass inherits its parent's handlers and may add or
    replace some).

    Raises:
        AdapterError: ``adapter.unsupported_capability``, from :meth:`invoke` for a
            capability no method serves (the message names the class); otherwise what the
            handler raises.
    """

    __slots__ = ()

    _handlers: ClassVar[Mapping[str, _Handler]] = MappingProxyType({})

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        table = dict(cls._handlers)
        for member in vars(cls).values():
            for capability in getattr(member, _SERVES, ()):
                table[capability] = member
        cls._handlers = MappingProxyType(table)

    @classmethod
    def capabilities(cls) -> tuple[str, ...]:
        """The capability names this adapter serves, sorted."""
        return tuple(sorted(cls._handlers))

    def invoke(self, invocation: Invocation) -> dict[str, JSONValue]:
        """Carry out ``invocation`` with the method that serves its capability."""
        handler = self._handlers.get(invocation.capability)
        if handler is None:
            raise AdapterError(
                f"{type(self).__name__} does not serve {invocation.capability!r}",
                code="adapter.unsupported_capability",
            )
        return handler(self, invocation)


@runtime_checkable
class Adapter(Protocol):
    """Carries out invocations of the capabilities it is registered for."""

    def invoke(self, invocation: Invocation) -> dict[str, JSONValue]:
        """The structured result of ``invocation`` (a JSON object).

        Raises:
            AdapterError: the invocation was not carried out (or, for a write, may not
                have been: the code says which).
        """
        ...


@dataclass(frozen=True, slots=True)
class Adapters:
    """Immutable table: capability name to the :class:`Adapter` that carries it out."""

    _table: Mapping[str, Adapter] = field(default_factory=lambda: MappingProxyType({}))

    def get(self, name: str) -> Adapter | None:
        """The adapter for capability ``name``, or ``None`` when there is none."""
        return self._table.get(name)

    def with_adapter(self, name: str, adapter: Adapter) -> Adapters:
        """A table where ``name`` is served by ``adapter`` (replacing any earlier one)."""
        return Adapters(MappingProxyType({**self._table, name: adapter}))

    def names(self) -> tuple[str, ...]:
        """The capability names served, sorted."""
        return tuple(sorted(self._table))
