"""``/v1/temporal`` diagnostics (temporal.md 2.1-2.3): inline requests, the shared
conformance requests and byte-for-byte golden results.

Expected values are written by hand (UTC) or copied from the conformance README; golden files
under ``tests/golden/`` record the full result and are regenerated only deliberately with
``CEREBRI_UPDATE_GOLDENS=1``.
"""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from typing import Any

import pytest

from cerebri import temporal_report
from cerebri._json import pretty
from cerebri.cpir.temporal_request import TemporalRequest
from cerebri.errors import ParseError
from cerebri.temporal import Instant, TemporalError, TemporalResult

GOLDEN = Path(__file__).resolve().parent.parent / "golden"


def daily_rule(**fields: Any) -> dict[str, Any]:
    document: dict[str, Any] = {
        "start_date": "2026-01-01",
        "local_time": "09:00:00",
        "timezone": "UTC",
        "duration": 3600,
        "pattern": {"frequency": "DAILY", "every": 1},
        "gap_policy": "Reject",
        "fold_policy": "Reject",
    }
    document.update(fields)
    return document


def request(**fields: Any) -> dict[str, Any]:
    document: dict[str, Any] = {
        "horizon": {"start": "2026-01-05T00:00:00Z", "end": "2026-01-07T00:00:00Z"},
        "busy": [
            {
                "range": {"start": "2026-01-05T08:30:00Z", "end": "2026-01-05T09:30:00Z"},
                "buffers": {"before_seconds": 0, "after_seconds": 1800, "travel_seconds": 0},
            }
        ],
        "coverage": "Complete",
        "recurrences": [daily_rule()],
        "limits": {"max_occurrences": 10, "max_dates": 100},
    }
    document.update(fields)
    return document


def load(conformance: Path, name: str) -> dict[str, Any]:
    document: dict[str, Any] = json.loads((conformance / "cerebri" / name).read_text("utf-8"))
    return document


def wire_of(document: dict[str, Any]) -> dict[str, Any]:
    wire: dict[str, Any] = temporal_report(document).to_wire()
    return wire


def status_of(result: TemporalResult) -> Any:
    wire = result.to_wire()
    return wire["status"], wire["data"] if wire["status"] == "Rejected" else None


def span(start: str, end: str) -> dict[str, str]:
    return {"start": f"2026-01-0{start}Z", "end": f"2026-01-0{end}Z"}


# ----------------------------------------------------------------------------- inline


def test_inline_request_complete() -> None:
    wire = wire_of(request())
    assert wire["status"] == "Complete"
    availability = wire["data"]["availability"]
    # busy 08:30-09:30 + 30 min after, merged with the 09:00-10:00 occurrence on the 5th.
    assert availability["busy"] == [
        span("5T08:30:00", "5T10:00:00"),
        span("6T09:00:00", "6T10:00:00"),
    ]
    assert availability["free"] == [
        span("5T00:00:00", "5T08:30:00"),
        span("5T10:00:00", "6T09:00:00"),
        span("6T10:00:00", "7T00:00:00"),
    ]
    assert availability["unknown"] == []
    assert [entry["input_index"] for entry in availability["trace"]] == [0, 1, 2]
    (expansion,) = wire["data"]["expansions"]
    assert expansion["examined_dates"] == 8  # 2026-01-02 .. 2026-01-09 (lookback 01-04T23:00Z)
    assert [o["range"] for o in expansion["occurrences"]] == [
        span("5T09:00:00", "5T10:00:00"),
        span("6T09:00:00", "6T10:00:00"),
    ]
    assert [o["sequence"] for o in expansion["occurrences"]] == [5, 6]


def test_accepts_text_bytes_mapping_and_model() -> None:
    document = request()
    text = json.dumps(document)
    expected = temporal_report(document).to_wire()
    assert temporal_report(text).to_wire() == expected
    assert temporal_report(text.encode()).to_wire() == expected
    assert temporal_report(TemporalRequest.model_validate_json(text)).to_wire() == expected


def test_occurrence_busy_input_is_the_visible_range() -> None:
    # The occurrence 2026-01-04 23:00-01:00Z (2 h) is only visible from midnight.
    rule = daily_rule(local_time="23:00:00", duration=7200)
    result = wire_of(request(busy=[], recurrences=[rule]))
    trace = result["data"]["availability"]["trace"]
    assert trace[0]["original"] == span("5T00:00:00", "5T01:00:00")
    expansion = result["data"]["expansions"][0]
    assert expansion["occurrences"][0]["range"] == span("4T23:00:00", "5T01:00:00")


