"""The status CHECK constraints accept exactly the vocabularies, on both back ends."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine
from sqlalchemy.exc import IntegrityError

from cerebri.execution import store
from cerebri.plans import PlanStatus, StepKind, StepStatus

TABLES = store.METADATA.tables


def _plan(pid: str, status: str) -> dict[str, object]:
    return {
        "id": pid,
        "revision": 1,
        "status": status,
        "origin": "operator",
        "max_replans": 0,
        "draft": "{}",
        "created_at": 0,
        "updated_at": 0,
    }


def _step(sid: str, status: str, kind: str = "capability") -> dict[str, object]:
    return {
        "id": sid,
        "plan_id": "p0",
        "key": sid,
        "position": int(sid[1:]),
        "kind": kind,
        "status": status,
        "max_attempts": 1,
        "idempotent": False,
        "updated_at": 0,
    }


@pytest.fixture
def engine(store_url: str) -> Engine:
    store.init(store_url)
    made = store.open_engine(store.parse_store_url(store_url))  # SQLite: foreign_keys=ON
    with made.begin() as connection:
        connection.execute(TABLES["plans"].insert(), _plan("p0", "validated"))
    return made


def test_every_plan_and_step_status_is_accepted(engine: Engine) -> None:
    try:
        with engine.begin() as connection:
            for n, status in enumerate(PlanStatus, 1):
                connection.execute(TABLES["plans"].insert(), _plan(f"p{n}", status.value))
            for n, step_status in enumerate(StepStatus, 1):
                connection.execute(TABLES["steps"].insert(), _step(f"s{n}", step_status.value))
            for n, kind in enumerate(StepKind, 100):
                connection.execute(TABLES["steps"].insert(), _step(f"s{n}", "pending", kind.value))
    finally:
        engine.dispose()


@pytest.mark.parametrize(
    ("table", "row"),
    [
        ("plans", _plan("p9", "running")),
        ("plans", {**_plan("p9", "draft"), "origin": "robot"}),
        ("plans", {**_plan("p9", "draft"), "revision": 0}),
        ("steps", _step("s1", "done")),
        ("steps", _step("s1", "pending", "shell")),
        ("steps", {**_step("s1", "pending"), "max_attempts": 0}),
        ("steps", {**_step("s1", "pending"), "plan_id": "missing"}),  # foreign key
    ],
)
def test_values_outside_the_vocabulary_are_refused(
    engine: Engine, table: str, row: dict[str, object]
) -> None:
    try:
        with pytest.raises(IntegrityError), engine.begin() as connection:
            connection.execute(TABLES[table].insert(), row)
    finally:
        engine.dispose()
