"""What an approval asks for, spelled out for the person who decides (docs/decisions/0039).

:func:`describe_approval` reads an approval, the plan it belongs to and the step it waits
on, and says what the step will do: its capability and that capability's description, the
event's title, calendar and ``[start, end)`` in UTC and in the zone its times are meant in
(the step's ``timezone`` param, which ``propose --as plan-graph`` and ``plan-graph
from-request`` copy from the CPIR object), and who proposed it (the envelope's author and
digest). Everything comes from what the store holds; nothing is fetched from a calendar.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from cerebri._guard import arguments
from cerebri._json import JSONValue
from cerebri.execution.context import Executor
from cerebri.execution.errors import execution_argument_error
from cerebri.execution.store import plans as plan_store
from cerebri.execution.views import instant_text, show_approval
from cerebri.temporal import Instant, zone

__all__ = ["describe_approval", "local_time", "proposed_by_step"]


def local_time(utc: JSONValue, zone_name: JSONValue) -> str | None:
    """RFC 3339 text of the UTC instant ``utc`` in IANA zone ``zone_name``, with its offset
    (``2026-10-05T09:00:00+02:00``); ``None`` when either is missing or unreadable."""
    if not isinstance(utc, str) or not isinstance(zone_name, str):
        return None
    try:
        moment = Instant.parse(utc).to_datetime()
        place = zone(zone_name)
    except ValueError:
        return None
    if moment is None:
        return None
    local: datetime = moment.astimezone(place)
    return local.isoformat()


def proposed_by_step(executor: Executor, request: JSONValue) -> dict[str, JSONValue] | None:
    """What the step of an approval ``request`` (``{"kind": "approval", "step": <spec>}``)
    will do: ``{"step_key", "capability", "does", "target", "object_id", "title",
    "calendar_id", "start", "end", "timezone", "local_start", "local_end"}`` (``object_id``:
    the event the step creates, moves or cancels; ``does``: the capability's
    description in ``executor.registry``; absent params are ``null``). ``None`` for a
    request without a step (a grant)."""
    step: Any = request.get("step") if isinstance(request, dict) else None
    if not isinstance(step, dict):
        return None
    params: Any = step.get("params") if isinstance(step.get("params"), dict) else {}
    capability = step.get("capability")
    known = executor.registry.capabilities.get(capability) if isinstance(capability, str) else None
    tz = params.get("timezone")

    def text(name: str) -> JSONValue:
        value = params.get(name)
        return value if isinstance(value, str) else None

    return {
        "step_key": step.get("key"),
        "capability": capability,
        "does": None if known is None else known.description,
        "target": step.get("target"),
        "object_id": text("object_id"),
        "title": text("title"),
        "calendar_id": text("calendar_id"),
        "start": text("start"),
        "end": text("end"),
        "timezone": text("timezone"),
        "local_start": local_time(params.get("start"), tz),
        "local_end": local_time(params.get("end"), tz),
    }


@arguments(execution_argument_error, executor=Executor, approval_id=str)
def describe_approval(executor: Executor, approval_id: str) -> dict[str, JSONValue]:
    """The approval's wire form (:func:`~cerebri.execution.views.show_approval`) plus
    ``plan_revision``, ``envelope_digest`` and ``envelope_expires_at`` of its plan (``null``
    for a plan not taken in from an envelope) and ``proposed``
    (:func:`proposed_by_step`, ``null`` for a grant).

    Raises :class:`~cerebri.execution.ExecutionError` ``execution.not_found`` for an unknown
    approval id."""
    wire = show_approval(executor, approval_id)
    with executor.engine.connect() as connection:
        plan = plan_store.provenance(connection, str(wire["plan_id"]))
    return {
        **wire,
        "plan_revision": plan.revision,
        "envelope_digest": plan.envelope_digest,
        "envelope_expires_at": instant_text(plan.envelope_expires_at),
        "proposed": proposed_by_step(executor, wire["request"]),
    }
