"""``cerebri itip-reply``: attendees' REPLYs applied to the organizer's copy (RFC 5546
3.2.3; decision 0068), on an ``.ics`` calendar and on Radicale.

The organizer's object and every reply are written out by hand; the result is read back
with icalendar (CalDAV: through the ``caldav`` library), never with cerebri's code.
"""

from __future__ import annotations

import json
from email.message import EmailMessage
from pathlib import Path

import pytest
from icalendar import Calendar, Component
from typer.testing import CliRunner, Result

from cerebri.calendars.itip import ItipError
from cerebri.calendars.itip_reply import apply_reply
from cerebri.cli import app
from tests._dav_servers import on_radicale
from tests._radicale import RadicaleServer

UID = "weekly-0068@example.com"
RID = "20261210T100000Z"


def _attendees(bob: str = "NEEDS-ACTION", carol: str = "NEEDS-ACTION") -> list[str]:
    return [
        "ORGANIZER:mailto:alice@example.com",
        "ATTENDEE;PARTSTAT=ACCEPTED:mailto:alice@example.com",
        f"ATTENDEE;PARTSTAT={bob};RSVP=TRUE:mailto:bob@example.com",
        f"ATTENDEE;PARTSTAT={carol};RSVP=TRUE:mailto:Carol@Example.com",
    ]


def _organizer_object(sequence: int = 2) -> str:
    """A weekly series with one moved instance, as the organizer stores it."""
    lines = [
        "BEGIN:VCALENDAR",
        "VERSION:2.0",
        "PRODID:-//cerebri tests//reply//EN",
        "BEGIN:VEVENT",
        f"UID:{UID}",
        "DTSTAMP:20261201T080000Z",
        "DTSTART:20261203T100000Z",
        "DTEND:20261203T110000Z",
        "RRULE:FREQ=WEEKLY;COUNT=4",
        "SUMMARY:Weekly",
        f"SEQUENCE:{sequence}",
        *_attendees(),
        "END:VEVENT",
        "BEGIN:VEVENT",
        f"UID:{UID}",
        f"RECURRENCE-ID:{RID}",
        "DTSTAMP:20261201T080000Z",
        "DTSTART:20261210T140000Z",
        "DTEND:20261210T150000Z",
        "SUMMARY:Weekly (moved)",
        f"SEQUENCE:{sequence}",
        *_attendees(),
        "END:VEVENT",
        "END:VCALENDAR",
        "",
    ]
    return "\r\n".join(lines)


def _reply(who: str, partstat: str, *, sequence: int = 2, rid: str | None = None) -> str:
    lines = [
        "BEGIN:VCALENDAR",
        "VERSION:2.0",
        "PRODID:-//an attendee's client//EN",
        "METHOD:REPLY",
        "BEGIN:VEVENT",
        f"UID:{UID}",
        *([] if rid is None else [f"RECURRENCE-ID:{rid}"]),
        "DTSTAMP:20261202T090000Z",
        f"SEQUENCE:{sequence}",
        "ORGANIZER:mailto:alice@example.com",
        f"ATTENDEE;PARTSTAT={partstat}:mailto:{who}",
        "END:VEVENT",
        "END:VCALENDAR",
        "",
    ]
    return "\r\n".join(lines)


def _email(sender: str, body: str) -> bytes:
    message = EmailMessage()
    message["From"] = sender
    message["To"] = "alice@example.com"
    message["Subject"] = "Accepted: Weekly"
    message.set_content("My answer is attached.")
    message.add_attachment(
        body.encode(), maintype="text", subtype="calendar", params={"method": "REPLY"}
    )
    return message.as_bytes()


