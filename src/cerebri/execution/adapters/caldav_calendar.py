"""A calendar on a CalDAV server (RFC 4791): create, move, cancel and read events.

:class:`CalDavCalendar` serves the capabilities of
:class:`~cerebri.execution.adapters.ics_file.IcsFileCalendar` (``calendar.event.create``,
``calendar.event.move``, ``calendar.event.cancel``, ``calendar.event.get``,
``calendar.freebusy``) with the same results, over a fixed map from calendar id to the URL
of a CalDAV collection. Every request goes through the ``caldav`` library's client
(``DAVClient`` and its HTTP session), one client per invocation, each request bounded by
``timeout_seconds`` as a whole (:mod:`cerebri.integrations._deadline`).

Where an event lives: its ``UID`` is the ``object_id`` (which the planner derives per
action) and its resource is ``<collection>/<name>.ics``, ``name`` a pure function of the
``UID`` (the ``UID`` itself when it is a plain name, else ``_`` and its SHA-256), so every
try of one create names the same resource. An event not at that name (made by another
client) is found by a ``calendar-query`` on its ``UID``. The ``idempotency_key`` *param* of
the write that last changed it (stable across plan revisions and attempts, unlike
:attr:`Invocation.idempotency_key`) is kept in ``X-CEREBRI-IDEMPOTENCY-KEY``.

Writes (decision 0024):

* create reads the resource first: the event already there with the same idempotency key
  and range is a success with ``replayed: true`` (adoption, nothing written); any other
  event with that ``UID`` is ``calendar.conflict``. Otherwise the range is re-read as
  free/busy (:mod:`cerebri.execution.adapters._slots`), then written with ``PUT`` and
  ``If-None-Match: *`` (RFC 7232 3.2), so a repeated create can never make a second event:
  a ``412`` is read back and adopted or refused the same way;
* move reads the event and its ``ETag``; a repeat of the move applied last (same
  idempotency key, already at the range) is ``replayed: true``; ``expected_revision`` is
  compared with ``SEQUENCE`` (RFC 5545 3.8.7.4); the range is re-read as free/busy (the
  event itself left out); the new event (``SEQUENCE`` + 1) is written with ``If-Match``;
* cancel reads the event and ``DELETE``\\ s it with ``If-Match``; an absent event is a
  success with ``cancelled`` and ``existed`` ``false``.

Scheduling servers (RFC 6638, decision 0068): :meth:`CalDavCalendar.schedules` tells
whether the server of a calendar delivers an organizer's iTIP messages itself (the iTIP
adapters then leave delivery to it); with ``client_schedules`` (the worker's
``--no-server-schedules``) every ``PUT`` of such an event marks its attendees
``SCHEDULE-AGENT=CLIENT`` so that the server stays silent.

Errors (:class:`AdapterError` codes; "retryable" as plans.md section 6 reads it):

* ``adapter.unavailable``, retryable: no connection, a timeout, HTTP 5xx or 429, or an
  answer that is not WebDAV. For a write the request may have reached the server, so the
  executor treats a create as "may have happened" (blocked for verification; resolving it
  as not happened runs the create again, which the ``If-None-Match`` makes safe), unless
  the error is ``before_effect`` (below);
* ``calendar.unauthorized``, not retryable: HTTP 401 or 403 after authentication;
* ``calendar.unknown_calendar``, not retryable: a calendar id not configured, or a
  collection the server does not have (HTTP 404 or 409 on it);
* ``calendar.conflict``, not retryable: another event already has the create's ``UID``
  (another idempotency key or another range), nothing written;
* ``calendar.slot_taken``, not retryable: the range of a create or move holds another busy
  event at the time of writing; nothing written (the plan replans);
* ``calendar.not_found``: a move of an event that is not there;
* ``calendar.revision_mismatch``: a move whose ``expected_revision`` is not the event's
  ``SEQUENCE``, or whose ``If-Match`` the server refused (``412``: changed since read); for a
  cancel it is retryable (the next try reads again);
* ``calendar.unreadable``: the server's iCalendar that cerebri cannot read;
* ``calendar.unsupported``: an event without a zoned or UTC time, or a server that gives no
  ``ETag``;
* ``calendar.write_failed``, not retryable: the server refused a write with another 4xx;
* ``adapter.invalid_params``, ``adapter.unsupported_capability``.

``before_effect`` (decision 0040): every error of a write raised before its ``PUT`` or
``DELETE`` was sent (the reads and checks that come first), an error of that request whose
connection could not be made (refused, a host that does not resolve, a connect timeout: the
HTTP client makes no retries, so the request never left), and a ``412`` (the server did not
perform the request, RFC 7232 4.2) say that nothing was changed; the executor then tries a
create again later instead of blocking it for verification.
"""

