"""Atomic file writes: a temporary file in the target's directory, fsync, then rename.

The temporary name is derived from the target name, the process id and the thread id (no
clock, no randomness), so two writers never share one and a crash leaves only a ``.tmp`` file
beside the target, never a half-written target.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

__all__ = ["write_atomic"]


def write_atomic(path: Path, data: bytes, *, mode: int = 0o644, exclusive: bool = False) -> None:
    """Write ``data`` to ``path`` all at once, with permission bits ``mode``.

    ``exclusive=True`` refuses to replace an existing file (``FileExistsError``): the
    temporary file is hard-linked into place, which fails atomically if ``path`` exists.
    ``OSError`` from the file system propagates; the temporary file is removed on failure.
    """
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    try:
        with os.fdopen(fd, "wb") as handle:
            os.fchmod(handle.fileno(), mode)
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if exclusive:
            os.link(tmp, path)
            tmp.unlink()
        else:
            os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
