"""Shared fixtures of the HTTP service tests: an in-process client and the compact form.

The PostgreSQL fixtures of the store-backed routes come from the root ``tests/conftest.py``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient

from cerebri.service import create_app

__all__ = ["JSON", "client", "compact"]

JSON = {"Content-Type": "application/json"}


def compact(value: Any) -> bytes:
    """The service's body form: compact JSON, key order kept, raw UTF-8."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


@pytest.fixture(scope="module")
def client() -> TestClient:
    """A client of the default application (no token)."""
    return TestClient(create_app())
