"""The message capabilities: iTIP invitations and cancellations to attendees (issue #23).

Declared apart from :mod:`cerebri.plans.capabilities` (which lists them among
:data:`~cerebri.plans.capabilities.BUILTIN_CAPABILITIES`) as plain field sets,
:class:`CapabilitySpec`, so this module needs nothing from it (decision 0052):

* ``message.itip.send`` (acts; **not** idempotent: an e-mail once sent cannot be taken
  back, and a repeat is a second e-mail; medium risk; approved with the change it reports:
  the plan's approval of the calendar write covers the messages after it, and a send
  outside such a plan needs a grant, decision 0056). Builds one
  iTIP message (RFC 5546: ``METHOD:REQUEST`` from the event as it is stored after the
  change, ``METHOD:CANCEL`` from the params) for one ``recipient``, writes it to the
  worker's outbox folder and sends it by SMTP (iMIP, RFC 6047) when the worker is given a
  server. The step's ``target`` is the ``recipient``: the person the effect reaches, what
  an approver must see and what a grant's ``target_pattern`` scopes
  (``mailto:*@example.com``).
* ``message.itip.get`` (reads): what the outbox holds for one ``idempotency_key`` and
  ``recipient``, the observation a ``verify`` step checks (``done`` is ``true`` once the
  message is in the outbox intact and, when the worker sent by SMTP, the server accepted it).

Params (JSON Schema draft 2020-12, unknown members refused); instants are RFC 3339 UTC text:

``message.itip.send``: **calendar_id** (the organizer's calendar, where a REQUEST's event is
read back), **uid** (the event's ``UID``), **recurrence_id** (the instance's original start,
or ``null`` for the whole event or series), **method** (``REQUEST`` or ``CANCEL``),
**sequence** (the ``SEQUENCE`` the message carries: the stored one after the change),
**recipient** (``mailto:`` address), **organizer** (``mailto:`` address), **attendees** (every
attendee the message names: ``{"address", "name", "required", "calendar_id"}`` as in CPIR's
``change.attendees``), **idempotency_key**; optional ``range`` (``THISANDFUTURE`` or
``null``: the ``RANGE`` of the ``RECURRENCE-ID``, RFC 5545 section 3.8.4.4) and ``title``
(a CANCEL's ``SUMMARY`` and subject, or ``null``).

``message.itip.get``: **idempotency_key**, **recipient**.

``calendar.itip.deliver`` (acts; idempotent: it writes a state, the organizer's event as it is
now, not a difference; medium risk; like the sends, approved with the change it mirrors,
decision 0057): what a scheduling server does on its own (RFC 6638 sections 3.2 and 4), for
an attendee whose calendar the worker reads and writes: the organizer's stored resource of
``uid`` mirrored into the attendee's calendar (found there by ``UID``), or the attendee's
copy deleted when the organizer's event is gone or no longer names them. The step's
``target`` is the ``uid``, the event (as for ``calendar.event.move``, and what the read-back
``calendar.event.get`` observes); a grant scopes the attendee's calendar with a param
constraint on ``calendar_id``. Params: **calendar_id** (the attendee's calendar),
**organizer_calendar_id**, **uid**, **method** (``REQUEST`` or ``CANCEL``: the iTIP method
the change sends that attendee), **sequence** (the ``SEQUENCE`` the organizer's event
carries after the change), **attendee** (``mailto:`` address), **idempotency_key**.
"""

from __future__ import annotations

from typing import Any, Final, TypedDict

from cerebri.plans.vocabulary import Risk, TargetRule

__all__ = [
    "ITIP_DELIVER",
    "ITIP_GET",
    "ITIP_SEND",
    "MESSAGE_CAPABILITIES",
    "CapabilitySpec",
]

ITIP_SEND: Final = "message.itip.send"
"""The capability that sends one iTIP message to one attendee."""
ITIP_DELIVER: Final = "calendar.itip.deliver"
"""The capability that mirrors the organizer's event into one attendee's calendar."""
ITIP_GET: Final = "message.itip.get"
"""The read-only capability that observes what ``message.itip.send`` left in the outbox."""


class CapabilitySpec(TypedDict):
    """The fields of one :class:`~cerebri.plans.capabilities.Capability` (same names)."""

    name: str
    description: str
    params_schema: dict[str, Any]
    read_only: bool
    idempotent: bool
    risk: Risk
    target_rule: TargetRule
    target_param: str | None
    bounded: bool
    allowed_by_default: bool
    requires_approval: bool
    range_params: tuple[str, str] | None


