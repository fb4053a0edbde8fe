"""The one error type of :mod:`cerebri.ics`: :class:`CalendarError`.

Every malformed calendar that cerebri refuses to read raises ``CalendarError`` with one of
these stable codes (the message is for people and may change):

``ics.syntax``
    The text is not iCalendar: a line that is not a content line, ``BEGIN``/``END`` that do
    not match, a file that ends inside a component (truncated), a property value that cannot
    be read, a ``VEVENT`` without ``DTSTART``.
``ics.invalid_rrule``
    An ``RRULE`` that cannot be evaluated (unknown ``FREQ``, ``COUNT``/``INTERVAL`` below 1,
    both ``COUNT`` and ``UNTIL``, a rule part the recurrence engine rejects).
``ics.unknown_timezone``
    A ``TZID`` that is neither an IANA name, nor a Windows zone name, nor defined by a
    readable ``VTIMEZONE`` in the same calendar.
``ics.invalid_range``
    An end before its start: ``DTEND`` before ``DTSTART``, a negative ``DURATION``, a
    period whose end precedes its start, or a time outside the supported range.
``ics.expansion_limit``
    Expanding recurrences would generate more instances in and near the query window than
    the counted limit (``max_occurrences``, ``--max-occurrences``) allows, or step over
    more than ``WALK_FACTOR`` times that many before the window
    (:mod:`cerebri.ics.budget`).
``ics.unsupported``
    Valid iCalendar that cerebri does not implement: ``RSCALE`` (RFC 7529, non-Gregorian
    recurrence), ``SKIP`` (RFC 7529), a ``CALSCALE`` other than ``GREGORIAN``
    (docs/decisions/0014-lenient-reading.md lists what else and why).
``ics.invalid_argument``
    A public function of :mod:`cerebri.ics` was called with an argument of the wrong type
    (``parse_calendar(None)``); raised as :class:`CalendarArgumentError`, which is also a
    ``TypeError``.

``uid`` names the component (its ``UID``, or the synthetic id used for a component without
one) and ``line`` the 1-based physical line in the source text, when known: calendars read
with :func:`cerebri.ics.parse_calendar` know their lines, calendars built in code do not.
"""

from __future__ import annotations

from typing import Final, Literal, cast, get_args

from cerebri.errors import CerebriError

__all__ = [
    "CODES",
    "SKIP_HINT",
    "CalendarArgumentError",
    "CalendarError",
    "CalendarErrorCode",
    "require",
]

CalendarErrorCode = Literal[
    "ics.syntax",
    "ics.invalid_rrule",
    "ics.unknown_timezone",
    "ics.invalid_range",
    "ics.expansion_limit",
    "ics.unsupported",
    "ics.invalid_argument",
]

CODES: Final[tuple[CalendarErrorCode, ...]] = get_args(CalendarErrorCode)

SKIP_HINT: Final = (
    "to leave this event out and read the rest of the calendar, pass --skip-invalid-events "
    "(Python: skip_invalid_events=True); the answer is then marked incomplete"
)
"""The hint a refused event's error ends with (docs/decisions/0014)."""


class CalendarError(CerebriError, ValueError):
    """A calendar that cannot be read or expanded safely.

    Attributes:
        code: one of :data:`CODES`.
        uid: the component's UID (or synthetic id) when the problem belongs to a component.
        line: 1-based line of the offending property or component in the source, if known.
        source: the name given to :func:`cerebri.ics.parse_calendar` (``"<memory>"`` by
            default), if known.
        detail: the message without the location and hint (what
            :data:`~cerebri.ics.CalendarWarning` ``ics.skipped_event`` repeats).
        hint: how to proceed, appended after the location (``SKIP_HINT`` for an event that
            ``skip_invalid_events`` could leave out), or ``None``.
    """

    code = "ics.syntax"

    def __init__(
        self,
        code: CalendarErrorCode,
        message: str,
        *,
        uid: str | None = None,
        line: int | None = None,
        source: str | None = None,
        hint: str | None = None,
    ) -> None:
        where = [part for part in (_where(source, line), _uid_text(uid)) if part]
        full = f"{message} ({', '.join(where)})" if where else message
        if hint:
            full = f"{full}; {hint}"
        super().__init__(full, code=code)
        self.uid = uid
        self.line = line
        self.source = source
        self.detail = message
        self.hint = hint

    def with_hint(self, hint: str) -> CalendarError:
        """The same error (code, UID, line, source, detail) with ``hint`` appended."""
        return type(self)(
            cast("CalendarErrorCode", self.code),  # set from a CalendarErrorCode in __init__
            self.detail,
            uid=self.uid,
            line=self.line,
            source=self.source,
            hint=hint,
        )


class CalendarArgumentError(CalendarError, TypeError):
    """A public function of :mod:`cerebri.ics` got an argument of the wrong type.

    Code ``ics.invalid_argument``; a :class:`CalendarError` (so one ``except`` catches every
    refusal of :mod:`cerebri.ics`) and a ``TypeError`` (what Python raises for wrong types).
    """

    def __init__(self, function: str, argument: str, expected: str, got: object) -> None:
        super().__init__(
            "ics.invalid_argument",
            f"{function}() needs {argument} as {expected}, got {type(got).__name__}",
        )


def require(value: object, kinds: type | tuple[type, ...], function: str, argument: str) -> None:
    """Raise :class:`CalendarArgumentError` unless ``value`` is an instance of ``kinds``."""
    if not isinstance(value, kinds):
        listed = kinds if isinstance(kinds, tuple) else (kinds,)
        names = " or ".join(kind.__name__ for kind in listed)
        raise CalendarArgumentError(function, argument, names, value)


def _where(source: str | None, line: int | None) -> str:
    if source is None and line is None:
        return ""
    if line is None:
        return f"in {source}"
    return f"{source or '<calendar>'}:{line}"


def _uid_text(uid: str | None) -> str:
    return "" if uid is None else f"UID {uid!r}"
