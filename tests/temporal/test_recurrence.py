"""Recurrence expansion: the goldens of temporal.md sections 5 and 6, plus oracles.

Expected instants are written by hand in UTC. Zone facts used below:
* Europe/Berlin: CET (+1) → CEST (+2) at 2026-03-29T01:00Z, back at 2026-10-25T01:00Z.
* Australia/Lord_Howe: +11 → +10:30 at 2026-04-05 02:00 local (2026-04-04T15:00Z).
* Pacific/Apia: 2011-12-29 ran at -10, the next local day was 2011-12-31 at +14.
"""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest

from cerebri import temporal_report
from cerebri.cpir.enums import GapPolicy
from cerebri.cpir.parse import parse_model
from cerebri.cpir.temporal_context import RecurrenceDefinition
from cerebri.temporal import (
    Expansion,
    Instant,
    LocalDate,
    LocalTime,
    Resolution,
    TemporalError,
    TemporalRejected,
    expand,
    resolve_local,
    sequence_of,
)

WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


def at(text: str) -> Instant:
    return Instant.parse(text)


def rule(**fields: Any) -> RecurrenceDefinition:
    """A daily UTC rule at 00:00 for 30 minutes, overridden by ``fields``."""
    document: dict[str, Any] = {
        "start_date": "2026-01-01",
        "local_time": "00:00:00",
        "timezone": "UTC",
        "duration": 1800,
        "pattern": {"frequency": "DAILY", "every": 1},
        "gap_policy": "Reject",
        "fold_policy": "Reject",
    }
    document.update(fields)
    return parse_model(RecurrenceDefinition, document)


def run(
    definition: RecurrenceDefinition,
    start: str,
    end: str,
    *,
    max_occurrences: int = 10_000,
    max_dates: int = 36_600,
) -> Expansion:
    return expand(
        definition,
        at(start),
        at(end),
        max_occurrences=max_occurrences,
        max_dates=max_dates,
    )


def rejected(definition: RecurrenceDefinition, start: str, end: str, **limits: int) -> str:
    with pytest.raises(TemporalRejected) as caught:
        run(definition, start, end, **limits)
    return caught.value.error.value


def starts(expansion: Expansion) -> list[tuple[int, str]]:
    return [(o.sequence, o.start.format()) for o in expansion.occurrences]


# ----------------------------------------------------------------------------- DST gap


def berlin_gap(policy: str) -> RecurrenceDefinition:
    return rule(
        start_date="2026-03-28",
        local_time="02:30:00",
        timezone="Europe/Berlin",
        count=3,
        gap_policy=policy,
    )


def test_berlin_gap_reject() -> None:
    error = rejected(berlin_gap("Reject"), "2026-03-27T23:00:00Z", "2026-03-31T00:00:00Z")
    assert error == "NonexistentLocalTime"


def test_berlin_gap_skip() -> None:
    result = run(berlin_gap("Skip"), "2026-03-27T23:00:00Z", "2026-03-31T00:00:00Z")
    assert starts(result) == [(1, "2026-03-28T01:30:00Z"), (3, "2026-03-30T00:30:00Z")]
    assert [o.resolution for o in result.occurrences] == [Resolution.UNIQUE] * 2
    assert [s.to_wire() for s in result.skipped] == [
        {"sequence": 2, "date": "2026-03-29", "reason": "NonexistentLocalTime"}
    ]
    assert result.occurrences[0].end == at("2026-03-28T02:00:00Z")


def test_gap_outside_the_window_is_ignored() -> None:
    # The gap date 2026-03-29 is examined (two-day margin) but lies after the window.
    result = run(berlin_gap("Reject"), "2026-03-27T23:00:00Z", "2026-03-28T12:00:00Z")
    assert starts(result) == [(1, "2026-03-28T01:30:00Z")]
    assert result.skipped == ()


# ----------------------------------------------------------------------------- DST fold


def berlin_fold(policy: str, duration: int = 1800) -> RecurrenceDefinition:
    return rule(
        start_date="2026-10-25",
        local_time="02:30:00",
        timezone="Europe/Berlin",
        duration=duration,
        count=1,
        fold_policy=policy,
    )


