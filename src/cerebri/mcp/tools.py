"""The planning, draft, proposal and store tools: arguments in, the CLI's JSON out.

Each tool takes its checked arguments (:mod:`cerebri.mcp.arguments`) and returns the JSON
document the matching command prints with ``--json`` (the same bytes through
:func:`cerebri._json.pretty`), or raises a :class:`~cerebri.errors.CerebriError` whose
``path`` points into the tool's arguments:

* ``validate_request``: ``cerebri validate`` (:func:`cerebri.validate`), a ValidationReport;
* ``plan``: ``cerebri plan`` (:func:`cerebri.plan`), a PlanningResult;
* ``draft_plan``: a model's draft read by :func:`cerebri.plans.parse_model_draft`:
  ``{"draft": … | null, "report": {"valid", "problems", "ignored"}, "runnable": bool}``;
  authority and progress members (approvals, grants, status, origin...) are dropped and
  listed in ``report.ignored``;
* ``propose``: ``{"signed": bool, "envelope": {…}, "payload_digest": "sha256:…",
  "artifact": {"ref", "digest", "size", "type"}, "still_required": [...],
  "submitted": {…} | null}``; signed with the configured key (the artifact then stored in
  the configured object store), else the envelope without ``signature``
  (:func:`cerebri.proposals.unsigned_envelope`). With ``submit: true`` (key and store
  configured, else ``mcp.not_configured`` at ``/submit``) the signed envelope is taken in by
  the store (:func:`cerebri.execution.take_in.take_in_envelope`, as ``cerebri submit
  ENVELOPE``) and
  ``submitted`` is ``cerebri submit --json``'s answer; the plan's requester is the envelope's
  author, so with ``--author agent:NAME`` it is an agent, which can never approve. A slot
  after expiry is ``proposal.expires_before_slot`` at ``/expires_in``. An ``OPTIMIZE``
  request with ``wrap: plan-graph`` becomes the batch's plan graph with the author as its
  requester (decision 0080), so the author must be a principal (else
  ``draft.invalid_argument`` under ``/request``);
* ``preview``: ``cerebri preview --json`` of a draft, or of a stored plan;
* ``plan_status``: ``cerebri plans show --json`` (:func:`cerebri.execution.show_plan`).
"""

from __future__ import annotations

import json
from typing import Any

from cerebri._json import JSONValue
from cerebri.calendars import FIND_SLOT_LIMITS
from cerebri.cpir import Operation, PlanningRequest, parse_request
from cerebri.errors import CerebriError
from cerebri.mcp.arguments import (
    DraftArgs,
    OptimizeArgs,
    PlanStatusArgs,
    PreviewArgs,
    ProposeArgs,
    RequestArgs,
)
from cerebri.mcp.settings import DEFAULT_AUTHOR, McpSettings
from cerebri.optimize import plan_batch
from cerebri.planner import DEFAULT_LIMITS, PlannerLimits, plan, validate
from cerebri.plans import builtin_registry, parse_model_draft
from cerebri.proposals import (
    STILL_REQUIRED,
    ArtifactChoice,
    Classification,
    ExecutorMode,
    Origin,
    ProposalArtifact,
    ProposalError,
    Signer,
    author_subject,
    check_slot_times,
    envelope_digest,
    load_json,
    load_signer,
    make_proposal,
    proposal_artifact,
    slot_starts,
)
from cerebri.temporal import Instant

__all__ = [
    "check_configuration",
    "draft_plan_tool",
    "optimize_batch_tool",
    "plan_status_tool",
    "plan_tool",
    "preview_tool",
    "propose_tool",
    "validate_tool",
]


def check_configuration(settings: McpSettings, now: Instant) -> None:
    """Refuse at start-up what the first tool call would refuse: the signing key (readable,
    registered for ``keyid`` and valid at ``now``), the author, and the execution store
    (reachable, initialised, up to date). Reads; writes nothing.

    Raises:
        CerebriError: the typed error of the first problem (``proposal.*``, ``store.*``,
            ``keys.*``), as the tool would have raised it.
    """
    if _signer(settings, now) is None:
        author_subject(settings.author or DEFAULT_AUTHOR)
    if settings.store is not None:
        _executor(settings)


def _signer(settings: McpSettings, now: Instant) -> Signer | None:
    """The configured key checked against its registry at ``now``, or None without one."""
    if settings.key is None or settings.keyid is None:
        return None
    return load_signer(
        settings.key, settings.keyid, now=now, registry=settings.registry, author=settings.author
    )


def relocated(error: CerebriError, prefix: str) -> CerebriError:
    """``error`` with ``prefix`` (the argument's pointer) before its path, or as its path
    when it has none (a JSON syntax error: the argument itself); class and code are kept."""
    error.path = prefix + (error.path or "")
    return error


