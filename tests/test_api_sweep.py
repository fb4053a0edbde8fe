"""Every public function of the facades answers wrong Python values with a CerebriError.

One sweep over ``__all__`` of the facades in :data:`FACADES` (``cerebri``, ``cerebri.plans``,
``cerebri.proposals``, ``cerebri.planner``, ..., ``cerebri.execution`` and its ``store`` and
``adapters``): each function (and each class with its own constructor) is called once per
parameter with that parameter replaced by ``None``, an int, a str and a list, the other
required parameters taking valid examples from :data:`VALID`. Whatever exception a call
raises must be a :class:`cerebri.errors.CerebriError` (decision 0017, "every public function
answers bad input with a CerebriError subclass"). A call that succeeds is fine: the value was
of an accepted type.
"""

from __future__ import annotations

import dataclasses
import enum
import importlib
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pydantic
import pytest

import cerebri
from cerebri import CerebriError, PlanningRequest, parse_request
from cerebri.clock import FakeClock
from cerebri.cpir import RankedCandidate
from cerebri.execution.store import parse_store_url
from cerebri.planner import DEFAULT_LIMITS, Edge, action_plan_for, validate_proposal
from cerebri.plans import builtin_registry, parse_draft
from cerebri.proposals import (
    FileReplayLedger,
    InMemoryReplayLedger,
    ObjectStore,
    ProposalError,
    artifact_for,
    parse_subject,
    sign,
)
from cerebri.temporal import Instant, Interval, LocalDate, LocalTime
from tests.proposals.helpers import ARTIFACT, KEY, NOW, body, registry, signed

FACADES = (
    "cerebri",
    "cerebri.plans",
    "cerebri.proposals",
    "cerebri.planner",
    "cerebri.cpir",
    "cerebri.temporal",
    "cerebri.calendars",
    "cerebri.ics",
    "cerebri.integrations",
    "cerebri.execution",
    "cerebri.execution.store",
    "cerebri.execution.adapters",
)
ICS = (
    "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//sweep//EN\r\nBEGIN:VEVENT\r\n"
    "UID:a\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:20260105T090000Z\r\n"
    "DTEND:20260105T100000Z\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
)
UNREACHABLE = "http://127.0.0.1:9/calendars/"  # discard port: refused at once, no network
EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "design-review.json"
START = Instant.parse("2026-01-05T00:00:00Z")
END = Instant.parse("2026-01-06T00:00:00Z")
DRAFT = {
    "objective": "wait a little",
    "origin": "operator",
    "strategy": "manual",
    "steps": [{"key": "pause", "kind": "wait", "wait": {"seconds": 30}}],
}


def _request() -> PlanningRequest:
    return parse_request(EXAMPLE.read_bytes())


def _best() -> RankedCandidate:
    return cerebri.plan(_request()).candidates[0]


def _store_url(tmp: Path) -> str:
    return f"sqlite:///{tmp / 'execution.sqlite3'}"


_EXECUTORS: dict[Path, Any] = {}


def _executor(tmp: Path) -> Any:
    """The executor of ``tmp``: a SQLite store there, a fake clock and sequential ids (one
    per store, so two calls never hand out the same id)."""
    from cerebri.clock import SequentialIds
    from cerebri.execution import Executor
    from cerebri.execution.store import init, open_engine

    if tmp not in _EXECUTORS:
        url = _store_url(tmp)
        init(url)
        _EXECUTORS[tmp] = Executor(
            open_engine(parse_store_url(url)), FakeClock(NOW), SequentialIds()
        )
    return _EXECUTORS[tmp]


def _claim(tmp: Path) -> Any:
    """A claim on the step of a freshly submitted one-step plan."""
    from cerebri.execution import claim, submit

    executor = _executor(tmp)
    submit(executor, DRAFT)
    held = claim(executor, "worker-1", 30)
    assert held is not None
    return held


