"""What an approval asks for, spelled out for the person who decides (docs/decisions/0039).

:func:`describe_approval` reads an approval, the plan it belongs to and the step it waits
on, and says what the step will do: its capability and that capability's description, the
event's title, calendar and ``[start, end)`` in UTC and in the zone its times are meant in
(the step's ``timezone`` param, which ``propose --as plan-graph`` and ``plan-graph
from-request`` copy from the CPIR object), and who proposed it (the envelope's author and
digest). Everything comes from what the store holds; nothing is fetched from a calendar.

For a change of an existing event, or a create that invites attendees (issue #23, decision
0056), ``proposed.change`` says what changes (:func:`change_of_step`): the kind
(``reschedule``, ``update``, ``cancel``, ``create``), the event's UID and instance, before
and after (range in UTC and local time, title, location), the attendees (kept, added,
removed) and the messages the plan sends once the change reads back (one per recipient,
from the plan's ``message.itip.send`` steps that depend on the step's verification) and the
copies it writes into attendees' calendars (its ``calendar.itip.deliver`` steps, decision
0057).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, Final

from cerebri._guard import arguments
from cerebri._json import JSONValue
from cerebri.execution._rows import loads
from cerebri.execution.context import Executor
from cerebri.execution.errors import execution_argument_error
from cerebri.execution.store import plans as plan_store
from cerebri.execution.store import steps as step_store
from cerebri.execution.views import instant_text, show_approval
from cerebri.temporal import Instant, zone

__all__ = ["change_of_step", "describe_approval", "local_time", "proposed_by_step"]

_CHANGE_KINDS: Final = {
    "calendar.event.move": "reschedule",
    "calendar.event.update": "update",
    "calendar.event.cancel": "cancel",
    "calendar.event.create": "create",
}
_SEND: Final = "message.itip.send"
_DELIVER: Final = "calendar.itip.deliver"


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


def proposed_by_step(
    executor: Executor, request: JSONValue, plan_steps: Sequence[Mapping[str, Any]] | None = None
) -> dict[str, JSONValue] | None:
    """What the step of an approval ``request`` (``{"kind": "approval", "step": <spec>}``)
    will do: ``{"step_key", "capability", "does", "target", "object_id", "title",
    "calendar_id", "start", "end", "timezone", "local_start", "local_end", "change",
    "covers"}``
    (``object_id``: the event the step creates, moves or cancels; ``does``: the capability's
    description in ``executor.registry``, for an approval gate "an approval gate: <its
    title>"; absent params are ``null``; ``change``: :func:`change_of_step` with the specs
    ``plan_steps`` of the plan's steps; ``covers``: for a gate with ``plan_steps``, the
    writes it covers (:func:`_covered`, decision 0083), else ``null``). ``None`` for a
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

    gate = _is_gate(step)
    does = known.description if known is not None else None
    if gate:
        does = f"an approval gate: {step.get('title') or step.get('key')}"
    return {
        "step_key": step.get("key"),
        "capability": capability,
        "does": does,
        "target": step.get("target"),
        "object_id": text("object_id"),
        "title": text("title"),
        "calendar_id": text("calendar_id"),
        "start": text("start"),
        "end": text("end"),
        "timezone": text("timezone"),
        "local_start": local_time(params.get("start"), tz),
        "local_end": local_time(params.get("end"), tz),
        "change": change_of_step(step, plan_steps),
        "covers": _covered(step, plan_steps) if gate and plan_steps is not None else None,
    }


def _is_gate(step: Mapping[str, Any]) -> bool:
    internal = step.get("internal")
    return isinstance(internal, Mapping) and internal.get("action") == "await_approval"


_OWNER_GATE: Final = "approve-owner-"