def _partstats(calendar: Calendar) -> dict[tuple[str | None, str], tuple[str, bool]]:
    """(RECURRENCE-ID text, address lower case) -> (PARTSTAT, RSVP given)."""
    found: dict[tuple[str | None, str], tuple[str, bool]] = {}
    for event in calendar.walk("VEVENT"):
        rid = event.get("RECURRENCE-ID")
        key = None if rid is None else rid.to_ical().decode()
        people = event.get("ATTENDEE")
        for person in people if isinstance(people, list) else [people]:
            address = str(person).lower()
            found[key, address] = (str(person.params["PARTSTAT"]), "RSVP" in person.params)
    return found


def _sequences(calendar: Calendar) -> list[int]:
    return [int(e["SEQUENCE"]) for e in calendar.walk("VEVENT")]


def run(*args: str) -> Result:
    return CliRunner().invoke(app, list(args))


@pytest.fixture
def organizer(tmp_path: Path) -> Path:
    path = tmp_path / "alice.ics"
    path.write_text(_organizer_object(), newline="")
    return path


def _write(tmp_path: Path, name: str, data: str | bytes) -> str:
    path = tmp_path / name
    if isinstance(data, str):
        path.write_text(data, newline="")
    else:
        path.write_bytes(data)
    return str(path)


def test_replies_on_an_ics_calendar(organizer: Path, tmp_path: Path) -> None:
    """bob accepts the series (an .ics reply), carol declines one instance (an e-mail):
    only their ATTENDEE lines change, RSVP goes, SEQUENCE stays; the same replies again
    write nothing."""
    bob = _write(tmp_path, "bob.ics", _reply("bob@example.com", "ACCEPTED"))
    carol = _write(
        tmp_path,
        "carol.eml",
        _email("Carol <carol@example.com>", _reply("carol@example.com", "DECLINED", rid=RID)),
    )
    calendar = ["--ics-calendar", f"work={organizer}"]
    first = run("itip-reply", bob, carol, *calendar, "--json")
    assert first.exit_code == 0, first.output
    rows = json.loads(first.stdout)["replies"]
    assert [(r["attendee"], r["recurrence_id"], r["partstat"], r["outcome"]) for r in rows] == [
        ("mailto:bob@example.com", None, "ACCEPTED", "updated"),
        ("mailto:carol@example.com", RID, "DECLINED", "updated"),
    ]
    after = Calendar.from_ical(organizer.read_bytes())
    states = _partstats(after)
    assert states[None, "mailto:bob@example.com"] == ("ACCEPTED", False)
    assert states[RID, "mailto:bob@example.com"] == ("NEEDS-ACTION", True)  # series reply only
    assert states[RID, "mailto:carol@example.com"] == ("DECLINED", False)
    assert states[None, "mailto:carol@example.com"] == ("NEEDS-ACTION", True)
    assert states[None, "mailto:alice@example.com"] == ("ACCEPTED", False)
    assert _sequences(after) == [2, 2]
    written = organizer.read_bytes()

    again = run("itip-reply", bob, carol, *calendar)
    assert again.exit_code == 0, again.output
    assert again.stdout.splitlines() == [
        f"unchanged: {UID} mailto:bob@example.com ACCEPTED (SEQUENCE 2): "
        "mailto:bob@example.com already ACCEPTED",
        f"unchanged: {UID} {RID} mailto:carol@example.com DECLINED (SEQUENCE 2): "
        "mailto:carol@example.com already DECLINED",
    ]
    assert organizer.read_bytes() == written


