"""While the store is down every store route answers 503 ``store.unavailable``, not a 500.

PostgreSQL: a server of the test's own (:mod:`tests.service._throwaway_postgres`) is stopped
under a running service, then started again. SQLite: the store file is overwritten with
bytes that are not a database, or its folder is removed and the pool opens a new connection.
Every operation of the OpenAPI document that needs a principal's token is called with a
valid token and a well-formed body; each answer must be a full problem with ``Retry-After``
and leave exactly one warning line, without a traceback, in the ``cerebri.service`` log. A
500 would raise in the test client (it re-raises server errors).
"""

from __future__ import annotations

import logging
import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from cerebri.service import ServiceSettings, create_app
from tests.execution._one_event import ONE_EVENT_DRAFT
from tests.service._store_world import World, auth, build_world
from tests.service._throwaway_postgres import throwaway_postgres
from tests.service.conftest import JSON

HEADERS = {**auth("principal:alice"), **JSON}
BODIES: dict[tuple[str, str], dict[str, Any]] = {
    ("post", "/v1/plans"): {"draft": ONE_EVENT_DRAFT},
    ("post", "/v1/plans/{plan_id}/cancel"): {"reason": "no longer needed"},
    ("post", "/v1/proposals/prepare"): {"request": {"operation": "CANCEL"}},
    ("post", "/v1/approvals/{approval_id}/decision"): {
        "decision": "approve",
        "keyid": "bob-key",
        "signature": "AAAA",
    },
    ("post", "/v1/outbox/resolve"): {
        "key": "k-1",
        "recipient": "bob@example.com",
        "happened": True,
    },
}


def _store_operations(client: TestClient) -> list[tuple[str, str, bool]]:
    document = client.get("/openapi.json").json()
    return [
        (method, path, "requestBody" in operation)
        for path, item in document["paths"].items()
        for method, operation in item.items()
        if isinstance(operation, dict) and operation.get("security")
    ]


def _assert_every_route_unavailable(client: TestClient, caplog: pytest.LogCaptureFixture) -> None:
    operations = _store_operations(client)
    assert len(operations) == 11
    for method, path, has_body in operations:
        url = re.sub(r"\{[^}]+\}", "s-1", path)
        caplog.clear()
        body = BODIES[(method, path)] if has_body else None
        response = client.request(method, url, json=body, headers=HEADERS)
        where = f"{method} {path}"
        assert response.status_code == 503, (where, response.text)
        assert response.headers["content-type"] == "application/problem+json", where
        assert response.headers["retry-after"] == "5", where
        problem = response.json()
        assert problem["type"] == "about:blank", where
        assert problem["title"] == "Service Unavailable", where
        assert (problem["status"], problem["code"], problem["path"]) == (
            503,
            "store.unavailable",
            None,
        ), where
        assert problem["detail"].strip(), where
        lines = [r for r in caplog.records if r.name == "cerebri.service"]
        assert len(lines) == 1, (where, [r.getMessage() for r in lines])
        assert lines[0].levelno == logging.WARNING and lines[0].exc_info is None, where
        assert lines[0].getMessage().startswith("store unavailable: "), where
        assert "\n" not in lines[0].getMessage(), where
        assert all(r.exc_info is None for r in caplog.records), where
        assert "Traceback" not in caplog.text, where


def _through_token_middleware(world: World, caplog: pytest.LogCaptureFixture) -> None:
    """With a token required, the middleware checks a principal's token in the store first."""
    guarded = TestClient(create_app(ServiceSettings(require_token=True), executor=world.executor))
    caplog.clear()
    response = guarded.get("/v1/plans", headers=HEADERS)
    assert response.status_code == 503, response.text
    assert response.json()["code"] == "store.unavailable"
    assert response.headers["retry-after"] == "5"
    assert [r.exc_info for r in caplog.records if r.name == "cerebri.service"] == [None]


def test_a_stopped_postgresql_is_503_on_every_route_until_it_is_back(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING)
    with throwaway_postgres() as server:
        world = build_world(server.database_url("outage"))
        assert world.client.get("/v1/plans", headers=HEADERS).status_code == 200
        server.stop()
        _assert_every_route_unavailable(world.client, caplog)
        _through_token_middleware(world, caplog)
        server.start()
        back = world.client.get("/v1/plans", headers=HEADERS)
        assert back.status_code == 200, back.text
        world.executor.engine.dispose()


@pytest.mark.parametrize("damage", ["not_a_database", "folder_removed"])
def test_an_unreadable_sqlite_file_is_503_on_every_route(
    damage: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    folder = tmp_path / "store"
    world = build_world(f"sqlite:///{folder / 'store.sqlite3'}")
    assert world.client.get("/v1/plans", headers=HEADERS).status_code == 200
    if damage == "not_a_database":
        for name in os.listdir(folder):  # the file and its WAL: garbage, same sizes or more
            (folder / name).write_bytes(b"not a SQLite database " * 4096)
    else:
        shutil.rmtree(folder)
        world.executor.engine.dispose()  # the next request needs a new connection
    _assert_every_route_unavailable(world.client, caplog)
    _through_token_middleware(world, caplog)
