"""What the execution commands share: ``--json``/``--as`` options, opening the store, errors
and output (:mod:`cerebri.cli._execution`, :mod:`cerebri.cli._operations`).

The store URL is ``--store URL``, else ``CEREBRI_STORE``, else the embedded SQLite file (as
``cerebri store``); it must be initialised (``store.not_initialised`` otherwise). Errors exit
2 with ``error <code> at <path>: <message>`` on stderr, or with ``--json`` the object
``{"code", "path", "message"}``; a driver error that means the store is out of service
(:func:`~cerebri.execution.store.errors.store_error_code`: the server went away, the disk is
full) is the typed ``store.unavailable`` or ``store.full``, never a traceback.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated, Any, Concatenate, ParamSpec, TypeVar

import typer
from rich.console import Console
from rich.table import Table

from cerebri._json import JSONValue, compact, pretty
from cerebri.cli._app import EXIT_INPUT, fail, printable, table_console
from cerebri.errors import CerebriError

if TYPE_CHECKING:
    from cerebri.clock import Clock
    from cerebri.execution import Executor
    from cerebri.execution.adapters import Adapters

__all__ = [
    "JsonOption",
    "PrincipalOption",
    "answer_on_store",
    "emit",
    "errors_to_exit",
    "new_table",
    "open_executor",
    "print_problems",
    "print_table",
    "safe_text",
    "to_second",
    "typed_error",
]

JsonOption = Annotated[bool, typer.Option("--json", help="Print the answer as JSON.")]
PrincipalOption = Annotated[
    str, typer.Option("--as", metavar="PRINCIPAL", help="Who decides, e.g. principal:alice.")
]


def typed_error(error: BaseException) -> CerebriError | None:
    """``error`` when it is a :class:`CerebriError`; a store outage of the database driver as
    :class:`~cerebri.execution.store.StoreError` (``store.unavailable``, ``store.full``:
    :func:`~cerebri.execution.store.errors.store_error_from`); else ``None``."""
    if isinstance(error, CerebriError):
        return error
    from cerebri.execution.store.errors import store_error_from  # noqa: PLC0415 - fast start

    return store_error_from(error)


@contextmanager
def errors_to_exit(as_json: bool) -> Iterator[None]:
    """Turn a :class:`CerebriError`, or a store outage (:func:`typed_error`), into exit 2
    and its description on stderr (one line)."""
    try:
        yield
    except Exception as raised:
        error = typed_error(raised)
        if error is None:
            raise
        if not as_json:
            raise fail(error) from None
        sys.stderr.write(compact(dict(error.to_wire())) + "\n")
        raise typer.Exit(EXIT_INPUT) from None


def open_executor(
    store: str | None, *, clock: Clock | None = None, adapters: Adapters | None = None
) -> Executor:
    """An executor on the store (:func:`cerebri.execution.connect.open_executor`: checked to
    be initialised and up to date), with the system clock and random UUIDs."""
    from cerebri.clock import SystemClock, UuidIds  # noqa: PLC0415 - fast CLI start
    from cerebri.execution.connect import open_executor as opened  # noqa: PLC0415

    return opened(store, clock=clock or SystemClock(), ids=UuidIds(), adapters=adapters)


P = ParamSpec("P")
T = TypeVar("T")


def answer_on_store(
    store: str | None,
    as_json: bool,
    action: Callable[Concatenate[Executor, P], T],
    *args: P.args,
    **kwargs: P.kwargs,
) -> T | None:
    """``action(executor, *args, **kwargs)`` on the store's executor (:func:`open_executor`),
    errors as exit 2 (:func:`errors_to_exit`). With ``--json`` its answer is printed
    (:func:`emit`) and ``None`` returned: the command prints nothing more. Otherwise the
    answer is returned for the command to print."""
    with errors_to_exit(as_json):
        done = action(open_executor(store), *args, **kwargs)
    if as_json:
        emit(done)  # type: ignore[arg-type]  # the execution views answer JSON objects
        return None
    return done


def emit(value: JSONValue) -> None:
    """Print ``value`` as indented JSON on stdout."""
    sys.stdout.write(pretty(value))


def safe_text(value: Any) -> str:
    """``value`` as text for a terminal (control characters escaped); ``-`` for ``None``."""
    return "-" if value is None else printable(str(value))


def new_table(*columns: str) -> Table:
    """A borderless table; ids and instants never wrap (they are copied into commands)."""
    table = Table(box=None, pad_edge=False, header_style="bold")
    for name in columns:
        whole = name in _WHOLE_COLUMNS
        table.add_column(name, no_wrap=whole, overflow="ignore" if whole else "fold")
    return table


_WHOLE_COLUMNS = frozenset({"plan", "approval", "id", "created", "expires", "timeout", "due"})


def print_table(table: Table) -> None:
    """Print ``table`` on stdout: the terminal's width, else 240 columns so ids fit."""
    console = table_console()
    if not console.is_terminal:
        console = Console(highlight=False, markup=False, emoji=False, width=240)
    console.print(table)


def print_problems(problems: JSONValue) -> None:
    """Print a validation report's ``problems`` (``[{"code", "step", "path", "message"}]``)
    as a table on stdout, after a ``problems:`` line; nothing when there are none."""
    rows = [p for p in problems if isinstance(p, dict)] if isinstance(problems, list) else []
    if not rows:
        return
    sys.stdout.write(f"problems: {len(rows)}\n")
    table = new_table("code", "step", "path", "message")
    for problem in rows:
        table.add_row(
            *(safe_text(problem.get(name)) for name in ("code", "step", "path", "message"))
        )
    print_table(table)


def to_second(text: JSONValue) -> str:
    """An RFC 3339 instant cut to the second (``2026-12-01T10:00:00Z``), for tables."""
    if not isinstance(text, str):
        return "-"
    return text.split(".", 1)[0].removesuffix("Z") + "Z"
