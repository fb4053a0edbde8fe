"""Unfolding continuation lines (RFC 5545 section 3.1) keeps line numbers and is linear.

The linear-time case runs in a subprocess with a timeout: two million continuation lines
unfold in about a second, where joining each piece onto the line so far (the old code)
copies the growing line every time and needs minutes.
"""

from __future__ import annotations

import subprocess
import sys

from cerebri.ics import parse_calendar
from cerebri.ics.load import _logical_lines


def test_unfolding_joins_pieces_and_keeps_first_and_last_line_numbers() -> None:
    text = "A:1\r\n 2\r\n\t3\nB:x\r\n y\rC:z\n"
    assert _logical_lines(text) == [
        (1, 3, "A:123"),
        (4, 5, "B:xy"),
        (6, 6, "C:z"),
        (7, 7, ""),
    ]
    assert _logical_lines(" lead\r\n more") == [(1, 2, " leadmore")]
    assert _logical_lines("") == [(1, 1, "")]


def test_a_value_folded_over_many_lines_reads_back_whole() -> None:
    lines = 50_000
    text = (
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\nBEGIN:VEVENT\r\nUID:u1\r\n"
        "DTSTAMP:20260101T000000Z\r\nDTSTART:20260102T100000Z\r\nDTEND:20260102T110000Z\r\n"
        "DESCRIPTION:x" + "\r\n xy" * lines + "\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
    )
    (event,) = parse_calendar(text).walk("VEVENT")
    assert str(event["DESCRIPTION"]) == "x" + "xy" * lines


def test_unfolding_two_million_continuation_lines_is_linear() -> None:
    program = (
        "from cerebri.ics.load import _logical_lines\n"
        "lines = _logical_lines('DESCRIPTION:x' + '\\r\\n xy' * 2_000_000)\n"
        "assert lines == [(1, 2_000_001, 'DESCRIPTION:x' + 'xy' * 2_000_000)]\n"
    )
    done = subprocess.run([sys.executable, "-c", program], timeout=20, check=False)
    assert done.returncode == 0
