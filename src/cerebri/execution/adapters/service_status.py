"""``service.status``: a bounded read of one named service (plans.md section 6: allowed by
default).

The answer comes from a *probe*, ``probe(name) -> {property: value}``: by default
:func:`systemctl_probe`, which asks systemd (``systemctl show``, at most
:data:`PROBE_TIMEOUT_SECONDS` seconds and :data:`MAX_OUTPUT_BYTES` bytes of output); tests and
hosts without systemd inject a mapping or another callable.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Mapping
from typing import Final

from cerebri._guard import CALLABLE, arguments
from cerebri._json import JSONValue
from cerebri.execution.adapters.base import (
    AdapterError,
    DispatchingAdapter,
    Invocation,
    adapter_argument_error,
    serves,
)

__all__ = [
    "MAX_OUTPUT_BYTES",
    "PROBE_TIMEOUT_SECONDS",
    "PROPERTIES",
    "Probe",
    "ServiceStatusAdapter",
    "systemctl_probe",
]

PROBE_TIMEOUT_SECONDS: Final = 5.0
"""Longest a ``systemctl`` call may run, in seconds."""
MAX_OUTPUT_BYTES: Final = 64 * 1024
"""Largest ``systemctl`` output read, in bytes; more is refused."""
PROPERTIES: Final = ("ActiveState", "SubState")
"""The unit properties read (systemd.unit(5), ``org.freedesktop.systemd1.Unit``)."""

Probe = Callable[[str], Mapping[str, str]]
"""``probe(service name) -> {property: value}`` for at least :data:`PROPERTIES`."""


def _parse_properties(text: str) -> dict[str, str]:
    """``Key=Value`` lines (``systemctl show``) as a dict; other lines are ignored."""
    found: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep:
            found[key] = value
    return found


@arguments(adapter_argument_error, name=str, timeout_seconds=(int, float), max_output_bytes=int)
def systemctl_probe(
    name: str,
    *,
    timeout_seconds: float = PROBE_TIMEOUT_SECONDS,
    max_output_bytes: int = MAX_OUTPUT_BYTES,
) -> dict[str, str]:
    """The :data:`PROPERTIES` of unit ``name`` from ``systemctl show``.

    Runs ``systemctl show --no-pager --property=ActiveState,SubState -- <name>`` without a
    shell, in the C locale, for at most ``timeout_seconds`` seconds.

    Raises:
        AdapterError: ``adapter.unavailable`` (retryable) when ``systemctl`` is missing, does
            not finish in time or exits non-zero (no systemd manager to ask);
            ``adapter.output_too_large`` when it prints more than ``max_output_bytes`` bytes.
    """
    command = ["systemctl", "show", "--no-pager", f"--property={','.join(PROPERTIES)}", "--", name]
    try:
        done = subprocess.run(  # noqa: S603 - fixed command, the name is one argument after --
            command,
            capture_output=True,
            timeout=timeout_seconds,
            check=False,
            env={**os.environ, "LC_ALL": "C", "SYSTEMD_PAGER": ""},
        )
    except FileNotFoundError:
        raise AdapterError(
            "systemctl is not installed", code="adapter.unavailable", retryable=True
        ) from None
    except subprocess.TimeoutExpired:
        raise AdapterError(
            f"systemctl show {name} did not finish within {timeout_seconds} s",
            code="adapter.unavailable",
            retryable=True,
        ) from None
    if len(done.stdout) > max_output_bytes:
        raise AdapterError(
            f"systemctl show {name} printed more than {max_output_bytes} bytes",
            code="adapter.output_too_large",
        )
    if done.returncode != 0:
        reason = done.stderr[:1024].decode("utf-8", "replace").strip()
        raise AdapterError(
            f"systemctl show {name} exited with {done.returncode}: {reason}",
            code="adapter.unavailable",
            retryable=True,
        )
    return _parse_properties(done.stdout.decode("utf-8", "replace"))


class ServiceStatusAdapter(DispatchingAdapter):
    """Serves ``service.status`` (params ``{"service": name}``).

    Result: ``{"service": name, "active": ActiveState == "active", "properties":
    {"ActiveState": ..., "SubState": ...}}``.

    ``probe`` is a callable (default :func:`systemctl_probe`) or a mapping from service name
    to its properties (a name not in it raises ``service.not_found``).

    Raises:
        AdapterError: ``adapter.invalid_params`` (a name that is empty or starts with ``-``),
            ``adapter.failed`` (the probe did not report every property), the probe's own
            errors (``adapter.unavailable``...), ``adapter.unsupported_capability``.
    """

    __slots__ = ("_probe",)

    @arguments(adapter_argument_error, probe=(CALLABLE, Mapping))
    def __init__(self, probe: Probe | Mapping[str, Mapping[str, str]] = systemctl_probe) -> None:
        self._probe = probe

    def _properties(self, name: str) -> Mapping[str, str]:
        if callable(self._probe):
            return self._probe(name)
        known = self._probe.get(name)
        if known is None:
            raise AdapterError(f"no service {name!r}", code="service.not_found")
        return known

    @serves("service.status")
    def _status(self, invocation: Invocation) -> dict[str, JSONValue]:
        """The status of ``invocation.params["service"]`` (see the class doc)."""
        name = invocation.params.get("service")
        if not isinstance(name, str) or not name or name.startswith("-"):
            raise AdapterError(
                f"service name {name!r} is not usable", code="adapter.invalid_params"
            )
        found = self._properties(name)
        missing = [p for p in PROPERTIES if p not in found]
        if missing:
            raise AdapterError(
                f"status of {name!r} lacks {', '.join(missing)}", code="adapter.failed"
            )
        properties: dict[str, JSONValue] = {p: str(found[p]) for p in PROPERTIES}
        return {
            "service": name,
            "active": found["ActiveState"] == "active",
            "properties": properties,
        }
