"""``cerebri mcp``: serve the planning tools to MCP clients (stdio, or streamable HTTP)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from cerebri.cli._app import app, fail
from cerebri.cli._caldav_logins import caldav_logins
from cerebri.errors import CerebriError

DEFAULT_HOST = "127.0.0.1"
"""``cerebri mcp --http``'s default address (loopback)."""
DEFAULT_PORT = 8765
"""``cerebri mcp --http``'s default TCP port."""

__all__ = ["mcp_command"]

# find-slot's --caldav-credentials, with the fallbacks of ``cerebri mcp`` (which has no
# --caldav-user/--caldav-password options: the environment gives the last login).
_CredentialsOption = Annotated[
    Path | None,
    typer.Option(
        "--caldav-credentials",
        metavar="FILE",
        readable=False,  # cerebri judges the file: credentials.*, not a usage box
        help="A JSON file (chmod 600) mapping CalDAV URL prefixes to logins, e.g. "
        '{"https://dav.example.org/bob/": {"user": "bob", "password_env": "BOB_DAV"}}; '
        "before netrc ($NETRC, ~/.netrc), then CEREBRI_CALDAV_USER and "
        "CEREBRI_CALDAV_PASSWORD.",
    ),
]


def _named(option: str, values: list[str] | None) -> dict[str, str]:
    """``NAME=VALUE`` pairs of a repeatable ``option``; a malformed or repeated name is
    ``input.invalid_option``."""
    pairs: dict[str, str] = {}
    for value in values or []:
        name, sep, target = value.partition("=")
        if not sep or not name or not target:
            raise CerebriError(
                f"{option} {value!r}: write NAME={'URL' if option == '--caldav' else 'PATH'}",
                code="input.invalid_option",
            )
        if name in pairs:
            raise CerebriError(f"{option}: {name!r} is given twice", code="input.invalid_option")
        pairs[name] = target
    return pairs


def _ics_root(root: Path | None) -> Path | None:
    """``--ics-root`` resolved; it must be an existing folder."""
    if root is None:
        return None
    if not root.is_dir():
        raise CerebriError(f"--ics-root {str(root)!r}: not a folder", code="input.invalid_option")
    return root.resolve()


