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
  "artifact": {"ref", "digest", "size", "type"}, "still_required": [...]}``; signed with the
  configured key (the artifact then stored in the configured object store), else the
  envelope without ``signature`` (:func:`cerebri.proposals.unsigned_envelope`);
* ``preview``: ``cerebri preview --json`` of a draft, or of a stored plan;
* ``plan_status``: ``cerebri plans show --json`` (:func:`cerebri.execution.show_plan`).
"""

from __future__ import annotations

import json
from typing import Any

from cerebri._json import JSONValue
from cerebri.cli._app import LimitSet, limits_for
from cerebri.cli._proposals import (
    ArtifactChoice,
    _artifact,
    _author,
    _check_against_registry,
)
from cerebri.cpir import PlanningRequest, parse_request
from cerebri.errors import CerebriError
from cerebri.mcp.arguments import (
    DraftArgs,
    PlanStatusArgs,
    PreviewArgs,
    ProposeArgs,
    RequestArgs,
)
from cerebri.mcp.settings import DEFAULT_AUTHOR, McpSettings
from cerebri.planner import plan, validate
from cerebri.plans import builtin_registry, parse_model_draft
from cerebri.proposals import (
    STILL_REQUIRED,
    Classification,
    ExecutorMode,
    ObjectStore,
    artifact_for,
    envelope_digest,
    load_json,
    load_private_key,
    parse_subject,
    propose,
    slot_starts,
    unsigned_envelope,
)

__all__ = [
    "draft_plan_tool",
    "plan_status_tool",
    "plan_tool",
    "preview_tool",
    "propose_tool",
    "validate_tool",
]


def relocated(error: CerebriError, prefix: str) -> CerebriError:
    """``error`` with ``prefix`` (the argument's pointer) before its path, or as its path
    when it has none (a JSON syntax error: the argument itself); class and code are kept."""
    error.path = prefix + (error.path or "")
    return error


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
    report = validate(_request(args.request), limits=limits_for(LimitSet(args.limits)))
    return report.to_wire()


def plan_tool(args: RequestArgs, settings: McpSettings) -> dict[str, JSONValue]:
    """The PlanningResult of ``args.request``."""
    result = plan(_request(args.request), limits=limits_for(LimitSet(args.limits)))
    return result.to_wire()


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


def _payload(args: ProposeArgs) -> tuple[bytes, Any, str, str, str]:
    """(artifact bytes, type, query id, idempotency key, argument pointer)."""
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
    if args.draft is not None:
        document = load_json(_text(source)) if isinstance(source, str) else source
        if not isinstance(document, dict) or "steps" not in document:
            raise CerebriError(
                "a draft is a JSON object with steps", code="draft.schema", path=where
            )
    try:
        payload, kind, query, key = _artifact(
            _text(source),
            args.candidate,
            None,
            ArtifactChoice(args.wrap),
            LimitSet(args.limits),
            args.title,
        )
    except CerebriError as error:
        raise relocated(error, where) from None
    return payload, kind, query, key, where


def propose_tool(args: ProposeArgs, settings: McpSettings) -> dict[str, JSONValue]:
    """A signed or unsigned envelope for the request's candidate or the draft (the module
    docstring); nothing is stored unless it is signed."""
    payload, kind, query, idempotency, _ = _payload(args)
    now = settings.clock().now()
    expires = now.plus_seconds(args.expires_in)
    if expires is None:
        raise CerebriError(
            "now plus expires_in is out of range", code="input.invalid_option", path="/expires_in"
        )
    artifact = artifact_for(payload)
    common: dict[str, Any] = {
        "author_node_id": "mcp",
        "query_id": query,
        "room_id": "mcp",
        "turn_id": "mcp",
        "class_key": Classification.PERSONAL,
        "executor_mode": ExecutorMode.PLAN_EXECUTOR,
        "proposed_at": now,
        "expires_at": expires,
        "idempotency_key": idempotency,
        "slot_starts": slot_starts(payload),
    }
    if settings.key is None or settings.keyid is None:
        author = parse_subject(settings.author or DEFAULT_AUTHOR)
        document = unsigned_envelope(artifact, kind, author=author, **common)
        signed = False
    else:
        signing_key = load_private_key(settings.key)
        registered = _check_against_registry(
            settings.key, settings.keyid, signing_key, now, settings.registry
        )
        author = _author(settings.author, registered, settings.keyid)
        envelope = propose(
            artifact,
            kind,
            author=author,
            signing_keys=[(signing_key, settings.keyid)],
            **common,
        )
        if settings.objects is not None:
            ObjectStore(settings.objects).put(payload)
        document = json.loads(envelope)
        signed = True
    return {
        "signed": signed,
        "envelope": document,
        "payload_digest": envelope_digest(document),
        "artifact": {
            "type": str(kind),
            "ref": artifact.ref,
            "digest": artifact.digest,
            "size": artifact.size,
        },
        "still_required": list(STILL_REQUIRED),
    }


def _executor(settings: McpSettings) -> Any:
    if settings.store is None:
        raise CerebriError(
            "no execution store is configured: start the server with --store URL",
            code="mcp.not_configured",
        )
    from cerebri.cli._execution_common import open_executor  # noqa: PLC0415 - store only

    return open_executor(settings.store, clock=settings.clock())


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
    return preview_plan(_executor(settings), args.plan_id)


def plan_status_tool(args: PlanStatusArgs, settings: McpSettings) -> dict[str, JSONValue]:
    """The stored plan: status, revision chain, steps, attempts, approvals (read only)."""
    from cerebri.execution import show_plan  # noqa: PLC0415 - shell

    return show_plan(_executor(settings), args.plan_id)
