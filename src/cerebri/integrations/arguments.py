"""The argument guard's factory of :mod:`cerebri.integrations`: code ``caldav.invalid_argument``.

A wrong-typed or unusable Python argument (``fetch_calendars(None, ...)``, a password that is
not a ``str``, ``timeout_seconds=0``, ``CalendarCache(None)``) raises
:class:`~cerebri.errors.InvalidArgumentError` with this code before any connection is opened
or any file touched (decision 0017). It is not a :class:`~cerebri.integrations.CalDAVError`:
no server was asked, so there is no URL to report.
"""

from __future__ import annotations

from typing import Final

from cerebri._guard import package_argument_error

__all__ = ["invalid_argument"]

invalid_argument: Final = package_argument_error("caldav")
"""Factory of the ``caldav.invalid_argument`` error (see :mod:`cerebri._guard`)."""