def test_berlin_fold_policies() -> None:
    window = ("2026-10-25T00:00:00Z", "2026-10-25T04:00:00Z")
    assert rejected(berlin_fold("Reject"), *window) == "AmbiguousLocalTime"
    earlier = run(berlin_fold("Earlier"), *window).occurrences
    later = run(berlin_fold("Later"), *window).occurrences
    assert [(o.start, o.resolution) for o in earlier] == [
        (at("2026-10-25T00:30:00Z"), Resolution.EARLIER_FOLD)
    ]
    assert [(o.start, o.resolution) for o in later] == [
        (at("2026-10-25T01:30:00Z"), Resolution.LATER_FOLD)
    ]


def test_irrelevant_fold_is_ignored() -> None:
    # Neither 00:30Z nor 01:30Z (30 minutes each) overlaps a horizon from 03:00Z.
    result = run(berlin_fold("Reject"), "2026-10-25T03:00:00Z", "2026-10-25T04:00:00Z")
    assert result.occurrences == ()
    # A horizon that only the later instant reaches still makes the fold relevant.
    error = rejected(berlin_fold("Reject"), "2026-10-25T01:45:00Z", "2026-10-25T04:00:00Z")
    assert error == "AmbiguousLocalTime"
    # Relevant, resolved to the earlier instant, which itself misses the horizon.
    result = run(berlin_fold("Earlier"), "2026-10-25T01:45:00Z", "2026-10-25T04:00:00Z")
    assert result.occurrences == ()


def test_lord_howe_half_hour_fold() -> None:
    def lord_howe(policy: str) -> RecurrenceDefinition:
        return rule(
            start_date="2026-04-05",
            local_time="01:45:00",
            timezone="Australia/Lord_Howe",
            count=1,
            fold_policy=policy,
        )

    window = ("2026-04-04T12:00:00Z", "2026-04-04T18:00:00Z")
    assert rejected(lord_howe("Reject"), *window) == "AmbiguousLocalTime"
    earlier = run(lord_howe("Earlier"), *window).occurrences[0]
    later = run(lord_howe("Later"), *window).occurrences[0]
    assert earlier.start == at("2026-04-04T14:45:00Z")
    assert later.start == at("2026-04-04T15:15:00Z")
    assert later.start - earlier.start == 30 * 60 * 10**9


def test_fold_clipped_horizon_keeps_range_and_resolution() -> None:
    # Section 6: a horizon 10 minutes inside the occurrence only changes visible_range.
    for policy, start, end, resolution in [
        ("Earlier", "2026-10-25T00:30:00Z", "2026-10-25T01:30:00Z", "EarlierFold"),
        ("Later", "2026-10-25T01:30:00Z", "2026-10-25T02:30:00Z", "LaterFold"),
    ]:
        definition = berlin_fold(policy, duration=3600)
        full = run(definition, "2026-10-25T00:00:00Z", "2026-10-25T04:00:00Z").occurrences
        inner_start = at(start).plus_seconds(600)
        inner_end = at(end).plus_seconds(-600)
        assert inner_start is not None and inner_end is not None
        clipped = expand(
            definition, inner_start, inner_end, max_occurrences=10, max_dates=100
        ).occurrences
        assert len(full) == len(clipped) == 1
        wire = clipped[0].to_wire()
        assert wire["range"] == {"start": start, "end": end}
        assert wire["visible_range"] == {"start": inner_start.format(), "end": inner_end.format()}
        assert wire["resolution"] == resolution
        assert full[0].start == clipped[0].start and full[0].end == clipped[0].end


# ----------------------------------------------------------------------------- other zones


def test_berlin_daily_nine_across_spring_change() -> None:
    definition = rule(start_date="2026-03-27", local_time="09:00:00", timezone="Europe/Berlin")
    result = run(definition, "2026-03-27T00:00:00Z", "2026-03-31T00:00:00Z")
    assert starts(result) == [
        (1, "2026-03-27T08:00:00Z"),
        (2, "2026-03-28T08:00:00Z"),
        (3, "2026-03-29T07:00:00Z"),
        (4, "2026-03-30T07:00:00Z"),
    ]
    hours = 3600 * 10**9
    assert result.occurrences[2].start - result.occurrences[1].start == 23 * hours


