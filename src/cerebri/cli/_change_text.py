"""The lines ``approvals show`` prints for a change of an existing event, or a create that
invites attendees (issue #23, decision 0056): ``proposed.change`` of
:func:`cerebri.execution.describe_approval`."""

from __future__ import annotations

from typing import Any, Final

from cerebri._json import JSONValue

__all__ = ["change_lines"]

_WHAT: Final = {
    "INSTANCE": "one instance",
    "THIS_AND_FUTURE": "this instance and the ones after it",
    "SERIES": "the whole event or series",
}


def _when(moment: Any, zone: JSONValue) -> str:
    """``<start> - <end> UTC, <local start> - <local end> <zone>`` (``-`` when unknown)."""
    if not isinstance(moment, dict) or not moment.get("start") or not moment.get("end"):
        return "-"
    text = f"{moment['start']} - {moment['end']} UTC"
    if moment.get("local_start") and moment.get("local_end"):
        return text + f", {moment['local_start']} - {moment['local_end']} {zone}"
    return text + ", no local zone named"


def _person(attendee: dict[str, Any]) -> str:
    role = "required" if attendee.get("required") else "optional"
    name = f"{attendee['name']} " if attendee.get("name") else ""
    return f"{name}<{attendee.get('address')}> ({role}, {attendee.get('status')})"


def _messages(recipients: Any) -> str:
    if not isinstance(recipients, list):
        return "messages: - (the plan's steps were not read)"
    if not recipients:
        return "messages: none (nobody but the organizer to tell)"
    sent = [
        f"{r.get('method')} to {r.get('address')} (SEQUENCE {r.get('sequence')}, "
        f"step {r.get('step_key')})"
        for r in recipients
        if isinstance(r, dict)
    ]
    return "messages: " + "; ".join(sent) + ", once the change reads back"


def _copies(deliveries: Any) -> list[str]:
    """The ``copies`` line: one per attendee calendar written (decision 0057); none
    when the plan writes no copy."""
    if not isinstance(deliveries, list) or not deliveries:
        return []
    written = [
        f"{d.get('method')} into calendar {d.get('calendar_id')} of {d.get('address')} "
        f"(SEQUENCE {d.get('sequence')}, step {d.get('step_key')})"
        for d in deliveries
        if isinstance(d, dict)
    ]
    return ["copies: " + "; ".join(written) + ", once the change reads back"]


_LEFT_TO_SERVER: Final = (
    "delivery: where the organizer's CalDAV server schedules by itself (RFC 6638: it "
    "answers DAV calendar-auto-schedule and lists the organizer among its principal's "
    "addresses; or the worker runs with --server-schedules), that server sends these "
    "messages and updates the attendees' calendars; cerebri then only records each message "
    "in its outbox and checks the attendees' calendars; elsewhere the worker delivers them"
)


def change_lines(proposed: dict[str, JSONValue]) -> list[str]:
    """``change``, ``uid``, ``before``/``after`` (UTC and local), a changed ``title`` or
    ``location``, ``organizer``, ``attendees``, ``messages`` and (when the plan writes
    copies into attendees' calendars) ``copies`` lines, and when there are messages a
    ``delivery`` line saying what is left to a CalDAV server that schedules (decision
    0068); ``[]`` when the step changes no existing event and invites nobody."""
    change = proposed.get("change")
    if not isinstance(change, dict):
        return []
    zone = proposed.get("timezone")
    kind = change.get("kind")
    scope = change.get("scope")
    lines = [f"change: {kind}" + (f" of {_WHAT[scope]}" if scope in _WHAT else "")]
    rid = change.get("recurrence_id")
    lines.append(
        f"uid: {change.get('uid')}" + (f", instance {rid} (its original start)" if rid else "")
    )
    before, after = change.get("before"), change.get("after")
    if kind != "create":
        lines.append(f"before: {_when(before, zone)}")
        lines.append("after: cancelled" if kind == "cancel" else f"after: {_when(after, zone)}")
    for field in ("title", "location"):
        old = before.get(field) if isinstance(before, dict) else None
        new = after.get(field) if isinstance(after, dict) else None
        if kind == "update" and old != new:
            lines.append(f"{field}: {old or '-'} -> {new or '-'}")
        elif kind != "create" and field == "title":
            lines.append(f"event title: {old or new or '-'}")
    lines.append(f"organizer: {change.get('organizer') or '-'}")
    people = change.get("attendees")
    listed = [_person(a) for a in people if isinstance(a, dict)] if isinstance(people, list) else []
    lines.append("attendees: " + ("; ".join(listed) if listed else "none named"))
    recipients = change.get("recipients")
    lines.append(_messages(recipients))
    lines += _copies(change.get("deliveries"))
    if isinstance(recipients, list) and recipients:
        lines.append(_LEFT_TO_SERVER)
    return lines


def listed(proposed: dict[str, JSONValue]) -> dict[str, JSONValue]:
    """``proposed`` as ``approvals list`` shows it: for a change, the title the event will
    have (a cancel: the one it had) and, for a cancel, the range it had."""
    change = proposed.get("change")
    if not isinstance(change, dict):
        return proposed
    moment = change.get("after") or change.get("before")
    if not isinstance(moment, dict):
        return proposed
    shown = dict(proposed)
    shown["title"] = proposed.get("title") or moment.get("title")
    if not proposed.get("start"):
        for name in ("start", "end", "local_start", "local_end"):
            shown[name] = moment.get(name)
    return shown
