"""A content-addressed object store on the file system (proposals.md section 2).

An artifact's address is its digest ``sha256:<64 lowercase hex>`` over the exact bytes; its
``artifact/ref`` is ``cas:sha256:<hex>`` (:func:`ref_for_digest`). Layout under ``root``::

    <root>/sha256/<hex[0:2]>/<hex[2:64]>      the bytes, nothing else

Writes are atomic (temporary file in the same directory, then ``os.replace``) and idempotent:
storing the same bytes twice yields the same :class:`StoredArtifact` and one file. Reads
re-hash the file, so bytes altered on disk are refused (``proposal.digest_mismatch``).
Naming uses neither a clock nor randomness.

Codes: ``proposal.bad_ref`` (not ``cas:<alg>:<hex>`` / ``<alg>:<hex>``),
``proposal.unknown_algorithm`` (an algorithm other than ``sha256``),
``proposal.artifact_missing``, ``proposal.digest_mismatch``, and ``proposal.store`` when the
file system refuses a read or write (the root or a fan-out directory is a regular file, an
object path is a directory, FIFO or device, a read-only file system, a full disk...).
Reads go through :func:`cerebri._files.read_bounded`: at most ``max_object_bytes``
(default :data:`MAX_OBJECT_BYTES`) are read, ``input.too_large`` beyond.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from cerebri._files import DEFAULT_MAX_BYTES, read_bounded, write_atomic
from cerebri._guard import PATH, arguments
from cerebri.errors import InputTooLargeError, UnreadableInputError
from cerebri.proposals.digest import canonical_json, sha256_digest
from cerebri.proposals.errors import ProposalError, proposal_argument_error

__all__ = [
    "MAX_OBJECT_BYTES",
    "REF_PREFIX",
    "ObjectStore",
    "StoredArtifact",
    "artifact_for",
    "digest_of_ref",
    "ref_for_digest",
]

REF_PREFIX: Final = "cas:"
"""``artifact/ref`` = ``REF_PREFIX + digest``, e.g. ``cas:sha256:9f86…``."""

MAX_OBJECT_BYTES: Final = DEFAULT_MAX_BYTES
"""Default largest stored object read, in bytes (64 MiB, the largest request ``propose``
reads); a larger file is ``input.too_large``."""

_ALGORITHM: Final = "sha256"
_SHAPE: Final = re.compile(r"([a-z0-9-]+):([0-9a-f]+)", re.ASCII)


@dataclass(frozen=True, slots=True)
class StoredArtifact:
    """Where bytes live: ``ref`` (``cas:sha256:<hex>``), ``digest`` (``sha256:<hex>``) and
    ``size`` (length in bytes)."""

    ref: str
    digest: str
    size: int


def ref_for_digest(digest: str) -> str:
    """The ``artifact/ref`` of a ``sha256:<hex>`` digest (validated, see :func:`digest_of_ref`)."""
    return REF_PREFIX + digest_of_ref(digest)


def digest_of_ref(ref_or_digest: str) -> str:
    """The ``sha256:<hex>`` digest named by ``cas:sha256:<hex>`` or by the digest itself.

    Raises ``ProposalError``: ``proposal.unknown_algorithm`` for another algorithm
    (``sha512:…``), ``proposal.bad_ref`` for any other shape (uppercase or short hex, …)
    or a value that is not a ``str``.
    """
    if not isinstance(ref_or_digest, str):
        raise ProposalError(
            f"a content address is text, not {type(ref_or_digest).__name__}",
            code="proposal.bad_ref",
        )
    text = ref_or_digest.removeprefix(REF_PREFIX)
    match = _SHAPE.fullmatch(text)
    if match is None:
        raise ProposalError(f"not a content address: {ref_or_digest!r}", code="proposal.bad_ref")
    algorithm, hexdigits = match.groups()
    if algorithm != _ALGORITHM:
        raise ProposalError(
            f"unknown digest algorithm {algorithm!r} (only sha256)",
            code="proposal.unknown_algorithm",
        )
    if len(hexdigits) != 64:
        raise ProposalError(
            f"a sha256 digest has 64 hex digits, not {len(hexdigits)}", code="proposal.bad_ref"
        )
    return f"{algorithm}:{hexdigits}"


def artifact_for(data: bytes) -> StoredArtifact:
    """The :class:`StoredArtifact` ``data`` has (or would have) in any store; stores nothing."""
    digest = sha256_digest(data)
    return StoredArtifact(ref=REF_PREFIX + digest, digest=digest, size=len(data))


class ObjectStore:
    """Content-addressed bytes under ``root`` (created on first write)."""

    @arguments(proposal_argument_error, root=PATH, max_object_bytes=int)
    def __init__(self, root: Path, *, max_object_bytes: int = MAX_OBJECT_BYTES) -> None:
        self.root = Path(root)
        self.max_object_bytes = max_object_bytes

    def path_for(self, ref_or_digest: str) -> Path:
        """The file that holds (or would hold) the bytes of ``ref_or_digest``."""
        hexdigits = digest_of_ref(ref_or_digest).split(":", 1)[1]
        return self.root / _ALGORITHM / hexdigits[:2] / hexdigits[2:]

    def _io_error(self, action: str, exc: OSError) -> ProposalError:
        return ProposalError(
            f"cannot {action} object store {self.root}: {exc.strerror or exc}",
            code="proposal.store",
        )

    @arguments(proposal_argument_error, data=bytes)
    def put(self, data: bytes) -> StoredArtifact:
        """Store ``data`` (atomically; a no-op if the same intact bytes are already there).

        ``proposal.store`` if the file system refuses the read or write.
        """
        artifact = artifact_for(data)
        path = self.path_for(artifact.digest)
        try:
            try:
                held = read_bounded(path, limit=artifact.size, what="stored object")
                intact = sha256_digest(held) == artifact.digest
            except InputTooLargeError:
                intact = False  # longer than the bytes it should hold: altered, rewrite
            except UnreadableInputError as exc:
                if not exc.missing:
                    raise ProposalError(
                        f"cannot write to object store {self.root}: {exc.message}",
                        code="proposal.store",
                    ) from None
                intact = False
            if not intact:
                path.parent.mkdir(parents=True, exist_ok=True)
                write_atomic(path, data)
        except OSError as exc:
            raise self._io_error("write to", exc) from None
        return artifact

    def put_json(self, value: Any) -> StoredArtifact:
        """Store the RFC 8785 canonical bytes of a JSON value (``proposal.canonical_json``)."""
        return self.put(canonical_json(value))

    @arguments(proposal_argument_error, ref_or_digest=str, max_bytes=(int, type(None)))
    def get(self, ref_or_digest: str, *, max_bytes: int | None = None) -> bytes:
        """The stored bytes, re-hashed on every read; at most ``max_bytes`` bytes (default
        :attr:`max_object_bytes`) are read.

        Raises ``ProposalError``: ``proposal.artifact_missing`` when absent,
        ``proposal.digest_mismatch`` when the file no longer hashes to its name,
        ``proposal.store`` when the file system refuses the read or the object is not a
        regular file (a directory, FIFO, device...), and the :func:`digest_of_ref` codes;
        ``InputTooLargeError`` (``input.too_large``) when the file is larger than the limit.
        """
        digest = digest_of_ref(ref_or_digest)
        limit = self.max_object_bytes if max_bytes is None else max_bytes
        try:
            data = read_bounded(self.path_for(digest), limit=limit, what="stored object")
        except UnreadableInputError as exc:
            if exc.missing:
                raise ProposalError(
                    f"no artifact {digest} in the store", code="proposal.artifact_missing"
                ) from None
            raise ProposalError(
                f"cannot read from object store {self.root}: {exc.message}",
                code="proposal.store",
            ) from None
        if sha256_digest(data) != digest:
            raise ProposalError(
                f"stored bytes of {digest} were altered", code="proposal.digest_mismatch"
            )
        return data
