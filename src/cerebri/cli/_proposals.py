"""``cerebri keys new|rotate|revoke``, ``cerebri propose`` and ``cerebri verify``.

Key directory layout (``--dir DIR``): ``DIR/<keyid>.pem`` (PKCS#8 PEM, mode 0600) and
``DIR/registry.json`` (the public key registry, see :mod:`cerebri.proposals.keyfile`).

Exit codes: ``keys`` and ``propose`` exit 0 on success and 2 for input that cannot be read,
parsed, used or written (one line ``error <code> at <path>: <message>`` on stderr; nothing is
written then: ``propose`` checks ``--out`` first (``input.unwritable`` for a FIFO, device,
directory or link there, or an unwritable directory), stores the artifact only after the
envelope is signed, and writes ``--out`` last, atomically). ``verify`` exits 0 when every
check that ran passed, **1 when a check failed** (the envelope is refused; scripts must not
mistake that for acceptance) and 2 for unreadable input (envelope, registry, ledger, object
store: the codes ``proposal.ledger`` and ``proposal.store``). Even exit 0 grants nothing: the
output ends with what execution still requires.

``propose`` signs as ``--author`` or else as the principal the key registry (``--registry``,
or the ``registry.json`` beside ``--key``) records for ``--keyid`` (``keys new --principal``);
neither is ``proposal.author_required``. It refuses calendar slots that have begun at
``--at`` (``proposal.slot_started``) or start after the envelope expires
(``proposal.expires_before_slot``); docs/decisions/0025-proposing-calendar-slots.md.

``--at`` takes an RFC 3339 instant in years 0000..9999 (``input.invalid_option`` otherwise).
Without it this shell reads the system clock; nothing in :mod:`cerebri.proposals` ever does.
"""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated

import typer

from cerebri._files import check_output_path, write_output
from cerebri._json import pretty
from cerebri.cli._app import (
    LimitSet,
    LimitsOption,
    app,
    fail,
    limits_for,
    printable,
    read_input,
)
from cerebri.cli._durations import DURATION_FORMS, parse_duration
from cerebri.cli._plan_graph import limits_hint
from cerebri.errors import CerebriError
from cerebri.planner import PlanError
from cerebri.proposals import (
    INSTANT_PATTERN,
    MAX_VALIDITY_SECONDS,
    REGISTRY_FILE,
    ArtifactChoice,
    Classification,
    ExecutorMode,
    FileReplayLedger,
    ObjectStore,
    Origin,
    Verdict,
    VerificationReport,
    check_envelope,
    envelope_digest,
    is_rfc3339_utc,
    load_json,
    load_registry,
    load_signer,
    make_proposal,
    new_key,
    proposal_artifact,
    public_key_text,
    revoke_key,
    rotate_key,
)
from cerebri.temporal import Instant

__all__ = [
    "keys_new",
    "keys_revoke",
    "keys_rotate",
    "propose_command",
    "verify_command",
]

EXIT_REFUSED = 1
"""``cerebri verify``: at least one check failed."""

MAX_EXPIRES_IN_SECONDS = MAX_VALIDITY_SECONDS
"""``propose --expires-in`` at most one year (365 days): proposals are short-lived wishes;
``verify`` refuses a longer window (``proposal.validity_too_long``)."""

UNREADABLE_INPUT_CODES = frozenset({"proposal.ledger", "proposal.store"})
"""``verify``: a check failing with one of these could not read its input: exit 2, not 1."""

keys_app = typer.Typer(
    no_args_is_help=True, help="Ed25519 signing keys: DIR/<keyid>.pem and DIR/registry.json."
)
app.add_typer(keys_app, name="keys")

DirOption = Annotated[
    Path,
    typer.Option(
        "--dir", readable=False, help="Key directory (holds <keyid>.pem and registry.json)."
    ),
]
AtOption = Annotated[
    str | None,
    typer.Option("--at", help="RFC 3339 instant to use instead of the system clock."),
]


def _now(at: str | None) -> Instant:
    """``--at`` parsed, or the system clock (the shell is the only place that reads it)."""
    if at is None:
        return Instant.from_datetime(datetime.now(UTC))
    try:
        instant = Instant.parse(at)
    except ValueError as exc:
        raise CerebriError(f"--at: {exc}", code="input.invalid_option") from None
    if not is_rfc3339_utc(instant.format()):
        raise CerebriError(
            f"--at {at!r} is outside years 0000..9999 (RFC 3339: {INSTANT_PATTERN})",
            code="input.invalid_option",
        )
    return instant