from __future__ import annotations

import copy
import socket
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime
from types import MappingProxyType
from typing import Final, NamedTuple
from urllib.parse import urljoin, urlsplit

from caldav.davclient import DAVClient
from caldav.elements import cdav, dav
from caldav.elements.base import BaseElement
from caldav.lib import error as dav_error
from caldav.lib.http_sync import requests as http
from caldav.response import DAVResponse
from icalendar import Calendar, Component, Event
from lxml import etree  # type: ignore[import-untyped]  # the parser caldav itself uses

from cerebri._guard import arguments
from cerebri._json import JSONValue
from cerebri.calendars.changes import ChangeAction
from cerebri.clock import Clock
from cerebri.execution.adapters._caldav_changes import (
    ChangeWriter,
    Found,
    ensure_conditional,
    resource_name,
)
from cerebri.execution.adapters._change_params import (
    change_params,
    event_ref,
    people,
)
from cerebri.execution.adapters._change_steps import (
    ensure_free_everywhere,
    find,
    prepare,
    view_result,
)
from cerebri.execution.adapters._copies import StoredCopy
from cerebri.execution.adapters._freebusy import freebusy_result
from cerebri.execution.adapters._people import stamp_people
from cerebri.execution.adapters._slots import ensure_slot_free
from cerebri.execution.adapters.base import (
    AdapterError,
    DispatchingAdapter,
    Invocation,
    adapter_argument_error,
    before_any_effect,
    configured_calendar,
    serves,
)
from cerebri.execution.adapters.ics_file import (
    IDEMPOTENCY_PROPERTY,
    MAX_EXCERPT_CHARS,
    PRODID,
    _events,
    _excerpt,
    _freebusy_params,
    _invalid,
    _master,
    _new_event,
    _parse_object,
    _range,
    _sequence,
    _span,
    _text,
    _utc,
    _written,
)
from cerebri.ics import CalendarError, parse_calendar
from cerebri.integrations._deadline import BoundedClient, DeadlineError
from cerebri.integrations._target import _cause, _shown
from cerebri.integrations.credentials import CalDAVLogins, Login
from cerebri.temporal import Instant

__all__ = ["TIMEOUT_SECONDS", "CalDavCalendar", "resource_name"]

TIMEOUT_SECONDS: Final = 30.0
"""Default limit of one HTTP request (connect, send, whole answer), in seconds."""
_CALENDAR_DATA: Final = "{urn:ietf:params:xml:ns:caldav}calendar-data"
_ETAG: Final = "{DAV:}getetag"
_CONTENT_TYPE: Final = "text/calendar; charset=utf-8"


class _WriteTarget(NamedTuple):
    """What a create or a move writes: the event and where."""

    calendar_id: str
    uid: str
    idempotency_key: str
    start: Instant
    end: Instant
    collection: str
    """The calendar's collection URL (ends with ``/``)."""


def _unavailable(what: str, why: str, *, before_effect: bool = False) -> AdapterError:
    return AdapterError(
        f"{what}: {why}",
        code="adapter.unavailable",
        retryable=True,
        before_effect=before_effect,
    )


_NOT_CONNECTED: Final = (ConnectionRefusedError, socket.gaierror, http.exceptions.ConnectTimeout)


