"""Schema migrations of the execution store (Alembic, shipped inside the package).

The migration scripts live in ``cerebri/execution/store/migrations`` and are found through
``importlib.resources``; Alembic's ``Config`` is built here, so no ``alembic.ini`` is needed.

* :func:`init` creates a store or upgrades it to the head revision (idempotent).
* :func:`upgrade` is the same operation under the name operators expect.
* :func:`current_revision` reads the store's revision (``None`` for an empty store).
* :func:`status` reports the redacted URL, the current and the head revision.

Concurrent migrations of one store wait for each other (PostgreSQL advisory lock; SQLite lock
file ``<file>.migrate.lock``). A store whose revision this code does not know (written by a
newer cerebri) is refused before anything is changed: :class:`StoreError` ``store.too_new``.
Connection failures are ``store.unreachable``, a full disk ``store.full``; bad URLs
``store.invalid_url``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from filelock import FileLock
from sqlalchemy import Connection, text
from sqlalchemy.engine import URL
from sqlalchemy.exc import DBAPIError, OperationalError

from cerebri._guard import arguments
from cerebri._json import JSONValue
from cerebri.execution.store.engine import open_engine
from cerebri.execution.store.errors import StoreError, store_argument_error, store_error_code
from cerebri.execution.store.url import parse_store_url, redacted

__all__ = ["StoreStatus", "current_revision", "head_revision", "init", "status", "upgrade"]


@dataclass(frozen=True, slots=True)
class StoreStatus:
    """Where a store is and how far it is migrated.

    ``url`` has its password replaced by ``***``; ``current`` is ``None`` for a store never
    initialised; ``up_to_date`` is ``current == head``.
    """

    url: str
    current: str | None
    head: str

    @property
    def up_to_date(self) -> bool:
        """Whether the store is at the head revision of this code."""
        return self.current == self.head

    def to_wire(self) -> dict[str, JSONValue]:
        """``{"url", "current_revision", "head_revision", "up_to_date"}``."""
        return {
            "url": self.url,
            "current_revision": self.current,
            "head_revision": self.head,
            "up_to_date": self.up_to_date,
        }


def _config() -> Config:
    config = Config()
    location = resources.files("cerebri.execution.store") / "migrations"
    config.set_main_option("script_location", str(location))
    return config


def head_revision() -> str:
    """The newest revision the installed code knows."""
    head = ScriptDirectory.from_config(_config()).get_current_head()
    if head is None:  # pragma: no cover - the package always ships 0001
        raise StoreError("no migrations shipped", code="store.unreachable")
    return head


@contextmanager
def _connected(url_text: str) -> Iterator[Connection]:
    url = parse_store_url(url_text)
    engine = open_engine(url)
    try:
        with engine.connect() as connection:
            yield connection
    except (OperationalError, DBAPIError) as error:
        if store_error_code(error) == "store.full":
            raise StoreError(
                f"the store {redacted(url)} is full: {error.orig}", code="store.full"
            ) from error
        raise StoreError(
            f"cannot open the store {redacted(url)}: {error.orig}", code="store.unreachable"
        ) from error
    finally:
        engine.dispose()


def _revision_of(connection: Connection) -> str | None:
    revision = MigrationContext.configure(connection).get_current_revision()
    if connection.in_transaction():
        connection.rollback()
    return revision


def _refuse_unknown(revision: str | None, url: str) -> None:
    if revision is None:
        return
    scripts = ScriptDirectory.from_config(_config())
    known = {script.revision for script in scripts.walk_revisions()}
    if revision not in known:
        raise StoreError(
            f"the store {url} is at revision {revision!r}, newer than this cerebri knows "
            f"(head {head_revision()!r}); upgrade cerebri before using this store",
            code="store.too_new",
        )


@arguments(store_argument_error, url=str)
def current_revision(url: str) -> str | None:
    """The revision the store at ``url`` is migrated to, ``None`` if never initialised."""
    with _connected(url) as connection:
        return _revision_of(connection)


@arguments(store_argument_error, url=str)
def upgrade(url: str) -> StoreStatus:
    """Create or migrate the store at ``url`` to the head revision; returns its status.

    Runs inside one transaction per migration where the back end allows it. Refuses a store
    newer than this code (``store.too_new``) without touching it.
    """
    parsed = parse_store_url(url)
    redacted_url = redacted(parsed)
    with _connected(url) as connection, _migration_lock(connection, parsed):
        _refuse_unknown(_revision_of(connection), redacted_url)
        config = _config()
        config.attributes["connection"] = connection
        command.upgrade(config, "head")
        connection.commit()
        return StoreStatus(redacted_url, _revision_of(connection), head_revision())


_PG_MIGRATION_LOCK = 0x63657265_62726931  # "cerebri1": the advisory lock key of migrations


@contextmanager
def _migration_lock(connection: Connection, url: URL) -> Iterator[None]:
    """Serialise concurrent migrations of one store: a PostgreSQL session advisory lock, or
    a lock file next to the SQLite file (``<file>.migrate.lock``)."""
    if url.get_backend_name() == "postgresql":
        connection.execute(text("SELECT pg_advisory_lock(:key)"), {"key": _PG_MIGRATION_LOCK})
        connection.commit()
        try:
            yield
        finally:
            connection.rollback()
            connection.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": _PG_MIGRATION_LOCK})
            connection.commit()
        return
    database = url.database or ""
    if database == ":memory:" or database.startswith("file:"):
        yield
        return
    with FileLock(f"{Path(database).expanduser()}.migrate.lock"):
        yield


@arguments(store_argument_error, url=str)
def init(url: str) -> StoreStatus:
    """Create the store at ``url`` (SQLite: the file and its folders) and migrate it to head.

    Idempotent: on an up-to-date store it changes nothing. Same errors as :func:`upgrade`.
    """
    return upgrade(url)


@arguments(store_argument_error, url=str)
def status(url: str) -> StoreStatus:
    """The redacted URL, current and head revisions of the store at ``url`` (read-only).

    Raises ``store.too_new`` for a store migrated by a newer cerebri. A SQLite file that does
    not exist is reported as not initialised and is not created.
    """
    parsed = parse_store_url(url)
    redacted_url = redacted(parsed)
    if parsed.get_backend_name() == "sqlite" and not Path(parsed.database or "").exists():
        return StoreStatus(redacted_url, None, head_revision())
    with _connected(url) as connection:
        current = _revision_of(connection)
    _refuse_unknown(current, redacted_url)
    return StoreStatus(redacted_url, current, head_revision())
