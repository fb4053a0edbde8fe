"""Shared fixtures of the HTTP service tests: an in-process client and the compact form."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient

from cerebri.service import create_app
from tests.execution.conftest import (  # the PostgreSQL fixtures, for the store-backed routes
    postgres_as_service_user,
    postgres_url,
    postgresql_server,
    store_url,
)

__all__ = [
    "JSON",
    "client",
    "compact",
    "postgres_as_service_user",
    "postgres_url",
    "postgresql_server",
    "store_url",
]

JSON = {"Content-Type": "application/json"}


def compact(value: Any) -> bytes:
    """The service's body form: compact JSON, key order kept, raw UTF-8."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


@pytest.fixture(scope="module")
def client() -> TestClient:
    """A client of the default application (no token)."""
    return TestClient(create_app())