@keys_app.command("new")
def keys_new(
    keyid: Annotated[str, typer.Argument(help="The new key's id (letters, digits, . _ -).")],
    directory: DirOption,
    at: AtOption = None,
    principal: Annotated[
        str | None,
        typer.Option(
            "--principal",
            help="Who holds the key: principal:<name> or agent:<name> (recorded in the "
            "registry; `propose` signs as it when --author is not given).",
        ),
    ] = None,
) -> None:
    """Generate a key valid from --at (or now): write DIR/KEYID.pem and register it."""
    try:
        key = new_key(
            keyid,
            private_key_path=directory / f"{keyid}.pem",
            registry_path=directory / REGISTRY_FILE,
            valid_from=_now(at),
            principal=principal,
        )
    except CerebriError as error:
        raise fail(error) from None
    typer.echo(f"{key.keyid} {public_key_text(key.public_key)}")


@keys_app.command("rotate")
def keys_rotate(
    old: Annotated[str, typer.Argument(help="The key to end.")],
    new: Annotated[str, typer.Argument(help="The key to create, valid from --at (or now).")],
    directory: DirOption,
    at: AtOption = None,
) -> None:
    """End OLD at --at (or now) and register a new key NEW from the same instant."""
    try:
        key = rotate_key(
            old,
            new,
            private_key_path=directory / f"{new}.pem",
            registry_path=directory / REGISTRY_FILE,
            at=_now(at),
        )
    except CerebriError as error:
        raise fail(error) from None
    typer.echo(f"{key.keyid} {public_key_text(key.public_key)}")


@keys_app.command("revoke")
def keys_revoke(
    keyid: Annotated[str, typer.Argument(help="The key to revoke.")],
    directory: DirOption,
    at: AtOption = None,
) -> None:
    """Refuse KEYID from --at (or now) on; an earlier revocation stays in force."""
    try:
        key = revoke_key(keyid, registry_path=directory / REGISTRY_FILE, at=_now(at))
    except CerebriError as error:
        raise fail(error) from None
    typer.echo(f"{key.keyid} revoked at {key.revoked_at}")


@app.command("propose", short_help="Sign a proposal envelope for an artifact and store both.")
def propose_command(  # noqa: PLR0917 - typer maps every option to a parameter
    file: Annotated[
        str, typer.Argument(metavar="FILE", help="CPIR request or plan graph draft, - for stdin.")
    ],
    key: Annotated[
        Path, typer.Option("--key", readable=False, help="PKCS#8 PEM private key file.")
    ],
    keyid: Annotated[str, typer.Option("--keyid", help="The key's id in the registry.")],
    store: Annotated[
        Path,
        typer.Option(
            "--objects",
            "--store",
            readable=False,
            help="Object store directory (--store is the older name of this option).",
        ),
    ],
    author: Annotated[
        str | None,
        typer.Option(
            "--author",
            help="principal:<id>, service:<id> or agent:<id> (default: the principal the key "
            "registry records for --keyid).",
        ),
    ] = None,
    registry: Annotated[
        Path | None,
        typer.Option(
            "--registry",
            readable=False,
            help="Key registry JSON file (default: registry.json beside --key, if present).",
        ),
    ] = None,
    node_id: Annotated[str, typer.Option("--node-id", help="The authoring node.")] = "local",
    room: Annotated[str, typer.Option("--room", help="room/id.")] = "local",
    turn: Annotated[str, typer.Option("--turn", help="turn/id.")] = "cli",
    class_key: Annotated[
        Classification, typer.Option("--class", help="class/key.")
    ] = Classification.PERSONAL,
    mode: Annotated[
        ExecutorMode, typer.Option("--mode", help="executor.mode.")
    ] = ExecutorMode.PLAN_EXECUTOR,
    expires_in: Annotated[
        str,
        typer.Option(
            "--expires-in",
            metavar="DURATION",
            help=f"Validity from --at ({DURATION_FORMS}; whole seconds): 1s to 365d.",
        ),
    ] = "1d",
    at: AtOption = None,
    candidate: Annotated[
        int, typer.Option("--candidate", min=1, help="Which ranked candidate (1 = best).")
    ] = 1,
    query_id: Annotated[
        str | None, typer.Option("--query-id", help="query/id of a draft (default: digest).")
    ] = None,
    wrap: Annotated[
        ArtifactChoice,
        typer.Option("--as", help="For a CPIR request: wrap its action plan or its plan graph."),
    ] = ArtifactChoice.ACTION_PLAN,
    out: Annotated[
        Path | None, typer.Option("--out", readable=False, help="Write the envelope here.")
    ] = None,
    limits: LimitsOption = LimitSet.REFERENCE,
    title: Annotated[
        str | None,
        typer.Option(
            "--title",
            help="With --as plan-graph: the title of the event(s) a CREATE makes (the "
            "calendar.event.create step's title; a CPIR request carries none).",
        ),
    ] = None,
) -> None:
    """Sign a proposal envelope for an artifact, store the artifact, print (or --out) it.

    Calendar slots (the ranges an artifact creates or moves events at) must start after
    --at and no later than the envelope expires (proposal.slot_started,
    proposal.expires_before_slot). Without --author the envelope is authored by the
    principal the key registry records for --keyid (proposal.author_required if none).

    A CPIR request is planned; its ranked candidate N becomes a cerebri.action-plan.v1, or
    with --as plan-graph the plan graph that carries it out (query/id = request_id,
    idempotency key = plan id). A JSON object with "steps" is a plan graph draft, validated
    first (draft.invalid when it breaks a rule) and wrapped as cerebri.plan-graph.v1
    (idempotency key = its digest). Nothing is stored or written unless the envelope is
    signed.

    An OPTIMIZE request (many meetings at once) with --as plan-graph becomes one batch:
    one approve-batch gate for the author (who must be a principal), an owner's gate for
    each move in another batch person's calendar, then every create and move.
    """
    try:
        seconds = parse_duration(
            expires_in,
            option="--expires-in",
            minimum=1,
            maximum=MAX_EXPIRES_IN_SECONDS,
            whole=True,
        )
        if out is not None:  # before anything is stored: a refused propose leaves nothing
            check_output_path(out, what="--out")
        now = _now(at)
        expires = now.plus_seconds(int(seconds))
        if expires is None:
            raise CerebriError(
                "--at plus --expires-in is out of range", code="input.invalid_option"
            )
        if title is not None and wrap is not ArtifactChoice.PLAN_GRAPH:
            raise CerebriError(
                "--title goes into a plan graph's create step; pass --as plan-graph too",
                code="input.invalid_option",
            )
        signer = load_signer(key, keyid, now=now, registry=registry, author=author)
        try:
            made = proposal_artifact(
                read_input(file),
                candidate,
                query_id,
                wrap,
                limits_for(limits),
                title,
                requester=f"{signer.author.kind.value}:{signer.author.id}",
            )
        except PlanError as error:
            raise limits_hint(error, limits) from None
        done = make_proposal(
            made,
            signer=signer,
            origin=Origin(node_id, room, turn, class_key, mode),
            proposed_at=now,
            expires_at=expires,
            objects=store,
        )
        assert done.envelope is not None
        envelope, artifact = done.envelope, done.artifact
        if out is not None:
            write_output(out, envelope, what="--out")
    except CerebriError as error:
        raise fail(error) from None
    if out is None:
        sys.stdout.write(envelope.decode("utf-8") + "\n")
    else:
        typer.echo(f"envelope {out}")
        typer.echo(f"payload {envelope_digest(load_json(envelope))}")
        typer.echo(f"artifact {artifact.ref}")


