"""Every file read is bounded and refuses special files (decision 0017).

The CLI cases run ``cerebri`` as a subprocess with a timeout and an address-space cap, so a
regression (reading ``/dev/zero`` to the end, blocking on a FIFO) fails instead of hanging
or eating the machine's memory.
"""

from __future__ import annotations

import os
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer

from cerebri._files import read_bounded
from cerebri.calendars.sources import MAX_CALENDAR_BYTES, load_sources
from cerebri.cli import app
from cerebri.errors import InputTooLargeError, UnreadableInputError
from cerebri.proposals import FileReplayLedger, ObjectStore, ProposalError, artifact_for
from cerebri.proposals.keyfile import (
    MAX_PRIVATE_KEY_BYTES,
    MAX_REGISTRY_BYTES,
    load_private_key,
    load_registry,
)
from cerebri.temporal import Instant

CLI = [sys.executable, "-c", "from cerebri.cli import main; main()"]
REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "examples" / "design-review.json"
KEY_AT = "2026-10-01T00:00:00Z"
AT = "2026-10-04T19:00:00Z"
TIMEOUT = 60
MEMORY_CAP = 2 * 1024**3  # bytes of address space: far above a bounded read, far below 8 GB


def _cap_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def cli(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """Run ``cerebri`` with a timeout and a memory cap (a regression fails, not hangs)."""
    return subprocess.run(
        [*CLI, *(str(a) for a in args)],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
        stdin=subprocess.DEVNULL,
        preexec_fn=_cap_memory,
    )


def error_code(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    first = done.stderr.splitlines()[0]
    assert first.startswith("error "), done.stderr
    return first.split()[1].rstrip(":")


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    """A FIFO with no writer: a blocking open or read of it never returns."""
    path = tmp_path / "fifo"
    os.mkfifo(path)
    return path


@pytest.fixture
def listening_socket(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "sock"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.listen(1)
    try:
        yield path
    finally:
        server.close()


# --- the reader itself -------------------------------------------------------------------


def test_reads_a_regular_file_up_to_the_limit(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"0123456789")
    assert read_bounded(path, limit=10) == b"0123456789"
    with pytest.raises(InputTooLargeError) as caught:
        read_bounded(path, limit=9, what="thing")
    assert caught.value.code == "input.too_large"
    assert str(path) in caught.value.message
    assert "9 bytes" in caught.value.message
    assert read_bounded(tmp_path.joinpath("empty").open("wb").name, limit=0) == b""


@pytest.mark.parametrize("special", ["/dev/zero", "/dev/urandom", "/dev/null"])
def test_devices_are_refused_before_reading(special: str) -> None:
    with pytest.raises(UnreadableInputError) as caught:
        read_bounded(special, limit=10, what="registry")
    assert caught.value.code == "input.unreadable"
    assert caught.value.message == (
        f"cannot read registry {special}: a character device, not a regular file"
    )
    assert not caught.value.missing


def test_symlink_to_a_device_is_refused(tmp_path: Path) -> None:
    link = tmp_path / "link"
    link.symlink_to("/dev/zero")
    with pytest.raises(UnreadableInputError, match="character device"):
        read_bounded(link, limit=10)


def test_fifo_is_refused_without_blocking(fifo: Path) -> None:
    with pytest.raises(UnreadableInputError, match="a FIFO, not a regular file"):
        read_bounded(fifo, limit=10)


def test_directory_socket_and_missing_path(tmp_path: Path, listening_socket: Path) -> None:
    with pytest.raises(UnreadableInputError, match="a directory, not a regular file"):
        read_bounded(tmp_path, limit=10)
    with pytest.raises(UnreadableInputError) as caught:
        read_bounded(listening_socket, limit=10)  # open() of a socket fails: ENXIO
    assert str(listening_socket) in caught.value.message
    with pytest.raises(UnreadableInputError) as absent:
        read_bounded(tmp_path / "absent", limit=10)
    assert absent.value.missing
    assert "No such file or directory" in absent.value.message


def test_a_file_reporting_size_zero_is_still_bounded() -> None:
    """/proc files are regular but report st_size 0; the read itself stops at limit + 1."""
    with pytest.raises(InputTooLargeError):
        read_bounded("/proc/self/status", limit=16)


# --- the Python entry points that read files ----------------------------------------------


def test_registry_and_private_key_refuse_special_and_oversized_files(
    tmp_path: Path, fifo: Path
) -> None:
    for special in (Path("/dev/zero"), fifo):
        with pytest.raises(ProposalError) as registry:
            load_registry(special)
        assert registry.value.code == "proposal.key_registry"
        with pytest.raises(ProposalError) as key:
            load_private_key(special)
        assert key.value.code == "proposal.private_key"
    big = tmp_path / "big"
    big.write_bytes(b" " * (MAX_PRIVATE_KEY_BYTES + 1))
    with pytest.raises(InputTooLargeError):
        load_private_key(big)
    assert MAX_REGISTRY_BYTES == 16 * 1024 * 1024
    with big.open("r+b") as handle:
        handle.truncate(MAX_REGISTRY_BYTES + 1)  # sparse: no disk use
    with pytest.raises(InputTooLargeError):
        load_registry(big)


def test_ledger_refuses_special_files(fifo: Path) -> None:
    for special in (Path("/dev/zero"), fifo):
        with pytest.raises(ProposalError) as caught:
            FileReplayLedger(special).keys()
        assert caught.value.code == "proposal.ledger"


ARTIFACT = b'{"artifact":true}'


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_store_reads_refuse_special_files(tmp_path: Path, kind: str) -> None:
    store = ObjectStore(tmp_path / "store")
    path = store.path_for(artifact_for(ARTIFACT).digest)
    path.parent.mkdir(parents=True)
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")
    with pytest.raises(ProposalError) as caught:
        store.get(artifact_for(ARTIFACT).ref)
    assert caught.value.code == "proposal.store"
    with pytest.raises(ProposalError) as put:
        store.put(ARTIFACT)
    assert put.value.code == "proposal.store"


def test_store_get_is_bounded(tmp_path: Path) -> None:
    store = ObjectStore(tmp_path / "store", max_object_bytes=8)
    ref = store.put(ARTIFACT).ref  # 17 bytes
    with pytest.raises(InputTooLargeError):
        store.get(ref)
    assert store.get(ref, max_bytes=len(ARTIFACT)) == ARTIFACT


def test_store_put_rewrites_an_overlong_object(tmp_path: Path) -> None:
    store = ObjectStore(tmp_path / "store")
    path = store.path_for(artifact_for(ARTIFACT).digest)
    path.parent.mkdir(parents=True)
    path.write_bytes(ARTIFACT + b"trailing")
    store.put(ARTIFACT)
    assert path.read_bytes() == ARTIFACT


def test_calendar_reads_keep_their_limit(tmp_path: Path, fifo: Path) -> None:
    assert MAX_CALENDAR_BYTES == 256 * 1024 * 1024
    window = (Instant.parse("2026-01-01T00:00:00Z"), Instant.parse("2026-01-02T00:00:00Z"))
    for special in (Path("/dev/zero"), fifo):
        with pytest.raises(UnreadableInputError):
            load_sources([special], [], window)
    big = tmp_path / "big.ics"
    with big.open("wb") as handle:
        handle.truncate(MAX_CALENDAR_BYTES + 1)
    with pytest.raises(InputTooLargeError):
        load_sources([big], [], window)


# --- the command line: every path, /dev/zero and a FIFO ----------------------------------


@pytest.fixture(scope="module")
def signed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A key directory, a store and an envelope signed with ``alice``."""
    root = tmp_path_factory.mktemp("signed")
    keys = root / "keys"
    key = cli(
        "keys", "new", "alice", "--dir", keys, "--at", KEY_AT, "--principal", "principal:alice"
    )
    assert key.returncode == 0, key.stderr
    made = cli(
        "propose", EXAMPLE, "--key", keys / "alice.pem", "--keyid", "alice",
        "--store", root / "store", "--at", AT, "--out", root / "env.json",
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    return {"keys": keys, "store": root / "store", "envelope": root / "env.json", "root": root}


def _special(kind: str, tmp_path: Path) -> Path:
    if kind == "fifo":
        path = tmp_path / "fifo"
        os.mkfifo(path)
        return path
    return Path("/dev/zero")


@pytest.mark.parametrize("kind", ["zero", "fifo"])
def test_verify_registry_special(signed: dict[str, Path], tmp_path: Path, kind: str) -> None:
    done = cli("verify", signed["envelope"], "--registry", _special(kind, tmp_path), "--at", AT)
    assert error_code(done) == "proposal.key_registry"
    assert "not a regular file" in done.stderr


@pytest.mark.parametrize("kind", ["zero", "fifo"])
def test_verify_ledger_special(signed: dict[str, Path], tmp_path: Path, kind: str) -> None:
    done = cli(
        "verify", signed["envelope"], "--registry", signed["keys"] / "registry.json",
        "--store", signed["store"], "--ledger", _special(kind, tmp_path), "--at", AT,
    )  # fmt: skip
    assert error_code(done) == "proposal.ledger"
    assert "not a regular file" in done.stderr


@pytest.mark.parametrize("kind", ["zero", "fifo"])
def test_verify_envelope_special(signed: dict[str, Path], tmp_path: Path, kind: str) -> None:
    registry = signed["keys"] / "registry.json"
    done = cli("verify", _special(kind, tmp_path), "--registry", registry, "--at", AT)
    assert error_code(done) == "input.unreadable"


@pytest.mark.parametrize("kind", ["zero", "fifo"])
def test_propose_key_special(signed: dict[str, Path], tmp_path: Path, kind: str) -> None:
    done = cli(
        "propose", EXAMPLE, "--key", _special(kind, tmp_path), "--keyid", "alice",
        "--store", tmp_path / "store", "--at", AT,
    )  # fmt: skip
    assert error_code(done) == "proposal.private_key"
    assert not (tmp_path / "store").exists()


@pytest.mark.parametrize("kind", ["zero", "fifo"])
def test_propose_request_special(signed: dict[str, Path], tmp_path: Path, kind: str) -> None:
    done = cli(
        "propose", _special(kind, tmp_path), "--key", signed["keys"] / "alice.pem",
        "--keyid", "alice", "--store", tmp_path / "store", "--at", AT,
    )  # fmt: skip
    assert error_code(done) == "input.unreadable"


@pytest.mark.parametrize("kind", ["zero", "fifo"])
def test_keys_new_with_registry_linked_to_special(tmp_path: Path, kind: str) -> None:
    keys = tmp_path / "keys"
    keys.mkdir()
    (keys / "registry.json").symlink_to(_special(kind, tmp_path))
    done = cli("keys", "new", "bob", "--dir", keys, "--at", KEY_AT)
    assert error_code(done) == "proposal.key_registry"
    assert not (keys / "bob.pem").exists()
    for command in (["rotate", "bob", "carol"], ["revoke", "bob"]):
        again = cli("keys", *command, "--dir", keys, "--at", AT)
        assert error_code(again) == "proposal.key_registry"


@pytest.mark.parametrize("kind", ["zero", "fifo"])
@pytest.mark.parametrize(
    "command",
    [
        ["plan"],
        ["validate"],
        ["temporal"],
        ["plan-graph", "validate"],
        ["plan-graph", "from-request"],
    ],
)
def test_request_commands_refuse_special(tmp_path: Path, kind: str, command: list[str]) -> None:
    done = cli(*command, _special(kind, tmp_path))
    assert error_code(done) == "input.unreadable"


@pytest.mark.parametrize("kind", ["zero", "fifo"])
def test_find_slot_calendar_special(tmp_path: Path, kind: str) -> None:
    done = cli(
        "find-slot", "--ics", _special(kind, tmp_path), "--duration", "30m",
        "--between", "2026-10-05T08:00/2026-10-06T08:00",
    )  # fmt: skip
    assert error_code(done) == "input.unreadable"


def _closed_stdin() -> None:
    _cap_memory()
    os.close(0)  # like `cerebri plan - <&-`: Python then sets sys.stdin to None


@pytest.mark.parametrize(
    "command", [["plan"], ["validate"], ["temporal"], ["plan-graph", "validate"]]
)
def test_a_closed_stdin_is_unreadable_input(command: list[str]) -> None:
    done = subprocess.run(
        [*CLI, *command, "-"],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
        preexec_fn=_closed_stdin,
    )
    assert error_code(done) == "input.unreadable"
    assert "standard input" in done.stderr
    assert "Traceback" not in done.stderr


# --- path options: our reader judges them, never Click's usage box ----------------------


def _path_params(command: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    """``("verify registry", info)`` for every option or argument typed as a path."""
    for name, sub in getattr(command, "commands", {}).items():
        yield from _path_params(sub, f"{prefix}{name} ")
    for param in command.params:
        descriptor = getattr(param, "type_descriptor", None)
        if descriptor is not None and "Path" in str(descriptor.annotation):
            yield f"{prefix}{param.name}", descriptor.parameter_info


def test_no_path_parameter_is_checked_by_click() -> None:
    """Click's ``readable``/``exists`` checks run before cerebri's reader and answer with a
    usage box; every path must reach :func:`cerebri._files.read_bounded` instead."""
    found = dict(_path_params(typer.main.get_command(app)))
    wanted = {"verify registry", "verify ledger", "verify store", "propose key", "find-slot ics"}
    assert wanted <= set(found)
    for name, info in found.items():
        assert (info.readable, info.exists, info.writable) == (False, False, False), name


@pytest.fixture
def bound_dir() -> Iterator[Path]:
    """A directory for the files of :func:`_bound_by_permissions` (mode 755, outside the
    clone); the tests make the unreadable file there with mode 000."""
    if os.geteuid() == 0 and shutil.which("setpriv") is None:
        pytest.fail("as root, this test needs setpriv to drop the capabilities that bypass reads")
    root = Path(tempfile.mkdtemp(prefix="cerebri-unreadable-"))
    root.chmod(0o755)
    try:
        yield root
    finally:
        shutil.rmtree(root)


def _bound_by_permissions(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """Run ``cerebri`` as a process that file permissions bind, wherever the clone lives.

    Not as another user (``nobody`` cannot read a clone under a folder of mode 700 or a home
    of mode 750, issue 26): as the user who owns the clone, so the interpreter, its venv and
    the editable source stay readable, and with no capability at all, so even as root
    (``CAP_DAC_OVERRIDE``, ``CAP_DAC_READ_SEARCH`` dropped from the bounding set, which is all
    root keeps across ``execve``) a file of mode 000 cannot be opened. A user other than root
    has no such capability: the command runs as it is.
    """
    prefix: list[str] = []
    if os.geteuid() == 0:
        owner = REPO.stat()
        prefix = [
            "setpriv", f"--reuid={owner.st_uid}", f"--regid={owner.st_gid}", "--clear-groups",
            "--inh-caps=-all", "--bounding-set=-all",
        ]  # fmt: skip
    return subprocess.run(
        [*prefix, *CLI, *(str(a) for a in args)],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
        stdin=subprocess.DEVNULL,
        cwd="/",
    )


def test_unreadable_option_files_get_one_error_line(
    signed: dict[str, Path], bound_dir: Path
) -> None:
    envelope = bound_dir / "env.json"
    shutil.copy(signed["envelope"], envelope)
    envelope.chmod(0o644)
    secret = bound_dir / "secret.json"
    secret.write_text("{}", encoding="utf-8")
    secret.chmod(0o000)  # nobody may read it: its owner neither, root only by a capability
    shutil.copytree(signed["keys"], bound_dir / "keys")
    shutil.copytree(signed["store"], bound_dir / "store")
    for path in (bound_dir / "keys", bound_dir / "store"):
        subprocess.run(["chmod", "-R", "a+rX", str(path)], check=True)
    registry = bound_dir / "keys" / "registry.json"
    cases = {
        "proposal.ledger": [
            "verify", envelope, "--registry", registry, "--store", bound_dir / "store",
            "--ledger", secret, "--at", AT,
        ],
        "proposal.key_registry": ["verify", envelope, "--registry", secret, "--at", AT],
        "proposal.private_key": [
            "propose", EXAMPLE, "--key", secret, "--keyid", "alice",
            "--store", bound_dir / "new-store", "--at", AT,
        ],
        "input.unreadable": [
            "find-slot", "--ics", secret, "--duration", "30m",
            "--between", "2026-10-05T08:00/2026-10-06T08:00",
        ],
    }  # fmt: skip
    for code, args in cases.items():
        done = _bound_by_permissions(*args)
        assert error_code(done) == code, done.stderr
        assert "Permission denied" in done.stderr
        assert "Usage:" not in done.stderr


# --- propose --out: checked before anything is stored, written atomically ---------------


@pytest.mark.parametrize("kind", ["fifo", "directory", "device", "symlink", "no-parent"])
def test_propose_refuses_a_special_out_before_storing(
    signed: dict[str, Path], tmp_path: Path, kind: str
) -> None:
    out = tmp_path / "out"
    if kind == "fifo":
        os.mkfifo(out)  # no reader: opening it for writing would block for ever
    elif kind == "directory":
        out.mkdir()
    elif kind == "device":
        out = Path("/dev/null")
    elif kind == "symlink":
        (tmp_path / "target").write_bytes(b"kept")
        out.symlink_to(tmp_path / "target")
    else:
        out = tmp_path / "missing" / "env.json"
    store = tmp_path / "store"
    done = cli(
        "propose", EXAMPLE, "--key", signed["keys"] / "alice.pem", "--keyid", "alice",
        "--store", store, "--at", AT, "--out", out,
    )  # fmt: skip
    assert error_code(done) == "input.unwritable"
    assert not store.exists()  # nothing stored for a refused propose
    if kind == "symlink":
        assert (tmp_path / "target").read_bytes() == b"kept"


def test_propose_out_replaces_a_file_whole(signed: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "env.json"
    out.write_bytes(b"x" * 100_000)  # longer than an envelope: a truncating write shows
    done = cli(
        "propose", EXAMPLE, "--key", signed["keys"] / "alice.pem", "--keyid", "alice",
        "--store", tmp_path / "store", "--at", AT, "--out", out,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert out.read_bytes() == signed["envelope"].read_bytes()  # same inputs, same bytes
    assert sorted(p.name for p in tmp_path.iterdir()) == ["env.json", "store"]  # no temp left
