"""The one way cerebri reads a file: bounded, regular files only, typed errors.

Every file the product reads by path (CPIR requests, envelopes, key registries, private
keys, replay ledgers, object store entries, .ics files, packaged examples) goes through
:func:`read_bounded`. It

1. opens the path with ``O_NONBLOCK`` (so a FIFO with no writer cannot block the process)
   and ``O_NOCTTY``/``O_CLOEXEC``;
2. checks the *opened descriptor* with ``fstat`` (no race with a path swapped between a
   check and the open): anything but a regular file (a character or block device such as
   ``/dev/zero``, a FIFO, a socket, a directory) is refused before one byte is read;
3. refuses at once a regular file whose size already exceeds the limit;
4. reads at most ``limit + 1`` bytes (a file that grows while it is read, or a ``/proc``
   file that reports size 0, is still bounded), so memory use never exceeds the limit.

Every file the product writes goes through :func:`write_atomic` (temporary file, fsync,
rename), directly or through :func:`write_output` for paths a user names.

Errors: :class:`~cerebri.errors.InputTooLargeError` (``input.too_large``) and
:class:`~cerebri.errors.UnreadableInputError` (``input.unreadable``, also for special
files); both messages name the path. Callers in a domain with its own file codes
(``proposal.key_registry``, ``proposal.ledger``...) translate ``input.unreadable`` into them.
"""

from __future__ import annotations

import contextlib
import os
import stat
import threading
from pathlib import Path
from typing import Final

from cerebri.errors import InputTooLargeError, UnreadableInputError, UnwritableOutputError

__all__ = [
    "DEFAULT_MAX_BYTES",
    "ReplacedNotDurableError",
    "check_output_path",
    "read_bounded",
    "write_atomic",
    "write_output",
]

DEFAULT_MAX_BYTES: Final = 64 * 1024 * 1024
"""The default limit, in bytes (64 MiB): what ``cerebri plan`` accepts for a request."""

_CHUNK: Final = 1024 * 1024
_FLAGS: Final = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_CLOEXEC", 0)
)
_CREATE: Final = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)


def _kind(mode: int) -> str:
    """A human name of a file type that is not a regular file."""
    for test, name in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def _too_large(what: str, path: Path, limit: int) -> InputTooLargeError:
    return InputTooLargeError(f"{what} {path} is larger than {limit} bytes")


