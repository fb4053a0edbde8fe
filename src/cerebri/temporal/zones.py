"""IANA time zones (cpir-0.2.md section 1.6, temporal.md sections 3.5-3.6).

Zone names and zone data both come from the ``tzdata`` package, never from the operating
system, so results do not depend on the machine: the accepted names are exactly those listed
in tzdata's ``zones`` file (``zoneinfo.available_timezones()`` minus system-only entries such
as ``localtime``). Names are case-sensitive. Transition results can still differ from the
reference near changes in the tz database between tzdata and chrono-tz releases.
"""

from __future__ import annotations

from datetime import timedelta
from functools import cache
from importlib import resources
from typing import Annotated, Final
from zoneinfo import ZoneInfo

from pydantic import AfterValidator

from cerebri.temporal.calendar import NS_PER_DAY, LocalDate
from cerebri.temporal.errors import invalid_argument
from cerebri.temporal.instant import Instant

__all__ = ["TimeZoneId", "known_zone_names", "local_date_of", "zone"]

_NS_PER_MICROSECOND: Final = 1_000
_ONE_MICROSECOND: Final = timedelta(microseconds=1)
_EPOCH_ORDINAL: Final = LocalDate(1970, 1, 1).ordinal()


@cache
def known_zone_names() -> frozenset[str]:
    """Every zone name this build accepts (from the ``tzdata`` package, case-sensitive)."""
    text = resources.files("tzdata").joinpath("zones").read_text(encoding="utf-8")
    return frozenset(line.strip() for line in text.splitlines() if line.strip())


def check_zone_name(name: str) -> str:
    """Return ``name`` if it is a known IANA zone name, else raise ``ValueError``.

    A plain ``ValueError`` on purpose: pydantic (:data:`TimeZoneId`) turns it into a
    ``cpir.invalid_value`` parse error with this message; :func:`zone` re-raises it as
    ``temporal.invalid_argument`` for direct callers."""
    if not isinstance(name, str) or name not in known_zone_names():
        raise ValueError(
            f"unknown time zone {name!r}: expected an exact IANA name such as "
            "'Europe/Berlin' or 'UTC' (names are case-sensitive)"
        )
    return name


TimeZoneId = Annotated[str, AfterValidator(check_zone_name)]
"""Pydantic field type: a string that must be an exact known IANA zone name."""


def zone(name: str) -> ZoneInfo:
    """The ``ZoneInfo`` for an exact IANA name, loaded from ``tzdata`` and cached.

    Raises ``ValueError`` for an unknown name (see :func:`check_zone_name`), an
    :class:`~cerebri.errors.InvalidArgumentError` (``temporal.invalid_argument``) like every
    refusal here, also for a name that is not a ``str``.
    """
    if type(name) is not str:
        raise invalid_argument(f"zone() needs an IANA zone name as str, got {type(name).__name__}")
    try:
        return _zone(name)
    except ValueError as exc:  # an unknown name; a successful lookup is cached
        raise invalid_argument(str(exc)) from None


class _TzdataZone(ZoneInfo):
    """A zone read from the ``tzdata`` package that copies and pickles by its key: a plain
    ``ZoneInfo.from_file`` zone refuses both, so a ``copy.deepcopy`` of an icalendar
    component holding one of cerebri's zones would fail. The copy is the same cached
    object (zones are immutable)."""

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (_zone, (str(self.key),))


@cache
def _zone(name: str) -> ZoneInfo:
    check_zone_name(name)
    data = resources.files("tzdata.zoneinfo").joinpath(*name.split("/"))
    with data.open("rb") as handle:
        return _TzdataZone.from_file(handle, key=name)


def local_date_of(instant: Instant, zone_name: str) -> LocalDate | None:
    """Calendar date on the wall clock of ``zone_name`` at ``instant``.

    Uses the zone's UTC offset in force at that instant. Returns ``None`` when Python's
    ``datetime`` cannot carry the computation (the instant or its local wall time falls
    outside years 1..9999); callers must treat ``None`` as an overflow. Raises ``ValueError``
    for an unknown zone name and :class:`~cerebri.errors.InvalidArgumentError`
    (``temporal.invalid_argument``) unless ``instant`` is an :class:`Instant` and
    ``zone_name`` a ``str`` (two plain ``isinstance`` checks: the planner calls this per
    candidate).
    """
    if not isinstance(instant, Instant) or not isinstance(zone_name, str):
        raise invalid_argument(
            f"local_date_of() needs an Instant and a str zone name, got "
            f"{type(instant).__name__} and {type(zone_name).__name__}"
        )
    tz = zone(zone_name)
    moment = instant.to_datetime()
    if moment is None:
        return None
    try:
        offset = moment.astimezone(tz).utcoffset()
    except OverflowError:
        return None
    if offset is None:  # pragma: no cover - ZoneInfo always reports an offset
        return None
    local_ns = instant.ns + offset // _ONE_MICROSECOND * _NS_PER_MICROSECOND
    return LocalDate.from_ordinal(local_ns // NS_PER_DAY + _EPOCH_ORDINAL)
