"""Typed failures of the temporal core (temporal.md section 2.4).

:class:`TemporalError` names *why* a temporal computation refused to answer;
:class:`TemporalRejected` is the exception that carries one. ``/v1/temporal`` turns it into a
``{"status": "Rejected", "data": "<value>"}`` result, the planner's snapshot compiler into a
``Compilation(Temporal(<value>))`` validation issue.
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Final

from cerebri._guard import package_argument_error
from cerebri.errors import CerebriError

__all__ = ["TemporalError", "TemporalRejected", "invalid_argument"]


class TemporalError(StrEnum):
    """Reason a temporal computation was refused; values are the PascalCase wire strings.

    ``InvalidRange``, ``InvalidDuration`` and ``InvalidRecurrence`` are detected while
    parsing; the others are what :func:`~cerebri.temporal.recurrence.expand`,
    :func:`~cerebri.temporal.freebusy.free_busy` and the diagnostics report raise.
    """

    INVALID_RANGE = "InvalidRange"
    INVALID_DURATION = "InvalidDuration"
    OVERFLOW = "Overflow"
    AMBIGUOUS_LOCAL_TIME = "AmbiguousLocalTime"
    NONEXISTENT_LOCAL_TIME = "NonexistentLocalTime"
    INVALID_RECURRENCE = "InvalidRecurrence"
    INPUT_LIMIT = "InputLimit"
    OCCURRENCE_LIMIT_EXCEEDED = "OccurrenceLimitExceeded"
    DATE_LIMIT_EXCEEDED = "DateLimitExceeded"

    @property
    def code(self) -> str:
        """Stable error code: ``"temporal."`` plus the snake_case value."""
        return "temporal." + _WORD_BOUNDARY.sub("_", self.value).lower()


_WORD_BOUNDARY: Final = re.compile(r"(?<=[a-z])(?=[A-Z])")

_MESSAGES: Final = {
    TemporalError.INVALID_RANGE: "a range needs start strictly before end",
    TemporalError.INVALID_DURATION: "a duration must be a positive whole number of seconds",
    TemporalError.OVERFLOW: "instant arithmetic left the representable range",
    TemporalError.AMBIGUOUS_LOCAL_TIME: "the local time occurs twice (DST fold)",
    TemporalError.NONEXISTENT_LOCAL_TIME: "the local time does not exist (DST gap)",
    TemporalError.INVALID_RECURRENCE: "the recurrence definition is invalid",
    TemporalError.INPUT_LIMIT: "an input limit was exceeded",
    TemporalError.OCCURRENCE_LIMIT_EXCEEDED: "the occurrence budget is exhausted",
    TemporalError.DATE_LIMIT_EXCEEDED: "the examined-date budget is exhausted",
}


class TemporalRejected(CerebriError):  # noqa: N818 - name fixed by the interface
    """A temporal computation refused to produce a (partial) answer.

    Attributes:
        error: the :class:`TemporalError` reason.
        code: ``"temporal."`` plus the snake_case reason, e.g.
            ``"temporal.occurrence_limit_exceeded"``.
    """

    def __init__(self, error: TemporalError, message: str | None = None) -> None:
        super().__init__(message or _MESSAGES[error], code=error.code)
        self.error = error


invalid_argument: Final = package_argument_error("temporal")
"""The argument guard's factory for :mod:`cerebri.temporal`: an
:class:`~cerebri.errors.InvalidArgumentError` (also ``TypeError`` and ``ValueError``) with code
``temporal.invalid_argument`` for a wrong-typed argument (``Interval(None, 1)``,
``merge(None)``). Kept apart from :class:`TemporalRejected`, whose reasons are wire values."""