_ID: Final = {"type": "string", "minLength": 1, "maxLength": 256}
_ADDRESS: Final = {
    "type": "string",
    "minLength": 3,
    "maxLength": 320,
    "pattern": r"^(?i:mailto:)?[^@\s<>]+@[^@\s<>]+$",
    "description": "an e-mail address, 'mailto:' optional (RFC 6047 section 2.2)",
}
_INSTANT_OR_NULL: Final = {
    "type": ["string", "null"],
    "pattern": r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$",
    "description": "RFC 3339 UTC instant, whole seconds (RFC 5545 3.3.5), or null",
}
_ATTENDEE: Final = {
    "type": "object",
    "properties": {
        "address": _ADDRESS,
        "name": {"type": ["string", "null"], "maxLength": 256},
        "required": {"type": "boolean"},
        "calendar_id": {"type": ["string", "null"], "maxLength": 256},
    },
    "required": ["address", "required"],
    "additionalProperties": False,
}


def _object(required: dict[str, Any], optional: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {**required, **optional},
        "required": sorted(required),
        "additionalProperties": False,
    }


MESSAGE_CAPABILITIES: Final[tuple[CapabilitySpec, ...]] = (
    CapabilitySpec(
        name=ITIP_GET,
        description="Read what the outbox holds for one iTIP message (idempotency key and "
        "recipient): whether it exists intact, and whether the SMTP server accepted it.",
        params_schema=_object({"idempotency_key": _ID, "recipient": _ADDRESS}, {}),
        read_only=True,
        idempotent=True,
        risk=Risk.LOW,
        target_rule=TargetRule.PARAM,
        target_param="recipient",
        bounded=False,
        allowed_by_default=False,
        requires_approval=False,
        range_params=None,
    ),
    CapabilitySpec(
        name=ITIP_SEND,
        description="Send one iTIP message (RFC 5546 REQUEST or CANCEL) about an event to "
        "one attendee: written to the outbox, then by SMTP (iMIP, RFC 6047) when configured. "
        "Not idempotent: a repeat would be a second e-mail; a REQUEST is refused when the "
        "stored event's SEQUENCE is no longer the one given.",
        params_schema=_object(
            {
                "calendar_id": _ID,
                "uid": {"type": "string", "minLength": 1, "maxLength": 1024},
                "recurrence_id": _INSTANT_OR_NULL,
                "method": {"enum": ["REQUEST", "CANCEL"]},
                "sequence": {"type": "integer", "minimum": 0, "maximum": 4294967295},
                "recipient": _ADDRESS,
                "organizer": _ADDRESS,
                "attendees": {"type": "array", "items": _ATTENDEE, "minItems": 1, "maxItems": 512},
                "idempotency_key": _ID,
            },
            {
                "range": {"enum": ["THISANDFUTURE", None]},
                "title": {"type": ["string", "null"], "maxLength": 1024},
            },
        ),
        read_only=False,
        idempotent=False,
        risk=Risk.MEDIUM,
        target_rule=TargetRule.PARAM,
        target_param="recipient",
        bounded=False,
        allowed_by_default=False,
        requires_approval=False,  # covered by the change's approval (decision 0056)
        range_params=None,
    ),
    CapabilitySpec(
        name=ITIP_DELIVER,
        description="Deliver an event change into one attendee's calendar, as a scheduling "
        "server does (RFC 6638 3.2, 4): the organizer's stored event mirrored there (the "
        "attendee's own PARTSTAT kept), or the attendee's copy deleted when the event is "
        "gone or no longer names them. Idempotent: a repeat writes nothing; a copy at a "
        "higher SEQUENCE is left alone.",
        params_schema=_object(
            {
                "calendar_id": _ID,
                "organizer_calendar_id": _ID,
                "uid": {"type": "string", "minLength": 1, "maxLength": 1024},
                "method": {"enum": ["REQUEST", "CANCEL"]},
                "sequence": {"type": "integer", "minimum": 0, "maximum": 4294967295},
                "attendee": _ADDRESS,
                "idempotency_key": _ID,
            },
            {},
        ),
        read_only=False,
        idempotent=True,
        risk=Risk.MEDIUM,
        target_rule=TargetRule.PARAM,
        target_param="uid",
        bounded=False,
        allowed_by_default=False,
        requires_approval=False,  # covered by the change's approval (decisions 0056, 0057)
        range_params=None,
    ),
)
"""The message capabilities, as field sets of
:class:`~cerebri.plans.capabilities.Capability`."""