@pytest.mark.parametrize(
    ("fields", "error"),
    [
        ({"limits": {"max_occurrences": 10_001, "max_dates": 1}}, "InputLimit"),
        ({"limits": {"max_occurrences": 1, "max_dates": 36_601}}, "InputLimit"),
        ({"recurrences": [daily_rule()] * 33}, "InputLimit"),
        ({"limits": {"max_occurrences": 0, "max_dates": 100}}, "OccurrenceLimitExceeded"),
        ({"limits": {"max_occurrences": 10, "max_dates": 0}}, "DateLimitExceeded"),
        ({"recurrences": [daily_rule(timezone="Europe/Berlin", start_date="2026-03-29",
                                     local_time="02:30:00")],
          "horizon": {"start": "2026-03-29T00:00:00Z", "end": "2026-03-30T00:00:00Z"}},
         "NonexistentLocalTime"),
    ],
)  # fmt: skip
def test_rejections(fields: dict[str, Any], error: str) -> None:
    result = temporal_report(request(**fields))
    assert result.to_wire() == {"status": "Rejected", "data": error}
    assert result.availability is None and result.expansions == ()


def test_thirty_two_rules_are_allowed() -> None:
    limits = {"max_occurrences": 64, "max_dates": 36_600}
    assert temporal_report(request(recurrences=[daily_rule()] * 32, limits=limits)).status == (
        "Complete"
    )


def test_busy_input_limits() -> None:
    entry = request()["busy"][0]
    assert status_of(temporal_report(request(busy=[entry] * 10_001, recurrences=[]))) == (
        "Rejected",
        "InputLimit",
    )
    assert status_of(temporal_report(request(busy=[entry] * 10_000, recurrences=[]))) == (
        "Complete",
        None,
    )
    # 9 999 entries plus two occurrences exceed 10 000 inputs in total.
    assert status_of(temporal_report(request(busy=[entry] * 9_999))) == ("Rejected", "InputLimit")


def test_overflow_is_a_rejection() -> None:
    horizon = {"start": "+262142-12-30T00:00:00Z", "end": Instant.MAX.format()}
    rule = daily_rule(timezone="Pacific/Kiritimati")
    result = temporal_report(request(horizon=horizon, busy=[], recurrences=[rule]))
    assert status_of(result) == ("Rejected", "Overflow")
    horizon = {"start": Instant.MIN.format(), "end": "-262143-01-02T00:00:00Z"}
    result = temporal_report(request(horizon=horizon, busy=[], recurrences=[daily_rule()]))
    assert status_of(result) == ("Rejected", "Overflow")


def test_until_and_count_may_be_omitted_or_null() -> None:
    assert temporal_report(request(recurrences=[daily_rule(until=None, count=None)])).status == (
        "Complete"
    )


@pytest.mark.parametrize(
    "mutate",
    [
        *(lambda d, k=key: d.pop(k)
          for key in ("coverage", "horizon", "limits", "recurrences", "busy")),
        *(lambda d, k=key: d["recurrences"][0].pop(k)
          for key in ("gap_policy", "fold_policy", "timezone", "pattern", "duration")),
        lambda d: d.update(silent_default=True),
        lambda d: d["busy"][0]["buffers"].pop("travel_seconds"),
        lambda d: d["limits"].pop("max_dates"),
        lambda d: d["recurrences"][0].update(count=0),
        lambda d: d["recurrences"][0].update(until="2025-12-31"),
        lambda d: d["recurrences"][0].update(local_time="23:59:60"),
        lambda d: d["recurrences"][0].update(duration=0),
        lambda d: d["recurrences"][0]["pattern"].update(every=0),
        lambda d: d["recurrences"][0]["pattern"].update(weekdays=["Mon"]),
        lambda d: d["recurrences"][0].update(pattern={"frequency": "MONTHLY", "every": 1}),
        lambda d: d["recurrences"][0].update(
            pattern={"frequency": "WEEKLY", "every": 1, "weekdays": []}),
        lambda d: d["recurrences"][0].update(
            pattern={"frequency": "WEEKLY", "every": 1, "weekdays": ["Mon", "Mon"]}),
        lambda d: d["horizon"].update(end=d["horizon"]["start"]),
        lambda d: d["limits"].update(max_occurrences=-1),
        lambda d: d["limits"].update(max_dates=2**32),
    ],
)  # fmt: skip
def test_parse_failures(mutate: Any) -> None:
    document = copy.deepcopy(request())
    mutate(document)
    with pytest.raises(ParseError):
        temporal_report(document)