def _covered(gate: Mapping[str, Any], plan_steps: Sequence[Mapping[str, Any]]) -> list[JSONValue]:
    """The calendar writes that depend on ``gate`` (decision 0076), in step order; an
    owner's gate ``approve-owner-<i>`` covers the move ``move-<i>`` it was asked about.
    Each ``{"step_key", "kind", "uid", "title", "calendar_id", "start", "end", "from_start",
    "from_end", "attendees", "room_calendar_id"}`` (UTC; ``from_*`` the range as read when
    planned when the step says it, else null; ``attendees`` the addresses invited;
    ``room_calendar_id`` the room a create is also booked in)."""
    key = str(gate.get("key"))
    rooms = {
        str(s.get("key")).removeprefix("room-"): s["params"].get("calendar_id")
        for s in plan_steps
        if str(s.get("key")).startswith("room-") and isinstance(s.get("params"), Mapping)
    }
    rows: list[JSONValue] = []
    for spec in plan_steps:
        params = spec.get("params")
        kind = _CHANGE_KINDS.get(str(spec.get("capability")))
        name = str(spec.get("key"))
        if kind is None or not isinstance(params, Mapping) or name.startswith("room-"):
            continue
        if key not in (spec.get("depends_on") or ()):
            continue
        if key.startswith(_OWNER_GATE) and name != "move-" + key.removeprefix(_OWNER_GATE):
            continue
        current = params.get("current")
        seen: Mapping[str, Any] = current if isinstance(current, Mapping) else {}
        rows.append(
            {
                "step_key": name,
                "kind": kind,
                "uid": _text(params, "uid") or _text(params, "object_id"),
                "title": _text(params, "title") or _text(seen, "title"),
                "calendar_id": _text(params, "calendar_id"),
                "start": _text(params, "start"),
                "end": _text(params, "end"),
                "from_start": _text(seen, "start"),
                "from_end": _text(seen, "end"),
                "attendees": [p["address"] for p in _parties(params.get("attendees")) or []],
                "room_calendar_id": rooms.get(name.split("-", 1)[-1]),
            }
        )
    return rows


@arguments(execution_argument_error, executor=Executor, approval_id=str)
def describe_approval(executor: Executor, approval_id: str) -> dict[str, JSONValue]:
    """The approval's wire form (:func:`~cerebri.execution.views.show_approval`) plus
    ``plan_revision``, ``envelope_digest`` and ``envelope_expires_at`` of its plan (``null``
    for a plan not taken in from an envelope) and ``proposed``
    (:func:`proposed_by_step` with the plan's steps, ``null`` for a grant).

    Raises :class:`~cerebri.execution.ExecutionError` ``execution.not_found`` for an unknown
    approval id."""
    wire = show_approval(executor, approval_id)
    with executor.engine.connect() as connection:
        plan = plan_store.provenance(connection, str(wire["plan_id"]))
        specs = [
            loads(row.spec) or {} for row in step_store.of_plan(connection, str(wire["plan_id"]))
        ]
    return {
        **wire,
        "plan_revision": plan.revision,
        "envelope_digest": plan.envelope_digest,
        "envelope_expires_at": instant_text(plan.envelope_expires_at),
        "proposed": proposed_by_step(executor, wire["request"], specs),
    }


def _text(params: Mapping[str, Any], name: str) -> str | None:
    value = params.get(name)
    return value if isinstance(value, str) else None


def _moment(state: Mapping[str, Any], tz: JSONValue) -> dict[str, JSONValue]:
    """``state``'s range in UTC and in zone ``tz``, its title and location."""
    start, end = _text(state, "start"), _text(state, "end")
    return {
        "start": start,
        "end": end,
        "local_start": local_time(start, tz),
        "local_end": local_time(end, tz),
        "title": _text(state, "title"),
        "location": _text(state, "location"),
    }


def _parties(value: Any) -> list[Mapping[str, Any]] | None:
    if not isinstance(value, list):
        return None
    return [p for p in value if isinstance(p, Mapping) and isinstance(p.get("address"), str)]


def _who(address: str) -> str:
    return address.strip().lower().removeprefix("mailto:")


def _attendees(before: Any, after: Any, create: bool) -> list[JSONValue]:
    """Every attendee with ``status`` ``kept``, ``added`` or ``removed``, by address."""
    old, new = _parties(before), _parties(after)
    if new is None:
        new = old or []
    known = {_who(p["address"]) for p in old or []}
    kept = {_who(p["address"]) for p in new}
    rows: list[tuple[Mapping[str, Any], str]] = [
        (p, "added" if create or _who(p["address"]) not in known else "kept") for p in new
    ]
    rows += [(p, "removed") for p in old or [] if _who(p["address"]) not in kept]
    return [
        {
            "address": p["address"],
            "name": _text(p, "name"),
            "required": p.get("required") is True,
            "status": status,
        }
        for p, status in sorted(rows, key=lambda row: (_who(row[0]["address"]), row[1]))
    ]