def _read_at_most(fd: int, count: int) -> bytes:
    chunks: list[bytes] = []
    left = count
    while left > 0:
        chunk = os.read(fd, min(_CHUNK, left))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def read_bounded(path: str | os.PathLike[str], *, limit: int, what: str = "file") -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` bytes of them.

    ``what`` names the file in messages (``"key registry"``, ``"private key"``...).
    ``limit`` is in bytes and must be at least 0.

    Raises:
        InputTooLargeError: ``input.too_large``, the file holds more than ``limit`` bytes
            (decided from its size before reading when possible, else after ``limit + 1``
            bytes).
        UnreadableInputError: ``input.unreadable``, the path cannot be opened or read
            (``missing`` is true when it does not exist), or it is not a regular file
            (device, FIFO, socket, directory).
    """
    if limit < 0:
        raise ValueError("limit must be at least 0")
    where = Path(path)
    try:
        fd = os.open(where, _FLAGS)
    except OSError as exc:
        raise UnreadableInputError(
            f"cannot read {what} {where}: {exc.strerror or exc}",
            missing=isinstance(exc, FileNotFoundError),
        ) from None
    except ValueError:  # a NUL character: no file system can hold that name
        raise UnreadableInputError(f"cannot read {what} {where!r}: NUL character in path") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UnreadableInputError(
                f"cannot read {what} {where}: {_kind(info.st_mode)}, not a regular file"
            )
        if info.st_size > limit:
            raise _too_large(what, where, limit)
        data = _read_at_most(fd, limit + 1)
    except OSError as exc:
        raise UnreadableInputError(f"cannot read {what} {where}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    if len(data) > limit:
        raise _too_large(what, where, limit)
    return data


def check_output_path(path: str | os.PathLike[str], *, what: str = "output") -> Path:
    """``path`` as a :class:`Path`, once it is known that :func:`write_output` may write it.

    The path is examined with ``lstat`` and never opened: a FIFO with no reader, a device,
    a directory, a socket or a symbolic link already at ``path`` is refused (opening a FIFO
    for writing blocks; writing a device or through a link reaches something else). The
    parent must be an existing directory this process may write and enter.

    Raises:
        UnwritableOutputError: ``input.unwritable``, naming the path and the reason.
    """
    where = Path(path)
    try:
        info = os.lstat(where)
    except FileNotFoundError:
        info = None
    except (OSError, ValueError) as exc:
        raise UnwritableOutputError(f"cannot write {what} {where!r}: {exc}") from None
    if info is not None and not stat.S_ISREG(info.st_mode):
        kind = "a symbolic link" if stat.S_ISLNK(info.st_mode) else _kind(info.st_mode)
        raise UnwritableOutputError(f"cannot write {what} {where}: {kind}, not a regular file")
    parent = where.parent
    if not parent.is_dir():
        raise UnwritableOutputError(f"cannot write {what} {where}: no directory {parent}")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise UnwritableOutputError(f"cannot write {what} {where}: {parent} is not writable")
    return where


class ReplacedNotDurableError(OSError):
    """:func:`write_atomic` with ``sync_folder=True``: ``os.replace`` succeeded (readers
    already see the new bytes) but the fsync of the folder failed, so the new name may not
    survive a power loss. Carries the ``errno`` and ``strerror`` of the failed fsync."""


def _temporary_name(path: Path) -> Path:
    """``.<name>.<pid>.<thread>.tmp`` beside ``path``: unique per writer thread, with no
    clock and no randomness (a crash leaves only such a file, never a half-written target)."""
    return path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")


def _create_temporary(tmp: Path, mode: int) -> int:
    """A descriptor of the new, empty file ``tmp``. ``O_EXCL | O_NOFOLLOW``: never opens a
    link or a file planted at that name; a leftover of a dead writer with the same process
    and thread ids is removed first (the name is this thread's alone)."""
    try:
        return os.open(tmp, _CREATE, mode)
    except FileExistsError:
        tmp.unlink()
        return os.open(tmp, _CREATE, mode)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _sync_folder(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError as exc:
        raise ReplacedNotDurableError(exc.errno, exc.strerror or str(exc)) from exc


def write_atomic(
    path: Path,
    data: bytes,
    *,
    mode: int | None = 0o644,
    exclusive: bool = False,
    sync_folder: bool = False,
) -> None:
    """Make ``path`` hold exactly ``data``; readers see the old bytes or the new, never a mix.

    The bytes go to a temporary file beside ``path`` (``.<name>.<pid>.<thread>.tmp``, created
    with ``O_EXCL | O_NOFOLLOW``), which is fsynced and then renamed over ``path`` with
    ``os.replace``. Callers serialise writers of one file (a lock) when they need to.

    ``mode`` is the permission bits the file gets exactly (whatever the umask); ``None``
    creates it with ``0o644`` less the umask. ``exclusive=True`` never replaces an existing
    file: the temporary file is hard-linked into place, which fails atomically with
    ``FileExistsError`` if ``path`` exists. ``sync_folder=True`` also fsyncs the folder after
    the rename, so the new name survives a power loss and not only a crash.

    Raises:
        ReplacedNotDurableError: only with ``sync_folder``, after ``os.replace``: the new bytes
            are in place, the folder fsync failed (the write happened, its durability is
            unknown).
        OSError: any other failure, all before or at the rename (creating, writing or
            fsyncing the temporary file, the rename or the link): the temporary file is
            removed and ``path`` is unchanged.
    """
    tmp = _temporary_name(path)
    try:
        fd = _create_temporary(tmp, 0o644 if mode is None else mode)
        try:
            if mode is not None:
                os.fchmod(fd, mode)
            _write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        if exclusive:
            os.link(tmp, path)
            tmp.unlink()
        else:
            os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):  # keep the error that stopped the write
            tmp.unlink(missing_ok=True)
        raise
    if sync_folder:
        _sync_folder(path.parent)


def write_output(path: str | os.PathLike[str], data: bytes, *, what: str = "output") -> None:
    """Write ``data`` to ``path`` atomically with :func:`write_atomic` (mode ``0o644`` less the
    umask). Readers see the old file or the whole new one, never a part.
    :func:`check_output_path` runs first.

    Raises:
        UnwritableOutputError: ``input.unwritable``; the temporary file is removed.
    """
    where = check_output_path(path, what=what)
    try:
        write_atomic(where, data, mode=None)
    except OSError as exc:
        raise UnwritableOutputError(f"cannot write {what} {where}: {exc.strerror or exc}") from None
