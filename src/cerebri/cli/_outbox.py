"""``cerebri outbox resolve``: record what an operator found about an interrupted iTIP send
(decision 0066; the adapter's :meth:`~cerebri.execution.adapters.ItipDelivery.settle_send`).

A worker that stopped between SMTP's ``DATA`` and the record of the server's answer leaves
the message's record ``sending`` and its step blocked with ``itip.smtp_interrupted``; only the
mail server's log can say whether the message went out. ``--happened`` (the log holds its
``Message-ID``) records it ``sent``, so no send of that key and recipient ever sends it again;
``--did-not-happen`` records it ``written``, so the next send sends the stored bytes. The
names are those of ``cerebri steps resolve``, which then settles the step itself.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from cerebri._json import compact
from cerebri.cli._app import app
from cerebri.cli._execution_common import JsonOption, PrincipalOption, errors_to_exit, safe_text
from cerebri.cli._itip_options import OutboxOption

__all__ = ["outbox_resolve"]

outbox_app = typer.Typer(
    no_args_is_help=True, help="The iTIP outbox: resolve a send a worker left uncertain."
)
app.add_typer(outbox_app, name="outbox")


@outbox_app.command("resolve")
def outbox_resolve(  # noqa: PLR0917 - typer maps every option to a parameter
    key: Annotated[
        str,
        typer.Argument(metavar="KEY", help="The send's idempotency key (the step's record)."),
    ],
    recipient: Annotated[
        str, typer.Argument(metavar="RECIPIENT", help="The recipient, e.g. mailto:bob@example.com.")
    ],
    happened: Annotated[
        bool,
        typer.Option(
            "--happened/--did-not-happen",
            help="Whether the mail server accepted the message (its log holds the "
            "Message-ID): then it is never sent again; else the next send sends it.",
        ),
    ],
    principal: PrincipalOption,
    outbox: OutboxOption = None,
    as_json: JsonOption = False,
) -> None:
    """Record what an operator found about a message whose send was interrupted
    (itip.smtp_interrupted); then settle its step with `cerebri steps resolve`."""
    from cerebri.clock import SystemClock  # noqa: PLC0415 - fast CLI start
    from cerebri.execution.adapters.itip_delivery import (  # noqa: PLC0415
        ItipDelivery,
        default_outbox,
    )
    from cerebri.execution.principals import principal_id  # noqa: PLC0415

    with errors_to_exit(as_json):
        by = principal_id(principal)
        folder = default_outbox() if outbox is None else outbox
        delivery = ItipDelivery(SystemClock(), outbox=folder)
        done = delivery.settle_send(key, recipient, accepted=happened, by=by)
    if as_json:
        sys.stdout.write(compact(done) + "\n")
        return
    state = "sent" if happened else "written (sent again by the next send)"
    sys.stdout.write(safe_text(f"message {key} to {recipient}: {state}, by {by}") + "\n")