def test_apia_removed_day_is_skipped() -> None:
    definition = rule(
        start_date="2011-12-29",
        local_time="12:00:00",
        timezone="Pacific/Apia",
        count=3,
        gap_policy="Skip",
    )
    result = run(definition, "2011-12-29T00:00:00Z", "2012-01-02T00:00:00Z")
    assert starts(result) == [(1, "2011-12-29T22:00:00Z"), (3, "2011-12-30T22:00:00Z")]
    assert [(s.sequence, s.date.format()) for s in result.skipped] == [(2, "2011-12-30")]
    apia_gap = definition.model_copy(update={"gap_policy": GapPolicy.REJECT})
    error = rejected(apia_gap, "2011-12-29T00:00:00Z", "2012-01-02T00:00:00Z")
    assert error == "NonexistentLocalTime"


def test_resolve_local_helpers() -> None:
    berlin = "Europe/Berlin"
    half_past_two = LocalTime.of(2, 30)
    assert resolve_local(LocalDate(2026, 3, 29), half_past_two, berlin) == ()
    assert resolve_local(LocalDate(2026, 10, 25), half_past_two, berlin) == (
        at("2026-10-25T00:30:00Z"),
        at("2026-10-25T01:30:00Z"),
    )
    assert resolve_local(LocalDate(2026, 1, 1), half_past_two, berlin) == (
        at("2026-01-01T01:30:00Z"),
    )
    # Nanoseconds survive the microsecond-only datetime round trip.
    exact = LocalTime.of(2, 30, 0, 123_456_789)
    assert resolve_local(LocalDate(2026, 1, 1), exact, berlin) == (
        at("2026-01-01T01:30:00.123456789Z"),
    )


# ----------------------------------------------------------------------------- windows


def test_occurrence_from_before_the_horizon_is_clipped() -> None:
    definition = rule(local_time="23:45:00")
    result = run(definition, "2026-01-02T00:00:00Z", "2026-01-02T23:45:00Z")
    assert len(result.occurrences) == 1
    only = result.occurrences[0].to_wire()
    assert only["date"] == "2026-01-01"
    assert only["range"] == {"start": "2026-01-01T23:45:00Z", "end": "2026-01-02T00:15:00Z"}
    assert only["visible_range"] == {
        "start": "2026-01-02T00:00:00Z",
        "end": "2026-01-02T00:15:00Z",
    }


def test_old_start_date_is_sought_not_scanned() -> None:
    # 1900-01-01 → 2026-01-02 is 46 022 days (even), so every second day from 01-02 is due.
    definition = rule(
        start_date="1900-01-01",
        local_time="09:00:00",
        duration=3600,
        pattern={"frequency": "DAILY", "every": 2},
    )
    result = run(definition, "2026-01-05T00:00:00Z", "2026-01-12T00:00:00Z")
    assert result.examined_dates == 13  # 2026-01-02 .. 2026-01-14 (lookback 01-04T23:00Z)
    assert result.examined_dates < 15
    assert starts(result) == [
        (23_014, "2026-01-06T09:00:00Z"),
        (23_015, "2026-01-08T09:00:00Z"),
        (23_016, "2026-01-10T09:00:00Z"),
    ]
    counted = definition.model_copy(update={"count": 10})
    counted_result = run(counted, "2026-01-05T00:00:00Z", "2026-01-12T00:00:00Z")
    assert counted_result.occurrences == ()
    assert counted_result.examined_dates < 15


def test_until_is_inclusive() -> None:
    definition = rule(local_time="09:00:00", until="2026-01-02")
    result = run(definition, "2026-01-01T00:00:00Z", "2026-01-08T00:00:00Z")
    assert starts(result) == [(1, "2026-01-01T09:00:00Z"), (2, "2026-01-02T09:00:00Z")]
    assert result.examined_dates == 2  # nothing after `until` is examined


# ----------------------------------------------------------------------------- budgets


