"""The principal a signing key speaks for, and the envelope author it makes.

A key registry entry may name a principal (``"principal": "principal:alice"``): the person
or agent who holds the key, written as the executor writes principals,
``principal:<name>`` or ``agent:<name>`` with a name of 1 to 128 characters without space
or colon, in canonical form (case folded, no surrounding space; :func:`canonical_principal`).
``cerebri propose`` without ``--author`` signs as the principal registered for its key
(docs/decisions/0025-proposing-calendar-slots.md). The envelope's author is a subject
(proposals.md: ``principal`` or ``service``): ``principal:<name>`` becomes the subject
``principal``/``<name>``, and an ``agent:<name>`` (software acting on its own) becomes
``service``/``<name>``.
"""

from __future__ import annotations

import re
from typing import Final

from cerebri.proposals.envelope import Subject, SubjectKind
from cerebri.proposals.errors import ProposalError

__all__ = ["PRINCIPAL_PATTERN", "author_of", "canonical_principal"]

PRINCIPAL_PATTERN: Final = re.compile(r"(principal|agent):[^\s:]{1,128}")
"""``principal:<name>`` or ``agent:<name>``; a name is 1 to 128 characters without space or
colon."""


def canonical_principal(text: object, *, code: str, path: str | None = None) -> str:
    """``text`` in canonical form (surrounding space removed, case folded).

    Raises :class:`ProposalError` with ``code`` (and ``path``) for anything that is not
    ``principal:<name>`` or ``agent:<name>``.
    """
    if not isinstance(text, str):
        raise ProposalError(
            f"a principal is text such as principal:alice, not {type(text).__name__}",
            code=code,
            path=path,
        )
    canonical = text.strip().casefold()
    if PRINCIPAL_PATTERN.fullmatch(canonical) is None:
        shown = text if len(text) <= 80 else text[:80] + "..."
        raise ProposalError(
            f"{shown!r} is not a principal: write principal:<name> or agent:<name> (a name of "
            "1 to 128 characters without spaces or colons)",
            code=code,
            path=path,
        )
    return canonical


def author_of(principal: str) -> Subject:
    """The envelope author for a canonical principal (see the module doc).

    Raises ``ProposalError`` ``proposal.schema`` (path ``/author``) if ``principal`` is not
    in canonical form.
    """
    canonical = canonical_principal(principal, code="proposal.schema", path="/author")
    if canonical != principal:
        raise ProposalError(
            f"{principal!r} is not in canonical form ({canonical!r})",
            code="proposal.schema",
            path="/author",
        )
    kind, _, name = canonical.partition(":")
    return Subject(
        kind=SubjectKind.PRINCIPAL if kind == "principal" else SubjectKind.SERVICE, id=name
    )
