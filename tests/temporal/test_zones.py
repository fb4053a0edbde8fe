"""IANA zone names, zone loading and the local date of an instant.

Berlin switches to CEST at 2026-03-29T01:00:00Z and back to CET at 2026-10-25T01:00:00Z, so
its local day 2026-03-29 spans [2026-03-28T23:00Z, 2026-03-29T22:00Z) (23 hours) and its local
day 2026-10-25 spans [2026-10-24T22:00Z, 2026-10-25T23:00Z) (25 hours).
"""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError

from cerebri.temporal import Instant, LocalDate, TimeZoneId, known_zone_names, local_date_of, zone


class Scoped(BaseModel):
    model_config = ConfigDict(strict=True)
    tz: TimeZoneId


@pytest.mark.parametrize(
    "name", ["UTC", "Europe/Berlin", "America/New_York", "Pacific/Kiritimati", "Etc/GMT+5"]
)
def test_known_names_accepted(name: str) -> None:
    assert Scoped.model_validate_json(f'{{"tz": "{name}"}}').tz == name
    assert zone(name).key == name


@pytest.mark.parametrize(
    "name", ["Mars/Olympus", "europe/berlin", "EUROPE/BERLIN", "utc", "", "Europe/Berlin ", "local"]
)
def test_unknown_names_rejected(name: str) -> None:
    with pytest.raises(ValidationError, match="unknown time zone"):
        Scoped.model_validate_json(f'{{"tz": "{name}"}}')
    with pytest.raises(ValueError, match="unknown time zone"):
        zone(name)


def test_system_only_entries_are_not_zones() -> None:
    assert "localtime" not in known_zone_names()
    assert "Europe/Berlin" in known_zone_names()
    with pytest.raises(ValidationError):
        TypeAdapter(TimeZoneId).validate_python("localtime")


def test_zone_is_cached() -> None:
    assert zone("Europe/Berlin") is zone("Europe/Berlin")


def test_non_string_rejected_in_strict_mode() -> None:
    with pytest.raises(ValidationError):
        Scoped.model_validate_json('{"tz": 5}')


@pytest.mark.parametrize(
    ("instant", "expected"),
    [
        ("2026-03-28T22:59:59Z", "2026-03-28"),
        ("2026-03-28T23:00:00Z", "2026-03-29"),
        ("2026-03-29T00:59:59Z", "2026-03-29"),
        ("2026-03-29T01:00:00Z", "2026-03-29"),
        ("2026-03-29T21:59:59.999999999Z", "2026-03-29"),
        ("2026-03-29T22:00:00Z", "2026-03-30"),
        ("2026-10-24T21:59:59Z", "2026-10-24"),
        ("2026-10-24T22:00:00Z", "2026-10-25"),
        ("2026-10-25T00:30:00Z", "2026-10-25"),
        ("2026-10-25T01:30:00Z", "2026-10-25"),
        ("2026-10-25T22:59:59.999999999Z", "2026-10-25"),
        ("2026-10-25T23:00:00Z", "2026-10-26"),
        ("2026-01-01T01:30:00Z", "2026-01-01"),
        ("2025-12-31T22:59:59Z", "2025-12-31"),
        ("2025-12-31T23:00:00Z", "2026-01-01"),
    ],
)
def test_berlin_local_dates(instant: str, expected: str) -> None:
    assert local_date_of(Instant.parse(instant), "Europe/Berlin") == LocalDate.parse(expected)


def test_other_zones() -> None:
    at = Instant.parse("2026-10-01T10:00:00Z")
    assert local_date_of(at, "Pacific/Kiritimati") == LocalDate(2026, 10, 2)  # UTC+14 → 00:00
    assert local_date_of(at.plus_ns(-1) or at, "Pacific/Kiritimati") == LocalDate(2026, 10, 1)
    assert local_date_of(Instant.parse("2026-10-01T03:59:59Z"), "America/New_York") == (
        LocalDate(2026, 9, 30)
    )
    assert local_date_of(at, "UTC") == LocalDate(2026, 10, 1)


def test_overflow_gives_none() -> None:
    assert local_date_of(Instant.MAX, "Pacific/Kiritimati") is None
    assert local_date_of(Instant.MIN, "UTC") is None
    assert local_date_of(Instant.parse("9999-12-31T23:00:00Z"), "Pacific/Kiritimati") is None
    assert local_date_of(Instant.parse("0001-01-01T00:00:00Z"), "America/New_York") is None
    assert local_date_of(Instant.parse("9999-12-31T23:00:00Z"), "UTC") == LocalDate(9999, 12, 31)
    assert local_date_of(Instant.parse("0001-01-01T00:00:00Z"), "UTC") == LocalDate(1, 1, 1)


def test_unknown_zone_in_local_date_of() -> None:
    with pytest.raises(ValueError, match="unknown time zone"):
        local_date_of(Instant.parse("2026-10-01T10:00:00Z"), "Mars/Olympus")