def _print_report(report: VerificationReport) -> None:
    for check in report.checks:
        line = f"{check.name.value:<14}{check.verdict.value}"
        if check.verdict is Verdict.FAILED:
            where = "" if check.path is None else f" at {check.path or '(document root)'}"
            line += f"  {check.code}{where}: {check.message}"
        elif check.verdict is Verdict.NOT_RUN:
            line += f"  ({check.reason})"
        elif check.message is not None:
            line += f"  ({check.message})"
        typer.echo(printable(line))
    if report.payload_digest is not None:
        typer.echo(f"payload digest: {report.payload_digest}")
    typer.echo("this envelope grants nothing by itself; still required:")
    for need in report.still_required:
        typer.echo(f"  - {need}")


@app.command("verify")
def verify_command(  # noqa: PLR0917 - typer maps every option to a parameter
    envelope: Annotated[
        str, typer.Argument(metavar="ENVELOPE", help="Signed envelope JSON file, - for stdin.")
    ],
    registry: Annotated[
        Path, typer.Option("--registry", readable=False, help="Key registry JSON file.")
    ],
    store: Annotated[
        Path | None,
        typer.Option("--store", readable=False, help="Object store to fetch the artifact from."),
    ] = None,
    ledger: Annotated[
        Path | None,
        typer.Option(
            "--ledger", readable=False, help="Replay ledger JSON file (created if absent)."
        ),
    ] = None,
    at: AtOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Check a signed envelope and print every check's verdict. Exit 0: every check that
    ran passed; 1: a check failed; 2: unreadable input. Verification grants nothing."""
    try:
        data = read_input(envelope)
        keys = load_registry(registry)
        replay = None if ledger is None else FileReplayLedger(ledger)
        if replay is not None:
            replay.keys()  # a malformed ledger is unreadable input, not a failed check
        report = check_envelope(
            data,
            registry=keys,
            clock_now=_now(at),
            store=None if store is None else ObjectStore(store),
            replay=replay,
        )
    except CerebriError as error:
        raise fail(error) from None
    for check in report.checks:
        if check.verdict is Verdict.FAILED and check.code in UNREADABLE_INPUT_CODES:
            raise fail(CerebriError(check.message or "", code=check.code))
    if as_json:
        sys.stdout.write(pretty(report.to_wire()))
    else:
        _print_report(report)
    if report.failed:
        raise typer.Exit(EXIT_REFUSED)
