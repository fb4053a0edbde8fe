"""What a calendar change does before it writes, the same for both adapters (decision 0051).

:func:`prepare` takes the stored resource (one calendar object resource, RFC 4791 4.1: the
``VEVENT``\\ s of one ``UID`` and their ``VTIMEZONE``\\ s) and its ETag as the writer read
them, and decides, in this order:

1. no resource: a cancel succeeds with nothing to do (``existed: false``), a move or an
   update is ``calendar.not_found``;
2. the change was applied already (its idempotency key is on the component it writes,
   :func:`cerebri.calendars.changes.already_applied`): a replay, answered ``replayed:
   true`` without any check or write (the ETag and ``SEQUENCE`` moved by this very change);
3. ``expected_etag`` given and neither the current ETag (RFC 7232 3.1, compared strongly,
   the quotes of an entity-tag optional) nor the digest
   :func:`cerebri.calendars.changes.resource_etag` of the resource as the planner cuts it
   (:func:`~cerebri.execution.adapters._ics_resources.file_resource`; what a planner that
   read the object without its HTTP ``ETag`` plans on): ``calendar.revision_mismatch``;
4. the event or instance is not there: a cancel succeeds with nothing to do, a move or an
   update is ``calendar.not_found``;
5. ``expected_revision`` given and not the event's revision, the highest ``SEQUENCE`` over
   all its components (:func:`cerebri.calendars.changes.resource_sequence`; RFC 5545
   3.8.7.4, decision 0050): ``calendar.revision_mismatch``;
6. :func:`cerebri.calendars.changes.apply_change` gives the resources to write; its
   refusals keep their codes (``change.*``, ``calendar.not_found``).

:func:`ensure_free_everywhere` then re-reads busy time over the new range in the event's
own calendar and in every ``check_calendar_ids`` calendar (every required attendee's), the
event itself (its ``UID``, and the ``UID`` of a split-off series) left out:
``calendar.slot_taken`` names the calendar and the event in the way. A whole-series or
this-and-future move is checked at every instance it writes within 56 days of its new start
(decision 0063), not at its anchor alone.

Every error here is raised before anything is written; callers mark them
``before_effect`` (:func:`cerebri.execution.adapters.base.before_any_effect`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from icalendar import Calendar, Component

from cerebri._json import JSONValue
from cerebri.calendars.changes import (
    ChangeError,
    ChangeOutcome,
    ChangeScope,
    EventView,
    already_applied,
    apply_change,
    find_event,
    resource_etag,
    resource_sequence,
    split_uid,
)
from cerebri.calendars.series_instances import checks_instances, moved_instances
from cerebri.execution.adapters._change_params import ChangeParams
from cerebri.execution.adapters._ics_resources import file_resource
from cerebri.execution.adapters._slots import ensure_slot_free
from cerebri.execution.adapters.base import AdapterError
from cerebri.ics import CalendarError
from cerebri.temporal import Instant

__all__ = [
    "Prepared",
    "ensure_free_everywhere",
    "find",
    "prepare",
    "same_etag",
    "view_result",
]


@dataclass(frozen=True, slots=True)
class Prepared:
    """The decision of :func:`prepare`: ``outcome`` ``None`` means nothing to write and
    ``result`` is the answer; else write ``outcome.writes``, then answer ``result``."""

    outcome: ChangeOutcome | None
    result: dict[str, JSONValue]


def same_etag(current: str | None, expected: str) -> bool:
    """Whether ``current`` is the entity-tag ``expected`` (strong comparison, RFC 7232
    2.3.2; ``"abc"`` and ``abc`` are the same tag, a weak ``W/`` tag never matches)."""
    if current is None or current.startswith("W/") or expected.startswith("W/"):
        return False
    return current.strip('"') == expected.strip('"')


def _etag_holds(p: ChangeParams, resource: Calendar, etag: str | None) -> bool:
    """Whether ``p.expected_etag`` is the resource's current ETag or the digest of its cut
    (module doc, step 3)."""
    expected = p.expected_etag
    if expected is None or same_etag(etag, expected):
        return True
    cut = file_resource(resource, p.change.uid)
    return cut is not None and expected == resource_etag(cut)


def _refused(error: ChangeError) -> AdapterError:
    return AdapterError(error.message, code=error.code)


def find(
    resource: Calendar, uid: str, recurrence_id: Instant | None, floating_zone: str
) -> EventView | None:
    """:func:`cerebri.calendars.changes.find_event`, its refusals as :class:`AdapterError`
    with the same code."""
    try:
        return find_event(resource, uid, recurrence_id, floating_zone=floating_zone)
    except ChangeError as error:
        raise _refused(error) from None


_AGAIN = (
    "; the event changed after the change was planned (the ETag covers the whole event, "
    "every instance of a series: an earlier change to another instance counts): run the "
    "change command (reschedule, cancel-event or update-event) again and propose the new "
    "request"
)


def _mismatch(message: str) -> AdapterError:
    """``calendar.revision_mismatch``: ``message`` and what to do next (decision 0074)."""
    return AdapterError(message + _AGAIN, code="calendar.revision_mismatch")


def _result(
    p: ChangeParams,
    *,
    replayed: bool,
    revision: int | None,
    found: bool,
    span: tuple[Instant, Instant] | None,
    new_uid: str | None = None,
) -> dict[str, JSONValue]:
    change = p.change
    result: dict[str, JSONValue] = {"object_id": p.object_id, "calendar_id": p.calendar_id}
    if change.action == "cancel":
        result |= {"cancelled": found, "existed": found}
    else:
        start, end = (None, None) if span is None else (span[0].format(), span[1].format())
        result |= {"start": start, "end": end}
    result |= {"revision": revision}
    if change.action != "cancel":
        result["moved" if change.action == "move" else "updated"] = True
    return result | {
        "replayed": replayed,
        "uid": change.uid,
        "recurrence_id": None if change.recurrence_id is None else change.recurrence_id.format(),
        "scope": change.scope.value,
        "new_uid": new_uid,
    }


def _replayed(p: ChangeParams, resource: Calendar, exists: Callable[[str], bool]) -> Prepared:
    change = p.change
    view = find(resource, change.uid, change.recurrence_id, p.floating_zone) or find(
        resource, change.uid, None, p.floating_zone
    )
    span = p.new_range or (None if view is None else (view.start, view.end))
    revision = None if view is None else view.sequence
    new_uid = None
    if change.scope is ChangeScope.THIS_AND_FUTURE and change.recurrence_id is not None:
        split = split_uid(change.uid, change.recurrence_id, change.idempotency_key)
        new_uid = split if exists(split) else None
    result = _result(p, replayed=True, revision=revision, found=True, span=span, new_uid=new_uid)
    return Prepared(None, result)


def prepare(
    p: ChangeParams,
    resource: Calendar | None,
    etag: str | None,
    stamp: Instant,
    exists: Callable[[str], bool],
) -> Prepared:
    """Decide what the change ``p`` does to ``resource`` (read with ``etag``; ``None``: no
    such resource), stamping written components ``stamp`` (module doc for the order).
    ``exists(uid)`` says whether the calendar holds an event ``uid``: a replayed split
    names its series (``new_uid``) only when it is there.

    Results (instants as RFC 3339 UTC text; ``uid``, ``recurrence_id``, ``scope`` echo the
    change, ``new_uid`` is the ``UID`` of a series split off by a this-and-future change):

    * move ``{object_id, calendar_id, start, end, revision, moved: true, replayed, uid,
      recurrence_id, scope, new_uid}``;
    * update ``{..., updated: true, ...}`` (``start``/``end`` the new range, else the
      current one);
    * cancel ``{object_id, calendar_id, cancelled, existed, revision, replayed, uid,
      recurrence_id, scope, new_uid}``.

    ``revision`` is the ``SEQUENCE`` after the change (of the component written).

    Raises:
        AdapterError: ``calendar.not_found``, ``calendar.revision_mismatch`` and the
            ``change.*`` codes of :func:`cerebri.calendars.changes.apply_change`.
    """
    change = p.change
    if resource is None:
        return _absent(p)
    if already_applied(resource, change):
        return _replayed(p, resource, exists)
    if p.expected_etag is not None and not _etag_holds(p, resource, etag):
        raise _mismatch(
            f"event {change.uid} changed since it was read (ETag {etag} is not the expected "
            f"{p.expected_etag}); nothing was written"
        )
    view = find(resource, change.uid, change.recurrence_id, p.floating_zone)
    if view is None:
        return _absent(p)
    revision = resource_sequence(resource, change.uid)
    if p.expected_revision is not None and revision != p.expected_revision:
        raise _mismatch(
            f"event {change.uid} is at revision {revision}, not the expected "
            f"{p.expected_revision}; nothing was written"
        )
    try:
        outcome = apply_change(resource, change, stamp=stamp, floating_zone=p.floating_zone)
    except ChangeError as error:
        raise _refused(error) from None
    span = p.new_range or (view.start, view.end)
    result = _result(
        p,
        replayed=False,
        revision=outcome.sequence,
        found=True,
        span=span,
        new_uid=outcome.new_uid,
    )
    return Prepared(outcome, result)


def _absent(p: ChangeParams) -> Prepared:
    change = p.change
    if change.action != "cancel":
        what = "" if change.recurrence_id is None else f" at {change.recurrence_id.format()}"
        raise AdapterError(
            f"calendar {p.calendar_id} holds no event {change.uid}{what}",
            code="calendar.not_found",
        )
    return Prepared(None, _result(p, replayed=False, revision=None, found=False, span=None))


def ensure_free_everywhere(
    p: ChangeParams,
    outcome: ChangeOutcome,
    read: Callable[[str, Instant, Instant], Sequence[Component]],
) -> None:
    """``calendar.slot_taken`` unless the new range of ``p`` is free in the event's own
    calendar and in every calendar of ``p.check_calendar_ids``, each read by
    ``read(calendar_id, start, end)`` (parsed by :func:`cerebri.ics.parse_calendar`), the
    event's own ``UID`` and a split-off series' left out. Nothing to check without a new
    range (a cancel, an update of other fields).

    A ``SERIES`` or ``THIS_AND_FUTURE`` move checks every instance it writes that starts
    within :data:`~cerebri.calendars.series_instances.SERIES_CHECK_HORIZON_SECONDS` (56 days)
    of the new start, as the resources of ``outcome`` give them (decision 0063): each
    calendar is read once over ``[first start, last end)`` and every instance checked in it."""
    span = p.new_range
    if span is None:
        return
    spans = [span]
    if checks_instances(p.change):
        try:
            spans = sorted({span, *moved_instances(outcome, p.change, p.floating_zone)})
        except CalendarError as error:
            raise AdapterError(
                f"event {p.change.uid}: the moved series cannot be expanded to check it: "
                f"{error}; nothing was written",
                code="calendar.unreadable",
            ) from None
    low, high = spans[0][0], max(last for _, last in spans)
    also = () if outcome.new_uid is None else (outcome.new_uid,)
    for calendar_id in (p.calendar_id, *p.check_calendar_ids):
        busy = read(calendar_id, low, high)
        for first, last in spans:
            ensure_slot_free(busy, calendar_id, p.change.uid, first, last, also=also)


def view_result(
    calendar_id: str,
    object_id: str,
    view: EventView | None,
    etag: str | None,
    *,
    floating_zone: str | None = None,
) -> dict[str, JSONValue]:
    """The ``calendar.event.get`` result: ``{object_id, calendar_id, exists, start, end,
    range: {start, end}, revision, title, sequence, etag}`` (``revision`` and ``sequence``
    both the ``SEQUENCE``; every field but the ids ``null`` when there is no such event).
    An all-day or floating event's range is read in ``floating_zone`` (the step's
    ``timezone`` param: the zone the plan used, so a read-back compares the instants the
    plan wrote).

    Raises:
        AdapterError: ``calendar.unsupported`` for an all-day or floating event read
            without ``floating_zone`` (it has no instant of its own, RFC 5545 3.3.4 and
            3.3.5 form 1).
    """
    if view is None:
        return {
            "object_id": object_id,
            "calendar_id": calendar_id,
            "exists": False,
            "start": None,
            "end": None,
            "range": None,
            "revision": None,
            "title": None,
            "sequence": None,
            "etag": None,
        }
    if floating_zone is None and (view.all_day or view.timezone is None):
        kind = "a DATE (all-day)" if view.all_day else "a floating time"
        raise AdapterError(
            f"event {view.uid}: DTSTART is {kind}; only zoned or UTC DATE-TIMEs have an instant",
            code="calendar.unsupported",
        )
    start, end = view.start.format(), view.end.format()
    return {
        "object_id": object_id,
        "calendar_id": calendar_id,
        "exists": True,
        "start": start,
        "end": end,
        "range": {"start": start, "end": end},
        "revision": view.sequence,
        "title": view.title,
        "sequence": view.sequence,
        "etag": etag,
    }
