"""A tiny read-only CalDAV server for tests: it serves stored bytes unchanged.

Real servers (Radicale, Xandikos) may rewrite what they store, so the tests that must know
the exact text a client receives use this stub. It holds one calendar collection at
``/cal/`` whose members are ``name -> bytes`` (``b""`` is a 0-byte resource) and answers:

* ``PROPFIND`` depth 0 (the collection: a calendar) and depth 1 (each member's ``ETag``);
* ``REPORT`` ``sync-collection`` (RFC 6578): every member with its ``ETag`` and token
  ``"stub-1"`` (always a full listing);
* ``REPORT`` ``calendar-multiget`` (RFC 4791 7.9): each asked member's bytes as
  ``calendar-data`` (empty for a 0-byte member), ``404`` for unknown hrefs.

``drip`` makes every ``PROPFIND`` answer a ``207`` announcing ``Content-Length: 100000``
and then send one space every ``drip`` seconds (for at most ``drip_limit`` seconds), the
way a stalled or hostile server keeps a client waiting.
"""

from __future__ import annotations

import hashlib
import http.server
import threading
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from xml.sax.saxutils import escape

_DAV = "{DAV:}"
_CALDAV = "{urn:ietf:params:xml:ns:caldav}"
_HEAD = '<?xml version="1.0" encoding="utf-8"?><D:multistatus xmlns:D="DAV:" ' + (
    'xmlns:C="urn:ietf:params:xml:ns:caldav">'
)
_TAIL = "</D:multistatus>"
_OK = "<D:status>HTTP/1.1 200 OK</D:status>"


@dataclass
class StubCalendar:
    """What the stub serves; change ``members`` between reads to change the calendar."""

    members: dict[str, bytes] = field(default_factory=dict)
    drip: float | None = None
    drip_limit: float = 8.0
    stop: threading.Event = field(default_factory=threading.Event)
    url: str = ""

    def etag(self, name: str) -> str:
        return '"' + hashlib.sha256(self.members[name]).hexdigest()[:16] + '"'

    def object_url(self, name: str) -> str:
        return f"{self.url}{name}"


def _member(calendar: StubCalendar, name: str, data: bool) -> str:
    body = f"<D:getetag>{escape(calendar.etag(name))}</D:getetag>"
    if data:
        text = calendar.members[name].decode("utf-8")
        # CR escaped so the XML parser keeps the CRLF line breaks as sent.
        body += f"<C:calendar-data>{escape(text).replace(chr(13), '&#13;')}</C:calendar-data>"
    return (
        f"<D:response><D:href>/cal/{name}</D:href><D:propstat><D:prop>{body}</D:prop>"
        f"{_OK}</D:propstat></D:response>"
    )


def _handler(calendar: StubCalendar) -> type[http.server.BaseHTTPRequestHandler]:
    class Handler(http.server.BaseHTTPRequestHandler):
        def _reply(self, status: int, text: str) -> None:
            body = text.encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/xml; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _body(self) -> bytes:
            return self.rfile.read(int(self.headers.get("Content-Length", "0")))

        def _drip(self) -> None:
            self.send_response(207)
            self.send_header("Content-Type", "application/xml")
            self.send_header("Content-Length", "100000")
            self.end_headers()
            began = time.monotonic()
            while not calendar.stop.is_set() and time.monotonic() - began < calendar.drip_limit:
                try:
                    self.wfile.write(b" ")
                    self.wfile.flush()
                except OSError:
                    return
                calendar.stop.wait(calendar.drip or 0)
            self.close_connection = True

        def do_PROPFIND(self) -> None:
            self._body()
            if calendar.drip is not None:
                self._drip()
                return
            home = (
                "<D:response><D:href>/cal/</D:href><D:propstat><D:prop><D:resourcetype>"
                "<D:collection/><C:calendar/></D:resourcetype><D:displayname>Stub"
                f"</D:displayname></D:prop>{_OK}</D:propstat></D:response>"
            )
            members = ""
            if self.headers.get("Depth") == "1":
                members = "".join(_member(calendar, name, False) for name in calendar.members)
            self._reply(207, _HEAD + home + members + _TAIL)

        def do_REPORT(self) -> None:
            root = ET.fromstring(self._body())
            if root.tag == f"{_DAV}sync-collection":
                members = "".join(_member(calendar, name, False) for name in calendar.members)
                token = "<D:sync-token>stub-1</D:sync-token>"
                self._reply(207, _HEAD + members + token + _TAIL)
                return
            if root.tag != f"{_CALDAV}calendar-multiget":
                self._reply(501, "")
                return
            parts = []
            for href in root.iter(f"{_DAV}href"):
                name = (href.text or "").rpartition("/")[2]
                if name in calendar.members:
                    parts.append(_member(calendar, name, True))
                else:
                    parts.append(
                        f"<D:response><D:href>{escape(href.text or '')}</D:href>"
                        "<D:status>HTTP/1.1 404 Not Found</D:status></D:response>"
                    )
            self._reply(207, _HEAD + "".join(parts) + _TAIL)

        def log_message(self, format: str, *args: object) -> None:
            pass

    return Handler


@contextmanager
def serving(calendar: StubCalendar) -> Iterator[StubCalendar]:
    """Serve ``calendar`` on 127.0.0.1 (a free port) until the block ends."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _handler(calendar))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    calendar.url = f"http://127.0.0.1:{server.server_address[1]}/cal/"
    try:
        yield calendar
    finally:
        calendar.stop.set()
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
