"""The one SlotQuery builder: same query for text and seconds, errors named per caller."""

from __future__ import annotations

from datetime import UTC, datetime, time

import pytest

from cerebri.calendars import SlotQuery
from cerebri.calendars.slot_options import (
    SlotOptions,
    option_name,
    pointer_name,
    slot_query,
)
from cerebri.errors import CerebriError
from cerebri.temporal import Instant


def _utc(text: str) -> Instant:
    return Instant.from_datetime(datetime.fromisoformat(text).replace(tzinfo=UTC))


def test_text_options_give_the_query_built_by_hand() -> None:
    options = SlotOptions(
        duration="1h30m",
        between="2026-10-05T08:00/2026-10-09T18:00",
        tz="UTC",
        granularity="PT30M",
        working_hours="09:00-17:00",
        working_days="Mon,Wed",
        buffer="10m",
        prefer_between="10:00-12:00",
        min_attendance=0.5,
        max_candidates=50,
    )
    expected = SlotQuery(
        window_start=_utc("2026-10-05T08:00"),
        window_end=_utc("2026-10-09T18:00"),
        duration_seconds=90 * 60,
        granularity_seconds=30 * 60,
        working_hours=(time(9), time(17)),
        working_days=frozenset({0, 2}),
        buffer_seconds=600,
        prefer_between=(time(10), time(12)),
        min_attendance=0.5,
        max_candidates=50,
    )
    assert slot_query(options, name=option_name) == expected
    as_seconds = SlotOptions(
        duration=5400,
        between=options.between,
        granularity=1800,
        working_hours="09:00-17:00",
        working_days="Mon,Wed",
        buffer=600,
        prefer_between="10:00-12:00",
        min_attendance="0.5",
        max_candidates=50,
    )
    assert slot_query(as_seconds, name=pointer_name) == expected


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("duration", "soon"),
        ("granularity", "0"),
        ("working_hours", "17:00-09:00"),
        ("working_days", "Funday"),
        ("buffer", "-1"),
        ("prefer", "noon"),
        ("prefer_between", "12-10"),
        ("min_attendance", "80%"),
        ("tz", "Mars/Olympus"),
        ("between", "2026-10-05"),
    ],
)
def test_a_refused_value_names_its_option_or_pointer(field: str, value: str) -> None:
    given = {"duration": "30m", "between": "2026-10-05T08:00/2026-10-05T18:00", field: value}
    options = SlotOptions(**given)  # type: ignore[arg-type]
    with pytest.raises(CerebriError) as cli:
        slot_query(options, name=option_name)
    dashed = "--" + field.replace("_", "-")
    assert cli.value.code == "input.invalid_option" and cli.value.path is None
    assert cli.value.message.startswith(f"{dashed}: ")
    with pytest.raises(CerebriError) as service:
        slot_query(options, name=pointer_name)
    assert service.value.code == "input.invalid_option" and service.value.path == f"/{field}"
    assert service.value.message == f"{field}: " + cli.value.message.removeprefix(f"{dashed}: ")


def test_two_daily_preferences_are_refused_at_the_second() -> None:
    options = SlotOptions(
        duration="30m",
        between="2026-10-05T08:00/2026-10-05T18:00",
        prefer="10:30",
        prefer_latest=True,
    )
    with pytest.raises(CerebriError) as caught:
        slot_query(options, name=pointer_name)
    assert caught.value.path == "/prefer_latest"
    assert caught.value.message == "prefer and prefer_latest are alternatives; pass one of them"
    with pytest.raises(CerebriError) as cli:
        slot_query(options, name=option_name)
    assert cli.value.message == "--prefer and --prefer-latest are alternatives; pass one of them"
    assert cli.value.path is None


def test_options_of_a_mapping_take_known_fields_and_defaults() -> None:
    values = {"duration": 600, "between": "2026-10-05T08:00/2026-10-05T18:00", "top": 3}
    assert SlotOptions.of(values) == SlotOptions(
        duration=600, between="2026-10-05T08:00/2026-10-05T18:00"
    )
