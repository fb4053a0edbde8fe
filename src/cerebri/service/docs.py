"""Offline API docs: ``/docs`` (Swagger UI) and ``/redoc`` (ReDoc) with their scripts, styles
and icon served from the installed ``fastapi-offline`` package, never from a CDN.

Both pages carry a ``Content-Security-Policy`` that allows only this app (plus inline scripts
and styles, which the pages need, and ``data:``/``blob:`` for images and ReDoc's worker), so a
browser does not even try a third-party host: ReDoc's sidebar would otherwise fetch its
vendor's logo from ``cdn.redoc.ly`` (docs/decisions/0029).
"""

from __future__ import annotations

from pathlib import Path

import fastapi_offline
from fastapi import FastAPI
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from starlette.responses import HTMLResponse
from starlette.staticfiles import StaticFiles

__all__ = ["DOCS_ASSETS", "DOCS_CSP", "STATIC_PREFIX", "add_docs"]

DOCS_ASSETS = Path(fastapi_offline.__file__).resolve().parent / "static"
"""The package's folder of ``swagger-ui-bundle.js``, ``swagger-ui.css``,
``redoc.standalone.js`` and ``favicon.png``."""

STATIC_PREFIX = "/static-offline-docs"
"""Where those files are served."""

DOCS_CSP = (
    "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self' data:; worker-src 'self' blob:; "
    "connect-src 'self'; frame-ancestors 'self'"
)
"""The docs pages' ``Content-Security-Policy``: nothing beyond this app."""


def _sealed(page: HTMLResponse) -> HTMLResponse:
    page.headers["Content-Security-Policy"] = DOCS_CSP
    return page


def add_docs(app: FastAPI) -> None:
    """Serve the docs assets and add ``GET /docs`` and ``GET /redoc`` (not in the schema);
    ``app`` must have been built with ``docs_url=None, redoc_url=None``."""
    app.mount(STATIC_PREFIX, StaticFiles(directory=DOCS_ASSETS), name="static-offline-docs")
    icon = f"{STATIC_PREFIX}/favicon.png"

    @app.get("/docs", include_in_schema=False)
    def swagger_ui() -> HTMLResponse:
        """Swagger UI over ``/openapi.json``."""
        return _sealed(
            get_swagger_ui_html(
                openapi_url=app.openapi_url or "/openapi.json",
                title=f"{app.title} - Swagger UI",
                swagger_js_url=f"{STATIC_PREFIX}/swagger-ui-bundle.js",
                swagger_css_url=f"{STATIC_PREFIX}/swagger-ui.css",
                swagger_favicon_url=icon,
                swagger_ui_parameters={"validatorUrl": None},
            )
        )

    @app.get("/redoc", include_in_schema=False)
    def redoc() -> HTMLResponse:
        """ReDoc over ``/openapi.json`` (no web fonts)."""
        return _sealed(
            get_redoc_html(
                openapi_url=app.openapi_url or "/openapi.json",
                title=f"{app.title} - ReDoc",
                redoc_js_url=f"{STATIC_PREFIX}/redoc.standalone.js",
                redoc_favicon_url=icon,
                with_google_fonts=False,
            )
        )