def test_budgets() -> None:
    definition = rule(local_time="09:00:00")
    # 3 occurrences; dates 2026-01-02 .. 2026-01-10 (lookback 01-04T23:30Z, ±2 days) = 9.
    window = ("2026-01-05T00:00:00Z", "2026-01-08T00:00:00Z")
    assert len(run(definition, *window, max_occurrences=3).occurrences) == 3
    assert rejected(definition, *window, max_occurrences=2) == "OccurrenceLimitExceeded"
    assert run(definition, *window, max_dates=9).examined_dates == 9
    assert rejected(definition, *window, max_dates=8) == "DateLimitExceeded"
    assert rejected(definition, *window, max_dates=0) == "DateLimitExceeded"
    assert rejected(definition, *window, max_occurrences=10_001) == "InputLimit"
    assert rejected(definition, *window, max_dates=36_601) == "InputLimit"
    assert len(run(definition, *window, max_occurrences=10_000, max_dates=36_600).occurrences)


def test_error_codes() -> None:
    error = TemporalRejected(TemporalError.OCCURRENCE_LIMIT_EXCEEDED)
    assert error.code == "temporal.occurrence_limit_exceeded"
    assert TemporalRejected(TemporalError.INPUT_LIMIT).code == "temporal.input_limit"
    assert [e.value for e in TemporalError] == [
        "InvalidRange",
        "InvalidDuration",
        "Overflow",
        "AmbiguousLocalTime",
        "NonexistentLocalTime",
        "InvalidRecurrence",
        "InputLimit",
        "OccurrenceLimitExceeded",
        "DateLimitExceeded",
    ]


# ----------------------------------------------------------------------------- overflow


def test_overflow_at_the_instant_limits() -> None:
    near_max = Instant.MAX.plus_seconds(-86_400)
    near_min = Instant.MIN.plus_seconds(86_400)
    assert near_max is not None and near_min is not None
    kiritimati = rule(timezone="Pacific/Kiritimati")
    for definition, start, end in [
        (kiritimati, near_max, Instant.MAX),
        (rule(), Instant.MIN, near_min),
        (kiritimati, at("9999-12-31T12:00:00Z"), at("9999-12-31T23:00:00Z")),
    ]:
        with pytest.raises(TemporalRejected) as caught:
            expand(definition, start, end, max_occurrences=10, max_dates=100)
        assert caught.value.error is TemporalError.OVERFLOW


# ----------------------------------------------------------------------------- oracles


def oracle_dates(
    start: LocalDate, every: int, days: set[int] | None, count: int, until: LocalDate | None
) -> list[LocalDate]:
    """Nominal dates by walking day by day (``days`` None = DAILY, else WEEKLY weekdays)."""
    found: list[LocalDate] = []
    week = 0
    offset = 0
    while len(found) < count:
        date = start.plus_days(offset)
        assert date is not None
        if until is not None and date > until:
            break
        if offset and date.weekday() == 0:
            week += 1  # a new Monday-first week begins
        due = offset % every == 0 if days is None else week % every == 0 and date.weekday() in days
        if due:
            found.append(date)
        offset += 1
    return found


def test_weekly_sequences_match_day_by_day_oracle() -> None:
    mondays = LocalDate(2026, 1, 5)
    for anchor, every, mask in itertools.product(range(7), (1, 2, 3), range(1, 128)):
        start = mondays.plus_days(anchor)
        assert start is not None
        days = {day for day in range(7) if mask >> day & 1}
        definition = rule(
            start_date=start.format(),
            count=12,
            pattern={
                "frequency": "WEEKLY",
                "every": every,
                "weekdays": [WEEKDAYS[day] for day in sorted(days)],
            },
        )
        expected = oracle_dates(start, every, days, 12, None)
        last = expected[-1]
        produced = [
            start.plus_days(offset) for offset in range(last.ordinal() - start.ordinal() + 1)
        ]
        sequences = {date: sequence_of(definition, date) for date in produced if date is not None}
        assert {d: s for d, s in sequences.items() if s is not None} == {
            date: index + 1 for index, date in enumerate(expected)
        }, (anchor, every, mask)
        # The expansion stops at count 12 even though the horizon runs a week longer.
        after_last = last.plus_days(7)
        assert after_last is not None
        result = expand(
            definition,
            Instant.parse(f"{start}T00:00:00Z"),
            Instant.parse(f"{after_last}T00:00:00Z"),
            max_occurrences=12,
            max_dates=36_600,
        )
        assert [(o.sequence, o.date) for o in result.occurrences] == list(enumerate(expected, 1)), (
            anchor,
            every,
            mask,
        )


