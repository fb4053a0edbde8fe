"""The store interface on both back ends (decision 0043): the step transition table and
the steps, plans, attempts, approvals and principals repositories.

Every test that takes ``store_url`` runs on SQLite and on PostgreSQL: the interface must
behave the same on each. The table tests check :data:`STEP_TRANSITIONS` itself and that no
module outside :mod:`cerebri.execution.store.transitions` writes ``steps.status``.
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, insert, select, update
from sqlalchemy.exc import IntegrityError

import cerebri.execution
from cerebri.execution.store import StoreError, init, knowledge, open_engine, parse_store_url
from cerebri.execution.store import approvals as approval_store
from cerebri.execution.store import attempts as attempt_store
from cerebri.execution.store import intentions as intention_store
from cerebri.execution.store import plans as plan_store
from cerebri.execution.store import principals as principal_store
from cerebri.execution.store import sandboxes as sandbox_store
from cerebri.execution.store import steps as step_store
from cerebri.execution.store import timers as timer_store
from cerebri.execution.store.schema import attempt_history, intentions, plans, steps
from cerebri.execution.store.transitions import (
    OPEN_STEP_STATUSES,
    STEP_TRANSITIONS,
    StepTransitionError,
    check,
    move,
    move_when,
)
from cerebri.execution.store.vocabulary import (
    ApprovalStatus,
    AttemptOutcome,
    IntentionStatus,
    PredictionStatus,
    TimerKind,
)
from cerebri.plans import OPEN_PLAN_STATUSES, TERMINAL_STEP_STATUSES, PlanStatus, StepStatus

PAIRS = list(itertools.product(StepStatus, StepStatus))


# -- the table ---------------------------------------------------------------------------------

_S = StepStatus
EXPECTED = {
    _S.PENDING: {_S.READY, _S.CANCELLED},
    _S.READY: {_S.EXECUTING, _S.CANCELLED},
    _S.WAITING: {_S.EXECUTING, _S.CANCELLED},
    _S.EXECUTING: {
        _S.EXECUTING, _S.READY, _S.WAITING, _S.BLOCKED, _S.AWAITING_APPROVAL, _S.AWAITING_GRANT,
        _S.COMPLETED, _S.SKIPPED, _S.FAILED, _S.CANCELLED,
    },
    _S.AWAITING_APPROVAL: {_S.READY, _S.FAILED, _S.CANCELLED},
    _S.AWAITING_GRANT: {_S.READY, _S.FAILED, _S.CANCELLED},
    _S.BLOCKED: {_S.READY, _S.COMPLETED, _S.CANCELLED},
    _S.COMPLETED: set(),
    _S.SKIPPED: set(),
    _S.FAILED: set(),
    _S.CANCELLED: set(),
}  # fmt: skip


def test_the_table_is_the_one_in_decision_0043() -> None:
    assert {k: set(v) for k, v in STEP_TRANSITIONS.items()} == EXPECTED


def test_the_table_names_every_status_and_only_statuses() -> None:
    assert set(STEP_TRANSITIONS) == set(StepStatus)
    for targets in STEP_TRANSITIONS.values():
        assert targets <= set(StepStatus)


def test_terminal_statuses_are_never_left() -> None:
    for status in TERMINAL_STEP_STATUSES:
        assert STEP_TRANSITIONS[status] == frozenset()
    assert frozenset(StepStatus) - TERMINAL_STEP_STATUSES == OPEN_STEP_STATUSES


def test_every_open_status_can_be_cancelled_and_none_goes_back_to_pending() -> None:
    for status in OPEN_STEP_STATUSES:
        assert StepStatus.CANCELLED in STEP_TRANSITIONS[status]
    for targets in STEP_TRANSITIONS.values():
        assert StepStatus.PENDING not in targets


@pytest.mark.parametrize(("source", "target"), PAIRS)
def test_check_allows_exactly_the_table(source: StepStatus, target: StepStatus) -> None:
    if target in STEP_TRANSITIONS[source]:
        assert check(source, target) == (source.value,)
    else:
        with pytest.raises(StepTransitionError) as raised:
            check(source, target)
        assert raised.value.code == "store.illegal_transition"
        assert f"from {source.value} to {target.value}" in raised.value.message


def test_check_refuses_a_set_with_one_illegal_source_and_an_empty_one() -> None:
    assert check([StepStatus.WAITING, StepStatus.READY], StepStatus.EXECUTING) == (
        "ready",
        "waiting",
    )
    with pytest.raises(StepTransitionError):
        check([StepStatus.READY, StepStatus.COMPLETED], StepStatus.EXECUTING)
    with pytest.raises(StepTransitionError):
        check([], StepStatus.READY)


def test_a_move_takes_its_status_from_the_target_only() -> None:
    with pytest.raises(StepTransitionError):
        move(StepStatus.READY, StepStatus.EXECUTING, status="executing")
    with pytest.raises(StepTransitionError):
        move_when(StepStatus.PENDING, StepStatus.READY, steps.c.remaining_deps <= 0, status="x")


def _names_status(node: ast.expr | None) -> bool:
    return isinstance(node, ast.Dict) and any(
        isinstance(k, ast.Constant) and k.value == "status" for k in node.keys
    )


def _status_dicts(tree: ast.Module) -> set[str]:
    """Module-level names bound to a dict literal with a ``"status"`` key."""
    names = set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and _names_status(node.value):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif (
            isinstance(node, ast.AnnAssign)
            and _names_status(node.value)
            and isinstance(node.target, ast.Name)
        ):
            names.add(node.target.id)
    return names


def _sets_step_status(call: ast.Call, status_dicts: set[str]) -> bool:
    """Whether ``call`` is ``<update(steps)…>.values(…)`` naming ``status`` (as a keyword, in
    a dict literal, or through a module-level dict that has it)."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and func.attr == "values"):
        return False
    if "update(steps)" not in ast.unparse(func.value).replace(" ", ""):
        return False
    given = [*call.args, *(k.value for k in call.keywords if k.arg is None)]
    return (
        any(k.arg == "status" for k in call.keywords)
        or any(_names_status(a) for a in given)
        or any(isinstance(a, ast.Name) and a.id in status_dicts for a in given)
    )