# Valid examples by parameter name; "function:parameter" overrides where names collide.
VALID: dict[str, Callable[[Path], Any]] = {
    "request": lambda _: EXAMPLE.read_text(encoding="utf-8"),
    "source": lambda _: EXAMPLE.read_text(encoding="utf-8"),
    "limits": lambda _: DEFAULT_LIMITS,
    "envelope_bytes": lambda _: signed(body()),
    "registry": lambda _: registry(),
    "clock_now": lambda _: NOW,
    "artifact_bytes": lambda _: ARTIFACT,
    "payload_type": lambda _: "application/vnd.cerebri.proposal+json",
    "payload": lambda _: b"{}",
    "private_key": lambda _: KEY,
    "public_key": lambda _: KEY.public_key(),
    "keyid": lambda _: "k9",
    "path": lambda tmp: tmp / "file.json",
    "root": lambda tmp: tmp / "store",
    "data": lambda _: b"{}",
    "window_start": lambda _: START,
    "window_end": lambda _: END,
    "horizon_start": lambda _: START,
    "horizon_end": lambda _: END,
    "window": lambda _: Interval(START.ns, END.ns),
    "zone_name": lambda _: "UTC",
    "instant": lambda _: START,
    "date": lambda _: LocalDate(2026, 1, 5),
    "time": lambda _: LocalTime(0),
    "intervals": lambda _: (),
    "ns": lambda _: 0,
    "start": lambda _: 0,
    "end": lambda _: 1,
    "year": lambda _: 2026,
    "month": lambda _: 1,
    "day": lambda _: 5,
    "cerebri.planner.action_plan_for:request": lambda _: _request(),
    "cerebri.planner.validate_proposal:request": lambda _: _request(),
    "placements": lambda _: _best().proposed.placements,
    "current_context": lambda _: _request().context,
    "cerebri.planner.to_action_plan:plan": lambda _: validate_proposal(
        _request(), _best().proposed.placements, _request().context
    ),
    "rank": lambda _: 1,
    "object_ids": lambda _: ["a", "b"],
    "edges": lambda _: [Edge("a", "b")],
    "constraint_count": lambda _: 0,
    "action_plan": lambda _: action_plan_for(parse_request(EXAMPLE.read_bytes())),
    "model": lambda _: __import__("cerebri.cpir", fromlist=["x"]).PlanningRequest,
    "cerebri.plans.parse_model_draft:registry": lambda _: builtin_registry(),
    "cerebri.plans.validate_draft:registry": lambda _: builtin_registry(),
    "cerebri.plans.validate_draft:draft": lambda _: parse_draft(DRAFT),
    "cerebri.plans.topological_order:draft": lambda _: parse_draft(DRAFT),
    "cerebri.plans.parse_draft:source": lambda _: DRAFT,
    "cerebri.plans.parse_model_draft:source": lambda _: DRAFT,
    "cerebri.proposals.check_envelope:store": lambda tmp: ObjectStore(tmp / "store"),
    "cerebri.proposals.sign:keyid": lambda _: "k1",
    "cerebri.proposals.artifact_for:data": lambda _: ARTIFACT,
    "cerebri.proposals.parse_subject:text": lambda _: "principal:alice",
    "cerebri.proposals.propose:artifact": lambda _: artifact_for(ARTIFACT),
    "cerebri.proposals.propose:author": lambda _: parse_subject("principal:alice"),
    "artifact_type": lambda _: "cerebri.action-plan.v1",
    "author_node_id": lambda _: "node-1",
    "query_id": lambda _: "q",
    "room_id": lambda _: "r",
    "turn_id": lambda _: "t",
    "class_key": lambda _: "Personal",
    "executor_mode": lambda _: "plan-executor",
    "proposed_at": lambda _: NOW,
    "expires_at": lambda _: Instant.parse("2025-03-02T12:00:00Z"),
    "idempotency_key": lambda _: "i",
    "signing_keys": lambda _: [(KEY, "k1")],
    "replay": lambda _: InMemoryReplayLedger(),
    "threshold": lambda _: 1,
    "entries": lambda _: [],
    "entry": lambda _: sign("t", b"", KEY, "k1"),
    "signed_at": lambda _: NOW,
    "now": lambda _: NOW,
    "at": lambda _: NOW,
    "valid_from": lambda _: NOW,
    "new_keyid": lambda _: "k2",
    "old_keyid": lambda _: "k1",
    "private_key_path": lambda tmp: tmp / "new.pem",
    "registry_path": lambda tmp: tmp / "registry.json",
    # cerebri.cpir, cerebri.temporal, cerebri.calendars, cerebri.ics, cerebri.integrations
    "text": lambda _: "{}",
    "field": lambda _: _request().duration,
    "allow_uncertain": lambda _: False,
    "rule": lambda _: _rule(),
    "max_occurrences": lambda _: 10,
    "max_dates": lambda _: 10,
    "inputs": lambda _: (),
    "coverage": lambda _: _coverage(),
    "calendar": lambda _: _calendar(),
    "calendars": lambda _: [_calendar()],
    "cerebri.calendars.ImportedCalendars:calendars": lambda _: [("a", _calendar())],
    "cerebri.calendars.find_slot:calendars": lambda _: [("a", _calendar())],
    "query": lambda _: _query(),
    "events": lambda _: [],
    "unobserved": lambda _: [],
    "periods": lambda _: _periods(),
    "period": lambda _: _periods()[0],
    "calendar_id": lambda _: "c",
    "integration_id": lambda _: "i",
    "zone": lambda _: "UTC",
    "duration_seconds": lambda _: 3600,
    "url": lambda _: UNREACHABLE,
    "directory": lambda tmp: tmp / "cache",
    "cerebri.temporal_report:request": lambda _: {
        "horizon": {"start": "2026-01-05T00:00:00Z", "end": "2026-01-06T00:00:00Z"},
        "busy": [],
        "coverage": "Complete",
        "recurrences": [],
        "limits": {"max_occurrences": 10, "max_dates": 100},
    },
    "cerebri.cpir.range_wire:start": lambda _: START,
    "cerebri.cpir.range_wire:end": lambda _: END,
    "cerebri.ics.parse_calendar:data": lambda _: ICS,
    "cerebri.temporal.zone:name": lambda _: "UTC",
    # cerebri.execution, cerebri.execution.store, cerebri.execution.adapters: an id that is
    # not in the store is a valid value (the call answers ExecutionError execution.not_found)
    "executor": _executor,
    "held": _claim,
    "worker_id": lambda _: "worker-1",
    "lease_seconds": lambda _: 30,
    "plan_id": lambda _: "no-such-plan",
    "step_id": lambda _: "no-such-step",
    "approval_id": lambda _: "no-such-approval",
    "approve": lambda _: True,
    "happened": lambda _: True,
    "by": lambda _: "principal:alice",
    "goal_key": lambda _: "goal",
    "enabled": lambda _: True,
    "cerebri.execution.set_sandbox:name": lambda _: "trial",
    "goal": lambda _: {},
    "failed_draft": lambda _: parse_draft(DRAFT),
    "cerebri.execution.alternatives_replanner:failed": lambda _: frozenset(),
    "cerebri.execution.preview_draft:source": lambda _: DRAFT,
    "cerebri.execution.submit:source": lambda _: DRAFT,
    "cerebri.execution.run_worker:until_idle": lambda _: True,  # never an endless loop
    "cerebri.execution.store.init:url": _store_url,
    "cerebri.execution.store.upgrade:url": _store_url,
    "cerebri.execution.store.status:url": _store_url,
    "cerebri.execution.store.current_revision:url": _store_url,
    "cerebri.execution.store.open_engine:url": lambda tmp: parse_store_url(_store_url(tmp)),
    "cerebri.execution.store.redacted:url": lambda tmp: parse_store_url(_store_url(tmp)),
    "cerebri.execution.store.parse_store_url:text": _store_url,
    "environ": lambda _: {},
    "clock": lambda _: FakeClock(NOW),
    "journal": lambda tmp: tmp / "journal.jsonl",
    "probe": lambda _: {},
    "cerebri.execution.adapters.IcsFileCalendar:calendars": lambda tmp: {"work": tmp / "w.ics"},
    "cerebri.execution.adapters.CalDavCalendar:calendars": lambda _: {
        "work": "http://127.0.0.1:9/work/"
    },
    "cerebri.execution.adapters.systemctl_probe:name": lambda _: "no-such-unit.service",
}


