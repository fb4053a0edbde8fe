"""Tokens with a store: principals' tokens next to the service token, the Lab's files without
one, and ``cerebri serve --store`` (loopback, and beyond it with principals) as a process."""

from __future__ import annotations

import json
import subprocess
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from cerebri.clock import SystemClock, UuidIds
from cerebri.execution import Executor, add_principal, issue_token
from cerebri.execution.store import init, open_engine, parse_store_url
from cerebri.service import ServeError, ServiceSettings
from cerebri.service.server import bind
from tests.service._store_world import auth, build_world
from tests.service.test_serve import CLI, _env, _listen_line

ALICE = auth("principal:alice")
STATIC = {"Authorization": "Bearer static-service-token"}


def test_a_principal_token_counts_where_the_service_token_is_required(tmp_path: Path) -> None:
    world = build_world(
        f"sqlite:///{tmp_path / 'store.sqlite3'}", ServiceSettings(token="static-service-token")
    )
    client = world.client
    assert client.get("/health").status_code == 401
    assert client.get("/health", headers={"Authorization": "Bearer wrong"}).status_code == 401
    assert client.get("/health", headers=STATIC).status_code == 200
    assert client.get("/health", headers=ALICE).status_code == 200
    # the service token names no principal: the store routes refuse it
    refused = client.get("/v1/plans", headers=STATIC)
    assert (refused.status_code, refused.json()["code"]) == (401, "auth.unauthorized")
    assert client.get("/v1/plans", headers=ALICE).status_code == 200
    for path in ("/lab/", "/lab/inbox.html", "/lab/plan.html", "/lab/store.js"):
        assert client.get(path).status_code == 200, path  # static files, no data
    assert client.post("/lab/", content=b"x").status_code == 401  # only GET/HEAD pass


def test_required_tokens_without_a_service_token(tmp_path: Path) -> None:
    world = build_world(
        f"sqlite:///{tmp_path / 'store.sqlite3'}", ServiceSettings(require_token=True)
    )
    assert world.client.get("/health").status_code == 401
    assert world.client.get("/health", headers=ALICE).status_code == 200
    assert world.client.get("/lab/inbox.html").status_code == 200


def test_principals_count_as_tokens_beyond_loopback() -> None:
    with pytest.raises(ServeError) as refused:
        bind("0.0.0.0", 0, allow_remote=True, token=None, principals=False)
    assert refused.value.code == "serve.requires_loopback"
    with pytest.raises(ServeError):
        bind("0.0.0.0", 0, allow_remote=False, token=None, principals=True)
    bind("0.0.0.0", 0, allow_remote=True, token=None, principals=True).close()


def _get(url: str, token: str | None = None) -> int:
    request = urllib.request.Request(url)
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            json.loads(response.read())
            return int(response.status)
    except urllib.error.HTTPError as error:
        return int(error.code)


def _governed_store(tmp_path: Path, path: Path | None = None) -> str:
    url = f"sqlite:///{path or tmp_path / 'served.sqlite3'}"
    init(url)
    executor = Executor(open_engine(parse_store_url(url)), SystemClock(), UuidIds())
    add_principal(executor, "principal:alice", roles=["requester"])
    issue_token(executor, "principal:alice", secret="alice-served-token-0123")
    return url


@pytest.mark.parametrize("remote", [False, True])
def test_serve_a_store(tmp_path: Path, remote: bool) -> None:
    url = _governed_store(tmp_path)
    host = ["--host", "0.0.0.0", "--allow-remote"] if remote else []
    process = _serving([*host, "--store", url], {})
    try:
        port = _listen_line(process).rsplit(":", 1)[1]
        base = f"http://127.0.0.1:{port}"
        assert _get(f"{base}/v1/plans") == 401
        assert _get(f"{base}/v1/plans", "alice-served-token-0123") == 200
        assert _get(f"{base}/health") == (401 if remote else 200)
        assert _get(f"{base}/health", "alice-served-token-0123") == 200
    finally:
        _stop(process)


def _serving(args: list[str], env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*CLI, "--port", "0", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(**env),
    )


def _stop(process: subprocess.Popen[str]) -> None:
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)


def test_serve_uses_the_embedded_store_when_it_is_initialised(tmp_path: Path) -> None:
    data = tmp_path / "data"
    (data / "cerebri").mkdir(parents=True)
    _governed_store(tmp_path, data / "cerebri" / "store.sqlite3")
    process = _serving([], {"XDG_DATA_HOME": str(data)})
    try:
        base = "http://" + _listen_line(process)
        assert _get(f"{base}/v1/plans", "alice-served-token-0123") == 200
    finally:
        _stop(process)


def test_an_unreadable_embedded_store_leaves_the_planning_api(tmp_path: Path) -> None:
    data = tmp_path / "data"
    (data / "cerebri").mkdir(parents=True)
    (data / "cerebri" / "store.sqlite3").write_bytes(b"not a database" * 100)
    process = _serving([], {"XDG_DATA_HOME": str(data)})
    try:
        base = "http://" + _listen_line(process)
        assert _get(f"{base}/health") == 200
        assert _get(f"{base}/v1/plans", "alice-served-token-0123") == 404
    finally:
        _stop(process)


def test_serve_refuses_a_store_that_is_not_initialised(tmp_path: Path) -> None:
    done = subprocess.run(
        [*CLI, "--port", "0", "--store", f"sqlite:///{tmp_path / 'empty.sqlite3'}"],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=30,
        check=False,
    )
    assert done.returncode == 2
    assert "CEREBRI_LISTEN_ADDR=" not in done.stdout
    assert done.stderr.startswith("error store.not_initialised")


def test_without_a_store_there_is_no_store_route(client: TestClient) -> None:
    for path in ("/v1/plans", "/v1/approvals", "/v1/executions/x"):
        assert client.get(path).status_code == 404
