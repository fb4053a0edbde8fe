"""``service.status`` (cerebri.execution.adapters.service_status)."""

from __future__ import annotations

import os
import stat
import subprocess
from collections.abc import Mapping
from pathlib import Path

import pytest

from cerebri.execution.adapters import AdapterError, Invocation, ServiceStatusAdapter
from cerebri.execution.adapters.service_status import systemctl_probe


def status(service: str) -> Invocation:
    return Invocation("service.status", service, {"service": service}, "plan_step:s-1", "p:1:k:0")


def test_injected_mapping() -> None:
    adapter = ServiceStatusAdapter(
        {
            "mail": {"ActiveState": "active", "SubState": "running", "Other": "x"},
            "cron": {"ActiveState": "failed", "SubState": "failed"},
        }
    )
    assert adapter.invoke(status("mail")) == {
        "service": "mail",
        "active": True,
        "properties": {"ActiveState": "active", "SubState": "running"},
    }
    assert adapter.invoke(status("cron"))["active"] is False
    with pytest.raises(AdapterError) as caught:
        adapter.invoke(status("nope"))
    assert (caught.value.code, caught.value.retryable) == ("service.not_found", False)


def test_injected_probe_is_called_with_the_name() -> None:
    asked: list[str] = []

    def probe(name: str) -> Mapping[str, str]:
        asked.append(name)
        return {"ActiveState": "activating", "SubState": "start"}

    result = ServiceStatusAdapter(probe).invoke(status("web"))
    assert asked == ["web"]
    assert result["active"] is False
    assert result["properties"] == {"ActiveState": "activating", "SubState": "start"}


@pytest.mark.parametrize("name", ["", "-H", "--host=evil"])
def test_names_that_would_be_options_are_refused(name: str) -> None:
    asked: list[str] = []
    adapter = ServiceStatusAdapter(lambda n: asked.append(n) or {})  # type: ignore[func-returns-value]
    with pytest.raises(AdapterError) as caught:
        adapter.invoke(status(name))
    assert caught.value.code == "adapter.invalid_params"
    assert asked == []


def test_a_probe_missing_a_property_fails() -> None:
    adapter = ServiceStatusAdapter({"mail": {"ActiveState": "active"}})
    with pytest.raises(AdapterError) as caught:
        adapter.invoke(status("mail"))
    assert caught.value.code == "adapter.failed"
    assert "SubState" in caught.value.message


def fake_systemctl(folder: Path, script: str) -> None:
    tool = folder / "systemctl"
    tool.write_text("#!/bin/sh\n" + script)
    tool.chmod(tool.stat().st_mode | stat.S_IXUSR)


@pytest.fixture
def bin_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder searched first for ``systemctl``; the usual tools stay reachable."""
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ.get('PATH', '')}")
    return tmp_path


def test_default_probe_parses_systemctl_show(bin_dir: Path) -> None:
    fake_systemctl(
        bin_dir,
        'echo "$@" > "$(dirname "$0")/args"\n'
        'printf "ActiveState=active\\nSubState=running\\nnot a property\\n"\n',
    )
    assert ServiceStatusAdapter().invoke(status("mail.service")) == {
        "service": "mail.service",
        "active": True,
        "properties": {"ActiveState": "active", "SubState": "running"},
    }
    args = (bin_dir / "args").read_text().split()
    assert args == ["show", "--no-pager", "--property=ActiveState,SubState", "--", "mail.service"]


def test_missing_systemctl_is_unavailable_and_retryable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty folder: no systemctl anywhere
    with pytest.raises(AdapterError) as caught:
        systemctl_probe("mail")
    assert (caught.value.code, caught.value.retryable) == ("adapter.unavailable", True)


def test_a_failing_systemctl_is_unavailable(bin_dir: Path) -> None:
    fake_systemctl(bin_dir, 'echo "System has not been booted with systemd" >&2\nexit 1\n')
    with pytest.raises(AdapterError) as caught:
        systemctl_probe("mail")
    assert (caught.value.code, caught.value.retryable) == ("adapter.unavailable", True)
    assert "not been booted with systemd" in caught.value.message


def test_a_slow_systemctl_times_out(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict[str, object] = {}

    def slow(command: list[str], **options: object) -> None:
        seen.update(options)
        raise subprocess.TimeoutExpired(command, 5.0)

    monkeypatch.setattr(subprocess, "run", slow)
    with pytest.raises(AdapterError) as caught:
        systemctl_probe("mail")
    assert (caught.value.code, caught.value.retryable) == ("adapter.unavailable", True)
    assert seen["timeout"] == 5.0


def test_a_real_timeout_is_enforced(bin_dir: Path) -> None:
    fake_systemctl(bin_dir, "exec sleep 5\n")
    with pytest.raises(AdapterError) as caught:
        systemctl_probe("mail", timeout_seconds=0.2)
    assert caught.value.code == "adapter.unavailable"
    assert "0.2 s" in caught.value.message


def test_output_over_the_cap_is_refused(bin_dir: Path) -> None:
    fake_systemctl(bin_dir, "head -c 2000 /dev/zero | tr '\\0' x\n")
    with pytest.raises(AdapterError) as caught:
        systemctl_probe("mail", max_output_bytes=1000)
    assert caught.value.code == "adapter.output_too_large"
