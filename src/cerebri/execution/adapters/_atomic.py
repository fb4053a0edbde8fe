"""Replace a file all at once and durably: temporary file beside it, fsync, ``os.replace``,
fsync of the folder (so the new name survives a power loss, not only a crash)."""

from __future__ import annotations

import contextlib
import os
import threading
from pathlib import Path

__all__ = ["ReplacedNotDurableError", "replace_file"]


class ReplacedNotDurableError(OSError):
    """``os.replace`` succeeded (readers already see the new bytes) but the fsync of the
    folder failed, so the new name may not survive a power loss. Carries the ``errno`` and
    ``strerror`` of the failed fsync."""


def replace_file(path: Path, data: bytes) -> None:
    """Make ``path`` hold exactly ``data``; readers see the old bytes or the new, never a mix.

    The temporary name ``.<name>.<pid>.<thread>.tmp`` is unique per writer thread (callers
    serialise writers of one file with a lock).

    Raises:
        ReplacedNotDurableError: after ``os.replace``: the new bytes are in place, the
            folder fsync failed (the write happened, its durability is unknown).
        OSError: any other failure, all before or at ``os.replace`` (creating, writing or
            fsyncing the temporary file, or the rename itself): the temporary file is
            removed and ``path`` is unchanged (nothing was written).
    """
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        fd = os.open(
            tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o644
        )
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):  # keep the error that stopped the write
            tmp.unlink(missing_ok=True)
        raise
    try:
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)
    except OSError as exc:
        raise ReplacedNotDurableError(exc.errno, exc.strerror or str(exc)) from exc