def test_inconsistent_result_is_refused() -> None:
    with pytest.raises(ValueError, match="inconsistent"):
        TemporalResult(status="Complete", availability=None, expansions=(), error=None)
    with pytest.raises(ValueError, match="inconsistent"):
        TemporalResult(status="Rejected", availability=None, expansions=(), error=None)
    assert TemporalResult.rejected(TemporalError.OVERFLOW).to_wire() == {
        "status": "Rejected",
        "data": "Overflow",
    }


# ----------------------------------------------------------------------------- conformance


@pytest.mark.conformance
def test_temporal_request_conformance(conformance: Path) -> None:
    document = load(conformance, "temporal-request.json")
    wire = wire_of(document)
    assert wire["status"] == "Complete"
    expansion = wire["data"]["expansions"][0]
    assert [(o["sequence"], o["range"]["start"]) for o in expansion["occurrences"]] == [
        (1, "2026-03-28T01:30:00Z"),
        (3, "2026-03-30T00:30:00Z"),
    ]
    assert expansion["skipped"] == [
        {"sequence": 2, "date": "2026-03-29", "reason": "NonexistentLocalTime"}
    ]
    availability = wire["data"]["availability"]
    assert len(availability["busy"]) == 3
    assert len(availability["trace"]) == 3
    buffered = availability["trace"][0]["buffered"]
    assert buffered == {"start": "2026-03-28T09:45:00Z", "end": "2026-03-28T11:05:00Z"}
    assert Instant.parse(buffered["end"]) - Instant.parse(buffered["start"]) == 4_800 * 10**9
    assert availability["unknown"] == []
    assert wire_of(document) == wire  # reproducible

    document["coverage"] = "Incomplete"
    incomplete = wire_of(document)["data"]["availability"]
    assert incomplete["free"] == []
    assert incomplete["unknown"] == availability["free"]
    assert incomplete["busy"] == availability["busy"]


@pytest.mark.conformance
def test_temporal_request_rejections(conformance: Path) -> None:
    document = load(conformance, "temporal-request.json")
    rule = document["recurrences"][0]
    limits = document["limits"]
    cases: list[tuple[dict[str, Any], str]] = [
        ({"recurrences": [rule, rule], "limits": {**limits, "max_occurrences": 2}},
         "OccurrenceLimitExceeded"),
        ({"limits": {**limits, "max_dates": 0}}, "DateLimitExceeded"),
        ({"recurrences": [rule] * 33}, "InputLimit"),
        ({"limits": {**limits, "max_occurrences": 0}}, "OccurrenceLimitExceeded"),
    ]  # fmt: skip
    for change, error in cases:
        assert wire_of({**document, **change}) == {"status": "Rejected", "data": error}


@pytest.mark.conformance
def test_dst_diagnostic_conformance(conformance: Path) -> None:
    wire = wire_of(load(conformance, "planner/dst-diagnostic.json"))
    assert wire["status"] == "Complete"
    (expansion,) = wire["data"]["expansions"]
    assert expansion["skipped"] == [
        {"sequence": 1, "date": "2026-03-29", "reason": "NonexistentLocalTime"}
    ]
    assert expansion["occurrences"] == []


@pytest.mark.conformance
@pytest.mark.parametrize(
    ("name", "golden"),
    [
        ("temporal-request.json", "temporal-request.temporal.json"),
        ("planner/dst-diagnostic.json", "planner__dst-diagnostic.temporal.json"),
    ],
)
def test_temporal_golden(conformance: Path, name: str, golden: str) -> None:
    text = (conformance / "cerebri" / name).read_bytes()
    produced = pretty(temporal_report(text).to_wire())
    path = GOLDEN / golden
    if os.environ.get("CEREBRI_UPDATE_GOLDENS") == "1":
        path.write_text(produced, encoding="utf-8")
    assert path.exists(), f"missing golden {path.name}; run with CEREBRI_UPDATE_GOLDENS=1"
    assert produced == path.read_text(encoding="utf-8")