def _calendar() -> Any:
    from cerebri.ics import parse_calendar

    return parse_calendar(ICS)


def _periods() -> Any:
    from cerebri.ics import busy_periods

    return busy_periods(_calendar(), START, END)


def _query() -> Any:
    from cerebri.calendars import SlotQuery

    return SlotQuery(START, END, 3600)


def _coverage() -> Any:
    from cerebri.cpir import Coverage

    return next(iter(Coverage))


def _rule() -> Any:
    from cerebri.cpir import RecurrenceDefinition, parse_model

    return parse_model(
        RecurrenceDefinition,
        {
            "timezone": "UTC",
            "start_date": "2026-01-05",
            "local_time": "09:00:00",
            "duration": 3600,
            "pattern": {"frequency": "DAILY", "every": 1},
            "fold_policy": "Reject",
            "gap_policy": "Reject",
        },
    )


WRONG: tuple[Any, ...] = (None, 7, "text", ["x"])


# Records the library builds and hands out (results, reports); callers read them.
# ProposedPlan also takes a private digest function the sweep cannot supply.
RESULT_RECORDS = frozenset({"TemporalResult", "PlanningResult", "ValidationReport", "ProposedPlan"})


def _skip_class(value: type) -> bool:
    """Enums, pydantic models (read through their parse functions), exceptions, protocols
    and result records."""
    return (
        issubclass(value, (enum.Enum, pydantic.BaseModel, BaseException))
        or getattr(value, "_is_protocol", False)
        or value.__name__ in RESULT_RECORDS
    )


