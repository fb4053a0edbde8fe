"""The cerebri HTTP service: a thin FastAPI transport over the core functions.

``create_app(settings, executor=None)`` builds the ASGI application (with an executor, also
the plan and approval routes over its store); ``serve(...)`` runs it with uvicorn
(the ``cerebri serve`` command). Routes, status codes and error codes are listed in
:mod:`cerebri.service.app`.
"""

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
