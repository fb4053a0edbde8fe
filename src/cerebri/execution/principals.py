"""Principals as the executor names them: ``principal:<name>`` (a person) or ``agent:<name>``.

Who may approve with what proof is decided by the registry
(:mod:`cerebri.execution.registry`, decision 0023); here a principal is a name, and names are
compared in one canonical form so that ``principal:Alice``, `` principal:alice`` and
``principal:alice`` are the same principal (a requester cannot approve its own request by
spelling itself differently). :func:`principal_id` returns that form: surrounding space
removed, case folded; it refuses anything else with :class:`ExecutionError`
``execution.invalid_principal``. An ``agent:`` principal may submit and withdraw, never
approve (``approval.agent_cannot_approve``, :mod:`cerebri.execution.approvals`).
"""

from __future__ import annotations

from cerebri._text import invalid_text, text_fault
from cerebri.execution.errors import ExecutionError
from cerebri.proposals import PRINCIPAL_PATTERN, ProposalError, canonical_principal

__all__ = ["PRINCIPAL_PATTERN", "is_agent", "principal_id"]


def principal_id(text: object) -> str:
    """The canonical form of a principal's name (see the module doc); raises
    :class:`ExecutionError` ``execution.invalid_principal`` for anything else, and
    :class:`~cerebri.errors.InvalidArgumentError` ``input.invalid_text`` for a name with a
    NUL character or a lone surrogate, which no store can hold (:mod:`cerebri._text`)."""
    fault = text_fault(text) if isinstance(text, str) else None
    if fault is not None:
        raise invalid_text("a principal", fault)
    try:
        return canonical_principal(text, code="execution.invalid_principal")
    except ProposalError as error:
        raise ExecutionError(error.message, code="execution.invalid_principal") from None


def is_agent(principal: str) -> bool:
    """Whether a canonical principal is an agent (agents never approve)."""
    return principal.startswith("agent:")