def test_weekly_expansion_stops_at_count() -> None:
    definition = rule(
        start_date="2026-01-07",  # a Wednesday
        count=12,
        pattern={"frequency": "WEEKLY", "every": 2, "weekdays": ["Sun", "Mon", "Wed"]},
    )
    result = run(definition, "2026-01-01T00:30:00Z", "2026-04-01T00:00:00Z")
    expected = oracle_dates(LocalDate(2026, 1, 7), 2, {0, 2, 6}, 12, None)
    assert [o.date for o in result.occurrences] == expected
    assert [o.sequence for o in result.occurrences] == list(range(1, 13))


def test_seeded_rules_match_day_by_day_oracle() -> None:
    rng = random.Random(20260101)
    base = LocalDate(2026, 1, 1)
    for _ in range(256):
        start = base.plus_days(rng.randrange(7))
        assert start is not None
        every = rng.randint(1, 3)
        count = rng.randint(1, 12)
        until = start.plus_days(rng.randint(0, 27))
        duration = rng.choice((1800, 3600, 86_400, 2 * 86_400))
        weekly = rng.random() < 0.5
        days = set(rng.sample(range(7), rng.randint(1, 7))) if weekly else None
        pattern: dict[str, Any] = {"frequency": "WEEKLY" if weekly else "DAILY", "every": every}
        if days is not None:
            pattern["weekdays"] = [WEEKDAYS[day] for day in days]
        definition = rule(
            start_date=start.format(),
            until=until.format() if until else None,
            count=count,
            duration=duration,
            pattern=pattern,
        )
        horizon_start = Instant.parse(f"{base.plus_days(rng.randrange(20))}T00:30:00Z")
        horizon_end = horizon_start.plus_seconds(86_400 * rng.randint(1, 9))
        assert horizon_end is not None
        result = expand(
            definition, horizon_start, horizon_end, max_occurrences=1_000, max_dates=1_000
        )
        expected = []
        for sequence, date in enumerate(oracle_dates(start, every, days, count, until), 1):
            begin = Instant.parse(f"{date}T00:00:00Z")
            end = begin.plus_seconds(duration)
            assert end is not None
            if begin < horizon_end and end > horizon_start:
                visible = (max(begin, horizon_start), min(end, horizon_end))
                expected.append((sequence, date, begin, end, visible))
        assert [
            (o.sequence, o.date, o.start, o.end, (o.visible_start, o.visible_end))
            for o in result.occurrences
        ] == expected


def test_budgets_are_shared_across_rules() -> None:
    # Section 6: two identical rules, a date budget sufficient for only one of them.
    definition = rule(local_time="09:00:00").model_dump(mode="json")
    request = {
        "horizon": {"start": "2026-01-05T00:00:00Z", "end": "2026-01-08T00:00:00Z"},
        "busy": [],
        "coverage": "Complete",
        "recurrences": [definition, definition],
        "limits": {"max_occurrences": 100, "max_dates": 9},  # one rule examines 9 dates
    }
    assert temporal_report(request).to_wire() == {"status": "Rejected", "data": "DateLimitExceeded"}
    request["limits"] = {"max_occurrences": 100, "max_dates": 18}
    complete = temporal_report(request)
    assert [e.examined_dates for e in complete.expansions] == [9, 9]
    request["limits"] = {"max_occurrences": 5, "max_dates": 18}  # 3 + 3 occurrences needed
    assert temporal_report(request).to_wire() == {
        "status": "Rejected",
        "data": "OccurrenceLimitExceeded",
    }
    request["limits"] = {"max_occurrences": 6, "max_dates": 18}
    assert temporal_report(request).status == "Complete"
