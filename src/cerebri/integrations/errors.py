"""What reading from a CalDAV server raises: :class:`CalDAVError` and its :data:`CODES`."""

from __future__ import annotations

from typing import Final, Literal

from cerebri.errors import CerebriError

__all__ = ["CODES", "CalDAVError", "CalDAVErrorCode"]

CalDAVErrorCode = Literal[
    "caldav.unreachable",
    "caldav.unauthorized",
    "caldav.not_found",
    "caldav.protocol",
    "caldav.unsupported",
]

CODES: Final[tuple[CalDAVErrorCode, ...]] = (
    "caldav.unreachable",
    "caldav.unauthorized",
    "caldav.not_found",
    "caldav.protocol",
    "caldav.unsupported",
)


class CalDAVError(CerebriError):
    """Reading from a CalDAV server failed.

    Codes:

    ``caldav.unreachable``
        No answer: connection refused, a name that does not resolve, the network timeout
        passed, or a request did not finish as a whole within ``timeout_seconds`` (a
        server that answers too slowly).
    ``caldav.unauthorized``
        The server refused the credentials or the access (HTTP 401 or 403).
    ``caldav.not_found``
        The URL does not exist (HTTP 404/410), is not a calendar where one is needed, or no
        calendar matches the ``calendar`` filter.
    ``caldav.protocol``
        Anything else the server or the ``caldav`` library reported: another HTTP error, a
        reply that is not WebDAV, a TLS failure, a malformed response.
    ``caldav.unsupported``
        The server does not offer the free-busy query (RFC 4791 section 7.10).

    Attributes:
        url: the URL concerned, without credentials.
    """

    code = "caldav.protocol"

    def __init__(self, code: CalDAVErrorCode, message: str, *, url: str) -> None:
        super().__init__(message, code=code)
        self.url = url
