"""Configuration of the HTTP service: byte limit, body timeout, optional bearer token,
asset folders."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

from cerebri.calendars.find_slot_body import MAX_FIND_SLOT_BYTES
from cerebri.errors import CerebriError

__all__ = [
    "BODY_TIMEOUT_SECONDS",
    "EXAMPLES_DIR",
    "LAB_DIR",
    "MAX_BODY_TIMEOUT_SECONDS",
    "MAX_FIND_SLOT_BYTES",
    "MAX_REQUEST_BYTES",
    "ServiceSettings",
    "SettingsError",
]

MAX_REQUEST_BYTES = 256 * 1024
"""Largest accepted request body, in bytes (api.md section 2); one more byte gets 413."""

BODY_TIMEOUT_SECONDS = 10.0
"""Seconds a client has to send the whole request body; later gets 408 ``http.body_timeout``."""

MAX_BODY_TIMEOUT_SECONDS = 3600.0
"""The longest body timeout accepted, in seconds (one hour): ``inf`` or ``1e308`` would
silently turn the timeout off."""

LAB_DIR = Path(__file__).resolve().parent / "lab"
"""The packaged Lab page, served at ``/lab/``."""

EXAMPLES_DIR = Path(__file__).resolve().parent / "examples"
"""The packaged example requests, served at ``/v1/examples/{name}``."""


class SettingsError(CerebriError, ValueError):
    """A service setting is out of range. Code ``serve.invalid_option`` (``cerebri serve``
    prints it as one error line and exits 2)."""

    code = "serve.invalid_option"


@dataclass(frozen=True)
class ServiceSettings:
    """How :func:`cerebri.service.create_app` builds the application.

    Attributes:
        token: when set (non-empty), every request must carry ``Authorization: Bearer
            <token>`` (or, with an execution store, a principal's token); otherwise it gets
            a 401 problem (code ``auth.unauthorized``). The Lab's static files need none.
        require_token: every request needs a bearer token even when ``token`` is not set:
            a principal's token of the execution store (``cerebri serve`` sets it when
            serving beyond loopback with principals and no service token).
        max_request_bytes: body limit; larger bodies get 413 before any parsing.
        max_find_slot_bytes: body limit of ``/v1/find-slot`` and ``/v1/find-slot/event``
            (their bodies carry .ics text); larger bodies get 413 before any parsing.
        lab_dir: folder of static Lab assets; when it does not exist, ``/lab/`` is 404.
        examples_dir: folder of ``*.json`` example requests.
        outbox: the iTIP outbox folder the workers write to (``cerebri serve --outbox DIR``
            or ``CEREBRI_OUTBOX``), where ``POST /v1/outbox/resolve`` settles an interrupted
            send; ``None`` (the default): that route answers 409 ``outbox.not_configured``.
        body_timeout_seconds: seconds to receive the whole body, a finite number with
            ``0 < t <= MAX_BODY_TIMEOUT_SECONDS`` (3600), else :class:`SettingsError`
            (``serve.invalid_option``; NaN and infinity included); a slower or unfinished
            body gets 408 (code ``http.body_timeout``) and a closed connection.
    """

    token: str | None = None
    require_token: bool = False
    max_request_bytes: int = MAX_REQUEST_BYTES
    max_find_slot_bytes: int = MAX_FIND_SLOT_BYTES
    lab_dir: Path = field(default=LAB_DIR)
    examples_dir: Path = field(default=EXAMPLES_DIR)
    body_timeout_seconds: float = BODY_TIMEOUT_SECONDS
    outbox: Path | None = None

    def __post_init__(self) -> None:
        timeout = self.body_timeout_seconds
        if not (
            isinstance(timeout, int | float)
            and not isinstance(timeout, bool)
            and math.isfinite(timeout)
            and 0 < timeout <= MAX_BODY_TIMEOUT_SECONDS
        ):
            raise SettingsError(
                f"body timeout must be a number of seconds with 0 < t <= "
                f"{MAX_BODY_TIMEOUT_SECONDS:g}, got {timeout!r}"
            )
