"""The cerebri HTTP service: a thin FastAPI transport over the core functions.

``create_app(settings, executor=None)`` builds the ASGI application (with an executor, also
the plan and approval routes over its store); ``serve(...)`` runs it with uvicorn
(the ``cerebri serve`` command). Routes, status codes and error codes are listed in
:mod:`cerebri.service.app`.

The names below are loaded on first use (PEP 562 module ``__getattr__``): importing a light
submodule such as :mod:`cerebri.service.openapi` or :mod:`cerebri.service.find_slot_routes`
(the MCP server, ``cerebri bridge``) does not load FastAPI, the execution store or uvicorn.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from cerebri.service.app import create_app
    from cerebri.service.server import ServeError, serve
    from cerebri.service.settings import MAX_REQUEST_BYTES, ServiceSettings, SettingsError

__all__ = [
    "MAX_REQUEST_BYTES",
    "ServeError",
    "ServiceSettings",
    "SettingsError",
    "create_app",
    "serve",
]

_HOMES: Final = {
    "MAX_REQUEST_BYTES": "settings",
    "ServeError": "server",
    "ServiceSettings": "settings",
    "SettingsError": "settings",
    "create_app": "app",
    "serve": "server",
}
"""Each public name -> the submodule that defines it."""


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"cerebri.service.{home}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