@app.command("mcp", short_help="Serve the planning tools to MCP clients (agents).")
def mcp_command(  # noqa: PLR0917 - typer maps every option to a parameter
    http: Annotated[
        bool, typer.Option("--http", help="Serve streamable HTTP at /mcp instead of stdio.")
    ] = False,
    host: Annotated[str, typer.Option("--host", help="With --http: address.")] = DEFAULT_HOST,
    port: Annotated[
        int,
        typer.Option("--port", min=0, max=65535, help="With --http: TCP port (0 = any free port)."),
    ] = DEFAULT_PORT,
    allow_remote: Annotated[
        bool, typer.Option("--allow-remote", help="Permit a non-loopback --host.")
    ] = False,
    ics: Annotated[
        list[str] | None,
        typer.Option(
            "--ics",
            metavar="NAME=PATH",
            help="An .ics calendar the tools may read by NAME (repeatable).",
        ),
    ] = None,
    ics_root: Annotated[
        Path | None,
        typer.Option(
            "--ics-root",
            metavar="DIR",
            readable=False,
            help="Let the tools read .ics files by path inside DIR (symbolic links resolved). "
            "Without it and --ics, tools read no files.",
        ),
    ] = None,
    token_env: Annotated[
        str,
        typer.Option(
            "--token-env",
            metavar="NAME",
            help="With --http: environment variable holding the bearer token every request "
            "must carry (required with a non-loopback --host).",
        ),
    ] = "CEREBRI_MCP_TOKEN",  # noqa: S107 - a variable name, not a secret
    caldav: Annotated[
        list[str] | None,
        typer.Option(
            "--caldav",
            metavar="NAME=URL",
            help="A CalDAV calendar the tools may read by NAME (repeatable); each URL's login "
            "from --caldav-credentials, netrc, then CEREBRI_CALDAV_USER and "
            "CEREBRI_CALDAV_PASSWORD.",
        ),
    ] = None,
    caldav_credentials: _CredentialsOption = None,
    key: Annotated[
        Path | None,
        typer.Option("--key", readable=False, help="Sign proposals with this PKCS#8 PEM key."),
    ] = None,
    keyid: Annotated[str | None, typer.Option("--keyid", help="The key's id.")] = None,
    registry: Annotated[
        Path | None,
        typer.Option("--registry", readable=False, help="Key registry (default: beside --key)."),
    ] = None,
    author: Annotated[
        str | None,
        typer.Option(
            "--author",
            help="Proposals' author: principal:<id>, service:<id> or agent:<id> (an agent's "
            "submitted plans can never be approved by it).",
        ),
    ] = None,
    objects: Annotated[
        Path | None,
        typer.Option("--objects", readable=False, help="Store signed artifacts here."),
    ] = None,
    store: Annotated[
        str | None,
        typer.Option(
            "--store",
            metavar="URL",
            help="Execution store: enables preview, plan_status and propose's submit.",
        ),
    ] = None,
    summary_bytes: Annotated[
        int,
        typer.Option(
            "--summary-bytes",
            min=1,
            help="Answers longer than this (JSON bytes) are summarised; the full answer is "
            "a resource.",
        ),
    ] = 64 * 1024,
    max_result_bytes: Annotated[
        int,
        typer.Option(
            "--max-result-bytes",
            min=1,
            help="Refuse an answer longer than this (JSON bytes; default 16 MiB).",
        ),
    ] = 16 * 1024 * 1024,
    kept_bytes: Annotated[
        int,
        typer.Option(
            "--kept-bytes",
            min=1,
            help="Keep at most this many bytes of full answers as resources, oldest "
            "forgotten first (default 64 MiB; also at most 64 answers).",
        ),
    ] = 64 * 1024 * 1024,
    at: Annotated[
        str | None,
        typer.Option("--at", help="RFC 3339 instant to use as now instead of the clock."),
    ] = None,
) -> None:
    """Serve validate_request, plan, find_slot, freebusy, draft_plan, propose (and with
    --store preview and plan_status) over MCP: stdio by default, or streamable HTTP on a
    loopback address with --http. No tool approves: an agent proposes, a human approves.
    Keys, authors, stores and CalDAV sources come from these options, never from a tool
    call."""
    from cerebri.clock import SystemClock  # noqa: PLC0415
    from cerebri.mcp import McpSettings, check_host, run_http, run_stdio  # noqa: PLC0415
    from cerebri.temporal import Instant  # noqa: PLC0415

    try:
        if (key is None) != (keyid is None):
            raise CerebriError("--key and --keyid go together", code="input.invalid_option")
        token = os.environ.get(token_env) or None
        if http:
            check_host(host, allow_remote=allow_remote, token=token)
        elif host != DEFAULT_HOST or port != DEFAULT_PORT or allow_remote:
            raise CerebriError(
                "--host, --port and --allow-remote apply to --http only (stdio is the default)",
                code="input.invalid_option",
            )
        now = None
        if at is not None:
            try:
                now = Instant.parse(at)
            except ValueError as exc:
                raise CerebriError(f"--at: {exc}", code="input.invalid_option") from None
        sources = _named("--caldav", caldav)
        logins = caldav_logins(
            caldav_credentials,
            os.environ.get("CEREBRI_CALDAV_USER"),
            os.environ.get("CEREBRI_CALDAV_PASSWORD"),
            list(sources.values()),
            url_options="--caldav",
        )
        if logins is not None:  # netrc read and checked now, not at the first tool call
            for url in sources.values():
                logins.login_for(url)
        settings = McpSettings(
            summary_bytes=summary_bytes,
            max_result_bytes=max_result_bytes,
            kept_bytes=kept_bytes,
            ics={name: Path(path) for name, path in _named("--ics", ics).items()},
            ics_root=_ics_root(ics_root),
            caldav=sources,
            caldav_logins=logins,
            key=key,
            keyid=keyid,
            registry=registry,
            author=author,
            objects=objects,
            store=store,
            at=now,
        )
        if key is not None or store is not None or author is not None:
            # without them the check is of the built-in author alone (fast start: the
            # proposal, key and store packages load at the first tool call instead)
            from cerebri.mcp import check_configuration  # noqa: PLC0415

            check_configuration(settings, now or SystemClock().now())
    except CerebriError as error:
        raise fail(error) from None
    if http:
        try:
            run_http(settings, host=host, port=port, allow_remote=allow_remote, token=token)
        except CerebriError as error:
            raise fail(error) from None
    else:
        run_stdio(settings)
