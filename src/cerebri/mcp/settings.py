"""What the operator configures when starting ``cerebri mcp``; never a tool argument.

Authority lives here: the signing key (and its registry), the author of proposals, the
execution store, the CalDAV sources and their credentials. An agent calling the tools can
name a configured CalDAV source, never a URL, and can never pass a key
(docs/decisions/0033-mcp-tool-server.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from cerebri.clock import Clock, FakeClock, SystemClock
from cerebri.mcp.results import MAX_KEPT_BYTES, MAX_RESULT_BYTES
from cerebri.temporal import Instant

if TYPE_CHECKING:  # the CalDAV client loads only when a source is configured
    from cerebri.integrations.credentials import CalDAVLogins

__all__ = ["DEFAULT_AUTHOR", "DEFAULT_SUMMARY_BYTES", "McpSettings"]

DEFAULT_SUMMARY_BYTES = 64 * 1024
"""Answers whose JSON text is longer than this are summarised (:mod:`cerebri.mcp.results`)."""
DEFAULT_AUTHOR = "service:cerebri-mcp"
"""The author of an unsigned envelope when none is configured."""


@dataclass(frozen=True)
class McpSettings:
    """The server's configuration.

    Attributes:
        summary_bytes: largest answer (bytes of JSON text) returned whole.
        max_result_bytes: largest answer at all (``mcp.result_too_large`` beyond).
        kept_bytes: bytes of summarised answers' full text held for ``resources/read``.
        ics: .ics calendars by name (``name -> file``) a tool may read
            (``cerebri mcp --ics NAME=PATH``).
        ics_root: a folder inside which tools may read .ics files by path (symbolic links
            resolved); ``None``: tool-given paths are refused (``mcp.path_not_allowed``).
        caldav: CalDAV sources by name (``name -> URL``).
        caldav_logins: picks each source URL's login (``cerebri mcp --caldav-credentials``,
            netrc, then ``CEREBRI_CALDAV_USER``/``CEREBRI_CALDAV_PASSWORD``;
            docs/decisions/0037); without it ``caldav_user``/``caldav_password`` are the
            login for all of them.
        key, keyid, registry: the Ed25519 signing key (PKCS#8 PEM), its id and the key
            registry (default ``registry.json`` beside the key); without ``key``, ``propose``
            returns unsigned envelopes.
        author: ``principal:<id>`` or ``service:<id>``; default: the registry's principal
            for ``keyid`` when signing, :data:`DEFAULT_AUTHOR` when not.
        objects: object store directory where a signed proposal's artifact is stored.
        store: execution store URL; ``preview`` of stored plans and ``plan_status`` need it.
        at: a fixed instant to use as "now" (tests, replays); default the system clock.
    """

    summary_bytes: int = DEFAULT_SUMMARY_BYTES
    max_result_bytes: int = MAX_RESULT_BYTES
    kept_bytes: int = MAX_KEPT_BYTES
    ics: Mapping[str, Path] = field(default_factory=dict)
    ics_root: Path | None = None
    caldav: Mapping[str, str] = field(default_factory=dict)
    caldav_user: str | None = None
    caldav_password: str | None = None
    caldav_logins: CalDAVLogins | None = None
    use_cache: bool = True
    key: Path | None = None
    keyid: str | None = None
    registry: Path | None = None
    author: str | None = None
    objects: Path | None = None
    store: str | None = None
    at: Instant | None = None

    def clock(self) -> Clock:
        """A fake clock stopped at :attr:`at`, else the system clock (the shell reads it)."""
        if self.at is None:
            return SystemClock()
        return FakeClock(self.at)
