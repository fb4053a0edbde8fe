"""Who signs a proposal: the signing key checked against its registry, and the author.

Shared by ``cerebri propose`` and the MCP server's ``propose`` tool (both take the key, its
id, the registry and the author from their options; docs/decisions/0025 and 0033):

* :func:`registered_signer` refuses to sign what the registry would refuse to verify;
* :func:`signing_author` is the envelope author: the one configured, else the principal
  the registry records for the key;
* :func:`author_subject` reads a configured author: ``principal:<id>``, ``service:<id>``, or
  ``agent:<id>`` (the executor's name for software acting on its own; the envelope subject
  ``service``/``<id>``, :func:`~cerebri.proposals.author_of`).

The registry file is read (:func:`~cerebri.proposals.load_registry`); instants are passed in.
An argument of the wrong type is ``proposal.invalid_argument``.
"""

from __future__ import annotations

from pathlib import Path
from types import NoneType
from typing import Final

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from cerebri._guard import PATH, arguments
from cerebri.proposals.authors import author_of, canonical_principal
from cerebri.proposals.envelope import Subject
from cerebri.proposals.errors import ProposalError, proposal_argument_error
from cerebri.proposals.keyfile import load_registry
from cerebri.proposals.propose import parse_subject
from cerebri.proposals.signing import RegisteredKey
from cerebri.temporal import Instant

__all__ = ["REGISTRY_FILE", "author_subject", "registered_signer", "signing_author"]

REGISTRY_FILE: Final = "registry.json"
"""The registry's file name in a key directory (``cerebri keys`` layout)."""


@arguments(
    proposal_argument_error,
    key_path=PATH,
    keyid=str,
    signing_key=Ed25519PrivateKey,
    now=Instant,
    registry_path=(*PATH, NoneType),
)
def registered_signer(
    key_path: Path,
    keyid: str,
    signing_key: Ed25519PrivateKey,
    now: Instant,
    registry_path: Path | None,
) -> RegisteredKey | None:
    """The key registered as ``keyid`` in ``registry_path``, or else in the
    :data:`REGISTRY_FILE` beside ``key_path`` (None when there is none).

    Raises:
        ProposalError: the registry's lookup codes for an unknown, revoked or not yet (or
            no longer) valid ``keyid`` at ``now``; ``proposal.private_key`` when
            ``signing_key`` is not the key registered as ``keyid``;
            ``proposal.key_registry`` when a given ``registry_path`` cannot be read.
    """
    key_path = Path(key_path)
    path = key_path.parent / REGISTRY_FILE if registry_path is None else Path(registry_path)
    if registry_path is None and not path.is_file():
        return None
    registered = load_registry(path).lookup(keyid, signed_at=now, now=now)
    if registered.raw != signing_key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw):
        raise ProposalError(
            f"{key_path} is not the private key registered as {keyid!r} in {path}",
            code="proposal.private_key",
        )
    return registered


@arguments(proposal_argument_error, text=str)
def author_subject(text: str) -> Subject:
    """A configured author as an envelope subject (forms: the module docstring).

    Raises:
        ProposalError: ``proposal.schema`` (path ``/author``) for any other form.
    """
    if text.startswith("agent:"):
        return author_of(canonical_principal(text, code="proposal.schema", path="/author"))
    return parse_subject(text)


@arguments(
    proposal_argument_error,
    author=(str, NoneType),
    registered=(RegisteredKey, NoneType),
    keyid=str,
)
def signing_author(author: str | None, registered: RegisteredKey | None, keyid: str) -> Subject:
    """``author`` (:func:`author_subject`), else the principal registered for the signing
    key (:func:`~cerebri.proposals.author_of`).

    Raises:
        ProposalError: ``proposal.author_required`` when neither names one;
            ``proposal.schema`` for an ``author`` of another form.
    """
    if author is not None:
        return author_subject(author)
    if registered is None or registered.principal is None:
        where = "no key registry was found" if registered is None else "the registry names none"
        raise ProposalError(
            f"no author: pass --author principal:<name>, or record who holds key {keyid!r} "
            f"with `cerebri keys new {keyid} --principal principal:<name>` ({where})",
            code="proposal.author_required",
        )
    return author_of(registered.principal)