def _limits(choice: str) -> PlannerLimits:
    """``reference``: the CPIR service limits; ``local``: find-slot's."""
    return FIND_SLOT_LIMITS if choice == "local" else DEFAULT_LIMITS


def _text(document: dict[str, Any] | str) -> bytes:
    """A JSON document argument as UTF-8 text (an object is re-serialised as is)."""
    if isinstance(document, str):
        return document.encode("utf-8")
    return json.dumps(document, ensure_ascii=False, allow_nan=False).encode("utf-8")


def _request(document: dict[str, Any] | str) -> PlanningRequest:
    try:
        return parse_request(_text(document))
    except CerebriError as error:
        raise relocated(error, "/request") from None


def validate_tool(args: RequestArgs, settings: McpSettings) -> dict[str, JSONValue]:
    """The ValidationReport of ``args.request``."""
    report = validate(_request(args.request), limits=_limits(args.limits))
    return report.to_wire()


def plan_tool(args: RequestArgs, settings: McpSettings) -> dict[str, JSONValue]:
    """The PlanningResult of ``args.request``."""
    result = plan(_request(args.request), limits=_limits(args.limits))
    return result.to_wire()


def optimize_batch_tool(args: OptimizeArgs, settings: McpSettings) -> dict[str, JSONValue]:
    """The PlanningResult of the OPTIMIZE request ``args.request`` (the batch optimiser,
    :func:`cerebri.optimize.plan_batch`; decision 0077): what ``cerebri optimize --json``
    prints. It writes nothing and approves nothing; ``propose`` turns a batch into a
    proposal. ``input.invalid_argument`` at ``/request/operation`` for another operation."""
    request = _request(args.request)
    if request.operation is not Operation.OPTIMIZE:
        raise CerebriError(
            f"optimize_batch answers OPTIMIZE requests only, not {request.operation.value}; "
            "use the plan tool",
            code="input.invalid_argument",
            path="/request/operation",
        )
    return plan_batch(request).to_wire()


def draft_plan_tool(args: DraftArgs, settings: McpSettings) -> dict[str, JSONValue]:
    """A model's draft, cleaned, parsed and validated against the built-in capabilities."""
    try:
        parsed = parse_model_draft(_text(args.draft), builtin_registry())
    except CerebriError as error:
        raise relocated(error, "/draft") from None
    return {
        "draft": None if parsed.draft is None else parsed.draft.to_wire(),
        "report": parsed.report.to_wire(),
        "runnable": parsed.runnable,
    }


def _payload(args: ProposeArgs, requester: str) -> tuple[ProposalArtifact, str]:
    """The artifact of the request's candidate or of the draft, and the argument's pointer.
    ``requester`` (the proposal's author, ``kind:id``) is who asks for an ``OPTIMIZE``
    batch's plan graph (decision 0080): it must be a principal there."""
    if (args.request is None) == (args.draft is None):
        raise CerebriError(
            "pass exactly one of request (a CPIR request) and draft (a plan graph draft)",
            code="input.invalid_option",
            path="",
        )
    if args.title is not None and args.wrap != "plan-graph":
        raise CerebriError(
            "title goes into a plan graph's create step; pass wrap: plan-graph too",
            code="input.invalid_option",
            path="/title",
        )
    where = "/request" if args.request is not None else "/draft"
    source = args.request if args.request is not None else args.draft
    assert source is not None
    try:
        if args.draft is not None:
            document = load_json(_text(source)) if isinstance(source, str) else source
            if not isinstance(document, dict) or "steps" not in document:
                raise CerebriError("a draft is a JSON object with steps", code="draft.schema")
        made = proposal_artifact(
            _text(source),
            args.candidate,
            None,
            ArtifactChoice(args.wrap),
            _limits(args.limits),
            args.title,
            requester=requester,
        )
    except CerebriError as error:
        raise relocated(error, where) from None
    return made, where


