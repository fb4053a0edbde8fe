"""SMTP servers for the iTIP delivery tests: a real one (aiosmtpd) that records what it
accepts and can refuse on cue, and a raw one that drops the connection in the middle of a
message's content (what no well-behaved server does on purpose).

Both listen on 127.0.0.1 and a free port, in a thread of the test process, and stop when
their ``with`` block ends.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

__all__ = ["Mailbox", "Received", "dropping_server", "free_port", "smtp_server"]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass(frozen=True)
class Received:
    """One message the server accepted: its envelope and its bytes."""

    mail_from: str
    rcpt_tos: tuple[str, ...]
    data: bytes


@dataclass
class Mailbox:
    """The aiosmtpd handler: what was accepted, and replies to give instead of accepting
    (``rcpt_replies``: the next RCPT commands answer these, in order)."""

    received: list[Received] = field(default_factory=list)
    rcpt_replies: list[str] = field(default_factory=list)
    rcpt_seen: int = 0

    async def handle_RCPT(  # noqa: N802 - aiosmtpd's hook name
        self, server: Any, session: Any, envelope: Any, address: str, rcpt_options: Any
    ) -> str:
        self.rcpt_seen += 1
        if self.rcpt_replies:
            return self.rcpt_replies.pop(0)
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(  # noqa: N802 - aiosmtpd's hook name
        self, server: Any, session: Any, envelope: Any
    ) -> str:
        data = envelope.original_content or envelope.content
        self.received.append(Received(envelope.mail_from, tuple(envelope.rcpt_tos), bytes(data)))
        return "250 Message accepted for delivery"


@contextmanager
def smtp_server(
    *, login: tuple[str, str] | None = None, port: int | None = None
) -> Iterator[tuple[int, Mailbox]]:
    """A real SMTP server (aiosmtpd): its port and its mailbox. With ``login`` it offers
    ``AUTH`` (over plain text, for the test) and accepts only that user and password;
    ``port`` (default: a free one) to listen on."""
    mailbox = Mailbox()
    options: dict[str, Any] = {}
    if login is not None:

        def check(server: Any, session: Any, envelope: Any, mechanism: str, data: Any) -> Any:
            ok = isinstance(data, LoginPassword) and (data.login, data.password) == (
                login[0].encode(),
                login[1].encode(),
            )
            return AuthResult(success=ok, handled=False)

        # PLAIN only: aiosmtpd 1.4 stalls on smtplib's LOGIN with an initial response
        options = {
            "authenticator": check,
            "auth_require_tls": False,
            "auth_exclude_mechanism": ["LOGIN"],
        }
    port = free_port() if port is None else port
    controller = Controller(mailbox, hostname="127.0.0.1", port=port, **options)
    controller.start()
    try:
        yield port, mailbox
    finally:
        controller.stop()


@contextmanager
def dropping_server() -> Iterator[tuple[int, list[bytes]]]:
    """A raw SMTP server that accepts one session up to ``354``, reads the first bytes of
    content and closes the connection without an answer; its port and what it read."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    port = listener.getsockname()[1]
    got: list[bytes] = []

    def serve() -> None:
        connection, _ = listener.accept()
        with connection, connection.makefile("rb") as reader:
            connection.sendall(b"220 drop.test ESMTP\r\n")
            while line := reader.readline():
                verb = line[:4].upper()
                if verb in {b"EHLO", b"HELO"}:
                    connection.sendall(b"250 drop.test\r\n")
                elif verb == b"DATA":
                    connection.sendall(b"354 go ahead\r\n")
                    got.append(reader.readline())
                    return  # drop it: no final answer
                else:
                    connection.sendall(b"250 OK\r\n")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield port, got
    finally:
        thread.join(timeout=10)
        listener.close()
