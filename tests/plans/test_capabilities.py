"""The capability registry: declarations, params schemas, target rules, locking."""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator

from cerebri.plans import (
    BUILTIN_CAPABILITIES,
    Capability,
    CapabilityError,
    CapabilityRegistry,
    ParamsProblem,
    Risk,
    TargetRule,
    builtin_registry,
)

EXPECTED = {
    # name: (read_only, idempotent, risk, target rule, target param, bounded, default, prompts)
    "calendar.freebusy": (True, True, Risk.LOW, TargetRule.NONE, None, False, False, False),
    "calendar.event.get": (
        True, True, Risk.LOW, TargetRule.PARAM, "object_id", False, False, False,
    ),
    "calendar.event.create": (
        False, False, Risk.MEDIUM, TargetRule.PARAM, "object_id", False, False, True,
    ),
    "calendar.event.move": (
        False, True, Risk.MEDIUM, TargetRule.PARAM, "object_id", False, False, True,
    ),
    "calendar.event.cancel": (
        False, True, Risk.MEDIUM, TargetRule.PARAM, "object_id", False, False, True,
    ),
    "calendar.event.update": (
        False, True, Risk.MEDIUM, TargetRule.PARAM, "object_id", False, False, True,
    ),
    "service.status": (True, True, Risk.LOW, TargetRule.PARAM, "service", True, True, False),
    "message.itip.get": (True, True, Risk.LOW, TargetRule.PARAM, "recipient", False, False, False),
    "message.itip.send": (
        False, False, Risk.MEDIUM, TargetRule.PARAM, "recipient", False, False, False,
    ),
    # decision 0057: idempotent (a state is written), approved with the change it mirrors
    "calendar.itip.deliver": (
        False, True, Risk.MEDIUM, TargetRule.PARAM, "uid", False, False, False,
    ),
}  # fmt: skip


def test_builtin_declarations_are_the_seven() -> None:
    registry = builtin_registry()
    assert sorted(registry.capabilities) == sorted(EXPECTED)
    for name, expected in EXPECTED.items():
        cap = registry.capabilities[name]
        got = (
            cap.read_only,
            cap.idempotent,
            cap.risk,
            cap.target_rule,
            cap.target_param,
            cap.bounded,
            cap.allowed_by_default,
            cap.requires_approval,
        )
        assert got == expected, name
        Draft202012Validator.check_schema(dict(cap.params_schema))
        assert cap.description


GOOD_PARAMS: dict[str, dict[str, Any]] = {
    "calendar.freebusy": {
        "calendar_ids": ["work"],
        "start": "2026-10-05T09:00:00Z",
        "end": "2026-10-05T17:00:00Z",
    },
    "calendar.event.get": {"calendar_id": "work", "object_id": "e1"},
    "calendar.event.create": {
        "calendar_id": "work",
        "integration_id": "local",
        "object_id": "e1",
        "start": "2026-10-05T09:00:00Z",
        "end": "2026-10-05T09:30:00.5Z",
        "idempotency_key": "k",
        "title": "Design review",
    },
    "calendar.event.move": {
        "calendar_id": "work",
        "integration_id": "local",
        "object_id": "e1",
        "start": "2026-10-05T09:00:00Z",
        "end": "2026-10-05T09:30:00Z",
        "idempotency_key": "k",
        "expected_revision": None,
    },
    "calendar.event.cancel": {
        "calendar_id": "work",
        "integration_id": "local",
        "object_id": "e1",
        "idempotency_key": "k",
    },
    "calendar.event.update": {
        "calendar_id": "work",
        "integration_id": "local",
        "object_id": "e1",
        "idempotency_key": "k",
        "title": "Design review (longer)",
    },
    "service.status": {"service": "mail"},
    "message.itip.get": {"idempotency_key": "k", "recipient": "mailto:bob@example.com"},
    "message.itip.send": {
        "calendar_id": "work",
        "uid": "e1",
        "recurrence_id": None,
        "method": "REQUEST",
        "sequence": 1,
        "recipient": "mailto:bob@example.com",
        "organizer": "mailto:alice@example.com",
        "attendees": [{"address": "mailto:bob@example.com", "name": None, "required": True}],
        "idempotency_key": "k",
    },
    "calendar.itip.deliver": {
        "calendar_id": "bob",
        "organizer_calendar_id": "work",
        "uid": "e1",
        "method": "CANCEL",
        "sequence": 2,
        "attendee": "mailto:bob@example.com",
        "idempotency_key": "k",
    },
}

