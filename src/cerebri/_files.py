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

Errors: :class:`~cerebri.errors.InputTooLargeError` (``input.too_large``) and
:class:`~cerebri.errors.UnreadableInputError` (``input.unreadable``, also for special
files); both messages name the path. Callers in a domain with its own file codes
(``proposal.key_registry``, ``proposal.ledger``...) translate ``input.unreadable`` into them.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Final

from cerebri.errors import InputTooLargeError, UnreadableInputError

__all__ = ["DEFAULT_MAX_BYTES", "read_bounded"]

DEFAULT_MAX_BYTES: Final = 64 * 1024 * 1024
"""The default limit, in bytes (64 MiB): what ``cerebri plan`` accepts for a request."""

_CHUNK: Final = 1024 * 1024
_FLAGS: Final = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_CLOEXEC", 0)
)


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