def _never_sent(exc: BaseException) -> bool:
    """Whether ``exc`` (from the HTTP client) shows that no connection was made, so the
    request never left: a refused connection (``ConnectionRefusedError``), a host name that
    does not resolve (``socket.gaierror``) or a connect timeout (``ConnectTimeout``, which
    the client documents as safe to retry), anywhere in its chain of causes. The client
    makes no retries of its own (niquests' default), so no earlier try could have been
    sent."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, _NOT_CONNECTED):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


_NO_UID_CONFLICT: Final = "{urn:ietf:params:xml:ns:caldav}no-uid-conflict"
"""The precondition a server names when a UID is already used by another resource."""


@contextmanager
def _transport_errors(what: str) -> Iterator[None]:
    """A ``CALDAV:no-uid-conflict`` refusal (``calendar.uid_conflict``, any status, RFC 4791
    5.3.2.1), refused credentials (``calendar.unauthorized``), a request past its deadline, a
    transport failure and an answer that is not WebDAV (``adapter.unavailable``, retryable;
    ``before_effect`` when the request was never sent) raised in the block, as
    :class:`AdapterError` naming ``what``."""
    try:
        yield
    except dav_error.DAVError as exc:
        if _NO_UID_CONFLICT in getattr(exc, "preconditions", ()):
            raise AdapterError(  # Cyrus sends it as HTTP 403 (decision 0073)
                f"{what}: the calendar already holds another resource with this UID (RFC "
                "4791 5.3.2.1, CALDAV:no-uid-conflict); nothing was written: remove the other "
                "copy or change that event instead",
                code="calendar.uid_conflict",
                before_effect=True,
            ) from None
        if not isinstance(exc, dav_error.AuthorizationError):
            raise _unavailable(what, f"not a WebDAV answer: {_excerpt(str(exc))}") from None
        raise AdapterError(
            f"{what}: the server refused the credentials (HTTP {exc.status or '401/403'})",
            code="calendar.unauthorized",
        ) from None
    except DeadlineError as exc:
        raise _unavailable(what, str(exc)) from None
    except OSError as exc:
        raise _unavailable(what, _cause(exc), before_effect=_never_sent(exc)) from None
    except etree.XMLSyntaxError as exc:
        raise _unavailable(what, f"not a WebDAV answer: {_excerpt(str(exc))}") from None


class CalDavCalendar(DispatchingAdapter):
    """Serves the calendar capabilities over CalDAV collections.

    ``calendars`` maps a calendar id to its collection URL (``http(s)://``). Each URL's
    login is sent when the server asks (Basic or Digest, negotiated by the library): with
    ``logins`` the one it picks for that URL (a credentials file entry, the URL's own, netrc,
    then its default login: :class:`~cerebri.integrations.credentials.CalDAVLogins`,
    docs/decisions/0037), resolved once here; without it ``username`` and ``password`` for
    every URL. ``timeout_seconds`` bounds each HTTP request as a whole. ``clock`` gives
    ``DTSTAMP``. ``client_schedules``: cerebri delivers even where the server would
    schedule, so writes mark attendees ``SCHEDULE-AGENT=CLIENT`` (module doc). Results are
    those of
    :class:`~cerebri.execution.adapters.ics_file.IcsFileCalendar` (instants as RFC 3339 UTC
    strings), plus ``replayed`` on a create (``true`` when the event was already there,
    adopted) and ``attendees`` (a list of ``ATTENDEE`` addresses) on a get:

    * create ``{object_id, calendar_id, start, end, revision, created: true, replayed}``;
    * move ``{object_id, calendar_id, start, end, revision, moved: true, replayed}``;
    * cancel ``{object_id, calendar_id, cancelled, existed}``;
    * get ``{object_id, calendar_id, exists, start, end, range: {start, end}, revision,
      title, attendees}`` (``null`` fields and ``[]`` when absent);
    * freebusy ``{start, end, busy: [...], free: [...], unknown: [...], complete}``, read by
      :func:`cerebri.calendars.freebusy` from the events a ``calendar-query`` with a
      ``time-range`` (RFC 4791 9.9) returns.

    Raises:
        AdapterError: the codes of the module doc, e.g. ``calendar.slot_taken``,
            ``calendar.conflict``, ``adapter.unavailable`` (retryable);
            ``calendar.unauthorized`` names the URL and where its login came from, never
            the password; ``adapter.invalid_argument`` at construction for ``logins`` given
            with ``username`` or ``password``.
        CredentialsError: at construction, ``credentials.*`` for a netrc file ``logins``
            cannot use.
    """

    __slots__ = ("_calendars", "_client_schedules", "_clock", "_logins", "_schedulers", "_timeout")

    @arguments(
        adapter_argument_error,
        calendars=Mapping,
        clock=Clock,
        username=(str, type(None)),
        password=(str, type(None)),
        logins=(CalDAVLogins, type(None)),
        timeout_seconds=(int, float),
        client_schedules=bool,
    )
    def __init__(
        self,
        calendars: Mapping[str, str],
        clock: Clock,
        *,
        username: str | None = None,
        password: str | None = None,
        logins: CalDAVLogins | None = None,
        timeout_seconds: float = TIMEOUT_SECONDS,
        client_schedules: bool = False,
    ) -> None:
        if logins is not None and (username is not None or password is not None):
            raise adapter_argument_error(
                "give logins, or username and password, not both (logins holds the default)"
            )
        table: dict[str, str] = {}
        for calendar_id, url in calendars.items():
            if not isinstance(calendar_id, str) or not isinstance(url, str):
                raise adapter_argument_error("calendars maps calendar ids to URLs, both text")
            if not _is_http_url(url):
                raise adapter_argument_error(
                    f"calendar {calendar_id!r}: {_excerpt(url.rpartition('@')[2])} (credentials "
                    "left out) is not an http(s) URL with a host"
                )
            table[calendar_id] = url if url.endswith("/") else f"{url}/"
        if not timeout_seconds > 0:
            raise adapter_argument_error(f"timeout_seconds must be > 0, not {timeout_seconds}")
        given = Login(username, password, "the login given")
        self._calendars = MappingProxyType(table)
        self._logins = MappingProxyType(
            {
                calendar_id: given if logins is None else logins.login_for(url)
                for calendar_id, url in table.items()
            }
        )
        self._clock = clock
        self._timeout = float(timeout_seconds)
        self._schedulers: dict[str, frozenset[str] | None] = {}
        self._client_schedules = client_schedules

    # ------------------------------------------------------------- scheduling

    def schedules(self, calendar_id: str, organizer: str) -> bool:
        """Whether the server of ``calendar_id`` schedules an event that ``organizer``
        (a ``mailto:`` address) organizes there by itself (RFC 6638 implicit scheduling,
        decision 0068): the ``DAV`` header of ``OPTIONS`` on the collection names
        ``calendar-auto-schedule`` (section 2), the login's principal
        (``current-user-principal``) has a ``schedule-outbox-URL`` (2.1), and ``organizer``
        is one of its ``calendar-user-address-set`` (2.4.1; only then is the object a
        scheduling object resource, section 3.2.1). Probed once per calendar (three
        requests) and remembered for the life of the adapter.

        Raises:
            AdapterError: the transport errors of a read (``adapter.unavailable``,
                ``calendar.unauthorized``, ``calendar.unknown_calendar``), all
                ``before_effect``.
        """
        if calendar_id not in self._schedulers:
            with before_any_effect():
                self._schedulers[calendar_id] = self._scheduling_addresses(calendar_id)
        addresses = self._schedulers[calendar_id]
        return addresses is not None and _address(organizer) in addresses

    def _as_client(self, calendar_id: str, calendar: Calendar) -> Calendar:
        """``calendar`` with ``SCHEDULE-AGENT=CLIENT`` on every ``ATTENDEE`` of each
        ``VEVENT`` whose ``ORGANIZER`` the server of ``calendar_id`` schedules for (RFC 6638
        7.1: the server then sends nothing for them), when this adapter was made with
        ``client_schedules`` (the worker's ``--no-server-schedules``, decision 0068);
        else ``calendar`` itself. A copy: the caller's object is not touched."""
        if not self._client_schedules:
            return calendar
        events = [
            e
            for e in calendar.walk("VEVENT")
            if e.get("ORGANIZER") is not None and self.schedules(calendar_id, str(e["ORGANIZER"]))
        ]
        if not events:
            return calendar
        marked = copy.deepcopy(calendar)
        for event in marked.walk("VEVENT"):
            if event.get("ORGANIZER") is None or not self.schedules(
                calendar_id, str(event["ORGANIZER"])
            ):
                continue
            people = event.get("ATTENDEE")
            for person in people if isinstance(people, list) else [people] if people else []:
                person.params["SCHEDULE-AGENT"] = "CLIENT"
        return marked

    def _scheduling_addresses(self, calendar_id: str) -> frozenset[str] | None:
        """The calendar user addresses the server schedules for at ``calendar_id`` (lower
        case), or ``None`` when it does not schedule there."""
        collection = self._collection(calendar_id)
        with self._client(calendar_id, collection) as client:
            response = self._send(client, "OPTIONS", collection)
            if response.status in (404, 409):
                raise self._missing_collection(calendar_id, collection, response.status)
            header = response.headers.get("DAV", "")
            features = {part.strip().lower() for part in header.split(",")}
            if "calendar-auto-schedule" not in features:
                return None
            with _transport_errors(f"PROPFIND principal of {_shown(collection)}"):
                principal = client.principal()  # type: ignore[no-untyped-call]
                outbox = principal.get_property(cdav.ScheduleOutboxURL())
                try:
                    listed = principal.calendar_user_address_set()
                except dav_error.NotFoundError:  # no such property: no address to match
                    listed = []
        if not outbox:
            return None
        return frozenset(_address(a) for a in listed if a) or None

    # ------------------------------------------------------------------ HTTP

    def _collection(self, calendar_id: str) -> str:
        return configured_calendar(self._calendars, calendar_id)

    @contextmanager
    def _client(self, calendar_id: str, collection: str) -> Iterator[DAVClient]:
        """A client for ``collection`` with calendar ``calendar_id``'s login; a refused login
        (``calendar.unauthorized``) is told where it came from."""
        login = self._logins[calendar_id]
        client = BoundedClient(
            request_seconds=self._timeout,
            url=collection,
            username=login.username,
            password=login.password,
            timeout=self._timeout,
            enable_rfc6764=False,  # the URL is used as given
            rate_limit_handle=False,  # 429/503 is reported, never slept on
        )
        try:
            yield client
        except AdapterError as exc:
            if exc.code == "calendar.unauthorized":  # the same error (and its marks), told more
                exc.message = f"{exc.message}; login: {login.shown()}"
                exc.args = (exc.message,)
            raise
        finally:
            client.close()

    @staticmethod
    def _send(
        client: DAVClient,
        method: str,
        url: str,
        body: str = "",
        headers: Mapping[str, str] | None = None,
    ) -> DAVResponse:
        """One request; transport failures, 5xx and refused credentials as AdapterError."""
        what = f"{method} {_shown(url)}"
        with _transport_errors(what):
            try:
                response = client.request(url, method, body, dict(headers or {}))
            except dav_error.AuthorizationError as exc:
                if any("no-uid-conflict" in p for p in exc.preconditions):
                    raise AdapterError(
                        f"{what}: another resource of the calendar already has this UID",
                        code="calendar.conflict",
                    ) from None
                raise  # refused credentials: told by _transport_errors
            except dav_error.RateLimitError as exc:
                raise _unavailable(what, f"HTTP {exc.status or 429}, try later") from None
        if response.status >= 500:
            raise _unavailable(what, f"HTTP {response.status}")
        return response

    @staticmethod
    def _missing_collection(calendar_id: str, collection: str, status: int) -> AdapterError:
        return AdapterError(
            f"calendar {calendar_id}: the server has no collection {_shown(collection)} "
            f"(HTTP {status})",
            code="calendar.unknown_calendar",
        )

    def _find(self, client: DAVClient, calendar_id: str, collection: str, uid: str) -> Found | None:
        """The event ``uid``: at its resource name, else by a ``calendar-query`` on UID."""
        url = collection + resource_name(uid)
        response = self._send(client, "GET", url)
        if response.status == 200:
            calendar = _parse_object(response.raw, _shown(url))
            event = _master(_events(calendar, uid))
            if event is not None:
                return Found(url, response.headers.get("ETag"), calendar, event)
        elif response.status not in (404, 410):
            raise _unavailable(f"GET {_shown(url)}", f"HTTP {response.status}")
        uid_filter = cdav.PropFilter(name="UID") + cdav.TextMatch(uid, collation="i;octet")
        matches = self._query(client, calendar_id, collection, uid_filter)
        for href, (etag, text) in sorted(matches.items()):
            calendar = _parse_object(text, _shown(href))
            event = _master(_events(calendar, uid))
            if event is not None:
                return Found(href, etag, calendar, event)
        return None

    def _query(
        self, client: DAVClient, calendar_id: str, collection: str, condition: BaseElement
    ) -> dict[str, tuple[str | None, str]]:
        """A ``calendar-query`` REPORT (RFC 4791 7.8) for VEVENTs matching ``condition``:
        resource URL -> (``ETag``, iCalendar text)."""
        query = (
            cdav.CalendarQuery()
            + (dav.Prop() + [dav.GetEtag(), cdav.CalendarData()])
            + (
                cdav.Filter()
                + (cdav.CompFilter(name="VCALENDAR") + (cdav.CompFilter(name="VEVENT") + condition))
            )
        )
        body = etree.tostring(query.xmlelement(), encoding="utf-8", xml_declaration=True)
        what = f"REPORT {_shown(collection)}"
        with _transport_errors(what):
            response = client.report(collection, body.decode("utf-8"), depth=1)
        if response.status in (404, 409, 410):
            raise self._missing_collection(calendar_id, collection, response.status)
        if response.status >= 500:
            raise _unavailable(what, f"HTTP {response.status}")
        if response.status >= 400:
            raise AdapterError(
                f"{what}: calendar-query refused with HTTP {response.status}",
                code="calendar.unsupported",
            )
        found: dict[str, tuple[str | None, str]] = {}
        for href, properties in response.expand_simple_props(
            [dav.GetEtag(), cdav.CalendarData()]
        ).items():
            status = response.statuses.get(href)
            text = properties.get(_CALENDAR_DATA)
            if (isinstance(status, str) and " 404" in status) or not isinstance(text, str):
                continue
            etag = properties.get(_ETAG)
            found[urljoin(collection, href)] = (etag if isinstance(etag, str) else None, text)
        return found

    def _busy_calendars(
        self,
        client: DAVClient,
        calendar_id: str,
        collection: str,
        start: Instant,
        end: Instant,
    ) -> list[Component]:
        """The events of ``calendar_id`` over ``[start, end)``, each parsed by
        :func:`cerebri.ics.parse_calendar` (named ``calendar_id``)."""
        window = cdav.TimeRange(_utc_floor(start), _utc_ceiling(end))
        texts = self._query(client, calendar_id, collection, window)
        parsed: list[Component] = []
        for href, (_etag, text) in sorted(texts.items()):
            try:
                parsed.append(parse_calendar(text, source=calendar_id))
            except CalendarError as exc:
                raise AdapterError(
                    f"calendar {calendar_id}, {_shown(href)}: "
                    f"{_excerpt(exc.message, 2 * MAX_EXCERPT_CHARS)}",
                    code="calendar.unreadable",
                ) from None
        if not parsed:
            parsed.append(parse_calendar(_new_object(None).to_ical(), source=calendar_id))
        return parsed

    def _put(
        self,
        client: DAVClient,
        calendar_id: str,
        collection: str,
        url: str,
        calendar: Calendar,
        *,
        condition: Mapping[str, str],
    ) -> DAVResponse:
        headers = {"Content-Type": _CONTENT_TYPE, **condition}
        with before_any_effect():
            calendar = self._as_client(calendar_id, calendar)
        response = self._send(client, "PUT", url, calendar.to_ical().decode("utf-8"), headers)
        with before_any_effect():  # a 4xx answer: the server did not perform the PUT
            if response.status in (404, 409, 410):
                raise self._missing_collection(calendar_id, collection, response.status)
            if response.status >= 400 and response.status != 412:
                raise AdapterError(
                    f"PUT {_shown(url)}: the server refused the event with HTTP "
                    f"{response.status}; nothing was written",
                    code="calendar.write_failed",
                )
        return response

    # ------------------------------------------------------------------ capabilities

    def _write_target(self, params: Mapping[str, JSONValue]) -> _WriteTarget:
        """The event a create or a move writes; every error is ``before_effect``."""
        with before_any_effect():
            calendar_id, uid = _text(params, "calendar_id"), _text(params, "object_id")
            key = _text(params, "idempotency_key")
            start, end = _range(params)
            return _WriteTarget(calendar_id, uid, key, start, end, self._collection(calendar_id))

    @serves("calendar.event.create")
    def _create(self, invocation: Invocation) -> dict[str, JSONValue]:
        params = invocation.params
        calendar_id, uid, key, start, end, collection = self._write_target(params)
        title = params.get("title")
        with before_any_effect():
            organizer, attendees = people(params)

        def settle(found: Found) -> dict[str, JSONValue]:
            """Adopt the event already there when it is this create's, else conflict."""
            same_key = str(found.event.get(IDEMPOTENCY_PROPERTY, "")) == key
            if same_key and _span(found.event, uid) == (start, end):
                revision = _sequence(found.event)
                created = _written(calendar_id, uid, start, end, revision, created=True)
                return {**created, "replayed": True}
            why = "with another range" if same_key else "written by another idempotency key"
            raise AdapterError(
                f"calendar {calendar_id} already holds an event {uid} ({why}); nothing was written",
                code="calendar.conflict",
            )

        with self._client(calendar_id, collection) as client:
            with before_any_effect():  # reads and checks: nothing is sent to be written yet
                found = self._find(client, calendar_id, collection, uid)
                if found is not None:
                    return settle(found)
                busy = self._busy_calendars(client, calendar_id, collection, start, end)
                ensure_slot_free(busy, calendar_id, uid, start, end)
            event = _new_event(uid, start, end, title=title, key=key, stamp=self._clock.now())
            stamp_people(event, organizer, attendees)
            url = collection + resource_name(uid)
            response = self._put(
                client,
                calendar_id,
                collection,
                url,
                _new_object(event),
                condition={"If-None-Match": "*"},
            )
            if response.status == 412:  # written meanwhile, perhaps by an earlier try
                with before_any_effect():  # this PUT was not performed (RFC 7232 4.2)
                    found = self._find(client, calendar_id, collection, uid)
                    if found is None:
                        raise AdapterError(
                            f"PUT {_shown(url)}: the server says the resource exists, yet "
                            f"it holds no event {uid}; nothing was written",
                            code="calendar.conflict",
                        )
                    return settle(found)
        return {**_written(calendar_id, uid, start, end, 0, created=True), "replayed": False}

    def _apply(self, invocation: Invocation, action: ChangeAction) -> dict[str, JSONValue]:
        """A move, cancel or update (decision 0051): the resource of the ``UID`` and its
        ``ETag`` read, every check of
        :func:`~cerebri.execution.adapters._change_steps.prepare`, the busy re-read of the
        new range in this collection and every ``check_calendar_ids`` one, then the writes
        (:meth:`~cerebri.execution.adapters._caldav_changes.ChangeWriter.write_all`)."""
        with before_any_effect():
            p = change_params(invocation, action)
            collection = self._collection(p.calendar_id)
        stamp = self._clock.now()
        with self._client(p.calendar_id, collection) as client:
            with before_any_effect():  # reads and checks: nothing is sent to be written yet
                found = self._find(client, p.calendar_id, collection, p.change.uid)
                resource, etag = (None, None) if found is None else (found.calendar, found.etag)
                prepared = prepare(
                    p,
                    resource,
                    etag,
                    stamp,
                    lambda u: self._find(client, p.calendar_id, collection, u) is not None,
                )
                if prepared.outcome is None or found is None:
                    return prepared.result
                ensure_conditional(p, found, prepared.outcome)

                def read(calendar_id: str, start: Instant, end: Instant) -> list[Component]:
                    if calendar_id == p.calendar_id:
                        return self._busy_calendars(client, calendar_id, collection, start, end)
                    return self._busy_elsewhere(calendar_id, start, end)

                ensure_free_everywhere(p, prepared.outcome, read)
            writer = ChangeWriter(
                p,
                collection,
                send=lambda method, url, headers: self._send(client, method, url, headers=headers),
                put=lambda url, content, condition: self._put(
                    client, p.calendar_id, collection, url, content, condition=condition
                ),
                find=lambda uid: self._find(client, p.calendar_id, collection, uid),
            )
            gone = writer.write_all(found, prepared.outcome)
        return {**prepared.result, "cancelled": False} if gone else prepared.result

    def _busy_elsewhere(self, calendar_id: str, start: Instant, end: Instant) -> list[Component]:
        """The events of another configured calendar over ``[start, end)`` (its own login)."""
        collection = self._collection(calendar_id)
        with self._client(calendar_id, collection) as client:
            return self._busy_calendars(client, calendar_id, collection, start, end)

    @serves("calendar.event.move")
    def _move(self, invocation: Invocation) -> dict[str, JSONValue]:
        return self._apply(invocation, "move")

    @serves("calendar.event.update")
    def _update(self, invocation: Invocation) -> dict[str, JSONValue]:
        return self._apply(invocation, "update")

    @serves("calendar.event.cancel")
    def _cancel(self, invocation: Invocation) -> dict[str, JSONValue]:
        return self._apply(invocation, "cancel")

    def read_resource(self, calendar_id: str, uid: str) -> Calendar | None:
        """The calendar object resource holding ``uid`` in ``calendar_id``'s collection as
        the server has it now (found as a move finds it), or ``None``. For the iTIP sender
        (issue #23, C4).

        Raises:
            AdapterError: as a get: ``calendar.unknown_calendar``, ``adapter.unavailable``,
                ``calendar.unauthorized``, ``calendar.unreadable``.
        """
        collection = self._collection(calendar_id)
        with self._client(calendar_id, collection) as client:
            found = self._find(client, calendar_id, collection, uid)
        return None if found is None else found.calendar

    def read_copy(self, calendar_id: str, uid: str) -> StoredCopy | None:
        """The resource holding ``uid`` in ``calendar_id``'s collection (at any URL) with
        its ``ETag``, or ``None``: an attendee's copy for ``calendar.itip.deliver``
        (decision 0057). Raises as :meth:`read_resource`."""
        collection = self._collection(calendar_id)
        with self._client(calendar_id, collection) as client:
            found = self._find(client, calendar_id, collection, uid)
        return None if found is None else StoredCopy(found.calendar, found.etag, found.url)

    def write_copy(
        self, calendar_id: str, uid: str, content: Calendar | None, found: StoredCopy | None
    ) -> None:
        """Write ``content`` as the resource of ``uid`` in ``calendar_id``'s collection, or
        ``DELETE`` it (``None``): over ``found`` with ``If-Match`` on its ``ETag``, else new
        at :func:`resource_name` with ``If-None-Match: *`` (RFC 7232 3.1, 3.2; decision
        0057). A ``DELETE`` of a resource already gone is a success.

        Raises:
            AdapterError: ``calendar.revision_mismatch`` (a ``412``: changed or created
                since read; retryable, ``before_effect``), ``calendar.unsupported`` (no
                ``ETag`` to make the write conditional), ``calendar.write_failed``, and the
                transport errors of every request (``adapter.unavailable``...).
        """
        collection = self._collection(calendar_id)
        if found is not None and found.etag is None:
            raise AdapterError(
                f"{_shown(found.where)}: the server gave no ETag, so the copy cannot be "
                "written conditionally; nothing was written",
                code="calendar.unsupported",
                before_effect=True,
            )
        url = collection + resource_name(uid) if found is None else found.where
        condition = {"If-None-Match": "*"} if found is None else {"If-Match": str(found.etag)}
        with self._client(calendar_id, collection) as client:
            if content is not None:
                response = self._put(
                    client, calendar_id, collection, url, content, condition=condition
                )
            elif found is None:
                return
            else:
                response = self._send(client, "DELETE", url, headers=condition)
                if response.status in (404, 410):
                    return
        if response.status == 412:
            raise AdapterError(
                f"event {uid} in calendar {calendar_id} changed since it was read (HTTP 412); "
                "nothing was written",
                code="calendar.revision_mismatch",
                retryable=True,
                before_effect=True,
            )
        if response.status >= 400:
            raise AdapterError(
                f"{'PUT' if content is not None else 'DELETE'} {_shown(url)}: refused with HTTP "
                f"{response.status}; nothing was written",
                code="calendar.write_failed",
                before_effect=True,
            )

    @serves("calendar.event.get")
    def _get(self, invocation: Invocation) -> dict[str, JSONValue]:
        ref = event_ref(invocation.params)
        collection = self._collection(ref.calendar_id)
        with self._client(ref.calendar_id, collection) as client:
            found = self._find(client, ref.calendar_id, collection, ref.uid)
        if found is None:
            return {**view_result(ref.calendar_id, ref.object_id, None, None), "attendees": []}
        view = find(found.calendar, ref.uid, ref.recurrence_id, ref.floating_zone or "UTC")
        zone = ref.floating_zone
        result = view_result(ref.calendar_id, ref.object_id, view, found.etag, floating_zone=zone)
        attendees: list[JSONValue] = [] if view is None else [a.address for a in view.attendees]
        return {**result, "attendees": attendees}

    @serves("calendar.freebusy")
    def _freebusy(self, invocation: Invocation) -> dict[str, JSONValue]:
        ids, start, end = _freebusy_params(invocation.params)
        if not start < end:
            raise _invalid(f"end {end} is not after start {start} (the range is half-open)")
        calendars: list[Component] = []
        for calendar_id in ids:
            collection = self._collection(calendar_id)
            with self._client(calendar_id, collection) as client:
                calendars += self._busy_calendars(client, calendar_id, collection, start, end)
        return freebusy_result(calendars, start, end)


def _address(address: str) -> str:
    """A calendar user address compared without case (``mailto:`` addresses, RFC 6638)."""
    return address.strip().lower()


def _is_http_url(url: str) -> bool:
    """``url`` is ``http(s)://host[:port]/...`` with a valid port and no blank or control
    character (checked once, so a typo is not reported later as an unreachable server)."""
    if any(not ch.isprintable() or ch.isspace() for ch in url):
        return False
    try:
        parts = urlsplit(url)
        _ = parts.port  # raises ValueError for a port out of range
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.hostname)


def _new_object(event: Event | None) -> Calendar:
    """A ``VCALENDAR`` (PRODID, VERSION 2.0) holding ``event``, the resource's content."""
    calendar = Calendar()
    calendar.add("prodid", PRODID)
    calendar.add("version", "2.0")
    if event is not None:
        calendar.add_component(event)
    return calendar


_NS_PER_SECOND: Final = 1_000_000_000


def _utc_floor(moment: Instant) -> datetime:
    """``moment`` as a UTC datetime for a ``time-range``, rounded down to a whole second."""
    return _utc(Instant(moment.ns - moment.ns % _NS_PER_SECOND))


def _utc_ceiling(moment: Instant) -> datetime:
    """``moment`` as a UTC datetime for a ``time-range``, rounded up to a whole second."""
    return _utc(Instant(moment.ns + (-moment.ns) % _NS_PER_SECOND))
