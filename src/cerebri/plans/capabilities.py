"""The capability registry: the only vocabulary of effects a plan may name (plans.md).

A :class:`Capability` declares its name, what it does, the JSON Schema (draft 2020-12) of its
``params``, whether it only reads, whether repeating it is harmless (idempotent), its risk,
how its ``target`` relates to its params (:class:`~cerebri.plans.vocabulary.TargetRule`),
whether it is bounded and allowed by default, and whether invoking it raises an approval
prompt. :class:`CapabilityRegistry` is an immutable value: ``register``, ``lock`` and
``unlock`` return a new registry. A locked capability stays known, but every draft that uses
it is invalid (``draft.capability_locked``).

Declaring a capability grants nothing: permission is checked when a step acts.

The calendar writes ``calendar.event.move``, ``calendar.event.cancel`` and
``calendar.event.update`` take optional params naming what a change touches and what it
must still find (issue #23, decision 0051): ``uid`` (the iCalendar ``UID``, default the
``object_id``), ``recurrence_id`` (UTC original start of one instance, RFC 5545 3.8.4.4, or
``null``), ``scope`` (``INSTANCE``, ``THIS_AND_FUTURE`` or ``SERIES``, the default),
``expected_etag`` (``If-Match`` on the ETag read at plan time, RFC 7232 3.1; for an ``.ics``
file the digest :func:`cerebri.calendars.changes.resource_etag`), ``expected_revision`` (the
``SEQUENCE`` read, RFC 5545 3.8.7.4), ``check_calendar_ids`` (every required attendee's
calendar, re-read before writing), ``organizer`` and ``attendees`` (``[{address, name,
required, calendar_id}]``, stamped as ``ORGANIZER``/``ATTENDEE``); an update also takes
``title``, ``location`` and ``start``/``end`` (both or neither). ``calendar.event.create``
takes ``organizer`` and ``attendees`` too, ``calendar.event.get`` ``uid`` and
``recurrence_id``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final

from cerebri._json import JSONValue
from cerebri.errors import CerebriError
from cerebri.plans.capabilities_messages import MESSAGE_CAPABILITIES
from cerebri.plans.change_schema import CURRENT_EVENT_SCHEMA
from cerebri.plans.vocabulary import Risk, TargetRule
from cerebri.temporal import Instant

if TYPE_CHECKING:  # jsonschema loads when the first registry is built (fast CLI start)
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import ValidationError

__all__ = [
    "BUILTIN_CAPABILITIES",
    "Capability",
    "CapabilityError",
    "CapabilityRegistry",
    "ParamsProblem",
    "builtin_registry",
]


class CapabilityError(CerebriError, ValueError):
    """A capability declaration or registry change was refused.

    Codes: ``capability.invalid_schema`` (params schema is not valid draft 2020-12),
    ``capability.duplicate`` (name already registered), ``capability.unknown`` (no such
    capability), ``capability.invalid_target_rule`` (``param`` rule without a param name).
    """

    code = "capability.error"


@dataclass(frozen=True, slots=True)
class ParamsProblem:
    """One JSON Schema violation of a step's params: ``path`` is a JSON pointer into the
    params object, ``message`` the validator's text (``unknown member '<name>'`` for a member
    that ``additionalProperties: false`` refuses, at that member)."""

    path: str
    message: str


@dataclass(frozen=True, slots=True)
class Capability:
    """A declared capability.

    ``target_param`` names the params member that must equal the step's ``target`` when
    ``target_rule`` is ``param``. ``requires_approval`` says that invoking it raises a human
    approval prompt; checks may only use capabilities that are read-only and never prompt.
    ``range_params`` names two params holding RFC 3339 UTC instants that form a half-open
    range ``[start, end)``: the end must come after the start (JSON Schema cannot say so).
    """

    name: str
    description: str
    params_schema: Mapping[str, Any]
    read_only: bool
    idempotent: bool
    risk: Risk
    target_rule: TargetRule = TargetRule.FREE
    target_param: str | None = None
    bounded: bool = False
    allowed_by_default: bool = False
    requires_approval: bool = False
    range_params: tuple[str, str] | None = None

    def to_wire(self) -> dict[str, JSONValue]:
        """The declaration as JSON (what ``cerebri capabilities`` and the API list)."""
        return {
            "name": self.name,
            "description": self.description,
            "params_schema": dict(self.params_schema),
            "read_only": self.read_only,
            "idempotent": self.idempotent,
            "risk": self.risk.value,
            "target": {"rule": self.target_rule.value, "param": self.target_param},
            "bounded": self.bounded,
            "allowed_by_default": self.allowed_by_default,
            "requires_approval": self.requires_approval,
            "range_params": None if self.range_params is None else list(self.range_params),
        }


def _pointer(parts: Iterable[object]) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def _compile(capability: Capability) -> Draft202012Validator:
    from jsonschema import Draft202012Validator  # noqa: PLC0415 - fast CLI start
    from jsonschema.exceptions import SchemaError  # noqa: PLC0415

    if capability.target_rule is TargetRule.PARAM and not capability.target_param:
        raise CapabilityError(
            f"{capability.name}: target rule 'param' needs target_param",
            code="capability.invalid_target_rule",
        )
    try:
        Draft202012Validator.check_schema(capability.params_schema)
    except SchemaError as exc:
        raise CapabilityError(
            f"{capability.name}: params schema is not valid JSON Schema 2020-12: {exc.message}",
            code="capability.invalid_schema",
        ) from None
    return Draft202012Validator(capability.params_schema)


def _range_problems(
    capability: Capability, params: Mapping[str, Any], schema_problems: set[ParamsProblem]
) -> list[ParamsProblem]:
    """``end <= start`` for the capability's ``range_params`` (only when both passed the
    schema, so a malformed instant is reported once, by the schema)."""
    if capability.range_params is None:
        return []
    start_name, end_name = capability.range_params
    bad = {_pointer([start_name]), _pointer([end_name])}
    if any(p.path in bad for p in schema_problems):
        return []
    start, end = params.get(start_name), params.get(end_name)
    if not isinstance(start, str) or not isinstance(end, str):
        return []
    instants = []
    for name, text in ((start_name, start), (end_name, end)):
        try:
            instants.append(Instant.parse(text))
        except ValueError:
            return [ParamsProblem(_pointer([name]), f"{text!r} is not a valid instant")]
    if instants[0] < instants[1]:
        return []
    message = f"{end_name} {end} is not after {start_name} {start} (the range is half-open)"
    return [ParamsProblem(_pointer([end_name]), message)]


def _problems_of(error: ValidationError) -> list[ParamsProblem]:
    """The problems of one validator error: an ``additionalProperties: false`` violation
    becomes one problem per extra member, at that member."""
    at = list(error.absolute_path)
    if (
        error.validator == "additionalProperties"
        and error.validator_value is False
        and isinstance(error.instance, Mapping)
        and isinstance(error.schema, Mapping)
    ):
        known = error.schema.get("properties", {})
        patterns = error.schema.get("patternProperties", {})
        extra = [
            member
            for member in error.instance
            if member not in known and not any(re.search(p, str(member)) for p in patterns)
        ]
        if extra:
            return [ParamsProblem(_pointer([*at, m]), f"unknown member '{m}'") for m in extra]
    return [ParamsProblem(_pointer(at), error.message)]


@dataclass(frozen=True, slots=True)
class CapabilityRegistry:
    """Immutable set of capabilities by name, some of them locked."""

    capabilities: Mapping[str, Capability] = field(default_factory=lambda: MappingProxyType({}))
    locked: frozenset[str] = frozenset()
    _validators: Mapping[str, Draft202012Validator] = field(
        default_factory=lambda: MappingProxyType({}), repr=False, compare=False
    )

    def register(self, capability: Capability) -> CapabilityRegistry:
        """A registry that also declares ``capability``.

        Raises ``CapabilityError``: ``capability.duplicate``, ``capability.invalid_schema``,
        ``capability.invalid_target_rule``.
        """
        if capability.name in self.capabilities:
            raise CapabilityError(
                f"capability {capability.name!r} is already registered",
                code="capability.duplicate",
            )
        validator = _compile(capability)
        return CapabilityRegistry(
            MappingProxyType({**self.capabilities, capability.name: capability}),
            self.locked,
            MappingProxyType({**self._validators, capability.name: validator}),
        )

    def _known(self, name: str) -> None:
        if name not in self.capabilities:
            raise CapabilityError(f"no capability {name!r}", code="capability.unknown")

    def lock(self, name: str) -> CapabilityRegistry:
        """A registry where ``name`` is locked (``capability.unknown`` if not declared)."""
        self._known(name)
        return CapabilityRegistry(self.capabilities, self.locked | {name}, self._validators)

    def unlock(self, name: str) -> CapabilityRegistry:
        """A registry where ``name`` is no longer locked."""
        self._known(name)
        return CapabilityRegistry(self.capabilities, self.locked - {name}, self._validators)

    def get(self, name: str) -> Capability | None:
        """The declaration of ``name``, or ``None`` when not registered."""
        return self.capabilities.get(name)

    def is_locked(self, name: str) -> bool:
        """Whether ``name`` is locked."""
        return name in self.locked

    def params_problems(self, name: str, params: Mapping[str, Any]) -> tuple[ParamsProblem, ...]:
        """Every JSON Schema 2020-12 violation of ``params`` for capability ``name``, ordered
        by (path, message). A member refused by ``additionalProperties: false`` is reported
        at its own pointer as ``unknown member '<name>'``, once per member.
        ``capability.unknown`` if ``name`` is not registered."""
        self._known(name)
        found: set[ParamsProblem] = set()
        for error in self._validators[name].iter_errors(dict(params)):
            found.update(_problems_of(error))
        found.update(_range_problems(self.capabilities[name], params, found))
        return tuple(sorted(found, key=lambda p: (p.path, p.message)))

    def to_wire(self) -> list[JSONValue]:
        """Every declaration, sorted by name, with a ``locked`` flag."""
        return [
            {**self.capabilities[n].to_wire(), "locked": n in self.locked}
            for n in sorted(self.capabilities)
        ]


_INSTANT: Final = {
    "type": "string",
    "pattern": r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$",
    "description": "RFC 3339 UTC instant",
}
_ID: Final = {"type": "string", "minLength": 1, "maxLength": 256}
_ZONE: Final = {
    "type": "string",
    "minLength": 1,
    "maxLength": 64,
    "description": "IANA zone the event's times are meant in (shown to approvers; the "
    "calendar still stores UTC instants)",
}


_EVENT_WRITE: Final = {
    # params shared by the calendar writers: where, which event, [start, end), idempotency key
    "calendar_id": _ID,
    "integration_id": _ID,
    "object_id": _ID,
    "start": _INSTANT,
    "end": _INSTANT,
    "idempotency_key": _ID,
}
_NULLABLE_INSTANT: Final = {
    "anyOf": [_INSTANT, {"type": "null"}],
    "description": "RFC 3339 UTC instant, or null",
}
_UID: Final = {
    "type": "string",
    "minLength": 1,
    "maxLength": 1024,
    "pattern": r"^[^\u0000-\u001f\u007f]+$",
    "description": "iCalendar UID (RFC 5545 3.8.4.7), no control characters",
}
_ADDRESS: Final = {
    "type": "string",
    "minLength": 1,
    "maxLength": 320,
    "pattern": r"^[^\u0000-\u001f\u007f]+$",
    "description": "calendar user address, mailto:... (RFC 5545 3.3.3)",
}
_TEXT: Final = {"type": ["string", "null"], "maxLength": 1024}
_PARTICIPANTS: Final = {
    "type": ["array", "null"],
    "maxItems": 256,
    "items": {
        "type": "object",
        "properties": {
            "address": _ADDRESS,
            "name": {"type": ["string", "null"], "maxLength": 256},
            "required": {"type": "boolean"},
            "calendar_id": {"anyOf": [_ID, {"type": "null"}]},
        },
        "required": ["address"],
        "additionalProperties": False,
    },
    "description": "attendees (ATTENDEE, RFC 5545 3.8.4.1): required ones are "
    "REQ-PARTICIPANT, the others OPT-PARTICIPANT; null = unchanged",
}
_STAMPED: Final = {
    # who takes part: ORGANIZER and ATTENDEE stamped on the written event (issue #23, C3)
    "organizer": {"anyOf": [_ADDRESS, {"type": "null"}]},
    "attendees": _PARTICIPANTS,
}
_CHANGE_TARGET: Final = {
    # which stored event or instances a change touches and what it must still be (C3)
    "uid": _UID,
    "recurrence_id": _NULLABLE_INSTANT,
    "scope": {"enum": ["INSTANCE", "THIS_AND_FUTURE", "SERIES"]},
    "expected_etag": {"type": ["string", "null"], "minLength": 1, "maxLength": 1024},
    "expected_revision": {"type": ["integer", "null"], "minimum": 0},
    "check_calendar_ids": {"type": "array", "items": _ID, "maxItems": 64},
    **_STAMPED,
    # display only: the event as read when planned, shown to approvers (decision 0056)
    "current": CURRENT_EVENT_SCHEMA,
}


def _object(required: dict[str, Any], optional: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {**required, **(optional or {})},
        "required": sorted(required),
        "additionalProperties": False,
    }


def _event_write(
    name: str, description: str, params_schema: dict[str, Any], *, idempotent: bool
) -> Capability:
    """A calendar write over ``[start, end)``: medium risk, approved by a person, the event
    named by ``object_id``."""
    return Capability(
        name=name,
        description=description,
        params_schema=params_schema,
        read_only=False,
        idempotent=idempotent,
        risk=Risk.MEDIUM,
        range_params=("start", "end"),
        target_rule=TargetRule.PARAM,
        target_param="object_id",
        requires_approval=True,
    )


BUILTIN_CAPABILITIES: Final[tuple[Capability, ...]] = (
    Capability(
        name="calendar.freebusy",
        description="Read busy, free and unknown time of calendars over [start, end).",
        params_schema=_object(
            {
                "calendar_ids": {"type": "array", "items": _ID, "minItems": 1, "maxItems": 64},
                "start": _INSTANT,
                "end": _INSTANT,
            }
        ),
        read_only=True,
        idempotent=True,
        risk=Risk.LOW,
        range_params=("start", "end"),
        target_rule=TargetRule.NONE,
    ),
    Capability(
        name="calendar.event.get",
        description="Read one event, or one instance of a series (uid and recurrence_id), "
        "back from its calendar: its time range, revision (SEQUENCE) and ETag. An "
        "all-day or floating event is read in timezone (refused without it).",
        params_schema=_object(
            {"calendar_id": _ID, "object_id": _ID},
            {"uid": _UID, "recurrence_id": _NULLABLE_INSTANT, "timezone": _ZONE},
        ),
        read_only=True,
        idempotent=True,
        risk=Risk.LOW,
        target_rule=TargetRule.PARAM,
        target_param="object_id",
    ),
    _event_write(
        "calendar.event.create",
        "Create an event over [start, end) in a calendar. Its organizer and attendees are "
        "stamped when given (SEQUENCE 0). Not idempotent: a repeat may create a second "
        "event where the calendar ignores the idempotency key.",
        _object(
            _EVENT_WRITE,
            {"title": {"type": "string", "maxLength": 1024}, "timezone": _ZONE, **_STAMPED},
        ),
        idempotent=False,
    ),
    _event_write(
        "calendar.event.move",
        "Move an existing event (or one instance, this and the future ones, or the whole "
        "series: scope) to [start, end). Refused, nothing "
        "written, when its revision is no longer expected_revision, its ETag no longer "
        "expected_etag, or [start, end) is busy in its calendar or one of "
        "check_calendar_ids. Idempotent: the range is absolute.",
        _object(
            {
                **_EVENT_WRITE,
                "expected_revision": {"type": ["integer", "null"], "minimum": 0},
            },
            {"timezone": _ZONE, **_CHANGE_TARGET},
        ),
        idempotent=True,
    ),
    Capability(
        name="calendar.event.cancel",
        description="Remove an event (or one instance, this and the future ones, or the "
        "whole series: scope) from its calendar. Idempotent: cancelling an event that is "
        "already gone succeeds and reports that nothing existed.",
        params_schema=_object(
            {
                "calendar_id": _ID,
                "integration_id": _ID,
                "object_id": _ID,
                "idempotency_key": _ID,
            },
            {"timezone": _ZONE, **_CHANGE_TARGET},
        ),
        read_only=False,
        idempotent=True,
        risk=Risk.MEDIUM,
        target_rule=TargetRule.PARAM,
        target_param="object_id",
        requires_approval=True,
    ),
    Capability(
        name="calendar.event.update",
        description="Change the title, location, attendees or range of an existing event (or "
        "one instance, this and the future ones, or the whole series: scope). A new range "
        "is re-checked like a move. Refused, nothing "
        "written, on the revision, ETag and busy checks of a move. Idempotent: every "
        "value is absolute.",
        params_schema={
            **_object(
                {
                    "calendar_id": _ID,
                    "integration_id": _ID,
                    "object_id": _ID,
                    "idempotency_key": _ID,
                },
                {
                    "start": _INSTANT,
                    "end": _INSTANT,
                    "title": _TEXT,
                    "location": _TEXT,
                    "timezone": _ZONE,
                    **_CHANGE_TARGET,
                },
            ),
            "dependentRequired": {"start": ["end"], "end": ["start"]},
        },
        read_only=False,
        idempotent=True,
        risk=Risk.MEDIUM,
        range_params=("start", "end"),
        target_rule=TargetRule.PARAM,
        target_param="object_id",
        requires_approval=True,
    ),
    Capability(
        name="service.status",
        description="Read the status of one named service (a bounded read, allowed by default).",
        params_schema=_object({"service": _ID}),
        read_only=True,
        idempotent=True,
        risk=Risk.LOW,
        target_rule=TargetRule.PARAM,
        target_param="service",
        bounded=True,
        allowed_by_default=True,
    ),
    *(Capability(**spec) for spec in MESSAGE_CAPABILITIES),
)
"""The built-in declarations: two calendar reads (free/busy, one event), four calendar writes
(create, move, cancel, update; cancel added by issue #12, update and the change params by
issue #23, decision 0051) and ``service.status``."""


def builtin_registry() -> CapabilityRegistry:
    """A registry holding :data:`BUILTIN_CAPABILITIES`, none locked."""
    registry = CapabilityRegistry()
    for capability in BUILTIN_CAPABILITIES:
        registry = registry.register(capability)
    return registry
