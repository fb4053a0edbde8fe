"""The batch file of ``cerebri optimize --ics-calendar``: many meetings to place over real
calendars (issue #24, docs/decisions/0081-batches-from-calendars.md).

A CPIR ``OPTIMIZE`` request (decision 0070) lists every busy event as a context object; a
person writing one by hand would copy their calendars into it. The batch file says only what
the calendars cannot: the week (``window``), the grid, the new meetings and who attends
them, and how much may be repaired. :func:`cerebri.calendars.batch_request.batch_request`
reads the calendars and writes the request::

    {
      "window": {"start": "2026-10-05T00:00:00Z", "end": "2026-10-10T00:00:00Z"},
      "timezone": "Europe/Berlin",
      "granularity": 900,
      "duration": 3600,
      "movable": ["focus-ann-1.example.org"],
      "repairs": {"max_repairs": 6, "max_depth": 1, "move_cost": 1, "same_day": true},
      "batch": {"meetings": [...], "people": [...], "rooms": [...], "weights": {...}}
    }

``window`` is a half-open UTC range (RFC 3339); ``timezone`` (IANA) is the zone of the new
meetings, in which the days of ``not_same_day_as`` are read and the table is shown, and in
which a room's all-day events are read; ``granularity`` and ``duration`` are seconds (the
grid step, and the length of a meeting whose entry has no ``duration``). ``batch`` is the
CPIR ``batch`` member (:class:`cerebri.cpir.Batch`) whose ``meetings`` are the **new**
meetings only: the existing events a repair may move are added from the calendars.
``movable`` names events by ``UID`` (as does ``--movable``, and a ``VEVENT`` with
``X-CEREBRI-MOVABLE:TRUE``); ``repairs`` bounds the moves (``max_repairs``: how many,
``max_depth``: how long a chain of displacements, 1 = a moved event never takes the old
place of another moved one), prices each (``move_cost``, unless the event says
``X-CEREBRI-MOVE-COST:<n>``) and, with ``same_day`` (default), keeps a moved event on its own
local day. Parsed strictly like every CPIR record (``cpir.unknown_field``,
``cpir.invalid_value``, with a JSON pointer).
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, StringConstraints

from cerebri.cpir._base import WireModel
from cerebri.cpir.batch import Batch
from cerebri.cpir.scalars import DurationSeconds, TimeRange
from cerebri.temporal.zones import TimeZoneId

__all__ = ["BatchRepairs", "CalendarBatch"]

_Uid = Annotated[str, StringConstraints(pattern=r"^[^\x00-\x1F\x7F]{1,1024}$")]
"""An iCalendar ``UID``: 1 to 1024 characters, no control characters."""

_Count = Annotated[int, Field(ge=0, le=1024)]
"""A count of moves or a chain length: 0 … 1024."""

_Cost = Annotated[int, Field(ge=0, le=1_000_000)]
"""A move cost: 0 … 1 000 000 (multiplied by ``batch.weights.move``)."""


class BatchRepairs(WireModel):
    """How much a batch may repair: at most ``max_repairs`` existing events moved (0 = none),
    displacement chains at most ``max_depth`` long, each move costing ``move_cost`` (times
    ``batch.weights.move``) unless its event says ``X-CEREBRI-MOVE-COST``; ``same_day``
    keeps a moved event on the local date (its person's zone) it is on now."""

    max_repairs: _Count = 0
    max_depth: _Count = 1
    move_cost: _Cost = 1
    same_day: bool = True


class CalendarBatch(WireModel):
    """The batch file (module doc): ``window`` (UTC), ``timezone`` (IANA), ``granularity``
    and ``duration`` (seconds; defaults 900 and 3600), ``movable`` (UIDs), ``repairs``
    and ``batch`` (the CPIR batch member, new meetings only)."""

    window: TimeRange
    timezone: TimeZoneId
    granularity: DurationSeconds = 900
    duration: DurationSeconds = 3600
    movable: tuple[_Uid, ...] = ()
    repairs: BatchRepairs = BatchRepairs()
    batch: Batch