def _public_callables() -> list[tuple[str, Callable[..., Any]]]:
    found: dict[str, Callable[..., Any]] = {}
    for facade in FACADES:
        module = importlib.import_module(facade)
        for name in module.__all__:
            value = getattr(module, name)
            if inspect.isclass(value):
                if _skip_class(value):
                    continue
            elif not inspect.isfunction(value):
                continue
            found.setdefault(f"{facade}.{name}", value)
    return sorted(found.items())


def _params(call: Callable[..., Any]) -> list[inspect.Parameter]:
    return [
        p
        for p in inspect.signature(call).parameters.values()
        if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and not p.name.startswith("_")
    ]


def _valid(name: str, param: inspect.Parameter, tmp: Path) -> Any:
    for key in (f"{name}:{param.name}", param.name):
        if key in VALID:
            return VALID[key](tmp)
    return None


CASES = [
    (name, param.name)
    for name, call in _public_callables()
    for param in _params(call)
    if not dataclasses.is_dataclass(call) or param.default is inspect.Parameter.empty
]


@pytest.mark.parametrize(("name", "probed"), CASES, ids=[f"{n}:{p}" for n, p in CASES])
def test_wrong_values_get_cerebri_errors(
    name: str, probed: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # a str path argument lands here, nowhere else
    monkeypatch.setenv("CEREBRI_CACHE_DIR", str(tmp_path / "cache"))
    call = dict(_public_callables())[name]
    params = _params(call)
    for wrong in WRONG:
        args: list[Any] = []
        kwargs: dict[str, Any] = {}
        for param in params:
            if param.name == probed:
                value = wrong
            elif param.default is not inspect.Parameter.empty and f"{name}:{param.name}" not in (
                VALID
            ):
                continue
            else:
                value = _valid(name, param, tmp_path)
            if param.kind is param.KEYWORD_ONLY:
                kwargs[param.name] = value
            else:
                args.append(value)
        try:
            call(*args, **kwargs)
        except CerebriError:
            pass
        except Exception as exc:
            pytest.fail(f"{name}({probed}={wrong!r}) raised {type(exc).__name__}: {exc}")
    if tmp_path in _EXECUTORS:
        _EXECUTORS.pop(tmp_path).engine.dispose()


def test_the_codes_of_wrong_arguments(tmp_path: Path) -> None:
    """Each package answers with its own stable code, before touching any file."""
    from cerebri import plans, proposals

    with pytest.raises(CerebriError) as limits:
        cerebri.plan(EXAMPLE.read_text(encoding="utf-8"), limits=None)  # type: ignore[arg-type]
    assert limits.value.code == "input.invalid_argument"
    assert isinstance(limits.value, TypeError)
    with pytest.raises(plans.DraftError) as draft:
        plans.validate_draft({}, builtin_registry())  # type: ignore[arg-type]
    assert draft.value.code == "draft.invalid_argument"
    for make in (
        lambda: proposals.ObjectStore("/tmp/a\0b"),  # type: ignore[arg-type]
        lambda: proposals.FileReplayLedger(Path("/tmp/a\0b")),
        lambda: proposals.check_envelope(signed(body()), registry=registry(), clock_now="x"),  # type: ignore[arg-type]
        lambda: proposals.save_registry(registry(), tmp_path / "a\0b"),
    ):
        with pytest.raises(proposals.ProposalError) as caught:
            make()
        assert caught.value.code == "proposal.invalid_argument"
    assert list(tmp_path.iterdir()) == []


def _methods(tmp: Path) -> dict[str, Callable[[Any], object]]:
    """Public methods of the proposal objects, each probing one argument."""
    store = ObjectStore(tmp / "store")
    ledger = FileReplayLedger(tmp / "ledger.json")
    memory = InMemoryReplayLedger()
    keys = registry()
    return {
        "ObjectStore.put": store.put,
        "ObjectStore.put_json": store.put_json,
        "ObjectStore.get": store.get,
        "ObjectStore.get:max_bytes": lambda v: store.get("sha256:" + "0" * 64, max_bytes=v),
        "ObjectStore.path_for": store.path_for,
        "FileReplayLedger.recorded": ledger.recorded,
        "FileReplayLedger.claim:key": lambda v: ledger.claim(v, None),  # type: ignore[arg-type]
        "FileReplayLedger.claim:result": lambda v: ledger.claim("k", v),
        "InMemoryReplayLedger.recorded": memory.recorded,
        "InMemoryReplayLedger.claim": lambda v: memory.claim("k", v),
        "KeyRegistry.add:keyid": lambda v: keys.add(v, KEY.public_key(), valid_from=NOW),
        "KeyRegistry.add:key": lambda v: keys.add("k2", v, valid_from=NOW),
        "KeyRegistry.add:valid_from": lambda v: keys.add("k2", KEY.public_key(), valid_from=v),
        "KeyRegistry.rotate:old": lambda v: keys.rotate(v, "k2", KEY.public_key(), at=NOW),
        "KeyRegistry.rotate:at": lambda v: keys.rotate("k1", "k2", KEY.public_key(), at=v),
        "KeyRegistry.revoke": lambda v: keys.revoke(v, at=NOW),
        "KeyRegistry.lookup": lambda v: keys.lookup(v, signed_at=NOW, now=NOW),
        "KeyRegistry.lookup:now": lambda v: keys.lookup("k1", signed_at=NOW, now=v),
    }


def test_methods_answer_wrong_values_with_cerebri_errors(tmp_path: Path) -> None:
    for name, call in _methods(tmp_path).items():
        for wrong in (*WRONG, "k1"):
            try:
                call(wrong)
            except CerebriError:
                pass
            except Exception as exc:
                pytest.fail(f"{name}({wrong!r}) raised {type(exc).__name__}: {exc}")


def test_registry_refusals_are_key_registry_errors() -> None:
    keys = registry()
    for refuse in (
        lambda: keys.add("k1", KEY.public_key(), valid_from=NOW),  # taken
        lambda: keys.rotate("nobody", "k2", KEY.public_key(), at=NOW),  # unknown
        lambda: keys.revoke("nobody", at=NOW),
    ):
        with pytest.raises(ProposalError) as caught:
            refuse()
        assert caught.value.code == "proposal.key_registry"


def test_the_codes_of_the_lower_packages(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """cerebri.temporal, cpir, calendars, ics and integrations each answer with their own
    code; the error is also a ``TypeError`` (what Python raises for a wrong type)."""
    from cerebri import calendars, cpir, ics, integrations, temporal

    monkeypatch.setenv("CEREBRI_CACHE_DIR", str(tmp_path / "cache"))
    cases: list[tuple[str, Callable[[], object]]] = [
        ("temporal.invalid_argument", lambda: Interval(None, 1)),  # type: ignore[arg-type]
        ("temporal.invalid_argument", lambda: temporal.merge(None)),  # type: ignore[arg-type]
        ("temporal.invalid_argument", lambda: temporal.merge(["x"])),  # type: ignore[list-item]
        ("temporal.invalid_argument", lambda: Instant(None)),  # type: ignore[arg-type]
        ("temporal.invalid_argument", lambda: LocalDate(2026, "1", 5)),  # type: ignore[arg-type]
        ("temporal.invalid_argument", lambda: temporal.zone(["x"])),  # type: ignore[arg-type]
        ("temporal.invalid_argument", lambda: temporal.local_date_of(START, None)),  # type: ignore[arg-type]
        ("cpir.invalid_argument", lambda: cpir.range_wire(None, END)),  # type: ignore[arg-type]
        ("cpir.invalid_argument", lambda: cpir.parse_model(None, "{}")),  # type: ignore[arg-type]
        ("cpir.invalid_argument", lambda: cpir.require(None, allow_uncertain=False)),  # type: ignore[arg-type]
        (
            "calendars.invalid_argument",
            lambda: calendars.SlotQuery(window_start=None, window_end=END, duration_seconds=60),  # type: ignore[arg-type]
        ),
        ("calendars.invalid_argument", lambda: calendars.freebusy("text", START, END)),  # type: ignore[arg-type]
        (
            "ics.invalid_argument",
            lambda: ics.busy_periods(_calendar(), START, END, max_occurrences=None),  # type: ignore[arg-type]
        ),
        ("caldav.invalid_argument", lambda: integrations.CalendarCache(None)),  # type: ignore[arg-type]
        ("caldav.invalid_argument", lambda: integrations.fetch_calendars(None, START, END)),  # type: ignore[arg-type]
        (
            "caldav.invalid_argument",
            lambda: integrations.fetch_freebusy(UNREACHABLE, START, END, password=7),  # type: ignore[arg-type]
        ),
    ]
    for code, make in cases:
        with pytest.raises(CerebriError) as caught:
            make()
        assert caught.value.code == code, caught.value
        assert isinstance(caught.value, TypeError)
    assert not (tmp_path / "cache").exists()  # refused before any cache was opened


def test_value_refusals_keep_value_error() -> None:
    """Reversed ranges and unknown zones are still ``ValueError`` (and now CerebriErrors)."""
    from cerebri import temporal

    for make in (lambda: Interval(5, 5), lambda: temporal.zone("Mars/Olympus")):
        with pytest.raises(ValueError) as caught:
            make()
        assert isinstance(caught.value, CerebriError)
        assert caught.value.code == "temporal.invalid_argument"


def test_refused_values_keep_their_outer_codes_and_messages() -> None:
    """The new argument errors are ValueErrors too; where a parser or the CLI wraps a
    ValueError, the outer code and the bare message stay as before."""
    import json

    from typer.testing import CliRunner

    from cerebri.cli import app

    document = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    document["context"]["objects"][0]["timezone"] = "Mars/Olympus"
    with pytest.raises(cerebri.ParseError) as caught:
        parse_request(document)
    assert caught.value.code == "cpir.invalid_value"
    assert "invalid_argument" not in caught.value.message
    window = "2026-10-05T08:00/2026-10-05T18:00"
    options = ["--caldav", "ftp://x/", "--between", window, "--duration", "1h", "--no-cache"]
    shown = CliRunner().invoke(app, ["find-slot", *options])
    assert shown.exit_code == 2
    assert shown.stderr.strip() == (
        "error input.invalid_option: --caldav 'ftp://x/': "
        "url must be an absolute http:// or https:// URL"
    )


def _lower_methods(tmp: Path) -> dict[str, Callable[[Any], object]]:
    """Public methods of ImportedCalendars and CalendarCache, each probing one argument."""
    from cerebri.calendars import ImportedCalendars
    from cerebri.integrations import CalendarCache

    imported = ImportedCalendars([("a", _calendar())])
    cache = CalendarCache(tmp / "cache")
    url = "https://example.org/cal/"
    return {
        "ImportedCalendars.expand:window_start": lambda v: imported.expand(v, END),
        "ImportedCalendars.expand:floating_zone": lambda v: imported.expand(
            START, END, floating_zone=v
        ),
        "ImportedCalendars.busy:window_end": lambda v: imported.busy(START, v),
        "ImportedCalendars.find_slot:query": imported.find_slot,
        "ImportedCalendars.find_slot:limits": lambda v: imported.find_slot(_query(), limits=v),
        "CalendarCache.path_for:calendar_url": lambda v: cache.path_for(v, None),
        "CalendarCache.load:calendar_url": lambda v: cache.load(v, None),
        "CalendarCache.path_for:username": lambda v: cache.path_for(url, v or 7),
        "CalendarCache.save:base": lambda v: cache.save(
            url, None, v, changed=(), removed=(), sync_token=None
        ),
    }


def test_lower_methods_answer_wrong_values_with_cerebri_errors(tmp_path: Path) -> None:
    for name, call in _lower_methods(tmp_path).items():
        for wrong in (None, 7, ["x"]):
            try:
                call(wrong)
            except CerebriError:
                pass
            except Exception as exc:
                pytest.fail(f"{name}({wrong!r}) raised {type(exc).__name__}: {exc}")
    assert not (tmp_path / "cache").exists()  # the cache refused before creating its folder


def test_an_empty_window_is_calendars_invalid_argument() -> None:
    from cerebri.calendars import ImportedCalendars

    with pytest.raises(ValueError) as caught:
        ImportedCalendars([("a", _calendar())]).busy(END, START)
    assert isinstance(caught.value, CerebriError)
    assert caught.value.code == "calendars.invalid_argument"


def test_the_codes_of_the_execution_packages(tmp_path: Path) -> None:
    """The executor answers ``execution.invalid_argument`` (an ExecutionError), the store
    ``store.invalid_argument`` (a StoreError), the adapters ``adapter.invalid_argument``
    (an AdapterError, not retryable); each before a store or a file is touched."""
    from cerebri.clock import SequentialIds
    from cerebri.execution import ExecutionError, Executor, list_plans, run_worker
    from cerebri.execution.adapters import AdapterError, RecordingAdapter, journal_entries
    from cerebri.execution.store import StoreError, init, open_engine

    url = _store_url(tmp_path / "unused")
    executor = Executor(open_engine(parse_store_url(url)), FakeClock(NOW), SequentialIds())
    cases: list[tuple[type[CerebriError], str, Callable[[], object]]] = [
        (ExecutionError, "execution.invalid_argument", lambda: list_plans(None)),  # type: ignore[arg-type]
        (ExecutionError, "execution.invalid_argument", lambda: list_plans(executor, status=7)),  # type: ignore[arg-type]
        (
            ExecutionError,
            "execution.invalid_argument",
            lambda: run_worker(executor, until_idle=None),
        ),  # type: ignore[arg-type]
        (
            ExecutionError,
            "execution.invalid_argument",
            lambda: Executor(None, FakeClock(NOW), SequentialIds()),
        ),  # type: ignore[arg-type]
        (StoreError, "store.invalid_argument", lambda: init(None)),  # type: ignore[arg-type]
        (StoreError, "store.invalid_argument", lambda: open_engine(url)),  # type: ignore[arg-type]
        (AdapterError, "adapter.invalid_argument", lambda: journal_entries(7)),  # type: ignore[arg-type]
        (
            AdapterError,
            "adapter.invalid_argument",
            lambda: RecordingAdapter(tmp_path / "j", fail_times="1"),
        ),  # type: ignore[arg-type]
    ]
    for kind, code, make in cases:
        with pytest.raises(kind) as caught:
            make()
        assert caught.value.code == code, caught.value
    executor.engine.dispose()
    assert [p for p in tmp_path.rglob("*") if p.is_file()] == []  # no store file, no journal
