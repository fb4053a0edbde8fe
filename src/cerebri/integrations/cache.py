"""A local copy of CalDAV calendar collections: :class:`CalendarCache`.

One SQLite database per calendar collection and user name holds the collection's calendar
objects by URL, each with its ``ETag`` and iCalendar text, and the WebDAV sync token (RFC
6578) that the server returned with that state. :mod:`cerebri.integrations.caldav_source`
reads the stored state, asks the server what changed since, and writes the changes back.

Where it lives: ``$CEREBRI_CACHE_DIR`` (:data:`CACHE_DIR_ENV`) when set, else the user's
cache directory from ``platformdirs`` followed by ``cerebri/caldav``. The file name is the
SHA-256 of the collection URL (without credentials) and the user name, so neither appears in
a directory listing; both are stored inside the file and checked when it is opened.

Crash safety: SQLite in WAL mode, and each refresh is one transaction. A writer killed
mid-refresh leaves the previous committed state; a reader never sees half a refresh.
Concurrent readers and writers of one file are serialised by SQLite's own locking. Two
refreshes that started from the same state race harmlessly: the second to commit finds that
the stored generation moved on and writes nothing (its caller still gets a correct answer).

A file that SQLite cannot read, that fails ``PRAGMA quick_check``, or whose schema, version,
URL or user do not match is never trusted: it is deleted and rebuilt from the server (the
state is reported as ``"discarded"``). The same holds for damage SQLite cannot see: each
object's row keeps the SHA-256 of its text, and the file keeps a SHA-256 over the whole
state (every object's key, URL, ``ETag`` and text digest, sorted by key, and the sync
token); both are checked on every load, so an edited text, ETag or token and a deleted or
added row are all found. (These digests detect damage and stray edits; anyone who can write
the file can also recompute them, so they are no defence against a deliberate forger.)

The cache is an optimisation only: when the folder cannot be created or written the read
goes on without it (``"unavailable"``).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, Literal

import filelock
import platformdirs

from cerebri._guard import PATH, arguments
from cerebri.integrations.arguments import invalid_argument

__all__ = [
    "CACHE_DIR_ENV",
    "CacheState",
    "CachedCalendar",
    "CachedObject",
    "CalendarCache",
]

CACHE_DIR_ENV: Final = "CEREBRI_CACHE_DIR"
"""Environment variable naming the folder of the CalDAV cache (overrides the user's cache)."""

CacheState = Literal["off", "new", "used", "discarded", "unavailable"]
"""How a read met its cache: ``off`` (no cache asked for), ``new`` (no file yet), ``used``
(a stored state was read), ``discarded`` (a file that was unreadable, of another version,
calendar or user, or whose digests did not match its content was deleted and rebuilt),
``unavailable`` (the folder or file could not be opened; the read went on without it)."""

_SCHEMA_VERSION: Final = "2"
_SUFFIX: Final = ".sqlite3"
_BUSY_TIMEOUT_SECONDS: Final = 30.0
_CORRUPT_CODES: Final = frozenset({11, 26})  # SQLITE_CORRUPT, SQLITE_NOTADB
_SCHEMA: Final = (
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS objects ("
    " key TEXT PRIMARY KEY, url TEXT NOT NULL, etag TEXT, data TEXT NOT NULL,"
    " digest TEXT NOT NULL)",
)


@dataclass(frozen=True, slots=True)
class CachedObject:
    """One calendar object as last fetched.

    Attributes:
        key: the object's path on the server, percent-decoded (how objects are matched).
        url: the object's URL without credentials (the ``source`` of what it yields).
        etag: the ``ETag`` the server gave for this text (``None`` if it gave none).
        data: the iCalendar text as the server stored it.
    """

    key: str
    url: str
    etag: str | None
    data: str


@dataclass(frozen=True, slots=True)
class CachedCalendar:
    """The stored state of one collection: empty when there was none.

    Attributes:
        sync_token: the RFC 6578 sync token of this state, ``None`` when unknown.
        objects: the objects by :attr:`CachedObject.key`.
        generation: a counter raised by every write (optimistic concurrency).
        state: how the file was found (:data:`CacheState`).
    """

    sync_token: str | None = None
    objects: Mapping[str, CachedObject] = field(default_factory=dict)
    generation: int = 0
    state: CacheState = "new"


class _CorruptError(Exception):
    """The file is not a cache this version trusts."""


class CalendarCache:
    """A folder of per-collection SQLite caches (see the module documentation).

    Args:
        directory: the folder; created (mode ``0700``) on the first write.
    """

    @arguments(invalid_argument, directory=PATH)
    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)

    @classmethod
    def user(cls) -> CalendarCache:
        """The user's cache: ``$CEREBRI_CACHE_DIR`` if set and not empty, else
        ``platformdirs.user_cache_dir("cerebri")/caldav``."""
        configured = os.environ.get(CACHE_DIR_ENV, "")
        if configured:
            return cls(configured)
        return cls(Path(platformdirs.user_cache_dir("cerebri", appauthor=False)) / "caldav")

    @arguments(invalid_argument, calendar_url=str, username=(str, type(None)))
    def path_for(self, calendar_url: str, username: str | None) -> Path:
        """The database file of one collection URL (without credentials) and user name."""
        digest = hashlib.sha256(_identity(calendar_url, username).encode("utf-8")).hexdigest()
        return self.directory / f"{digest}{_SUFFIX}"

    @arguments(invalid_argument, calendar_url=str, username=(str, type(None)))
    def load(self, calendar_url: str, username: str | None) -> CachedCalendar:
        """The stored state of a collection, read in one transaction.

        Never raises for a bad file: a file that cannot be trusted is deleted (state
        ``"discarded"``), a folder that cannot be opened gives state ``"unavailable"``;
        both come back empty.
        """
        path = self.path_for(calendar_url, username)
        try:
            with self._opened(path, calendar_url, username) as (connection, discarded):
                try:
                    return _read(connection, "discarded" if discarded else None)
                except (_CorruptError, sqlite3.DatabaseError) as exc:
                    if not _is_corrupt(exc):
                        raise
            with self._lock(path):
                _delete(path)
            return CachedCalendar(state="discarded")
        except (OSError, sqlite3.Error, filelock.Timeout):
            return CachedCalendar(state="unavailable")

    @arguments(
        invalid_argument,
        calendar_url=str,
        username=(str, type(None)),
        base=CachedCalendar,
        sync_token=(str, type(None)),
    )
    def save(
        self,
        calendar_url: str,
        username: str | None,
        base: CachedCalendar,
        *,
        changed: Iterable[CachedObject],
        removed: Iterable[str],
        sync_token: str | None,
    ) -> bool:
        """Apply one refresh in one transaction: upsert ``changed``, delete the keys in
        ``removed``, store ``sync_token``.

        Writes only if the stored generation is still ``base.generation`` (else another
        process refreshed meanwhile). Returns whether it wrote; never raises for I/O or
        database failures (the cache is then left as it was, or discarded next time).
        """
        path = self.path_for(calendar_url, username)
        try:
            with self._opened(path, calendar_url, username) as (connection, discarded):
                if discarded and base.generation != 0:
                    return False
                return _write(connection, base.generation, changed, removed, sync_token)
        except (OSError, sqlite3.Error, filelock.Timeout):
            return False

    @contextlib.contextmanager
    def _opened(
        self, path: Path, calendar_url: str, username: str | None
    ) -> Iterator[tuple[sqlite3.Connection, bool]]:
        """An open, checked connection, and whether a bad file was discarded first."""
        self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        with self._lock(path):  # only opening/repairing is serialised, not reads and writes
            discarded = False
            try:
                connection = _open(path, calendar_url, username)
            except (_CorruptError, sqlite3.DatabaseError) as exc:
                if not _is_corrupt(exc):
                    raise
                _delete(path)
                discarded = True
                connection = _open(path, calendar_url, username)
        try:
            yield connection, discarded
        finally:
            connection.close()

    @staticmethod
    def _lock(path: Path) -> filelock.FileLock:
        return filelock.FileLock(str(path) + ".lock", timeout=_BUSY_TIMEOUT_SECONDS)


def _is_corrupt(exc: Exception) -> bool:
    """Whether ``exc`` says the file is damaged (not merely busy or unwritable)."""
    if isinstance(exc, _CorruptError):
        return True
    code = getattr(exc, "sqlite_errorcode", None)
    return isinstance(code, int) and code & 0xFF in _CORRUPT_CODES


def _identity(calendar_url: str, username: str | None) -> str:
    return json.dumps([calendar_url, username])


def _delete(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        with contextlib.suppress(FileNotFoundError):
            Path(str(path) + suffix).unlink()


def _open(path: Path, calendar_url: str, username: str | None) -> sqlite3.Connection:
    """Open (or create) and check the database; raise :class:`_CorruptError` if untrustworthy."""
    if not path.exists():
        # Created private before SQLite opens it: it holds calendar data.
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
    connection = sqlite3.connect(
        path, timeout=_BUSY_TIMEOUT_SECONDS, isolation_level=None, check_same_thread=False
    )
    try:
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("PRAGMA synchronous=FULL")
        if connection.execute("PRAGMA quick_check").fetchone() != ("ok",):
            raise _CorruptError("quick_check failed")
        _ensure_schema(connection, calendar_url, username)
    except BaseException:
        connection.close()
        raise
    return connection


def _ensure_schema(connection: sqlite3.Connection, calendar_url: str, username: str | None) -> None:
    expected = {"version": _SCHEMA_VERSION, "identity": _identity(calendar_url, username)}
    connection.execute("BEGIN IMMEDIATE")
    try:
        tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master")}
        if not tables:
            for statement in _SCHEMA:
                connection.execute(statement)
            rows = [*expected.items(), ("generation", "0"), ("state", _state_digest([], None))]
            connection.executemany("INSERT INTO meta (key, value) VALUES (?, ?)", rows)
        elif not {"meta", "objects"} <= tables:
            raise _CorruptError("missing tables")
        else:
            meta = dict(connection.execute("SELECT key, value FROM meta").fetchall())
            if any(meta.get(key) != value for key, value in expected.items()):
                raise _CorruptError("another version, calendar or user")
        connection.execute("COMMIT")
    except BaseException:
        connection.execute("ROLLBACK")
        raise


def _read(connection: sqlite3.Connection, state: CacheState | None) -> CachedCalendar:
    connection.execute("BEGIN")
    try:
        meta = dict(connection.execute("SELECT key, value FROM meta").fetchall())
        rows = connection.execute("SELECT key, url, etag, data, digest FROM objects").fetchall()
    finally:
        connection.execute("COMMIT")
    objects: dict[str, CachedObject] = {}
    listed: list[tuple[str, str, str | None, str]] = []
    for key, url, etag, data, digest in rows:
        if not all(isinstance(value, str) for value in (key, url, data, digest)):
            raise _CorruptError("a row of the wrong type")
        if etag is not None and not isinstance(etag, str):
            raise _CorruptError("a row of the wrong type")
        if digest != _text_digest(data):
            raise _CorruptError("an object's text does not match its digest")
        objects[key] = CachedObject(key, url, etag, data)
        listed.append((key, url, etag, digest))
    sync_token = meta.get("sync_token")
    if meta.get("state") != _state_digest(listed, sync_token):
        raise _CorruptError("the stored state does not match its digest")
    try:
        generation = int(meta.get("generation", "0"))
    except ValueError as exc:
        raise _CorruptError("a generation that is no number") from exc
    if state is None:
        state = "used" if generation > 0 else "new"
    return CachedCalendar(sync_token, objects, generation, state)


def _text_digest(text: str) -> str:
    """SHA-256 of an object's text (UTF-8), hex."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _state_digest(rows: Iterable[tuple[str, str, str | None, str]], sync_token: str | None) -> str:
    """SHA-256 (hex) over ``(key, url, etag, text digest)`` rows sorted by key, and the token.

    JSON keeps the fields apart, so no two different states share the digested text.
    """
    text = json.dumps([sorted(rows), sync_token], separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _write(
    connection: sqlite3.Connection,
    generation: int,
    changed: Iterable[CachedObject],
    removed: Iterable[str],
    sync_token: str | None,
) -> bool:
    connection.execute("BEGIN IMMEDIATE")
    try:
        row = connection.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()
        if row is None or row[0] != str(generation):
            connection.execute("ROLLBACK")
            return False
        connection.executemany(
            "INSERT OR REPLACE INTO objects (key, url, etag, data, digest) VALUES (?, ?, ?, ?, ?)",
            [
                (item.key, item.url, item.etag, item.data, _text_digest(item.data))
                for item in changed
            ],
        )
        connection.executemany("DELETE FROM objects WHERE key = ?", [(key,) for key in removed])
        if sync_token is None:
            connection.execute("DELETE FROM meta WHERE key = 'sync_token'")
        else:
            connection.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES ('sync_token', ?)", (sync_token,)
            )
        connection.execute(
            "UPDATE meta SET value = ? WHERE key = 'generation'", (str(generation + 1),)
        )
        listed = connection.execute("SELECT key, url, etag, digest FROM objects").fetchall()
        connection.execute(
            "INSERT OR REPLACE INTO meta (key, value) VALUES ('state', ?)",
            (_state_digest([tuple(row) for row in listed], sync_token),),
        )
        connection.execute("COMMIT")
    except BaseException:
        connection.execute("ROLLBACK")
        raise
    return True