_ATTENDEES = [
    {"address": "mailto:ann@example.com", "name": "Ann", "required": True, "calendar_id": "ann"},
    {"address": "mailto:bo@example.com", "name": None, "required": False, "calendar_id": None},
]
CHANGE_PARAMS: dict[str, dict[str, Any]] = {
    # every optional param of issue #23 (decision 0051) at once
    "calendar.event.get": {
        **GOOD_PARAMS["calendar.event.get"],
        "uid": "standup@example.com",
        "recurrence_id": "2026-10-05T09:00:00Z",
    },
    "calendar.event.create": {
        **GOOD_PARAMS["calendar.event.create"],
        "organizer": "mailto:ann@example.com",
        "attendees": _ATTENDEES,
    },
    "calendar.event.move": {
        **GOOD_PARAMS["calendar.event.move"],
        "uid": "standup@example.com",
        "recurrence_id": "2026-10-05T09:00:00Z",
        "scope": "INSTANCE",
        "expected_etag": '"abc"',
        "expected_revision": 2,
        "check_calendar_ids": ["ann", "bo"],
        "organizer": "mailto:ann@example.com",
        "attendees": _ATTENDEES,
        "timezone": "Europe/Berlin",
    },
    "calendar.event.cancel": {
        **GOOD_PARAMS["calendar.event.cancel"],
        "uid": "standup@example.com",
        "recurrence_id": None,
        "scope": "SERIES",
        "expected_etag": "sha256:00",
        "expected_revision": None,
        "attendees": None,
        "organizer": None,
    },
    "calendar.event.update": {
        **GOOD_PARAMS["calendar.event.update"],
        "start": "2026-10-05T09:00:00Z",
        "end": "2026-10-05T10:30:00Z",
        "location": None,
        "scope": "THIS_AND_FUTURE",
        "recurrence_id": "2026-10-05T09:00:00Z",
        "expected_etag": None,
        "check_calendar_ids": [],
        "attendees": _ATTENDEES[:1],
    },
}


@pytest.mark.parametrize("name", sorted(GOOD_PARAMS))
def test_valid_params_have_no_problem(name: str) -> None:
    assert builtin_registry().params_problems(name, GOOD_PARAMS[name]) == ()


@pytest.mark.parametrize("name", sorted(CHANGE_PARAMS))
def test_the_change_params_of_issue_23_are_valid(name: str) -> None:
    assert builtin_registry().params_problems(name, CHANGE_PARAMS[name]) == ()


