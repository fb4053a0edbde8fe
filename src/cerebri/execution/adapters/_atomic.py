"""Replace a file all at once and durably: temporary file beside it, fsync, ``os.replace``,
fsync of the folder (so the new name survives a power loss, not only a crash)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

__all__ = ["replace_file"]


def replace_file(path: Path, data: bytes) -> None:
    """Make ``path`` hold exactly ``data``; readers see the old bytes or the new, never a mix.

    The temporary name ``.<name>.<pid>.<thread>.tmp`` is unique per writer thread (callers
    serialise writers of one file with a lock). ``OSError`` propagates after the temporary
    file is removed; ``path`` is then unchanged.
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
        tmp.unlink(missing_ok=True)
        raise
    folder = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)