def test_no_module_but_the_transitions_writes_a_step_status() -> None:
    root = Path(cerebri.__file__).parent
    own = Path(cerebri.execution.store.transitions.__file__)
    offenders = []
    for path in sorted(root.rglob("*.py")):
        if path == own or "migrations" in path.parts:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        status_dicts = _status_dicts(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and _sets_step_status(node, status_dicts):
                offenders.append(f"{path.relative_to(root)}:{node.lineno}")
    assert offenders == []


SQL_OUTSIDE_THE_STORE: frozenset[str] = frozenset()
"""The modules of :mod:`cerebri` outside :mod:`cerebri.execution.store` that may import
SQLAlchemy (decision 0043): none. Every statement is a repository's; a use-case module names
the store's handles through :mod:`cerebri.execution.store.connection`, the HTTP service the
exception types of a store outage through :mod:`cerebri.execution.store.errors`."""


def _imports_sqlalchemy(tree: ast.Module) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(
            a.name.split(".")[0] == "sqlalchemy" for a in node.names
        ):
            return True
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "sqlalchemy":
            return True
    return False


def test_only_the_store_imports_sqlalchemy() -> None:
    root = Path(cerebri.__file__).parent
    store = Path(cerebri.execution.store.__file__).parent
    importing = {
        path.relative_to(root).as_posix()
        for path in sorted(root.rglob("*.py"))
        if store not in path.parents
        and _imports_sqlalchemy(ast.parse(path.read_text(encoding="utf-8")))
    }
    assert importing == SQL_OUTSIDE_THE_STORE


# -- both back ends ----------------------------------------------------------------------------


@pytest.fixture
def engine(store_url: str) -> Iterator[Engine]:
    init(store_url)
    engine = open_engine(parse_store_url(store_url))
    try:
        yield engine
    finally:
        engine.dispose()


def _plan(engine: Engine) -> str:
    with engine.begin() as connection:
        connection.execute(
            insert(intentions).values(id="i1", goal="{}", status="open", created_at=1, updated_at=1)
        )
        connection.execute(
            insert(plans).values(
                id="p1",
                intention_id="i1",
                revision=1,
                status="executing",
                origin="operator",
                max_replans=0,
                draft="{}",
                created_at=1,
                updated_at=1,
            )
        )
    return "p1"


def _step(engine: Engine, plan_id: str, position: int, status: StepStatus) -> str:
    step_id = f"s{position}"
    with engine.begin() as connection:
        connection.execute(
            insert(steps).values(
                id=step_id,
                plan_id=plan_id,
                key=step_id,
                position=position,
                kind="internal",
                status=status.value,
                attempts=0,
                max_attempts=1,
                idempotent=True,
                updated_at=1,
            )
        )
    return step_id


def _status(engine: Engine, step_id: str) -> str:
    with engine.connect() as connection:
        return str(connection.execute(select(steps.c.status).where(steps.c.id == step_id)).scalar())


def test_every_allowed_transition_works_and_every_other_is_refused(engine: Engine) -> None:
    plan_id = _plan(engine)
    for position, (source, target) in enumerate(PAIRS):
        step_id = _step(engine, plan_id, position, source)
        if target in STEP_TRANSITIONS[source]:
            with engine.begin() as connection:
                moved = connection.execute(
                    move(source, target, steps.c.id == step_id, updated_at=2)
                ).rowcount
            assert (moved, _status(engine, step_id)) == (1, target.value), (source, target)
        else:
            with pytest.raises(StepTransitionError):
                move(source, target, steps.c.id == step_id, updated_at=2)
            assert _status(engine, step_id) == source.value


def test_a_move_matches_only_rows_in_its_sources(engine: Engine) -> None:
    plan_id = _plan(engine)
    ready = _step(engine, plan_id, 1, StepStatus.READY)
    blocked = _step(engine, plan_id, 2, StepStatus.BLOCKED)
    with engine.begin() as connection:
        moved = connection.execute(
            move(StepStatus.PENDING, StepStatus.READY, steps.c.plan_id == plan_id, updated_at=2)
        ).rowcount
        cancelled = connection.execute(
            move(OPEN_STEP_STATUSES, StepStatus.CANCELLED, steps.c.id == blocked, updated_at=2)
        ).rowcount
    assert (moved, cancelled) == (0, 1)
    assert (_status(engine, ready), _status(engine, blocked)) == ("ready", "cancelled")


def test_move_when_moves_the_rows_its_condition_holds_for(engine: Engine) -> None:
    plan_id = _plan(engine)
    first = _step(engine, plan_id, 1, StepStatus.PENDING)
    second = _step(engine, plan_id, 2, StepStatus.PENDING)
    with engine.begin() as connection:
        connection.execute(
            move_when(
                StepStatus.PENDING,
                StepStatus.READY,
                steps.c.id == first,
                steps.c.plan_id == plan_id,
                updated_at=3,
            )
        )
    assert (_status(engine, first), _status(engine, second)) == ("ready", "pending")


# -- the plans repository ----------------------------------------------------------------------


def _plan_row(engine: Engine, plan_id: str) -> Any:
    with engine.connect() as connection:
        return plan_store.get(connection, plan_id)


def test_plan_counters(engine: Engine) -> None:
    plan_id = _plan(engine)
    with engine.begin() as connection:
        connection.execute(
            update(plans).where(plans.c.id == plan_id).values(open_steps=3, invocations=2)
        )
        assert plan_store.count_down(connection, plan_id, 2) == 1
        plan_store.give_back_invocation(connection, plan_id)
        plan_store.count_approval_request(connection, plan_id, 7)
    row = _plan_row(engine, plan_id)
    assert (row.open_steps, row.invocations, row.approvals_requested) == (1, 1, 1)
    with engine.begin() as connection:
        counted = [plan_store.count_invocation(connection, plan_id, 3) for _ in range(3)]
        plan_store.spend(connection, plan_id, 1.5)
        plan_store.spend(connection, plan_id, 2.0)
    assert counted == [True, True, False]
    assert (_plan_row(engine, plan_id).invocations, _plan_row(engine, plan_id).money_spent) == (
        3,
        3.5,
    )
    assert (row.status, row.updated_at) == ("awaiting_approval", 7)


def test_plan_reads(engine: Engine) -> None:
    plan_id = _plan(engine)
    with engine.begin() as connection:
        connection.execute(
            update(plans)
            .where(plans.c.id == plan_id)
            .values(author="principal:a", envelope_digest="sha256:e", envelope_expires_at=9)
        )
        found = plan_store.find(connection, plan_id)
        assert plan_store.find(connection, "nope") is None
        assert plan_store.status_of(connection, plan_id) == "executing"
        assert plan_store.status_of(connection, "nope") is None
        made = plan_store.provenance(connection, plan_id)
    assert found is not None
    assert found.id == plan_id
    assert (made.revision, made.author, made.envelope_digest, made.envelope_expires_at) == (
        1,
        "principal:a",
        "sha256:e",
        9,
    )


def test_an_envelope_is_recorded_once_under_its_key(engine: Engine) -> None:
    plan_id = _plan(engine)

    def record(connection: Any, key: str, submitted_by: str | None) -> None:
        plan_store.add_envelope(
            connection,
            idempotency_key=key,
            digest="sha256:e",
            plan_id=plan_id,
            author="principal:a",
            expires_at=9,
            created_at=2,
            submitted_by=submitted_by,
            keyids=None if submitted_by is None else '["k1"]',
        )

    with engine.begin() as connection:
        assert plan_store.ledger_of(connection, "sha256:e") is None
        record(connection, "key-b", "principal:b")
        record(connection, "key-a", None)
    with pytest.raises(IntegrityError), engine.begin() as connection:
        record(connection, "key-b", "principal:c")
    with engine.connect() as connection:
        found = plan_store.envelope(connection, "key-b")
        assert plan_store.envelope(connection, "key-c") is None
        first = plan_store.ledger_of(connection, "sha256:e")
        assert plan_store.ledger_of(connection, None) is None
    assert found is not None
    assert (found.plan_id, found.submitted_by, found.keyids) == (plan_id, "principal:b", '["k1"]')
    assert (first.submitted_by, first.keyids) == (None, None)


def test_a_revision_is_added_with_its_steps_and_a_finished_one_is_found(engine: Engine) -> None:
    _plan(engine)
    with engine.begin() as connection:
        connection.execute(update(plans).where(plans.c.id == "p1").values(open_steps=1))
        plan_store.add_revision(
            connection,
            id="p2",
            intention_id="i1",
            revision=2,
            supersedes="p1",
            status="validated",
            origin="operator",
            max_replans=1,
            draft="{}",
            created_at=3,
            updated_at=3,
            open_steps=2,
        )
        step_store.add_all(
            connection,
            [
                {
                    "id": f"p2s{n}",
                    "plan_id": "p2",
                    "key": f"k{n}",
                    "position": n,
                    "kind": "internal",
                    "status": "ready" if n == 0 else "pending",
                    "attempts": 0,
                    "max_attempts": 1,
                    "idempotent": True,
                    "next_run_at": 3 if n == 0 else None,
                    "updated_at": 3,
                    "remaining_deps": n,
                    "attempt_group": 1,
                }
                for n in range(2)
            ],
        )
        assert plan_store.finished_open(connection, 10) == []
        connection.execute(update(plans).where(plans.c.id == "p1").values(open_steps=0))
        connection.execute(update(plans).where(plans.c.id == "p2").values(open_steps=0))
        assert plan_store.finished_open(connection, 10) == ["p1", "p2"]
        assert plan_store.finished_open(connection, 1) == ["p1"]
        plan_store.set_status(connection, "p1", PlanStatus.COMPLETED, 4)
        assert plan_store.finished_open(connection, 10) == ["p2"]
        added = plan_store.get(connection, "p2")
        rows = step_store.of_plan(connection, "p2")
    assert (added.revision, added.supersedes, added.status, added.max_replans) == (
        2,
        "p1",
        "validated",
        1,
    )
    assert [(r.key, r.status, r.remaining_deps) for r in rows] == [
        ("k0", "ready", 0),
        ("k1", "pending", 1),
    ]


def test_the_limits_of_an_intentions_revisions(engine: Engine) -> None:
    plan_id = _plan(engine)
    with engine.begin() as connection:
        connection.execute(
            update(plans).where(plans.c.id == plan_id).values(limits='{"strategy":"a"}')
        )
        running = plan_store.limits_of_revisions(connection, "i1", [PlanStatus.EXECUTING])
        failed = plan_store.limits_of_revisions(
            connection, "i1", [PlanStatus.FAILED, PlanStatus.SUPERSEDED]
        )
    assert (running, failed) == (['{"strategy":"a"}'], [])


def test_plan_status_writes_only_from_the_statuses_it_leaves(engine: Engine) -> None:
    plan_id = _plan(engine)  # executing
    with engine.begin() as connection:
        refused = plan_store.set_status(
            connection, plan_id, PlanStatus.EXECUTING, 5, leaving=[PlanStatus.BLOCKED]
        )
        written = plan_store.set_status(
            connection,
            plan_id,
            PlanStatus.BLOCKED,
            6,
            leaving=OPEN_PLAN_STATUSES,
            status_reason="why",
        )
    assert (refused, written) == (False, True)
    row = _plan_row(engine, plan_id)
    assert (row.status, row.status_reason, row.updated_at) == ("blocked", "why", 6)
    with engine.begin() as connection:
        connection.execute(update(plans).where(plans.c.id == plan_id).values(open_steps=4))
        plan_store.close(
            connection,
            plan_id,
            PlanStatus.FAILED,
            9,
            reason="r",
            superseded_by=None,
            closed_steps=3,
        )
    row = _plan_row(engine, plan_id)
    assert (row.status, row.status_reason, row.open_steps, row.closed_at) == ("failed", "r", 1, 9)


# -- the attempts repository -------------------------------------------------------------------


def test_an_attempt_goes_from_open_to_history(engine: Engine) -> None:
    plan_id = _plan(engine)
    step_id = _step(engine, plan_id, 1, StepStatus.EXECUTING)
    token = attempt_store.lease_token("worker:w", "x")
    assert attempt_store.lease_holder(token) == "worker:w"
    attempt = attempt_store.unstored(step_id, 1, token, "p1:1:s1:1", 10)
    assert (attempt.id, attempt.worker_id, attempt.invoked_at) == ("s1:1", "worker:w", None)
    with engine.begin() as connection:
        attempt_store.begin(connection, attempt, step_id, 11)
        saved = attempt_store.save_outcome(
            connection, attempt, AttemptOutcome.COMPLETED, {"uid": "a"}, None
        )
    with engine.connect() as connection:
        (stored,) = attempt_store.open_of_step(connection, step_id)
        in_plan = attempt_store.open_of_plan(connection, plan_id, OPEN_STEP_STATUSES)
        none_done = attempt_store.open_of_plan(connection, plan_id, [StepStatus.COMPLETED])
    assert saved
    assert (stored.invoked_at, stored.outcome, stored.result) == (11, "completed", {"uid": "a"})
    assert in_plan == [(step_id, stored)]
    assert none_done == []
    with engine.begin() as connection:
        attempt_store.close(connection, stored, step_id, AttemptOutcome.INTERRUPTED, 12)
        late = attempt_store.save_outcome(connection, stored, AttemptOutcome.FAILED, None, {})
        attempt_store.amend_history(connection, stored, AttemptOutcome.FAILED, None, {"e": 1})
        assert attempt_store.open_of_step(connection, step_id) == []
        assert attempt_store.count_history(connection, step_id, AttemptOutcome.FAILED) == 1
        assert attempt_store.count_history(connection, step_id, AttemptOutcome.INTERRUPTED) == 0
        history = connection.execute(select(attempt_history)).one()
    assert not late
    assert (history.id, history.finished_at, history.error) == ("s1:1", 12, '{"e":1}')


# -- the approvals repository ------------------------------------------------------------------


def _approval(connection: Any, approval_id: str, plan_id: str, step_id: str | None) -> None:
    approval_store.insert_open(
        connection,
        id=approval_id,
        plan_id=plan_id,
        step_id=step_id,
        requester="principal:a",
        request="{}",
        created_at=int(approval_id[1:]),
        expires_at=100,
        subject_digest=None,
        author=None,
    )


def test_an_approval_is_settled_once(engine: Engine) -> None:
    plan_id = _plan(engine)
    step_id = _step(engine, plan_id, 1, StepStatus.AWAITING_APPROVAL)
    with engine.begin() as connection:
        _approval(connection, "a1", plan_id, step_id)
        _approval(connection, "a2", plan_id, None)
        first = approval_store.settle(
            connection, "a1", ApprovalStatus.APPROVED, 5, decided_by="principal:b"
        )
        second = approval_store.settle(connection, "a1", ApprovalStatus.REJECTED, 6)
        with pytest.raises(StoreError) as raised:
            approval_store.settle(connection, "a2", ApprovalStatus.OPEN, 6)
        approval_store.consume(connection, "a1", 7)
        approval_store.consume(connection, "a1", 8)
    assert (first, second, raised.value.code) == (True, False, "store.illegal_transition")
    with engine.connect() as connection:
        row = approval_store.get(connection, "a1")
        assert approval_store.get(connection, "nope") is None
        assert [r.id for r in approval_store.listed(connection, None)] == ["a1", "a2"]
        assert [r.id for r in approval_store.listed(connection, "open")] == ["a2"]
    assert row is not None
    assert (row.status, row.decided_by, row.decided_at, row.consumed_at) == (
        "approved",
        "principal:b",
        5,
        7,
    )


def test_the_approved_requests_of_a_plan(engine: Engine) -> None:
    plan_id = _plan(engine)
    with engine.begin() as connection:
        _approval(connection, "a1", plan_id, None)
        _approval(connection, "a2", plan_id, None)
        approval_store.settle(connection, "a2", ApprovalStatus.APPROVED, 5)
        approved = approval_store.approved_of_plan(connection, plan_id)
        none = approval_store.approved_of_plan(connection, "p-other")
    assert ([r.id for r in approved], none) == (["a2"], [])


def test_a_stopped_plan_withdraws_its_open_approvals(engine: Engine) -> None:
    plan_id = _plan(engine)
    step_id = _step(engine, plan_id, 1, StepStatus.AWAITING_GRANT)
    with engine.begin() as connection:
        _approval(connection, "a1", plan_id, step_id)
        _approval(connection, "a2", plan_id, None)
        _approval(connection, "a3", plan_id, None)
        approval_store.settle(connection, "a3", ApprovalStatus.EXPIRED, 4)
        waiting = approval_store.withdraw_of_plan(connection, plan_id, "plan failed", 9)
        statuses = [(r.id, r.status) for r in approval_store.listed(connection, None)]
    assert waiting == [step_id]
    assert statuses == [("a1", "withdrawn"), ("a2", "withdrawn"), ("a3", "expired")]


# -- the principals repository -----------------------------------------------------------------


def test_principals_tokens_keys_and_grants(engine: Engine) -> None:
    with engine.begin() as connection:
        assert not principal_store.governed(connection)
        principal_store.add(
            connection, id="principal:a", kind="person", roles='["approver"]', created_at=1
        )
        principal_store.add_token(
            connection, id="t1", principal_id="principal:a", digest="sha256:x", created_at=2
        )
        for keyid in ("k1", "k2"):
            principal_store.add_key(
                connection,
                keyid=keyid,
                principal_id="principal:a",
                public_key="AAAA",
                valid_from=3,
                created_at=3,
            )
        principal_store.add_grant(
            connection,
            id="g1",
            principal_id="principal:a",
            capability="calendar.event.create",
            calendar="*",
            created_at=4,
        )
    with pytest.raises(IntegrityError), engine.begin() as connection:
        principal_store.add(connection, id="principal:a", kind="person", roles="[]", created_at=5)
    with engine.begin() as connection:
        assert principal_store.governed(connection)
        token = principal_store.token_by_digest(connection, "sha256:x")
        assert token is not None
        assert (token.id, token.disabled_at) == ("t1", None)
        assert principal_store.revoke_token(connection, "t1", 6) == 6
        assert principal_store.revoke_token(connection, "t1", 7) == 6
        assert principal_store.revoke_key(connection, "k1", 8) == 8
        assert [k.keyid for k in principal_store.keys_of(connection, "principal:a")] == ["k1", "k2"]
        assert [k.keyid for k in principal_store.keys_of(connection, "principal:a", ["k2"])] == [
            "k2"
        ]
        assert principal_store.has_grant(connection, "principal:a", "calendar.event.create", "c")
        assert principal_store.revoke_grant(connection, "g1", 9) == 9
        assert not principal_store.has_grant(
            connection, "principal:a", "calendar.event.create", "c"
        )
        principal_store.disable(connection, "principal:a", 10)
        principal_store.disable(connection, "principal:a", 11)
        row = principal_store.get(connection, "principal:a")
        assert row is not None
        assert row.disabled_at == 10
        assert principal_store.get(connection, "principal:b") is None
        assert [r.id for r in principal_store.all_principals(connection)] == ["principal:a"]
        assert [g.revoked_at for g in principal_store.all_grants(connection)] == [9]
        assert [k.revoked_at for k in principal_store.all_keys(connection)] == [8, None]
        stored = principal_store.get_key(connection, "k2")
        assert stored is not None
        assert stored.principal_id == "principal:a"
        assert principal_store.get_token(connection, "t1") is not None
        assert principal_store.get_grant(connection, "g1") is not None


# -- the steps repository ----------------------------------------------------------------------


def test_take_due_leases_the_step_due_first_then_nothing(engine: Engine) -> None:
    plan_id = _plan(engine)
    first = _step(engine, plan_id, 1, StepStatus.READY)
    later = _step(engine, plan_id, 2, StepStatus.WAITING)
    with engine.begin() as connection:
        connection.execute(update(steps).where(steps.c.id == first).values(next_run_at=5))
        connection.execute(update(steps).where(steps.c.id == later).values(next_run_at=50))
    seen: list[str] = []

    def then(connection: Any, row: Any, before: Any, plan: Any) -> str:
        seen.append(before.previous_status)
        return str(plan.status)

    taken = step_store.take_due(engine, now=10, token="worker:w#1", until=40, then=then)
    assert taken is not None
    row, before, plan, followed = taken
    assert (row.id, row.status, row.lease_token, row.next_run_at, row.attempts) == (
        first,
        "executing",
        "worker:w#1",
        40,
        1,
    )
    assert (before.previous_status, plan.id, followed, seen) == (
        "ready",
        plan_id,
        "executing",
        ["ready"],
    )
    assert step_store.take_due(engine, now=10, token="worker:w#2", until=40, then=then) is None
    with engine.begin() as connection:
        assert step_store.lease_token_of(connection, first) == "worker:w#1"
        assert step_store.lease_token_of(connection, later) is None
        assert step_store.hold(connection, first, "worker:w#1", 11, lease_until=60)
        assert not step_store.hold(connection, first, "worker:w#2", 11)
        with pytest.raises(StepTransitionError):
            step_store.hold(connection, first, "worker:w#1", 11, status="ready")
    # the lease ran out at 40 (next_run_at), before the waiting step is due at 50: a takeover
    taken_over = step_store.take_due(engine, now=45, token="worker:v#3", until=90, then=then)
    assert taken_over is not None
    assert (taken_over[0].id, taken_over[0].attempts, taken_over[1].previous_token) == (
        first,
        2,
        "worker:w#1",
    )
    assert seen == ["ready", "executing"]


def test_dependants_count_down_and_blocked_steps_are_counted(engine: Engine) -> None:
    plan_id = _plan(engine)
    one = _step(engine, plan_id, 1, StepStatus.PENDING)
    two = _step(engine, plan_id, 2, StepStatus.PENDING)
    blocked = _step(engine, plan_id, 3, StepStatus.BLOCKED)
    with engine.begin() as connection:
        connection.execute(update(steps).where(steps.c.id == one).values(remaining_deps=1))
        connection.execute(update(steps).where(steps.c.id == two).values(remaining_deps=2))
        step_store.ready_dependants(connection, [one, two], 7)
        step_store.ready_dependants(connection, [], 8)
        assert step_store.count_blocked(connection, plan_id) == 1
        connection.execute(move(StepStatus.BLOCKED, StepStatus.CANCELLED, steps.c.id == blocked))
        step_store.note_if_cancelled(connection, blocked, "; noted")
        step_store.note_if_cancelled(connection, one, "; not noted")
        rows = {
            r.id: r
            for r in connection.execute(select(steps).where(steps.c.plan_id == plan_id)).all()
        }
    assert (rows[one].status, rows[one].next_run_at, rows[one].remaining_deps) == ("ready", 7, 0)
    assert (rows[two].status, rows[two].next_run_at, rows[two].remaining_deps) == (
        "pending",
        None,
        1,
    )
    assert (rows[blocked].status_reason, rows[one].status_reason) == ("; noted", None)


def test_the_lease_holder_releases_its_step(engine: Engine) -> None:
    plan_id = _plan(engine)
    step_id = _step(engine, plan_id, 1, StepStatus.EXECUTING)
    with engine.begin() as connection:
        connection.execute(
            update(steps)
            .where(steps.c.id == step_id)
            .values(lease_token="w#1", lease_until=9, dependants='["s2"]')
        )
        lost = step_store.release(connection, step_id, "w#2", StepStatus.WAITING, 5)
        with pytest.raises(StepTransitionError):
            step_store.release(connection, step_id, "w#1", StepStatus.PENDING, 5)
        released = step_store.release(
            connection, step_id, "w#1", StepStatus.WAITING, 6, next_run_at=8, status_reason="w"
        )
        again = step_store.release(connection, step_id, "w#1", StepStatus.COMPLETED, 7)
        row = step_store.get(connection, step_id)
    assert (lost, again) == (None, None)
    assert released is not None
    assert released.dependants == '["s2"]'
    assert row is not None
    assert (row.status, row.lease_token, row.lease_until, row.next_run_at, row.updated_at) == (
        "waiting",
        None,
        None,
        8,
        6,
    )


def test_an_unleased_step_is_completed_and_a_plan_cancels_its_open_steps(engine: Engine) -> None:
    plan_id = _plan(engine)
    blocked = _step(engine, plan_id, 1, StepStatus.BLOCKED)
    held = _step(engine, plan_id, 2, StepStatus.BLOCKED)
    running = _step(engine, plan_id, 3, StepStatus.EXECUTING)
    done = _step(engine, plan_id, 4, StepStatus.COMPLETED)
    with engine.begin() as connection:
        connection.execute(update(steps).where(steps.c.id == held).values(lease_token="w#1"))
        completed = step_store.complete_unleased(
            connection, blocked, StepStatus.BLOCKED, reason="it happened", result="{}", now=5
        )
        refused = step_store.complete_unleased(
            connection, held, StepStatus.BLOCKED, reason="r", result="{}", now=5
        )
        wrong = step_store.complete_unleased(
            connection, running, StepStatus.BLOCKED, reason="r", result="{}", now=5
        )
        executing = step_store.executing_of_plan(connection, plan_id)
        cancelled = step_store.cancel_open(connection, plan_id, "plan failed", 6)
        rows = {r.id: r for r in step_store.of_plan(connection, plan_id)}
    assert completed is not None
    assert (completed.plan_id, refused, wrong) == (plan_id, None, None)
    assert [(r.id, r.revision) for r in executing] == [(running, 1)]
    assert cancelled == 2
    assert (rows[blocked].status, rows[blocked].result, rows[blocked].finished_at) == (
        "completed",
        "{}",
        5,
    )
    assert [rows[s].status for s in (held, running, done)] == ["cancelled"] * 2 + ["completed"]
    assert (rows[held].lease_token, rows[held].status_reason, rows[held].finished_at) == (
        None,
        "plan failed",
        6,
    )


def test_a_waiting_step_is_released_or_ended(engine: Engine) -> None:
    plan_id = _plan(engine)
    approved = _step(engine, plan_id, 1, StepStatus.AWAITING_APPROVAL)
    granted = _step(engine, plan_id, 2, StepStatus.AWAITING_GRANT)
    refused = _step(engine, plan_id, 3, StepStatus.AWAITING_APPROVAL)
    blocked = _step(engine, plan_id, 4, StepStatus.BLOCKED)
    with engine.begin() as connection:
        step_store.ready_waiting(connection, approved, "approved", 5)
        step_store.ready_waiting(connection, granted, "granted", 5)
        step_store.ready_waiting(connection, blocked, "no", 5)
        ended = step_store.end_waiting(connection, refused, StepStatus.CANCELLED, "gone", 6)
        again = step_store.end_waiting(connection, refused, StepStatus.FAILED, "gone", 7)
        not_waiting = step_store.end_waiting(connection, blocked, StepStatus.FAILED, "no", 7)
        with pytest.raises(StepTransitionError):
            step_store.end_waiting(connection, refused, StepStatus.COMPLETED, "no", 7)
        rows = {r.id: r for r in step_store.of_plan(connection, plan_id)}
    assert (ended, again, not_waiting) == (True, False, False)
    assert (rows[approved].status, rows[approved].next_run_at, rows[granted].status) == (
        "ready",
        5,
        "ready",
    )
    assert (rows[refused].status, rows[refused].finished_at, rows[refused].status_reason) == (
        "cancelled",
        6,
        "gone",
    )
    assert rows[blocked].status == "blocked"


def test_a_blocked_step_runs_again_unless_it_is_held(engine: Engine) -> None:
    plan_id = _plan(engine)
    free = _step(engine, plan_id, 1, StepStatus.BLOCKED)
    held = _step(engine, plan_id, 2, StepStatus.BLOCKED)
    ready = _step(engine, plan_id, 3, StepStatus.READY)
    with engine.begin() as connection:
        connection.execute(update(steps).where(steps.c.id == held).values(lease_token="w#1"))
        moved = [step_store.run_again(connection, s, 2, "again", 5) for s in (free, held, ready)]
        row = step_store.get(connection, free)
        assert step_store.get(connection, "nope") is None
    assert moved == [True, False, False]
    assert row is not None
    assert (row.status, row.status_reason, row.attempt_group, row.next_run_at) == (
        "ready",
        "again",
        2,
        5,
    )


def test_of_plan_reads_steps_by_position(engine: Engine) -> None:
    plan_id = _plan(engine)
    second = _step(engine, plan_id, 2, StepStatus.PENDING)
    first = _step(engine, plan_id, 1, StepStatus.READY)
    with engine.connect() as connection:
        assert [r.id for r in step_store.of_plan(connection, plan_id)] == [first, second]
        assert [r.id for r in step_store.of_plan(connection, plan_id, keys=[second])] == [second]
        assert step_store.of_plan(connection, plan_id, keys=[]) == []


# -- the knowledge repository ------------------------------------------------------------------


def test_a_prediction_is_resolved_once(engine: Engine) -> None:
    plan_id = _plan(engine)
    step_id = _step(engine, plan_id, 1, StepStatus.COMPLETED)
    _step(engine, plan_id, 2, StepStatus.READY)
    with engine.begin() as connection:
        for number, created in (("r2", 5), ("r1", 5), ("r3", 4)):
            knowledge.open_prediction(
                connection,
                id=number,
                plan_id=plan_id,
                step_id=step_id,
                expectation='{"belief_id":"b"}',
                due_at=50,
                created_at=created,
            )
        connection.execute(update(steps).where(steps.c.id == step_id).values(prediction_id="r1"))
        resolved = knowledge.resolve_prediction(
            connection, "r1", PredictionStatus.CONFIRMED, '{"seen":true}', 9
        )
        again = knowledge.resolve_prediction(connection, "r1", PredictionStatus.MISSED, "{}", 10)
        with pytest.raises(StoreError) as raised:
            knowledge.resolve_prediction(connection, "r2", PredictionStatus.OPEN, "{}", 10)
    assert resolved is not None
    assert (resolved.expectation, again, raised.value.code) == (
        '{"belief_id":"b"}',
        None,
        "store.illegal_transition",
    )
    with engine.connect() as connection:
        rows = knowledge.predictions_of_plan(connection, plan_id)
        still_open = sorted(r.id for r in knowledge.open_predictions(connection))
        made = knowledge.prediction_of_step(connection, plan_id, "s1")
        none_made = knowledge.prediction_of_step(connection, plan_id, "s2")
    assert [(r.id, r.status) for r in rows] == [("r3", "open"), ("r1", "confirmed"), ("r2", "open")]
    assert (rows[1].observation, rows[1].resolved_at) == ('{"seen":true}', 9)
    assert still_open == ["r2", "r3"]
    assert (made.id, made.prediction_id, made.due_at, made.created_at) == ("s1", "r1", 50, 5)
    assert (none_made.prediction_id, none_made.due_at) == (None, None)


def test_a_belief_is_added_then_moved(engine: Engine) -> None:
    with engine.begin() as connection:
        assert knowledge.belief(connection, "b") is None
        knowledge.add_belief(connection, "b", 0.5, '{"n":1}', 3)
        knowledge.set_belief(connection, "b", 0.75, '{"n":2}', 4)
        row = knowledge.belief(connection, "b")
    assert row is not None
    assert (row.confidence, row.evidence, row.updated_at) == (0.75, '{"n":2}', 4)


def test_the_latest_memory_of_a_goal_is_recalled(engine: Engine) -> None:
    plan_id = _plan(engine)
    with engine.begin() as connection:
        assert knowledge.recall(connection, "g") is None
        for memory_id, created, draft in (("m2", 5, "[2]"), ("m1", 5, "[1]"), ("m3", 4, "[3]")):
            knowledge.remember(
                connection,
                id=memory_id,
                plan_id=plan_id,
                intention_id="i1",
                goal_key="g",
                steps=draft,
                created_at=created,
            )
        assert knowledge.recall(connection, "g") == "[2]"
        assert knowledge.recall(connection, "other") is None


# -- the sandboxes repository ------------------------------------------------------------------


def test_a_sandbox_enabled_again_releases_what_it_stopped(engine: Engine) -> None:
    plan_id = _plan(engine)
    stopped = _step(engine, plan_id, 1, StepStatus.BLOCKED)
    verifying = _step(engine, plan_id, 2, StepStatus.BLOCKED)
    with engine.begin() as connection:
        assert sandbox_store.enabled(connection, "box") is None
        sandbox_store.put(connection, "box", False, "paused", 2)
        sandbox_store.put(connection, "other", True, None, 2)
        connection.execute(
            update(plans)
            .where(plans.c.id == plan_id)
            .values(sandbox="box", status="blocked", status_reason="sandbox_disabled: box")
        )
        connection.execute(
            update(steps).where(steps.c.id == stopped).values(status_reason="sandbox_disabled: x")
        )
        connection.execute(
            update(steps).where(steps.c.id == verifying).values(status_reason="needs_verification")
        )
        assert sandbox_store.enabled(connection, "box") is False
        assert sandbox_store.ready_blocked_steps(connection, "other", "sandbox", "r", 3) == 0
        sandbox_store.put(connection, "box", True, None, 4)
        readied = sandbox_store.ready_blocked_steps(
            connection, "box", "sandbox_disabled", "enabled again", 4
        )
        sandbox_store.resume_blocked_plans(connection, "box", "sandbox_disabled", 4)
        row = sandbox_store.get(connection, "box")
        assert sandbox_store.get(connection, "none") is None
        names = [r.name for r in sandbox_store.listed(connection)]
    assert row is not None
    assert (readied, bool(row.enabled), row.reason, row.updated_at) == (1, True, None, 4)
    assert names == ["box", "other"]
    assert (_status(engine, stopped), _status(engine, verifying)) == ("ready", "blocked")
    plan = _plan_row(engine, plan_id)
    assert (plan.status, plan.status_reason, plan.updated_at) == ("executing", None, 4)


# -- the intentions repository -----------------------------------------------------------------


def test_an_intention_is_closed_once(engine: Engine) -> None:
    plan_id = _plan(engine)  # intention i1
    step_id = _step(engine, plan_id, 1, StepStatus.AWAITING_APPROVAL)
    with engine.begin() as connection:
        for intention_id in ("i2", "i3"):
            intention_store.insert_open(
                connection,
                id=intention_id,
                parent_step_id=step_id,
                goal='{"approval":"a"}',
                created_at=2,
                updated_at=2,
            )
        intention_store.close(connection, "i1", IntentionStatus.FULFILLED, 3)
        intention_store.close(connection, "i1", IntentionStatus.ABANDONED, 4, status_reason="x")
        intention_store.note(connection, "i1", "noted", 5)
        intention_store.close_of_steps(
            connection, [step_id], IntentionStatus.ABANDONED, 6, status_reason="withdrawn"
        )
        intention_store.close_of_steps(connection, [step_id], IntentionStatus.FULFILLED, 7)
        intention_store.close_of_steps(connection, [], IntentionStatus.FULFILLED, 7)
        with pytest.raises(StoreError) as raised:
            intention_store.close(connection, "i1", IntentionStatus.OPEN, 8)
        rows = [intention_store.get(connection, i) for i in ("i1", "i2", "i3")]
    assert raised.value.code == "store.illegal_transition"
    assert [(r.status, r.status_reason, r.closed_at, r.updated_at) for r in rows] == [
        ("fulfilled", "noted", 3, 5),
        ("abandoned", "withdrawn", 6, 6),
        ("abandoned", "withdrawn", 6, 6),
    ]
    assert (rows[1].parent_step_id, rows[1].goal) == (step_id, '{"approval":"a"}')


# -- the timers repository ---------------------------------------------------------------------


def test_a_due_timer_fires_once(engine: Engine) -> None:
    with engine.begin() as connection:
        timer_store.add(connection, "t2", TimerKind.APPROVAL_EXPIRY, "a1", due_at=5, now=1)
        timer_store.add(connection, "t1", TimerKind.WALL_DEADLINE, "p1", due_at=5, now=1)
        timer_store.add(connection, "t0", TimerKind.WALL_DEADLINE, "p2", due_at=9, now=1)
        assert timer_store.due(connection, 4, 10) == []
        due = timer_store.due(connection, 5, 10)
        assert [(t.id, t.kind, t.ref) for t in due] == [
            ("t1", "wall_deadline", "p1"),
            ("t2", "approval_expiry", "a1"),
        ]
        assert [t.id for t in timer_store.due(connection, 9, 1)] == ["t1"]
        assert (timer_store.fire(connection, "t1", 6), timer_store.fire(connection, "t1", 7)) == (
            True,
            False,
        )
        assert [t.id for t in timer_store.due(connection, 9, 10)] == ["t2", "t0"]


# -- the reads behind the views ----------------------------------------------------------------


def test_the_reads_behind_the_views(engine: Engine) -> None:
    plan_id = _plan(engine)  # executing, revision 1
    ready = _step(engine, plan_id, 1, StepStatus.READY)
    done = _step(engine, plan_id, 2, StepStatus.COMPLETED)
    running = _step(engine, plan_id, 3, StepStatus.EXECUTING)
    with engine.begin() as connection:
        plan_store.add_revision(
            connection,
            id="p0",
            intention_id="i1",
            revision=2,
            status="failed",
            origin="operator",
            max_replans=0,
            draft="{}",
            created_at=0,
            updated_at=0,
        )
        _approval(connection, "a2", plan_id, running)
        _approval(connection, "a1", plan_id, None)
        token = attempt_store.lease_token("worker:w", "x")
        for number, step_id in ((1, running), (2, running)):
            attempt_store.begin(
                connection,
                attempt_store.unstored(step_id, number, token, f"k{number}", 4),
                step_id,
                5,
            )
        attempt_store.close(
            connection,
            attempt_store.open_of_step(connection, running)[0],
            running,
            AttemptOutcome.INTERRUPTED,
            6,
        )
    with engine.connect() as connection:
        assert [r.id for r in plan_store.listed(connection)] == ["p0", plan_id]
        assert [r.id for r in plan_store.listed(connection, status="failed")] == ["p0"]
        assert [r.id for r in plan_store.listed(connection, among=["executing", "ready"])] == [
            plan_id
        ]
        assert [(r.id, r.revision) for r in plan_store.revisions_of(connection, "i1")] == [
            (plan_id, 1),
            ("p0", 2),
        ]
        assert sorted(r.id for r in plan_store.open_or_among(connection, ["executing"], [])) == [
            plan_id
        ]
        assert sorted(r.id for r in plan_store.open_or_among(connection, [], ["p0"])) == ["p0"]
        assert sorted(r.id for r in step_store.of_plans(connection, [plan_id, "p0"])) == [
            ready,
            done,
            running,
        ]
        assert sorted(step_store.count_by_status(connection, [plan_id])) == [
            (plan_id, "completed", 1),
            (plan_id, "executing", 1),
            (plan_id, "ready", 1),
        ]
        assert step_store.count_by_status(connection, []) == []
        assert step_store.count_in(connection, ["ready", "executing"]) == 2
        assert [
            (r.step_id, r.number) for r in attempt_store.finished_rows(connection, [running])
        ] == [(running, 1)]
        assert [(r.step_id, r.number) for r in attempt_store.open_rows(connection, [running])] == [
            (running, 2)
        ]
        assert [
            (h.step_id, h.lease_token, h.worker_id) for h in attempt_store.holders(connection)
        ] == [(running, token, "worker:w")]
        assert [r.id for r in approval_store.of_plan(connection, plan_id)] == ["a1", "a2"]
        assert approval_store.expiries_of_plans(connection, [plan_id]) == {"a1": 100, "a2": 100}
        assert approval_store.expiries_of_plans(connection, []) == {}