@pytest.mark.parametrize(
    ("name", "params", "expected"),
    [
        (
            "calendar.event.get",
            {"calendar_id": "work"},
            [ParamsProblem("", "'object_id' is a required property")],
        ),
        (
            "calendar.event.get",
            {"calendar_id": "work", "object_id": "e1", "grant": True},
            [ParamsProblem("/grant", "unknown member 'grant'")],
        ),
        (
            "calendar.event.get",
            {"calendar_id": "work", "object_id": "e1", "z": 1, "a/b": 2},
            [ParamsProblem("/a~1b", "unknown member 'a/b'"),
             ParamsProblem("/z", "unknown member 'z'")],
        ),
        (
            "calendar.freebusy",
            {**GOOD_PARAMS["calendar.freebusy"], "start": "2026-10-05 09:00"},
            [ParamsProblem("/start", "'2026-10-05 09:00' does not match "
             "'^\\\\d{4}-\\\\d{2}-\\\\d{2}T\\\\d{2}:\\\\d{2}:\\\\d{2}(\\\\.\\\\d{1,9})?Z$'")],
        ),
        (
            "calendar.freebusy",
            {**GOOD_PARAMS["calendar.freebusy"], "calendar_ids": ["a", 7]},
            [ParamsProblem("/calendar_ids/1", "7 is not of type 'string'")],
        ),
        (
            "calendar.event.move",
            {**GOOD_PARAMS["calendar.event.move"], "expected_revision": -1},
            [ParamsProblem("/expected_revision", "-1 is less than the minimum of 0")],
        ),
        (
            "calendar.event.cancel",
            {**GOOD_PARAMS["calendar.event.cancel"], "start": "2026-10-05T09:00:00Z"},
            [ParamsProblem("/start", "unknown member 'start'")],
        ),
        (
            "calendar.event.cancel",
            {k: v for k, v in GOOD_PARAMS["calendar.event.cancel"].items() if k != "object_id"},
            [ParamsProblem("", "'object_id' is a required property")],
        ),
        (
            "calendar.event.update",
            {**GOOD_PARAMS["calendar.event.update"], "start": "2026-10-05T09:00:00Z"},
            [ParamsProblem("", "'end' is a dependency of 'start'")],
        ),
        (
            "calendar.event.update",
            {**GOOD_PARAMS["calendar.event.update"], "start": "2026-10-05T09:00:00Z",
             "end": "2026-10-05T08:00:00Z"},
            [ParamsProblem("/end", "end 2026-10-05T08:00:00Z is not after start "
             "2026-10-05T09:00:00Z (the range is half-open)")],
        ),
        (
            "calendar.event.move",
            {**CHANGE_PARAMS["calendar.event.move"], "scope": "ALL"},
            [ParamsProblem("/scope", "'ALL' is not one of ['INSTANCE', 'THIS_AND_FUTURE', "
             "'SERIES']")],
        ),
        (
            "calendar.event.move",
            {**CHANGE_PARAMS["calendar.event.move"], "recurrence_id": "2026-10-05"},
            [ParamsProblem("/recurrence_id", "'2026-10-05' is not valid under any of the "
             "given schemas")],
        ),
        (
            "calendar.event.cancel",
            {**CHANGE_PARAMS["calendar.event.cancel"], "uid": "a\x1bb"},
            [ParamsProblem("/uid", "'a\\x1bb' does not match "
             "'^[^\\\\u0000-\\\\u001f\\\\u007f]+$'")],
        ),
        (
            "calendar.event.create",
            {**CHANGE_PARAMS["calendar.event.create"],
             "attendees": [{"address": "mailto:a@b", "role": "chair"}]},
            [ParamsProblem("/attendees/0/role", "unknown member 'role'")],
        ),
        (
            "calendar.event.get",
            {**GOOD_PARAMS["calendar.event.get"], "scope": "SERIES"},
            [ParamsProblem("/scope", "unknown member 'scope'")],
        ),
    ],
)  # fmt: skip
def test_params_problems_name_the_member(
    name: str, params: dict[str, Any], expected: list[ParamsProblem]
) -> None:
    assert list(builtin_registry().params_problems(name, params)) == expected


def test_problems_are_sorted_by_path_then_message() -> None:
    problems = builtin_registry().params_problems(
        "calendar.event.create", {"start": 1, "end": 2, "x": 3}
    )
    keys = [(p.path, p.message) for p in problems]
    assert keys == sorted(keys)
    assert ("/start", "1 is not of type 'string'") in keys
    assert ("/x", "unknown member 'x'") in keys
    assert sum(1 for p in problems if "required property" in p.message) == 4


