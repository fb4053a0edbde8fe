"""``Instant.parse`` of the plain ``YYYY-MM-DDTHH:MM:SSZ`` spelling (its C fast path,
decision 0031) against datetime arithmetic, and its refusals worded as the full parser's."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cerebri.temporal import Instant

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@given(st.datetimes())  # naive, years 1-9999 by default; read as UTC below
def test_plain_utc_text_is_its_seconds_since_the_epoch(moment: datetime) -> None:
    moment = moment.replace(microsecond=0, tzinfo=UTC)
    text = f"{moment.year:04d}-{moment:%m-%dT%H:%M:%S}Z"
    seconds = (moment - EPOCH).days * 86_400 + (moment - EPOCH).seconds
    assert Instant.parse(text).ns == seconds * 1_000_000_000
    assert Instant.parse(text).format() == text


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("2026-02-30T00:00:00Z", "day 30 is outside 1..28"),
        ("2026-13-01T00:00:00Z", "month 13 is outside 1..12"),
        ("2026-01-01T24:00:00Z", "hour 24 is outside 0..23"),
        ("2026-01-01T00:60:00Z", "minute 60 is outside 0..59"),
        ("2026-06-30T23:59:60Z", "leap second"),
    ],
)
def test_plain_utc_refusals_name_the_field(text: str, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        Instant.parse(text)


def test_year_zero_takes_the_full_parser() -> None:
    assert Instant.parse("0000-01-01T00:00:00Z").format() == "0000-01-01T00:00:00Z"