def test_a_stale_reply_is_ignored_and_strangers_are_refused(
    organizer: Path, tmp_path: Path
) -> None:
    calendar = ["--ics-calendar", f"work={organizer}"]
    before = organizer.read_bytes()
    stale = _write(tmp_path, "old.ics", _reply("bob@example.com", "TENTATIVE", sequence=1))
    result = run("itip-reply", stale, *calendar)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"stale: {UID} mailto:bob@example.com TENTATIVE (SEQUENCE 1)")
    assert "SEQUENCE 1, and the event has changed since (now 2): ignored" in result.stdout
    assert organizer.read_bytes() == before

    mallory = _write(tmp_path, "mallory.ics", _reply("mallory@example.com", "ACCEPTED"))
    refused = run("itip-reply", mallory, *calendar, "--json")
    assert refused.exit_code == 2
    assert json.loads(refused.stderr)["code"] == "itip.reply_not_an_attendee"

    forged = _write(
        tmp_path, "forged.eml", _email("mallory@example.com", _reply("bob@example.com", "DECLINED"))
    )
    refused = run("itip-reply", forged, *calendar, "--json")
    assert refused.exit_code == 2
    assert json.loads(refused.stderr)["code"] == "itip.reply_sender_mismatch"

    ahead = _write(tmp_path, "ahead.ics", _reply("bob@example.com", "ACCEPTED", sequence=3))
    refused = run("itip-reply", ahead, *calendar, "--json")
    assert json.loads(refused.stderr)["code"] == "itip.reply_sequence_ahead"

    lost = _write(
        tmp_path, "lost.ics", _reply("bob@example.com", "ACCEPTED", rid="20261217T100000Z")
    )
    refused = run("itip-reply", lost, *calendar, "--json")
    assert json.loads(refused.stderr)["code"] == "itip.reply_unknown_instance"

    notes = _write(
        tmp_path, "notes.ics", _reply("bob@example.com", "ACCEPTED").replace("REPLY", "REQUEST")
    )
    refused = run("itip-reply", notes, *calendar, "--json")
    assert json.loads(refused.stderr)["code"] == "itip.reply_unreadable"
    assert organizer.read_bytes() == before
    assert run("itip-reply", stale).exit_code == 2  # no calendar named


def test_apply_reply_leaves_its_input_alone() -> None:
    stored = Calendar.from_ical(_organizer_object())
    reply = Calendar.from_ical(_reply("bob@example.com", "ACCEPTED"))
    before = stored.to_ical()
    updated, outcomes = apply_reply(stored, reply)
    assert stored.to_ical() == before and updated is not stored
    assert [o.outcome for o in outcomes] == ["updated"]
    same, outcomes = apply_reply(updated, reply)
    assert same is updated and [o.outcome for o in outcomes] == ["unchanged"]
    other = Calendar.from_ical(_reply("bob@example.com", "ACCEPTED").replace(UID, "other@x"))
    with pytest.raises(ItipError) as caught:
        apply_reply(stored, other)
    assert caught.value.code == "itip.reply_unknown_event"
    assert isinstance(next(iter(updated.walk("VEVENT"))), Component)


def test_a_reply_on_radicale(radicale: RadicaleServer, tmp_path: Path) -> None:
    """The organizer's object on Radicale: the reply is written with If-Match (the ETag
    changes once), read back with the caldav library; a second run leaves the ETag."""
    server = on_radicale(radicale)
    url = server.new_calendar("alice", "reply")
    reader = server.reader("alice", url)
    href = reader.seed(_organizer_object(), None)

    def etag_and_body() -> tuple[str, Calendar]:
        with server.client("alice") as client:
            answer = client.request(href, "GET")
        return answer.headers["ETag"], Calendar.from_ical(answer.raw)

    before, _ = etag_and_body()
    bob = _write(tmp_path, "bob.ics", _reply("bob@example.com", "TENTATIVE"))
    args = ("itip-reply", bob, "--caldav-calendar", f"work={url}", "--caldav-user", "alice")
    first = run(*args, "--caldav-password", "unused")
    assert first.exit_code == 0, first.output
    assert first.stdout.startswith(f"updated: {UID} mailto:bob@example.com TENTATIVE")
    after, body = etag_and_body()
    assert after != before
    assert _partstats(body)[None, "mailto:bob@example.com"] == ("TENTATIVE", False)
    assert _partstats(body)[RID, "mailto:bob@example.com"] == ("NEEDS-ACTION", True)
    assert _sequences(body) == [2, 2]
    second = run(*args, "--caldav-password", "unused")
    assert second.exit_code == 0 and second.stdout.startswith("unchanged:")
    assert etag_and_body()[0] == after
