"""Argument guards: a public function refuses wrong-typed arguments with a typed error.

Issue 11 rule: "every public function answers bad input with a CerebriError subclass". A
public function declares the types of the arguments it cannot work without::

    @arguments(proposal_argument_error, registry=KeyRegistry, clock_now=Instant)
    def check_envelope(envelope_bytes, *, registry, clock_now, ...): ...

Before the body runs, each named argument that was passed (or has a default) is checked
with ``isinstance``; the first mismatch raises the package's error, so nothing has been
read, written or half-applied. :data:`PATH` stands for a file path: ``str`` or
``os.PathLike[str]`` without a NUL character (the operating system refuses those).

Each package names one factory (``proposal_argument_error``, ``draft_argument_error``,
:func:`invalid_argument`) so the code of the error is stable per package.
"""

from __future__ import annotations

import collections.abc
import functools
import inspect
import os
from collections.abc import Callable, Iterable
from typing import Any, Final, ParamSpec, TypeVar, cast

from cerebri.errors import CerebriError, InvalidArgumentError

__all__ = [
    "CALLABLE",
    "PATH",
    "ArgumentErrorFactory",
    "arguments",
    "invalid_argument",
    "items_of",
    "kind_name",
    "package_argument_error",
]

P = ParamSpec("P")
R = TypeVar("R")

ArgumentErrorFactory = Callable[[str], CerebriError]
"""Makes the package's error from a message such as ``plan() needs limits as ...``."""

PATH: Final = (str, os.PathLike)
"""A file path argument: ``str`` or ``os.PathLike``, checked for NUL characters too."""

CALLABLE: Final = cast(type, collections.abc.Callable)
"""A callable argument (a hook, a probe): ``collections.abc.Callable`` as a guard kind."""

Kind = type | tuple[type, ...]


def kind_name(kind: Kind) -> str:
    """``"KeyRegistry"``, ``"str or PathLike"``: the expected type in a message."""
    listed = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(item.__name__ for item in listed)


def invalid_argument(message: str) -> CerebriError:
    """The top-level API's factory: :class:`InvalidArgumentError` (``input.invalid_argument``)."""
    return InvalidArgumentError(message)


def package_argument_error(package: str) -> ArgumentErrorFactory:
    """A package's factory: :class:`InvalidArgumentError` with code
    ``"<package>.invalid_argument"`` (``temporal``, ``cpir``, ``calendars``, ``caldav``)."""
    code = f"{package}.invalid_argument"

    def make(message: str) -> CerebriError:
        return InvalidArgumentError(message, code=code)

    return make


def _problem(function: str, name: str, value: object, kind: Kind) -> str | None:
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
        return f"{function}() needs {name} as {kind_name(kind)}, got {type(value).__name__}"
    if kind is PATH and isinstance(value, (str, os.PathLike)) and "\0" in str(os.fspath(value)):
        return f"{function}() got a {name} path with a NUL character"
    return None


def items_of(
    values: Iterable[object], kind: Kind, error: ArgumentErrorFactory, where: str
) -> tuple[Any, ...]:
    """``values`` as a tuple, each an instance of ``kind``; else ``error`` naming ``where``
    (``"propose() signing_keys"``) and the first wrong item's position."""
    items = tuple(values)
    for index, item in enumerate(items):
        if not isinstance(item, kind):
            raise error(f"{where}[{index}] must be {kind_name(kind)}, got {type(item).__name__}")
    return items


def arguments(
    error: ArgumentErrorFactory, **kinds: Kind
) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Decorate a function so the arguments named in ``kinds`` are type-checked first.

    ``kinds`` maps a parameter name to a type or tuple of types (:data:`PATH` for paths).
    ``bool`` is refused where ``int`` is asked for. Raises ``error(message)`` on the first
    mismatch, before the function runs.
    """

    def decorate(function: Callable[P, R]) -> Callable[P, R]:
        signature = inspect.signature(function)
        missing = set(kinds) - set(signature.parameters)
        if missing:
            raise AssertionError(f"{function.__qualname__} has no parameter {sorted(missing)}")
        label = function.__qualname__.removesuffix(".__init__")

        @functools.wraps(function)
        def checked(*args: P.args, **kwargs: P.kwargs) -> R:
            try:
                bound = signature.bind(*args, **kwargs)
            except TypeError as exc:
                raise error(f"{label}(): {exc}") from None
            bound.apply_defaults()
            for name, kind in kinds.items():
                problem = _problem(label, name, bound.arguments[name], kind)
                if problem is not None:
                    raise error(problem)
            return function(*args, **kwargs)

        return checked

    return decorate