def _check_slots(payload: bytes, now: Instant, expires: Instant, where: str) -> None:
    """:func:`~cerebri.proposals.check_slot_times` with paths into the tool's arguments:
    a slot already begun points at the proposed artifact, one after expiry at
    ``/expires_in`` with the seconds that would cover it."""
    starts = slot_starts(payload)
    try:
        check_slot_times(starts, proposed_at=now, expires_at=expires)
    except ProposalError as error:
        if error.code != "proposal.expires_before_slot":
            error.path = where
            raise
        needed = -(-(max(starts).ns - now.ns) // 1_000_000_000)
        raise ProposalError(
            f"the envelope would expire before the slot starting at {max(starts)}: it must stay "
            f"valid until its latest slot starts; pass expires_in {needed} (seconds) or more",
            code=error.code,
            path="/expires_in",
        ) from None


def _submit(settings: McpSettings, envelope: bytes, payload: bytes) -> dict[str, JSONValue]:
    """The signed envelope taken in by the execution store (``cerebri submit --json``)."""
    from cerebri.execution.take_in import take_in_envelope  # noqa: PLC0415 - store only

    done = take_in_envelope(_executor(settings), envelope, artifact=payload)
    return done.to_wire()


_ORIGIN = Origin("mcp", "mcp", "mcp", Classification.PERSONAL, ExecutorMode.PLAN_EXECUTOR)
"""The envelope's node, room and turn ids, class and executor mode for every MCP proposal."""


def propose_tool(args: ProposeArgs, settings: McpSettings) -> dict[str, JSONValue]:
    """A signed or unsigned envelope for the request's candidate or the draft, and with
    ``submit`` the plan the execution store made of it (the module docstring); nothing is
    stored unless it is signed."""
    signing = settings.key is not None and settings.keyid is not None
    if args.submit and not (signing and settings.store is not None):
        raise CerebriError(
            "submit needs a signing key and an execution store: start the server with "
            "--key, --keyid and --store",
            code="mcp.not_configured",
            path="/submit",
        )
    now = settings.clock().now()
    signer = _signer(settings, now)
    author = signer.author if signer else author_subject(settings.author or DEFAULT_AUTHOR)
    made, where = _payload(args, f"{author.kind.value}:{author.id}")
    expires = now.plus_seconds(args.expires_in)
    if expires is None:
        raise CerebriError(
            "now plus expires_in is out of range", code="input.invalid_option", path="/expires_in"
        )
    _check_slots(made.payload, now, expires, where)
    done = make_proposal(
        made,
        signer=signer,
        author=None if signer else author,
        origin=_ORIGIN,
        proposed_at=now,
        expires_at=expires,
        objects=settings.objects,
    )
    submitted: dict[str, JSONValue] | None = None
    if args.submit:
        assert done.envelope is not None  # submit needs a signing key (checked first)
        submitted = _submit(settings, done.envelope, made.payload)
    artifact = done.artifact
    return {
        "signed": signing,
        "envelope": done.document,
        "payload_digest": envelope_digest(done.document),
        "artifact": {
            "type": str(made.artifact_type),
            "ref": artifact.ref,
            "digest": artifact.digest,
            "size": artifact.size,
        },
        "still_required": list(STILL_REQUIRED),
        "submitted": submitted,
    }


def _executor(settings: McpSettings) -> Any:
    if settings.store is None:
        raise CerebriError(
            "no execution store is configured: start the server with --store URL",
            code="mcp.not_configured",
        )
    from cerebri.clock import UuidIds  # noqa: PLC0415 - store only
    from cerebri.execution.connect import open_executor  # noqa: PLC0415

    return open_executor(settings.store, clock=settings.clock(), ids=UuidIds())


def preview_tool(args: PreviewArgs, settings: McpSettings) -> dict[str, JSONValue]:
    """What the executor would decide for each step of the draft or the stored plan."""
    from cerebri.execution import preview_draft, preview_plan  # noqa: PLC0415 - shell

    if (args.draft is None) == (args.plan_id is None):
        raise CerebriError(
            "pass exactly one of draft and plan_id", code="input.invalid_option", path=""
        )
    if args.draft is not None:
        try:
            return preview_draft(_text(args.draft))
        except CerebriError as error:
            raise relocated(error, "/draft") from None
    assert args.plan_id is not None
    try:
        return preview_plan(_executor(settings), args.plan_id)
    except CerebriError as error:
        error.message = _cut_ids(error.message, args.plan_id)
        raise relocated(error, "/plan_id") from None


MAX_ECHOED_ID = 64
"""Characters of an agent's plan id repeated in an error message."""


def _cut_ids(message: str, plan_id: str) -> str:
    """``message`` with ``plan_id`` cut to :data:`MAX_ECHOED_ID` characters."""
    if len(plan_id) <= MAX_ECHOED_ID:
        return message
    return message.replace(plan_id, plan_id[: MAX_ECHOED_ID - 1] + "…")


def plan_status_tool(args: PlanStatusArgs, settings: McpSettings) -> dict[str, JSONValue]:
    """The stored plan: status, revision chain, steps, attempts, approvals (read only)."""
    from cerebri.execution import show_plan  # noqa: PLC0415 - shell

    try:
        return show_plan(_executor(settings), args.plan_id)
    except CerebriError as error:
        error.message = _cut_ids(error.message, args.plan_id)
        raise relocated(error, "/plan_id") from None
