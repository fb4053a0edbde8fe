"""Store schema and migrations on both back ends (cerebri.execution.store)."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import create_engine, inspect, text
from sqlalchemy.exc import IntegrityError

from cerebri.execution import store
from cerebri.execution.store import StoreError

EXPECTED_TABLES = {
    "alembic_version",
    "approvals",
    "attempt_history",
    "attempts",
    "beliefs",
    "calendar_owners",
    "envelopes",
    "grants",
    "intentions",
    "plans",
    "predictions",
    "principal_keys",
    "principal_tokens",
    "principals",
    "procedural_memories",
    "sandboxes",
    "steps",
    "timers",
}


def _tables(url: str) -> set[str]:
    engine = create_engine(url)
    try:
        return set(inspect(engine).get_table_names())
    finally:
        engine.dispose()


def test_init_creates_every_table_and_is_idempotent(store_url: str) -> None:
    assert store.current_revision(store_url) is None
    first = store.init(store_url)
    assert (first.current, first.head, first.up_to_date) == ("0005", "0005", True)
    assert _tables(store_url) == EXPECTED_TABLES
    again = store.init(store_url)
    assert again == first
    assert _tables(store_url) == EXPECTED_TABLES
    assert store.current_revision(store_url) == "0005"


def test_status_reports_head_and_not_initialised(store_url: str) -> None:
    before = store.status(store_url)
    assert (before.current, before.head, before.up_to_date) == (None, "0005", False)
    store.upgrade(store_url)
    after = store.status(store_url)
    assert after.to_wire() == {
        "url": after.url,
        "current_revision": "0005",
        "head_revision": "0005",
        "up_to_date": True,
    }


def _stamp(url: str, revision: str) -> None:
    engine = create_engine(url)
    try:
        with engine.begin() as connection:
            connection.execute(text("UPDATE alembic_version SET version_num = :v"), {"v": revision})
    finally:
        engine.dispose()


@pytest.mark.parametrize("operation", ["init", "upgrade", "status"])
def test_a_store_newer_than_the_code_is_refused(store_url: str, operation: str) -> None:
    store.init(store_url)
    _stamp(store_url, "9999")
    with pytest.raises(StoreError) as caught:
        getattr(store, operation)(store_url)
    assert caught.value.code == "store.too_new"
    assert "9999" in caught.value.message
    assert store.current_revision(store_url) == "9999"  # left untouched


def test_schema_matches_the_metadata(store_url: str) -> None:
    from alembic.autogenerate import compare_metadata
    from alembic.runtime.migration import MigrationContext

    store.init(store_url)
    engine = create_engine(store_url)
    try:
        with engine.connect() as connection:
            diff = compare_metadata(MigrationContext.configure(connection), store.METADATA)
    finally:
        engine.dispose()
    assert diff == []


def test_status_checks_are_enforced(store_url: str) -> None:
    store.init(store_url)
    engine = create_engine(store_url)
    row = {"id": "i1", "status": "open", "created_at": 0, "updated_at": 0}
    try:
        with engine.begin() as connection:
            connection.execute(store.METADATA.tables["intentions"].insert(), row)
        with pytest.raises(IntegrityError, match=r"(?i)check"), engine.begin() as connection:
            connection.execute(
                store.METADATA.tables["intentions"].insert(), {**row, "id": "i2", "status": "done"}
            )
    finally:
        engine.dispose()


def test_sqlite_store_is_wal_with_foreign_keys(tmp_path: Path) -> None:
    from cerebri.execution.store.engine import SQLITE_BUSY_TIMEOUT_MS, open_engine

    path = tmp_path / "a" / "b" / "store.sqlite3"
    url = f"sqlite:///{path}"
    store.init(url)
    assert path.is_file()
    engine = open_engine(store.parse_store_url(url))
    try:
        with engine.connect() as connection:
            assert connection.execute(text("PRAGMA journal_mode")).scalar() == "wal"
            assert connection.execute(text("PRAGMA foreign_keys")).scalar() == 1
            assert connection.execute(text("PRAGMA busy_timeout")).scalar() == 30_000
    finally:
        engine.dispose()
    assert SQLITE_BUSY_TIMEOUT_MS == 30_000


def test_status_of_a_missing_sqlite_file_does_not_create_it(tmp_path: Path) -> None:
    path = tmp_path / "absent" / "store.sqlite3"
    result = store.status(f"sqlite:///{path}")
    assert result.current is None
    assert not path.exists()
    assert not path.parent.exists()


@pytest.mark.parametrize(
    "url",
    ["mysql://u@h/db", "not a url", "sqlite://", "postgresql+asyncpg://h/db", ""],
)
def test_invalid_urls(url: str) -> None:
    with pytest.raises(StoreError) as caught:
        store.init(url)
    assert caught.value.code == "store.invalid_url"


def test_unreachable_postgres_hides_the_password() -> None:
    with pytest.raises(StoreError) as caught:
        store.status("postgresql://user:s3cret@127.0.0.1:1/db")
    assert caught.value.code == "store.unreachable"
    assert "s3cret" not in str(caught.value)
    assert "user:***@127.0.0.1:1/db" in caught.value.message


def test_unreachable_sqlite_path(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(StoreError) as caught:
        store.init(f"sqlite:///{blocker / 'store.sqlite3'}")
    assert caught.value.code == "store.unreachable"


def test_postgresql_url_gets_the_psycopg_driver() -> None:
    assert store.parse_store_url("postgresql://h/db").drivername == "postgresql+psycopg"
    assert store.redacted(store.parse_store_url("postgresql://u:p@h/db")) == (
        "postgresql+psycopg://u:***@h/db"
    )


def test_concurrent_inits_all_succeed(store_url: str) -> None:
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(store.init, [store_url] * 4))
    assert {(r.current, r.head) for r in results} == {("0005", "0005")}
    assert _tables(store_url) == EXPECTED_TABLES
