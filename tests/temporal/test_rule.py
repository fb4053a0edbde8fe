"""The temporal layer's own rule value and the CPIR model mapped onto it."""

from __future__ import annotations

import pytest

from cerebri.cpir import Coverage as WireCoverage
from cerebri.cpir import RecurrenceDefinition, parse_model
from cerebri.errors import InvalidArgumentError
from cerebri.temporal import Instant, LocalDate, expand, sequence_of
from cerebri.temporal.policies import Coverage, FoldPolicy, GapPolicy
from cerebri.temporal.rule import Recurrence


def _wire() -> RecurrenceDefinition:
    return parse_model(
        RecurrenceDefinition,
        {
            "timezone": "Europe/Berlin",
            "start_date": "2026-03-02",
            "local_time": "09:30:00",
            "duration": 1800,
            "pattern": {"frequency": "WEEKLY", "every": 2, "weekdays": ["fri", "Monday"]},
            "count": 5,
            "fold_policy": "Later",
            "gap_policy": "Skip",
        },
    )


def test_the_wire_model_maps_onto_the_temporal_value() -> None:
    rule = _wire().to_recurrence()
    assert rule == Recurrence(
        start_date=LocalDate(2026, 3, 2),
        local_time=_wire().local_time,
        timezone="Europe/Berlin",
        duration=1800,
        frequency="WEEKLY",
        every=2,
        weekdays=(0, 4),  # Monday, Friday
        until=None,
        count=5,
        gap_policy=GapPolicy.SKIP,
        fold_policy=FoldPolicy.LATER,
    )
    assert WireCoverage is Coverage  # one enum, used by both layers


def test_expand_answers_the_same_for_the_model_and_the_value() -> None:
    start, end = Instant.parse("2026-03-01T00:00:00Z"), Instant.parse("2026-05-01T00:00:00Z")
    wire = expand(_wire(), start, end, max_occurrences=100, max_dates=1000)
    value = expand(_wire().to_recurrence(), start, end, max_occurrences=100, max_dates=1000)
    assert wire == value
    # By hand: Mon 2 Mar, Fri 6 Mar, Mon 16 Mar, Fri 20 Mar, Mon 30 Mar (count 5).
    assert [o.date.format() for o in value.occurrences] == [
        "2026-03-02",
        "2026-03-06",
        "2026-03-16",
        "2026-03-20",
        "2026-03-30",
    ]
    assert sequence_of(_wire().to_recurrence(), LocalDate(2026, 3, 20)) == 4


def test_anything_else_is_an_invalid_argument() -> None:
    with pytest.raises(InvalidArgumentError) as raised:
        sequence_of("DAILY", LocalDate(2026, 3, 2))  # type: ignore[arg-type]
    assert raised.value.code == "temporal.invalid_argument"