def test_lock_and_unlock_return_new_registries() -> None:
    registry = builtin_registry()
    locked = registry.lock("calendar.event.create")
    assert locked.is_locked("calendar.event.create")
    assert not registry.is_locked("calendar.event.create")
    assert not locked.unlock("calendar.event.create").is_locked("calendar.event.create")
    # a locked capability is still declared and its params still validate
    assert locked.get("calendar.event.create") is registry.get("calendar.event.create")
    assert locked.params_problems("service.status", {"service": "x"}) == ()


def _capability(**fields: Any) -> Capability:
    base: dict[str, Any] = {
        "name": "mail.send",
        "description": "send a mail",
        "params_schema": {"type": "object"},
        "read_only": False,
        "idempotent": False,
        "risk": Risk.HIGH,
    }
    return Capability(**{**base, **fields})


@pytest.mark.parametrize(
    ("change", "code"),
    [
        (lambda r: r.register(_capability(name="service.status")), "capability.duplicate"),
        (
            lambda r: r.register(_capability(params_schema={"type": "objekt"})),
            "capability.invalid_schema",
        ),
        (
            lambda r: r.register(_capability(target_rule=TargetRule.PARAM)),
            "capability.invalid_target_rule",
        ),
        (lambda r: r.lock("calendar.event.delete"), "capability.unknown"),
        (lambda r: r.params_problems("calendar.event.delete", {}), "capability.unknown"),
    ],
)
def test_refused_changes_have_codes(change: Any, code: str) -> None:
    with pytest.raises(CapabilityError) as caught:
        change(builtin_registry())
    assert caught.value.code == code


def test_registering_a_new_capability_keeps_the_old_registry() -> None:
    registry = builtin_registry()
    grown = registry.register(_capability())
    assert "mail.send" in grown.capabilities
    assert "mail.send" not in registry.capabilities
    assert grown.params_problems("mail.send", {"any": 1}) == ()


def test_wire_form_lists_every_capability_sorted_with_lock_flags() -> None:
    wire = builtin_registry().lock("service.status").to_wire()
    names = [entry["name"] for entry in wire]  # type: ignore[index]
    assert names == sorted(c.name for c in BUILTIN_CAPABILITIES)
    locked = {entry["name"]: entry["locked"] for entry in wire}  # type: ignore[index]
    assert locked == {name: name == "service.status" for name in names}


def test_empty_registry_knows_nothing() -> None:
    assert CapabilityRegistry().get("service.status") is None


@pytest.mark.parametrize(
    ("start", "end", "expected"),
    [
        ("2026-10-05T10:00:00Z", "2026-10-05T10:00:00.000000001Z", []),
        (
            "2026-10-05T10:00:00Z",
            "2026-10-05T10:00:00Z",
            [ParamsProblem("/end", "end 2026-10-05T10:00:00Z is not after start "
             "2026-10-05T10:00:00Z (the range is half-open)")],
        ),
        (
            "2026-02-30T10:00:00Z",
            "2026-10-05T10:00:00Z",
            [ParamsProblem("/start", "'2026-02-30T10:00:00Z' is not a valid instant")],
        ),
    ],
)  # fmt: skip
def test_range_params_are_half_open(start: str, end: str, expected: list[ParamsProblem]) -> None:
    params = {**GOOD_PARAMS["calendar.freebusy"], "start": start, "end": end}
    assert list(builtin_registry().params_problems("calendar.freebusy", params)) == expected


def test_unknown_members_under_a_schema_with_pattern_properties() -> None:
    registry = builtin_registry().register(
        _capability(
            name="x.tagged",
            params_schema={
                "type": "object",
                "properties": {"name": {"type": "string"}},
                "patternProperties": {"^tag_": {"type": "string"}},
                "additionalProperties": False,
            },
        )
    )
    problems = registry.params_problems("x.tagged", {"name": "n", "tag_a": "t", "other": 1})
    assert problems == (ParamsProblem("/other", "unknown member 'other'"),)
