"""Property-based API test generated from /openapi.json (schemathesis, in-process ASGI).

Asserts for a few generated requests per operation: no 5xx, documented status codes and
content types, and bodies conforming to the documented response schemas.

Requests go through Starlette's ``TestClient`` (httpx) rather than schemathesis's own
``requests`` transport: ``caldav`` pulls in ``urllib3-future``, whose pool container breaks
schemathesis's connection counting (``'TrafficPolice' object has no attribute 'keys'``).
"""

from __future__ import annotations

import json
from typing import Any

import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from cerebri.service import create_app

APP = create_app()
CLIENT = TestClient(APP)
schema = schemathesis.openapi.from_asgi("/openapi.json", APP)

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]


@schema.parametrize()
@settings(max_examples=5, deadline=None, suppress_health_check=list(HealthCheck))
def test_api_conforms_to_its_schema(case: schemathesis.Case) -> None:
    kwargs = case.as_transport_kwargs(base_url="http://testserver")
    response = CLIENT.request(
        kwargs["method"],
        kwargs["url"],
        headers=kwargs.get("headers"),
        params=kwargs.get("params"),
        content=_content(kwargs),
    )
    case.validate_response(response, checks=CHECKS)


def _content(kwargs: dict[str, Any]) -> bytes | None:
    if "json" in kwargs:
        return json.dumps(kwargs["json"]).encode("utf-8")
    data = kwargs.get("data")
    if data is None or isinstance(data, bytes):
        return data
    return str(data).encode("utf-8")
