"""One :class:`~cerebri.calendars.SlotQuery` from the textual find-slot options.

The command line (``find-slot``, ``request new``), the service (``POST /v1/find-slot``) and
the MCP tools (``find_slot``) take the same options, read by :mod:`cerebri.calendars.options`;
they differ only in how a refused value names its source. A caller passes ``name``, which
maps a field (``"prefer_between"``) to that source:

* :func:`option_name` gives the command-line option (``--prefer-between``): the message
  names the option and the error has no ``path``;
* :func:`pointer_name` gives the JSON pointer (``/prefer_between``): the message names the
  field (the pointer without its ``/``) and the error's ``path`` is the pointer.

Every refusal of a value is a :class:`~cerebri.errors.CerebriError` with code
``input.invalid_option`` (not a ``ValueError``), message ``"<name>: <reason>"``. Values are
checked in one documented order, so the first refusal is deterministic: the daily
preferences (at most one), ``tz``, ``between``, ``buffer``, ``duration``, ``granularity``,
``working_hours``, ``working_days``, ``prefer``, ``prefer_between``, ``min_attendance``,
``hours`` (each attendee's own, :func:`cerebri.calendars.attendee_hours.parse_hours`; a
refusal names the entry: ``--hours 'bob=9-17': ...`` or pointer ``/hours/<i>``; the same
calendar id twice is refused too).
A combination :class:`SlotQuery` itself refuses keeps its ``calendars.invalid_argument``
error (a ``ValueError``); callers decide how to report it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any, TypeVar

from cerebri.calendars.attendee_hours import AttendeeHours, parse_hours
from cerebri.calendars.options import (
    parse_attendance,
    parse_buffer,
    parse_duration,
    parse_time_of_day,
    parse_time_range,
    parse_window,
    parse_working_days,
    parse_working_hours,
)
from cerebri.calendars.query import SlotQuery
from cerebri.errors import CerebriError
from cerebri.temporal import Instant
from cerebri.temporal.zones import check_zone_name

__all__ = [
    "SlotOptions",
    "option_name",
    "pointer_name",
    "read_hours",
    "read_window",
    "refuse_two_preferences",
    "slot_query",
]

T = TypeVar("T")
Name = Callable[[str], str]

_PREFERENCES = ("prefer", "prefer_between", "prefer_earliest", "prefer_latest")


@dataclass(frozen=True, slots=True)
class SlotOptions:
    """The find-slot options as given: text, or seconds (``int``) for a duration, granularity
    or buffer, and a number or text for ``min_attendance`` (a fraction 0-1).

    ``max_candidates`` defaults to :class:`SlotQuery`'s default. The forms are
    :mod:`cerebri.calendars.options`'s.
    """

    duration: str | int
    between: str
    tz: str = "UTC"
    granularity: str | int = "15m"
    working_hours: str | None = None
    working_days: str | None = None
    buffer: str | int | None = None
    prefer: str | None = None
    prefer_between: str | None = None
    prefer_earliest: bool = False
    prefer_latest: bool = False
    min_attendance: str | float | None = None
    max_candidates: int = 100_000
    hours: Sequence[str] | None = None

    @classmethod
    def of(cls, values: Mapping[str, Any]) -> SlotOptions:
        """The options among ``values`` by field name (a request body's or tool arguments'
        fields); other keys are ignored, missing ones take the defaults."""
        return cls(**{f.name: values[f.name] for f in fields(cls) if f.name in values})


def option_name(field: str) -> str:
    """The command-line option of a field: ``prefer_between`` → ``--prefer-between``."""
    return "--" + field.replace("_", "-")


def pointer_name(field: str) -> str:
    """The JSON pointer of a top-level field: ``prefer_between`` → ``/prefer_between``."""
    return "/" + field


def _refusal(message: str, field: str, name: Name) -> CerebriError:
    """``input.invalid_option``; ``path`` is the name when it is a JSON pointer."""
    source = name(field)
    path = source if source.startswith("/") else None
    return CerebriError(message, code="input.invalid_option", path=path)


def _label(field: str, name: Name) -> str:
    return name(field).removeprefix("/")


def _read(field: str, name: Name, reader: Callable[..., T], *values: str) -> T:
    """``reader(*values)``; a ``ValueError`` becomes ``input.invalid_option`` naming ``field``."""
    try:
        return reader(*values)
    except ValueError as exc:
        reason = exc.message if isinstance(exc, CerebriError) else str(exc)
        raise _refusal(f"{_label(field, name)}: {reason}", field, name) from None


def _optional(field: str, name: Name, reader: Callable[[str], T], text: str | None) -> T | None:
    return None if text is None else _read(field, name, reader, text)


def _seconds(
    field: str, name: Name, value: str | int, reader: Callable[[str], int] = parse_duration
) -> int:
    return value if isinstance(value, int) else _read(field, name, reader, value)


def refuse_two_preferences(
    prefer: str | None, prefer_between: str | None, earliest: bool, latest: bool, *, name: Name
) -> None:
    """``input.invalid_option`` when more than one daily preference is given (false counts as
    absent), at the second one; the message names all given (docs/decisions/0026)."""
    values = (prefer is not None, prefer_between is not None, earliest, latest)
    given = [field for field, value in zip(_PREFERENCES, values, strict=True) if value]
    if len(given) > 1:
        names = " and ".join(_label(field, name) for field in given)
        raise _refusal(f"{names} are alternatives; pass one of them", given[1], name)


def read_window(tz: str, between: str, *, name: Name) -> tuple[Instant, Instant]:
    """``tz`` checked as an IANA zone, then ``between`` (``START/END``, local in ``tz``
    without an offset) as two UTC instants; ``input.invalid_option`` naming the field."""
    _read("tz", name, check_zone_name, tz)
    return _read("between", name, parse_window, between, tz)


def read_hours(entries: Sequence[str], tz: str, *, name: Name) -> tuple[AttendeeHours, ...]:
    """Each ``ID=[DAYS ][HH:MM-HH:MM][@ZONE]`` entry (zone default ``tz``) as
    :class:`AttendeeHours`; ``input.invalid_option`` naming the entry (its JSON pointer
    ``/hours/<i>`` as ``path``) for one that cannot be read or repeats a calendar id."""
    out: list[AttendeeHours] = []
    for index, text in enumerate(entries):
        source = name("hours")
        where = f"{source}/{index}" if source.startswith("/") else source
        label = f"{where.removeprefix('/')} {text!r}"
        try:
            entry = parse_hours(text, default_zone=tz)
        except ValueError as exc:
            reason = exc.message if isinstance(exc, CerebriError) else str(exc)
            path = where if where.startswith("/") else None
            raise CerebriError(
                f"{label}: {reason}", code="input.invalid_option", path=path
            ) from None
        if any(known.calendar_id == entry.calendar_id for known in out):
            path = where if where.startswith("/") else None
            raise CerebriError(
                f"{label}: hours for {entry.calendar_id!r} are given twice",
                code="input.invalid_option",
                path=path,
            )
        out.append(entry)
    return tuple(out)


def slot_query(options: SlotOptions, *, name: Name) -> SlotQuery:
    """The :class:`SlotQuery` the options ask for (see the module doc for the order of the
    checks and the errors).

    Raises ``input.invalid_option`` (:class:`~cerebri.errors.CerebriError`) for a value that
    cannot be read, two daily preferences, or a buffer that widens the window beyond the
    supported instant range; :class:`SlotQuery`'s ``calendars.invalid_argument`` for a
    combination it refuses.
    """
    o = options
    refuse_two_preferences(
        o.prefer, o.prefer_between, o.prefer_earliest, o.prefer_latest, name=name
    )
    start, end = read_window(o.tz, o.between, name=name)
    buffer = 0 if o.buffer is None else _seconds("buffer", name, o.buffer, parse_buffer)
    if start.plus_seconds(-buffer) is None or end.plus_seconds(buffer) is None:
        raise _refusal(
            f"{_label('buffer', name)}: {o.buffer!r} widens the window beyond the supported "
            "time range",
            "buffer",
            name,
        )
    duration = _seconds("duration", name, o.duration)
    granularity = _seconds("granularity", name, o.granularity)
    hours = _optional("working_hours", name, parse_working_hours, o.working_hours)
    days = _optional("working_days", name, parse_working_days, o.working_days)
    prefer = _optional("prefer", name, parse_time_of_day, o.prefer)
    prefer_between = _optional("prefer_between", name, parse_time_range, o.prefer_between)
    share = o.min_attendance
    text = share if isinstance(share, str) or share is None else repr(share)
    return SlotQuery(
        window_start=start,
        window_end=end,
        duration_seconds=duration,
        granularity_seconds=granularity,
        zone=o.tz,
        working_hours=hours,
        working_days=days,
        buffer_seconds=buffer,
        prefer=prefer,
        prefer_between=prefer_between,
        prefer_earliest=o.prefer_earliest,
        prefer_latest=o.prefer_latest,
        min_attendance=_optional("min_attendance", name, parse_attendance, text),
        max_candidates=o.max_candidates,
        attendee_hours=read_hours(o.hours or (), o.tz, name=name),
    )
