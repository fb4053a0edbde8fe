"""Busy periods as CPIR context objects: :func:`context_objects`.

Each :class:`~cerebri.ics.BusyPeriod` with ``start < end`` becomes an existing ``EVENT``
:class:`~cerebri.cpir.PlanningObject` (cpir-0.2.md section 7) with a ``KNOWN`` time of
provenance ``INTEGRATION_FACT``, ``revision`` = the defining component's ``SEQUENCE``
(0 when absent), no resources and no semantics. Free/busy periods become ``EVENT`` objects
too: they block time the same way.

Ids are :func:`cerebri.ics.object_id`: ``ics-`` plus the first 32 hex digits of SHA-256
over ``uid NUL recurrence_id NUL start`` (start in RFC 3339 UTC), so the same instance gets
the same id in every run and on every machine. Errors keep the ``ics.`` codes they had when
this lived in :mod:`cerebri.ics` (it moved here so that ``ics`` never imports ``cpir``,
docs/decisions/0041). Zero-length periods are left out (a CPIR time
range needs ``start < end``); periods that map to the same id (the same instance read
twice) are kept once, with the latest end.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Final

from cerebri.cpir.objects import PlanningObject
from cerebri.ics import BusyPeriod, CalendarError, object_id
from cerebri.ics.errors import require
from cerebri.temporal.zones import check_zone_name

__all__ = ["context_objects"]

_IDENTIFIER_RE: Final = re.compile(r"[A-Za-z0-9._-]{1,128}", re.ASCII)


def _check_identifier(name: str, value: str) -> None:
    if not isinstance(value, str) or _IDENTIFIER_RE.fullmatch(value) is None:
        raise CalendarError(
            "ics.invalid_argument",
            f"{name} must be 1-128 characters of [A-Za-z0-9._-], got {value!r}",
        )


def context_objects(
    periods: Iterable[BusyPeriod], *, calendar_id: str, integration_id: str, zone: str
) -> tuple[PlanningObject, ...]:
    """CPIR ``EVENT`` objects for the busy periods, in the order of the periods.

    ``zone`` (an exact IANA name) is written as every object's ``timezone``.
    Raises :class:`CalendarError` ``ics.invalid_argument`` (a ``ValueError``) for an invalid
    ``calendar_id``, ``integration_id`` or ``zone``,
    ``CalendarArgumentError`` (a ``TypeError``) when ``periods`` is not an iterable of
    ``BusyPeriod``.
    """
    if isinstance(periods, (str, bytes, dict)) or not isinstance(periods, Iterable):
        require(periods, BusyPeriod, "context_objects", "periods")  # raises
    require(calendar_id, str, "context_objects", "calendar_id")
    require(integration_id, str, "context_objects", "integration_id")
    require(zone, str, "context_objects", "zone")
    _check_identifier("calendar_id", calendar_id)
    _check_identifier("integration_id", integration_id)
    try:
        check_zone_name(zone)
    except ValueError as exc:
        raise CalendarError("ics.invalid_argument", str(exc)) from None
    chosen: dict[str, BusyPeriod] = {}
    for period in periods:
        require(period, BusyPeriod, "context_objects", "periods")
        if not period.start < period.end:
            continue
        key = object_id(period)
        known = chosen.get(key)
        if known is None or period.end > known.end:
            chosen[key] = period
    return tuple(
        PlanningObject.model_validate_json(
            json.dumps(_wire(key, period, calendar_id, integration_id, zone))
        )
        for key, period in chosen.items()
    )


def _wire(
    key: str, period: BusyPeriod, calendar_id: str, integration_id: str, zone: str
) -> dict[str, object]:
    return {
        "id": key,
        "revision": period.sequence,
        "kind": {"kind": "EVENT"},
        "calendar_id": calendar_id,
        "integration_id": integration_id,
        "resource_ids": [],
        "time": {
            "value": {
                "processing": "RESOLVED",
                "knowledge": {
                    "state": "KNOWN",
                    "data": {"start": period.start.format(), "end": period.end.format()},
                },
            },
            "provenance": "INTEGRATION_FACT",
            "confidence": None,
            "evidence": [],
        },
        "timezone": zone,
        "semantics": None,
    }
