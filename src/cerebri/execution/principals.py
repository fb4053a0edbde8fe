"""Principals as the executor names them: ``principal:<name>`` (a person) or ``agent:<name>``.

Who may approve with what proof comes with issue #13; until then a principal is a name, and
names are compared in one canonical form so that ``principal:Alice``, `` principal:alice``
and ``principal:alice`` are the same principal (a requester cannot approve its own request
by spelling itself differently). :func:`principal_id` returns that form: surrounding space
removed, case folded; it refuses anything else with :class:`ExecutionError`
``execution.invalid_principal``. An ``agent:`` principal may submit and withdraw, never
approve (``approval.agent_cannot_approve``, :mod:`cerebri.execution.approvals`).
"""

from __future__ import annotations

import re
from typing import Final

from cerebri.execution.errors import ExecutionError

__all__ = ["PRINCIPAL_PATTERN", "is_agent", "principal_id"]

PRINCIPAL_PATTERN: Final = re.compile(r"(principal|agent):[^\s:]{1,128}")
"""``principal:<name>`` or ``agent:<name>``; a name is 1 to 128 characters without space or
colon."""


def principal_id(text: object) -> str:
    """The canonical form of a principal's name (see the module doc); raises
    :class:`ExecutionError` ``execution.invalid_principal`` for anything else."""
    if not isinstance(text, str):
        raise ExecutionError(
            f"a principal is text such as principal:alice, not {type(text).__name__}",
            code="execution.invalid_principal",
        )
    canonical = text.strip().casefold()
    if not PRINCIPAL_PATTERN.fullmatch(canonical):
        shown = text if len(text) <= 80 else text[:80] + "..."
        raise ExecutionError(
            f"{shown!r} is not a principal: write principal:<name> or agent:<name> (a name "
            "has no spaces or colons)",
            code="execution.invalid_principal",
        )
    return canonical


def is_agent(principal: str) -> bool:
    """Whether a canonical principal is an agent (agents never approve)."""
    return principal.startswith("agent:")
