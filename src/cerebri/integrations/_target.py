"""The URL a CalDAV request goes to, and its failures as :class:`CalDAVError`.

Messages name the URL without credentials and never the password (:class:`_Target`);
what the ``caldav`` library and its HTTP client raise is translated to one of the
:data:`~cerebri.integrations.errors.CODES` (:func:`_translated`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Final, NoReturn
from urllib.parse import unquote, urlsplit

from caldav.lib import error as dav_error
from caldav.lib.http_sync import requests as http

from cerebri.errors import CerebriError
from cerebri.integrations._deadline import DeadlineError
from cerebri.integrations.arguments import invalid_argument
from cerebri.integrations.errors import CalDAVError, CalDAVErrorCode

_SUPPORTED_REPORT: Final = "{DAV:}supported-report"
_UNSUPPORTED_STATUSES: Final = frozenset({405, 415, 501})
_ERRNO_RE: Final = re.compile(r"\[Errno -?\d+\][^'\"()\]]*")


@dataclass(frozen=True, slots=True)
class _Target:
    """The URL as given (it may carry credentials), its shown form and what to redact."""

    url: str
    shown: str
    secrets: tuple[str, ...]

    def fail(self, code: CalDAVErrorCode, message: str) -> NoReturn:
        # Short secrets are not searched for: replacing every "x" in a message garbles it
        # and tells a reader which letters the password holds. Messages never quote the
        # password themselves; this only guards library text that echoes a URL.
        for secret in self.secrets:
            if len(secret) >= 6:
                message = message.replace(secret, "***")
        raise CalDAVError(code, message, url=self.shown)


def _target(url: str, password: str | None, timeout_seconds: float) -> _Target:
    if not isinstance(url, str):
        raise invalid_argument(f"url must be a str, not {type(url).__name__}")
    if isinstance(timeout_seconds, bool) or not isinstance(timeout_seconds, int | float):
        raise invalid_argument("timeout_seconds must be a number")
    if not (math.isfinite(timeout_seconds) and timeout_seconds > 0):
        raise invalid_argument("timeout_seconds must be a finite number above 0")
    parts = urlsplit(url)
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise invalid_argument("url must be an absolute http:// or https:// URL")
    secrets = [secret for secret in (password, parts.password) if secret]
    secrets += [unquote(secret) for secret in secrets]
    longest_first = sorted(set(secrets), key=lambda secret: (-len(secret), secret))
    return _Target(url, _shown(url), tuple(longest_first))


def _shown(url: object) -> str:
    """A URL from the library as text, without credentials."""
    parts = urlsplit(str(url))
    return parts._replace(netloc=parts.netloc.rpartition("@")[2]).geturl()


def _cause(exc: BaseException) -> str:
    """The operating system's reason inside an HTTP client error, e.g. ``[Errno 111] ...``.

    The client's own text names internal objects by memory address; this keeps the
    message the same from run to run.
    """
    text = str(exc)
    if "NameResolutionError" in text or "Failed to resolve" in text:
        return "the host name does not resolve"
    found = _ERRNO_RE.search(text)
    return found.group().strip() if found else type(exc).__name__


@contextmanager
def _translated(target: _Target, *, freebusy: bool = False) -> Iterator[None]:
    """Turn what the ``caldav`` library and its HTTP client raise into :class:`CalDAVError`."""
    try:
        yield
    except CerebriError:
        raise
    except dav_error.DAVError as exc:
        status = exc.status
        reason = f"HTTP {status}" if status is not None else " ".join(str(exc.reason).split())
        if freebusy and (_SUPPORTED_REPORT in exc.preconditions or status in _UNSUPPORTED_STATUSES):
            target.fail(
                "caldav.unsupported",
                f"{target.shown} does not support the CalDAV free-busy query ({reason})",
            )
        if isinstance(exc, dav_error.AuthorizationError) or status in (401, 403):
            target.fail("caldav.unauthorized", f"{target.shown} refused access ({reason})")
        if isinstance(exc, dav_error.NotFoundError) or status in (404, 410):
            target.fail("caldav.not_found", f"{target.shown} was not found ({reason})")
        target.fail(
            "caldav.protocol",
            f"{target.shown}: the CalDAV request failed ({type(exc).__name__}: {reason})",
        )
    except http.exceptions.SSLError as exc:
        target.fail("caldav.protocol", f"{target.shown}: TLS failed ({exc})")
    except http.exceptions.Timeout:
        target.fail("caldav.unreachable", f"{target.shown} did not answer within the timeout")
    except DeadlineError as exc:
        target.fail(
            "caldav.unreachable",
            f"{target.shown}: a request did not finish within {exc.seconds:g} s "
            "(the timeout applies to each request as a whole)",
        )
    except http.exceptions.ConnectionError as exc:
        target.fail("caldav.unreachable", f"{target.shown} could not be reached ({_cause(exc)})")
    except Exception as exc:  # the library's parsers raise many types; never leak them
        target.fail(
            "caldav.protocol", f"{target.shown}: unexpected reply ({type(exc).__name__}: {exc})"
        )
