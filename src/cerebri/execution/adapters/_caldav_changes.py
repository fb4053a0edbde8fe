"""How the CalDAV adapter writes a change to an existing event (decision 0051).

:class:`ChangeWriter` writes the resources :func:`cerebri.calendars.changes.apply_change`
answers, in its order, with conditional requests (RFC 7232):

* a new resource (the series a this-and-future change splits off) with
  ``If-None-Match: *`` (section 3.2) at :func:`resource_name` of its ``UID``; a ``412``
  there is read back: the same change's idempotency key on it means an earlier try wrote it
  (adopted), anything else is ``calendar.conflict``;
* the event's own resource with ``If-Match`` on the ``ETag`` read before the checks
  (section 3.1): ``PUT`` of the new content, or ``DELETE`` for a whole cancel. A ``412``
  is ``calendar.revision_mismatch`` (the server did not perform it, section 4.2;
  retryable for a cancel, whose next try reads again).

A refusal (``before_effect``: that request changed nothing) after a new resource was
written deletes that resource again (``If-Match`` on the ``ETag`` its ``PUT`` answered),
so a refused change leaves the calendar as it found it; when that clean-up fails too, the
error no longer claims ``before_effect``.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Final

from caldav.response import DAVResponse
from icalendar import Calendar, Component

from cerebri.calendars.changes import IDEMPOTENCY_PROPERTY, ChangeOutcome
from cerebri.execution.adapters._change_params import ChangeParams
from cerebri.execution.adapters.base import AdapterError, before_any_effect
from cerebri.execution.adapters.ics_file import _excerpt
from cerebri.integrations._target import _shown

__all__ = ["ChangeWriter", "Found", "ensure_conditional", "resource_name"]

_PLAIN_NAME: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,199}")


def resource_name(uid: str) -> str:
    """The resource name (last path segment) of the event with ``uid``: ``<uid>.ics`` when
    ``uid`` is a plain name (letters, digits, ``.``, ``_``, ``-``, at most 200, starting with
    a letter or digit), else ``_<sha256 of uid, hex>.ics``. A pure function of the ``UID``,
    so every try of one create names the same resource; the two forms never collide."""
    if _PLAIN_NAME.fullmatch(uid):
        return f"{uid}.ics"
    return f"_{hashlib.sha256(uid.encode('utf-8')).hexdigest()}.ics"


@dataclass(frozen=True, slots=True)
class Found:
    """An event read from the server: its resource, ``ETag``, whole object and master."""

    url: str
    etag: str | None
    calendar: Calendar
    event: Component


def ensure_conditional(p: ChangeParams, found: Found, outcome: ChangeOutcome) -> None:
    """``calendar.unsupported`` when the event's resource is to be rewritten but the server
    gave no ``ETag``: the ``PUT`` could not be made conditional (a ``DELETE`` may go
    without, as before issue #23)."""
    if found.etag is None and any(u == p.change.uid and c is not None for u, c in outcome.writes):
        raise AdapterError(
            f"{_shown(found.url)}: the server gave no ETag, so the change cannot be made "
            "conditional; nothing was written",
            code="calendar.unsupported",
        )


@dataclass(frozen=True, slots=True)
class ChangeWriter:
    """Writes one change through the adapter's requests (module doc).

    ``send(method, url, headers)`` and ``put(url, content, condition)`` are the adapter's
    requests (transport failures and refused writes already :class:`AdapterError`),
    ``find(uid)`` its read of the event ``uid`` in ``collection``.
    """

    p: ChangeParams
    collection: str
    send: Callable[[str, str, Mapping[str, str]], DAVResponse]
    put: Callable[[str, Calendar, Mapping[str, str]], DAVResponse]
    find: Callable[[str], Found | None]

    def write_all(self, found: Found, outcome: ChangeOutcome) -> bool:
        """Write ``outcome.writes`` in order (module doc); answers whether the event's
        resource was already gone when it was to be deleted (removed meanwhile)."""
        created: list[tuple[str, str | None]] = []
        gone = False
        try:
            for uid, content in outcome.writes:
                if uid == self.p.change.uid:
                    gone = self.write_found(found, content)
                else:
                    created += self.put_new(uid, content)
        except AdapterError as error:
            if created and error.before_effect:  # that request changed nothing: undo ours
                error.before_effect = self.undo(created)
            raise
        return gone

    def write_found(self, found: Found, content: Calendar | None) -> bool:
        """``PUT`` ``content`` over the event's resource, or ``DELETE`` it (``None``), with
        ``If-Match``; answers whether a ``DELETE`` found it gone already."""
        headers = {} if found.etag is None else {"If-Match": found.etag}
        if content is not None:
            response = self.put(found.url, content, headers)
        else:
            response = self.send("DELETE", found.url, headers)
        if response.status == 412:
            raise AdapterError(
                f"event {self.p.change.uid} changed on the server since it was read (ETag "
                f"{_excerpt(str(found.etag), 80)} no longer matches); nothing was written",
                code="calendar.revision_mismatch",
                retryable=self.p.change.action == "cancel",  # the next try reads it again
                before_effect=True,
            )
        if content is None and response.status in (404, 410):
            return True
        if response.status >= 400:
            raise AdapterError(
                f"DELETE {_shown(found.url)}: refused with HTTP {response.status}",
                code="calendar.write_failed",
                before_effect=True,
            )
        return False

    def put_new(self, uid: str, content: Calendar | None) -> list[tuple[str, str | None]]:
        """Create the resource of a new ``uid`` (``If-None-Match: *``): ``[(url, ETag)]``
        when this call wrote it, ``[]`` when an earlier try of the change had (its
        idempotency key is on it); anything else there is ``calendar.conflict``."""
        url = self.collection + resource_name(uid)
        if content is None:
            raise AdapterError(
                f"cannot remove {uid}: only the event's own resource is removed",
                code="calendar.write_failed",
                before_effect=True,
            )
        response = self.put(url, content, {"If-None-Match": "*"})
        if response.status != 412:
            return [(url, response.headers.get("ETag"))]
        with before_any_effect():  # this PUT was not performed (RFC 7232 4.2)
            there = self.find(uid)
            key = None if there is None else str(there.event.get(IDEMPOTENCY_PROPERTY, ""))
            if key != self.p.change.idempotency_key:
                raise AdapterError(
                    f"calendar {self.p.calendar_id} already holds an event {uid} written by "
                    "another change; nothing was written",
                    code="calendar.conflict",
                )
        return []

    def undo(self, created: list[tuple[str, str | None]]) -> bool:
        """Remove the resources this change created (newest first); whether all went."""
        try:
            for url, etag in reversed(created):
                response = self.send("DELETE", url, {} if etag is None else {"If-Match": etag})
                if response.status >= 400 and response.status not in (404, 410):
                    return False
        except AdapterError:
            return False
        return True
