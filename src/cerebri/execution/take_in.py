"""Taking in what a shell was handed: a signed envelope and where its artifact is.

``cerebri submit ENVELOPE`` and the MCP ``propose`` tool with ``submit: true`` both end in
:func:`take_in_envelope`, which refuses an unsigned envelope plainly, finds the artifact
(bytes given, or fetched from an object store by the envelope's ``candidate/artifact/ref``)
and hands both to :func:`cerebri.execution.intake.submit_envelope` (verified, then stored).
:func:`is_envelope` tells an envelope from a plan draft.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from cerebri.cpir import load_json as load_document
from cerebri.errors import CerebriError
from cerebri.execution.context import Executor
from cerebri.execution.errors import ExecutionError
from cerebri.execution.intake import submit_envelope
from cerebri.execution.submit import Submitted
from cerebri.plans import DEFAULT_MAX_REPLANS
from cerebri.proposals import ObjectStore, ProposalError, load_json
from cerebri.proposals.checks import check_schema

__all__ = ["is_envelope", "refuse_unsigned", "take_in_envelope"]


def is_envelope(source: bytes) -> bool:
    """Whether ``source`` is a JSON object with ``schema/v`` (a signed envelope); anything
    else, JSON or not, is a plan draft (whose parser reports what is wrong with it)."""
    try:
        document = load_document(source)
    except CerebriError:
        return False
    return isinstance(document, dict) and "schema/v" in document


def refuse_unsigned(source: bytes) -> None:
    """An envelope without any signature (``cerebri mcp`` without ``--key`` hands such
    envelopes out) is ``proposal.schema`` at ``/signature``, said plainly, before anything
    else is read.

    Raises:
        ProposalError: ``proposal.schema`` at ``/signature``; or the JSON reader's own code.
    """
    document = load_json(source)
    if isinstance(document, dict) and "signature" not in document:
        raise ProposalError(
            "the envelope is unsigned (no signature member): only a signed envelope can be "
            "submitted; sign it with `cerebri propose --key ... --keyid ...` (or start "
            "`cerebri mcp` with --key and --keyid)",
            code="proposal.schema",
            path="/signature",
        )


def take_in_envelope(
    executor: Executor,
    envelope: bytes,
    *,
    artifact: bytes | Callable[[], bytes] | None = None,
    objects: Path | None = None,
    submitted_by: str | None = None,
    max_replans: int = DEFAULT_MAX_REPLANS,
) -> Submitted:
    """Store the plan a signed ``envelope`` proposes, its artifact given as bytes
    (``artifact``; or a function returning them, called only once the envelope is known to
    be signed and the choice is checked) or found in the object store at ``objects``
    (exactly one of them).

    Returns the :class:`~cerebri.execution.submit.Submitted` plan of
    :func:`~cerebri.execution.intake.submit_envelope` (``replayed`` when this envelope was
    taken in before). Raises, with nothing stored: :class:`ProposalError`
    ``proposal.schema`` at ``/signature`` for an unsigned envelope (:func:`refuse_unsigned`)
    or for a malformed one while its artifact ref is read; :class:`ExecutionError`
    ``intake.artifact_required`` unless exactly one of ``artifact`` and ``objects`` is
    given; :meth:`~cerebri.proposals.ObjectStore.get`'s ``proposal.*`` codes when the object
    store cannot give the artifact; and every error of
    :func:`~cerebri.execution.intake.submit_envelope`.
    """
    refuse_unsigned(envelope)
    if (artifact is None) == (objects is None):
        raise ExecutionError(
            "an envelope comes with its artifact: give --objects DIR (the object store "
            "`propose` wrote to) or --artifact PATH",
            code="intake.artifact_required",
        )
    if artifact is None:
        assert objects is not None
        ref = check_schema(envelope).envelope.candidate.artifact_ref  # typed shape errors
        data = ObjectStore(objects).get(ref)
    else:
        data = artifact if isinstance(artifact, bytes) else artifact()
    return submit_envelope(
        executor,
        envelope,
        artifact=data,
        submitted_by=submitted_by,
        max_replans=max_replans,
    )
