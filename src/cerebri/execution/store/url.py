"""Which store to open: ``--store URL``, else ``CEREBRI_STORE``, else the embedded SQLite file.

Accepted URLs: ``sqlite:///PATH`` (``sqlite+pysqlite`` too) and PostgreSQL through psycopg 3,
``postgresql+psycopg://USER:PASSWORD@HOST:PORT/DB`` (``postgresql://`` is read as psycopg).
Anything else is :class:`StoreError` ``store.invalid_url``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from types import NoneType

import platformdirs
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError

from cerebri._guard import arguments
from cerebri.execution.store.errors import StoreError, store_argument_error

__all__ = ["STORE_ENV", "default_store_path", "parse_store_url", "redacted", "resolve_store_url"]

STORE_ENV = "CEREBRI_STORE"
"""The environment variable naming the store URL when ``--store`` is not given."""

_SQLITE = {"sqlite", "sqlite+pysqlite"}
_POSTGRES = {"postgresql", "postgresql+psycopg"}


def default_store_path() -> Path:
    """``platformdirs.user_data_dir("cerebri")/store.sqlite3`` (not created here)."""
    return Path(platformdirs.user_data_dir("cerebri")) / "store.sqlite3"


@arguments(store_argument_error, store=(str, NoneType), environ=(Mapping, NoneType))
def resolve_store_url(store: str | None, environ: Mapping[str, str] | None = None) -> str:
    """The URL text to use: ``store`` if given, else ``CEREBRI_STORE`` if set and non-empty,
    else ``sqlite:///`` + :func:`default_store_path`."""
    if store:
        return store
    env = os.environ if environ is None else environ
    configured = env.get(STORE_ENV, "").strip()
    if configured:
        return configured
    return f"sqlite:///{default_store_path()}"


@arguments(store_argument_error, text=str)
def parse_store_url(text: str) -> URL:
    """Parse and check a store URL; PostgreSQL URLs get the ``psycopg`` driver.

    Raises :class:`StoreError` ``store.invalid_url`` for unparsable text, another scheme or
    driver, or a SQLite URL with no database path.
    """
    try:
        url = make_url(text)
    except (ArgumentError, ValueError) as error:
        raise StoreError(f"not a database URL: {text!r}", code="store.invalid_url") from error
    if url.drivername in _POSTGRES:
        return url.set(drivername="postgresql+psycopg")
    if url.drivername in _SQLITE:
        if not url.database:
            raise StoreError(
                "a SQLite store needs a file path: sqlite:///PATH", code="store.invalid_url"
            )
        return url
    raise StoreError(
        f"unsupported store scheme {url.drivername!r}: use sqlite:///PATH or "
        "postgresql+psycopg://HOST/DB",
        code="store.invalid_url",
    )


@arguments(store_argument_error, url=URL)
def redacted(url: URL) -> str:
    """The URL as text with any password replaced by ``***``."""
    return url.render_as_string(hide_password=True)