def _after_check(key: Any, capability: str, plan_steps: Sequence[Mapping[str, Any]]) -> list[Any]:
    """The ``capability`` steps that depend on the verification of step ``key``, with their
    params, in step order."""
    checks = {
        s.get("key")
        for s in plan_steps
        if isinstance(s.get("verify"), Mapping) and s["verify"].get("of") == key
    }
    return [
        (spec, spec["params"])
        for spec in plan_steps
        if spec.get("capability") == capability
        and isinstance(spec.get("params"), Mapping)
        and checks & set(spec.get("depends_on") or ())
    ]


def _recipients(key: Any, plan_steps: Sequence[Mapping[str, Any]]) -> list[JSONValue]:
    """The ``message.itip.send`` steps after the verification of step ``key``."""
    return [
        {
            "step_key": spec.get("key"),
            "address": _text(params, "recipient"),
            "method": _text(params, "method"),
            "sequence": params.get("sequence"),
        }
        for spec, params in _after_check(key, _SEND, plan_steps)
    ]


def _deliveries(key: Any, plan_steps: Sequence[Mapping[str, Any]]) -> list[JSONValue]:
    """The ``calendar.itip.deliver`` steps after the verification of step ``key`` (the
    copies written into attendees' calendars, decision 0057)."""
    return [
        {
            "step_key": spec.get("key"),
            "calendar_id": _text(params, "calendar_id"),
            "address": _text(params, "attendee"),
            "method": _text(params, "method"),
            "sequence": params.get("sequence"),
        }
        for spec, params in _after_check(key, _DELIVER, plan_steps)
    ]


def change_of_step(
    step: Mapping[str, Any], plan_steps: Sequence[Mapping[str, Any]] | None = None
) -> dict[str, JSONValue] | None:
    """What a calendar write ``step`` (a step spec) changes, for the approver:
    ``{"kind", "uid", "recurrence_id", "scope", "organizer", "before", "after",
    "attendees", "recipients", "deliveries"}``; ``None`` for any other step, and for a
    create that invites nobody (no ``organizer`` or ``attendees`` param).

    ``kind`` is ``reschedule``, ``update``, ``cancel`` or ``create``; ``before`` (the
    ``current`` param: the event as read when planned; ``None`` for a create) and ``after``
    (``None`` for a cancel) are ``{"start", "end", "local_start", "local_end", "title",
    "location"}`` with local times in the step's ``timezone``; ``attendees`` lists
    ``{"address", "name", "required", "status"}`` (``kept``, ``added``, ``removed``) by
    address; ``recipients`` the messages sent once the change reads back, ``{"step_key",
    "address", "method", "sequence"}`` in step order, ``deliveries`` the copies written into
    attendees' calendars once it reads back (decision 0057), ``{"step_key", "calendar_id",
    "address", "method", "sequence"}`` in step order (both ``None`` when ``plan_steps`` is
    not given)."""
    params: Any = step.get("params")
    kind = _CHANGE_KINDS.get(str(step.get("capability")))
    if kind is None or not isinstance(params, Mapping):
        return None
    create = kind == "create"
    if create and "organizer" not in params and "attendees" not in params:
        return None
    tz = params.get("timezone")
    seen = params.get("current")
    before = _moment(seen, tz) if isinstance(seen, Mapping) and not create else None
    after = None
    if kind != "cancel":
        after = _moment({**(seen if isinstance(seen, Mapping) else {}), **params}, tz)
    return {
        "kind": kind,
        "uid": _text(params, "uid") or _text(params, "object_id"),
        "recurrence_id": _text(params, "recurrence_id"),
        "scope": _text(params, "scope"),
        "organizer": _text(params, "organizer"),
        "before": before,
        "after": after,
        "attendees": _attendees(
            None if create or not isinstance(seen, Mapping) else seen.get("attendees"),
            params.get("attendees"),
            create,
        ),
        "recipients": None if plan_steps is None else _recipients(step.get("key"), plan_steps),
        "deliveries": None if plan_steps is None else _deliveries(step.get("key"), plan_steps),
    }
