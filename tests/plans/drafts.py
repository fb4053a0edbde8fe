"""Builders of plan drafts in wire form (plain dicts) for the plan tests.

``valid_draft()`` is a valid create+verify draft over the built-in capabilities: step 0
``create`` (``calendar.event.create`` on event ``evt-1``, with an expectation) and step 1
``verify`` (reads the event back with ``calendar.event.get``, depends on ``create``). Every
builder returns a fresh dict, so tests may mutate what they get; ``build`` parses a wire
dict into a :class:`~cerebri.plans.PlanDraft`.
"""

from __future__ import annotations

import copy
from typing import Any

from cerebri.plans import PlanDraft, parse_draft

__all__ = [
    "CALENDAR",
    "EVENT",
    "build",
    "check",
    "create_params",
    "create_step",
    "event_check",
    "expectation",
    "internal_step",
    "monitor_step",
    "request_step",
    "service_check",
    "step",
    "valid_draft",
    "verify_step",
    "wait_step",
]

CALENDAR = "cal-1"
EVENT = "evt-1"
START = "2026-10-24T09:00:00Z"
END = "2026-10-24T10:00:00Z"


def step(**fields: Any) -> dict[str, Any]:
    """A step in wire form: ``key`` defaults to ``"s"``, ``kind`` to ``"wait"`` with a
    ``wait: {seconds: 0}`` spec unless another kind or spec is given; other fields as given,
    except that a repeated ``depends_on`` entry is kept once (a repeat is a shape error)."""
    out: dict[str, Any] = {"key": "s", "kind": "wait"}
    out.update(copy.deepcopy(fields))
    if isinstance(out.get("depends_on"), list | tuple):
        out["depends_on"] = list(dict.fromkeys(out["depends_on"]))
    if out["kind"] == "wait" and "wait" not in fields:
        out["wait"] = {"seconds": 0}
    return out


def create_params(**overrides: Any) -> dict[str, Any]:
    """Valid ``calendar.event.create`` params for :data:`EVENT` in :data:`CALENDAR`."""
    params: dict[str, Any] = {
        "calendar_id": CALENDAR,
        "integration_id": "int-1",
        "object_id": EVENT,
        "start": START,
        "end": END,
        "idempotency_key": "idem-1",
    }
    params.update(overrides)
    return params


def expectation(**overrides: Any) -> dict[str, Any]:
    """A valid expectation (``within_seconds`` 60, confidence 0.95)."""
    out: dict[str, Any] = {
        "description": "the event occupies its range",
        "confidence": 0.95,
        "within_seconds": 60,
    }
    out.update(overrides)
    return out


def create_step(key: str = "create", **fields: Any) -> dict[str, Any]:
    """A valid ``capability`` step creating :data:`EVENT`, with an expectation."""
    out: dict[str, Any] = {
        "key": key,
        "title": "create the event",
        "kind": "capability",
        "capability": "calendar.event.create",
        "target": EVENT,
        "params": create_params(),
        "require_approval": True,
        "expectation": expectation(),
    }
    out.update(copy.deepcopy(fields))
    return out


def check(capability: str, **fields: Any) -> dict[str, Any]:
    """A check on ``capability``: ``path`` defaults to ``"start"``, ``op`` to ``"exists"``."""
    out: dict[str, Any] = {"capability": capability, "path": "start", "op": "exists"}
    out.update(copy.deepcopy(fields))
    return out


def event_check(**fields: Any) -> dict[str, Any]:
    """A valid check reading :data:`EVENT` back (``calendar.event.get``, start == START);
    with ``op="exists"`` and no ``value`` given, the default value is left out."""
    defaults: dict[str, Any] = {
        "target": EVENT,
        "params": {"calendar_id": CALENDAR, "object_id": EVENT},
        "op": "eq",
        "value": START,
    }
    if fields.get("op") == "exists" and "value" not in fields:
        del defaults["value"]
    return check("calendar.event.get", **{**defaults, **fields})


def service_check(service: str = "mail", **fields: Any) -> dict[str, Any]:
    """A valid check that ``service`` is active (``service.status``)."""
    defaults: dict[str, Any] = {
        "target": service,
        "params": {"service": service},
        "path": "active",
        "op": "eq",
        "value": True,
    }
    return check("service.status", **{**defaults, **fields})


def verify_step(
    key: str = "verify",
    of: str = "create",
    *,
    depends_on: tuple[str, ...] | None = None,
    **fields: Any,
) -> dict[str, Any]:
    """A valid ``verify`` step of step ``of`` (depending on it unless ``depends_on`` says)."""
    out: dict[str, Any] = {
        "key": key,
        "title": "read the event back",
        "kind": "verify",
        "depends_on": list(depends_on if depends_on is not None else (of,)),
        "verify": {
            "of": of,
            "check": event_check(),
            "within_seconds": 60,
            "interval_seconds": 5,
        },
    }
    out.update(copy.deepcopy(fields))
    return out


def wait_step(key: str = "wait", seconds: int = 30, **fields: Any) -> dict[str, Any]:
    """A valid ``wait`` step."""
    return step(key=key, kind="wait", wait={"seconds": seconds}, **fields)


def monitor_step(key: str = "monitor", **fields: Any) -> dict[str, Any]:
    """A valid ``monitor`` step watching ``service.status`` of ``mail``."""
    out: dict[str, Any] = {
        "key": key,
        "kind": "monitor",
        "monitor": {
            "check": service_check(),
            "interval_seconds": 10,
            "stable_seconds": 60,
            "deadline_seconds": 600,
        },
    }
    out.update(copy.deepcopy(fields))
    return out


def internal_step(
    key: str = "summary", action: str = "summarise_findings", **fields: Any
) -> dict[str, Any]:
    """A valid ``internal`` step with ``action``."""
    out: dict[str, Any] = {"key": key, "kind": "internal", "internal": {"action": action}}
    out.update(copy.deepcopy(fields))
    return out


def request_step(
    key: str = "access", capability: str = "calendar.freebusy", **fields: Any
) -> dict[str, Any]:
    """A valid ``request_capability`` step asking for a read grant on ``capability``."""
    out: dict[str, Any] = {
        "key": key,
        "kind": "request_capability",
        "request": {
            "capability": capability,
            "target_pattern": "*",
            "param_constraints": {"calendar_ids": [CALENDAR]},
            "duration_seconds": 900,
            "reason": "read free/busy to diagnose",
            "risk": "low",
            "mitigation": "read-only, one calendar",
            "fallback": "ask the operator",
        },
    }
    out.update(copy.deepcopy(fields))
    return out


def valid_draft(**overrides: Any) -> dict[str, Any]:
    """A valid create+verify draft in wire form; ``overrides`` replace top-level members."""
    out: dict[str, Any] = {
        "objective": "put the meeting in the calendar",
        "origin": "template",
        "strategy": "direct_action_verified",
        "steps": [create_step(), verify_step()],
    }
    out.update(copy.deepcopy(overrides))
    return out


def build(wire: dict[str, Any]) -> PlanDraft:
    """Parse a wire-form draft strictly (``draft.schema`` errors propagate). A non-empty
    ``ignored`` (which ``parse_draft`` refuses: only ``parse_model_draft`` fills it) is set
    on the parsed draft, as ``parse_model_draft`` does."""
    ignored = wire.get("ignored")
    if not ignored:
        return parse_draft(wire)
    draft = parse_draft({k: v for k, v in wire.items() if k != "ignored"})
    return draft.model_copy(update={"ignored": tuple(ignored)})
