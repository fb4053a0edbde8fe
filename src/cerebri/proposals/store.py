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
object path is a directory, a read-only file system, a full disk...).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from cerebri.proposals._atomic import write_atomic
from cerebri.proposals.digest import canonical_json, sha256_digest
from cerebri.proposals.errors import ProposalError

__all__ = [
    "REF_PREFIX",
    "ObjectStore",
    "StoredArtifact",
    "artifact_for",
    "digest_of_ref",
    "ref_for_digest",
]

REF_PREFIX: Final = "cas:"
"""``artifact/ref`` = ``REF_PREFIX + digest``, e.g. ``cas:sha256:9f86…``."""

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
    (``sha512:…``), ``proposal.bad_ref`` for any other shape (uppercase or short hex, …).
    """
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

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def path_for(self, ref_or_digest: str) -> Path:
        """The file that holds (or would hold) the bytes of ``ref_or_digest``."""
        hexdigits = digest_of_ref(ref_or_digest).split(":", 1)[1]
        return self.root / _ALGORITHM / hexdigits[:2] / hexdigits[2:]

    def _io_error(self, action: str, exc: OSError) -> ProposalError:
        return ProposalError(
            f"cannot {action} object store {self.root}: {exc.strerror or exc}",
            code="proposal.store",
        )

    def put(self, data: bytes) -> StoredArtifact:
        """Store ``data`` (atomically; a no-op if the same intact bytes are already there).

        ``proposal.store`` if the file system refuses the read or write.
        """
        artifact = artifact_for(data)
        path = self.path_for(artifact.digest)
        try:
            try:
                intact = sha256_digest(path.read_bytes()) == artifact.digest
            except FileNotFoundError:
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

    def get(self, ref_or_digest: str) -> bytes:
        """The stored bytes, re-hashed on every read.

        Raises ``ProposalError``: ``proposal.artifact_missing`` when absent,
        ``proposal.digest_mismatch`` when the file no longer hashes to its name,
        ``proposal.store`` when the file system refuses the read, and the
        :func:`digest_of_ref` codes.
        """
        digest = digest_of_ref(ref_or_digest)
        try:
            data = self.path_for(digest).read_bytes()
        except FileNotFoundError:
            raise ProposalError(
                f"no artifact {digest} in the store", code="proposal.artifact_missing"
            ) from None
        except OSError as exc:
            raise self._io_error("read from", exc) from None
        if sha256_digest(data) != digest:
            raise ProposalError(
                f"stored bytes of {digest} were altered", code="proposal.digest_mismatch"
            )
        return data
