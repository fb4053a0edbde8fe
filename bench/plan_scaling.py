"""Scaling benchmark of ``cerebri.plan`` against two baselines, in one process.

Run from the repository root::

    .venv/bin/python bench/plan_scaling.py            # full ladder (a few minutes on 2 cores)
    .venv/bin/python bench/plan_scaling.py --quick    # points up to 10 000 (smoke test)
    .venv/bin/python bench/plan_scaling.py --profile 100000,100000

What is measured (see bench/README.md for the rationale):

1. the canonical request ``examples/design-review.json``: ``parse_request`` alone,
   ``plan(parsed)`` (parse excluded) and ``plan(json_text)`` (parse included);
2. synthetic workloads: ``n`` busy KNOWN events and a grid of exactly ``g`` start positions.
   The request is parsed once, outside the timing; only ``cerebri.plan(parsed)`` is timed.
   Proposal ids are lazy and nothing is serialised;
3. two baselines on the same workload: (a) brute force, every grid start against every busy
   interval, O(n*g), only while n*g <= 2e8; (b) the same job written with ``portion``:
   union of ``closedopen`` busy intervals, complement within the horizon, then
   ``closedopen(s, e) in free`` for each grid start;
4. the three must agree on the set of feasible starts (AssertionError otherwise).

Timings are the minimum over several repeats of ``time.perf_counter``; fast calls are looped
so that one repeat lasts at least 0.2 s. The garbage collector stays enabled (it is part of
the real cost) but ``gc.collect()`` runs before each repeat.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import math
import os
import platform
import pstats
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any, TypeVar

import portion

import cerebri
from _machine import load_average, source_revision

T = TypeVar("T")
R = TypeVar("R")

ROOT = Path(__file__).resolve().parent.parent
CANONICAL = ROOT / "examples" / "design-review.json"
SEED = 1234
NS = 1_000_000_000
HORIZON_START = int(datetime(2026, 1, 5, tzinfo=UTC).timestamp())
BRUTE_MAX_WORK = 200_000_000  # n * g
PORTION_CAP_SECONDS = 60.0  # predicted portion time above which the portion run is skipped
TARGET = "new-event"

FULL_LADDER = [(100, 100), (1_000, 1_000), (10_000, 10_000), (100_000, 100_000)]
FULL_ASYMMETRIC = [(100_000, 1_000), (1_000, 100_000)]
QUICK_LADDER = [(100, 100), (1_000, 1_000), (10_000, 10_000)]
QUICK_ASYMMETRIC = [(10_000, 100), (100, 10_000)]

BIG = 2**62
LIMITS = cerebri.PlannerLimits(
    max_request_bytes=None,
    max_request_work_bytes=None,
    max_objects=BIG,
    max_facts=BIG,
    max_constraints=BIG,
    max_candidates=BIG,
    max_work_units=BIG,
)


# --- timing ------------------------------------------------------------------------------


@dataclass
class Timing:
    best: float  # seconds per call, min over repeats
    repeats: int
    loops: int


def measure(
    fn: Callable[[], T],
    digest: Callable[[T], R],
    *,
    repeats: int = 5,
    budget: float = 4.0,
    min_time: float = 0.2,
    gc_enabled: bool = True,
) -> tuple[Timing, R]:
    """Min-of-repeats wall time of ``fn()`` and ``digest`` of its first result.

    The first call calibrates the loop count; it counts as a sample only when it alone
    lasts ``min_time`` (expensive calls are not repeated past ``budget`` seconds). The
    first result is reduced by ``digest`` and dropped before the repeats, so a large result
    does not inflate the garbage collector's work in later repeats. ``gc_enabled=False``
    disables the cyclic garbage collector during the timed calls only.
    """

    def call() -> T:
        if gc_enabled:
            return fn()
        gc.disable()
        try:
            return fn()
        finally:
            gc.enable()

    gc.collect()
    t0 = time.perf_counter()
    first_result = call()
    first = time.perf_counter() - t0
    digested = digest(first_result)
    del first_result
    loops = 1 if first >= min_time else max(1, math.ceil(min_time / max(first, 1e-7)))
    samples = [first] if loops == 1 else []
    spent = first
    while len(samples) < repeats and (spent < budget or not samples):
        gc.collect()
        t0 = time.perf_counter()
        for _ in range(loops):
            call()
        elapsed = time.perf_counter() - t0
        samples.append(elapsed / loops)
        spent += elapsed
    return Timing(min(samples), len(samples), loops), digested


def identity(value: T) -> T:
    return value


# --- workload ----------------------------------------------------------------------------


@dataclass
class Workload:
    n: int
    g: int
    start: int  # horizon start, epoch seconds
    end: int  # horizon end, epoch seconds
    granularity: int  # seconds
    duration: int  # seconds
    busy: list[tuple[int, int]]  # [start, end) epoch seconds, in request order
    request: dict[str, Any]

    def grid(self) -> range:
        return range(self.start, self.start + self.g * self.granularity, self.granularity)


def iso(seconds: int) -> str:
    return datetime.fromtimestamp(seconds, tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def busy_intervals(n: int, g: int, horizon: int, rng: random.Random) -> list[tuple[int, int]]:
    """``n`` intervals (offsets in seconds) filling about half of ``[0, horizon)``.

    Clusters of events (lengths 1-3 units, gaps -0.5..1 unit, so some overlap or touch)
    separated by ``max(1, min(n, g) // 16)`` large free gaps that together are about as long
    as the busy part; units are then scaled to the horizon.
    """
    free_gaps = max(1, min(n, g) // 16)
    lengths = [rng.uniform(1.0, 3.0) for _ in range(n)]
    gaps = [rng.uniform(-0.5, 1.0) for _ in range(n)]
    big_at = set(rng.sample(range(n + 1), free_gaps))
    mean_big = (sum(lengths) + sum(gaps)) / free_gaps
    raw: list[tuple[float, float]] = []
    pos = 0.0
    for i in range(n):
        if i in big_at:
            pos += rng.uniform(0.5, 1.5) * mean_big
        s = max(0.0, pos + gaps[i])
        e = s + lengths[i]
        raw.append((s, e))
        pos = max(pos, e)
    if n in big_at:
        pos += rng.uniform(0.5, 1.5) * mean_big
    scale = horizon / pos
    out = []
    for s, e in raw:
        a = min(int(s * scale), horizon - 1)
        b = min(max(int(e * scale), a + 1), horizon)
        out.append((a, b))
    return out


def make_workload(n: int, g: int, rng: random.Random) -> Workload:
    """A request with ``n`` busy events and a grid of exactly ``g`` positions.

    Granularity ``G`` is 5 minutes, raised (in whole minutes) when ``n`` is much larger than
    ``g`` so busy events stay several seconds long; the placement lasts ``2 G``; the horizon
    is ``2 G + (g - 1) G`` long, so the starts ``S, S + G, …, S + (g - 1) G`` are exactly the
    positions whose placement ends inside it.
    """
    granularity = max(300, math.ceil(12 * n / g / 60) * 60)
    duration = 2 * granularity
    start = HORIZON_START
    end = start + duration + (g - 1) * granularity
    offsets = busy_intervals(n, g, end - start, rng)
    rng.shuffle(offsets)
    # Build the absolute tuples (and their int objects) after shuffling, so that they lie in
    # memory in request order: a scan in request order (the brute force) is then not
    # penalised by cache misses that depend on allocation history (seen: 2.5 s vs 8 s).
    busy = [(start + a, start + b) for a, b in offsets]
    width = len(str(n))
    objects: list[dict[str, Any]] = [_object(TARGET, None)]
    objects.extend(_object(f"busy-{i:0{width}d}", span) for i, span in enumerate(busy))
    request: dict[str, Any] = {
        "schema_version": {"major": 0, "minor": 2},
        "request_id": f"bench-{n}-{g}",
        "trace_id": "bench",
        "principal_id": "bench",
        "operation": "CREATE",
        "scope": {
            "time_range": {"start": iso(start), "end": iso(end)},
            "calendar_ids": None,
            "object_ids": None,
            "resource_ids": None,
            "integration_ids": None,
            "movable_object_ids": None,
            "max_mutations": 1,
        },
        "context": {
            "revision": 1,
            "captured_at": iso(start - 86_400),
            "objects": objects,
            "facts": [],
        },
        "target_ids": [TARGET],
        "duration": _known(duration, "USER_EXPLICIT"),
        "constraints": [],
        "preferences": {
            "preferences": [
                {
                    "source": "ExplicitCurrentRequest",
                    "preferred_start": iso(start + (end - start) // 3),
                    "evidence": [],
                }
            ]
        },
        "policy": {
            "policy_set_id": "bench-policy",
            "policy_version": 1,
            "snapshot": {
                "allow_uncertain_duration": False,
                "confirmation": {"all_mutations": True, "deletion": True},
                "mutation": {"max_mutations": 1, "allowed_actions": ["CREATE_EVENT"]},
                "mode": "Confirmation",
            },
        },
        "planning_capability": {
            "read": True,
            "plan": True,
            "mutations": [
                {
                    "object_id": TARGET,
                    "calendar_id": "work",
                    "integration_id": "local-ics",
                    "kind": "CREATE_EVENT",
                }
            ],
        },
        "granularity": granularity,
        "budget": {"max_candidates": g, "max_repairs": 0, "max_moved_objects": 0, "max_depth": 0},
    }
    return Workload(n, g, start, end, granularity, duration, busy, request)


def _known(data: Any, provenance: str) -> dict[str, Any]:
    return {
        "value": {"processing": "RESOLVED", "knowledge": {"state": "KNOWN", "data": data}},
        "provenance": provenance,
        "confidence": None,
        "evidence": [],
    }


def _object(object_id: str, span: tuple[int, int] | None) -> dict[str, Any]:
    if span is None:
        time_field: dict[str, Any] = {
            "value": {"processing": "RESOLVED", "knowledge": {"state": "MISSING"}},
            "provenance": "USER_EXPLICIT",
            "confidence": None,
            "evidence": [],
        }
    else:
        time_field = _known({"start": iso(span[0]), "end": iso(span[1])}, "INTEGRATION_FACT")
    return {
        "id": object_id,
        "revision": None if span is None else 1,
        "kind": {"kind": "EVENT"},
        "calendar_id": "work",
        "integration_id": "local-ics",
        "resource_ids": [],
        "time": time_field,
        "timezone": "Europe/Berlin",
        "semantics": None,
    }


# --- the three solvers -------------------------------------------------------------------


def planner_feasible(result: cerebri.PlanningResult, w: Workload) -> set[int]:
    assert result.outcome.value != "InsufficientInformation", (
        f"planner refused n={w.n} g={w.g}: {result.validation}"
    )
    assert result.search_space.evaluated == w.g, (
        f"planner evaluated {result.search_space.evaluated} positions, expected g={w.g}"
    )
    assert result.search_space.exhausted, f"grid not exhausted at n={w.n} g={w.g}"
    assert len(result.candidates) + len(result.rejections) == w.g
    starts = set()
    for candidate in result.candidates:
        seconds, rest = divmod(candidate.start.ns, NS)
        assert rest == 0, "grid start is not a whole second"
        starts.add(seconds)
    return starts


def brute_force(w: Workload) -> set[int]:
    """Every grid start against every busy interval: O(n * g)."""
    busy, d = w.busy, w.duration
    feasible = []
    for s in w.grid():
        e = s + d
        for bs, be in busy:
            if bs < e and s < be:
                break
        else:
            feasible.append(s)
    return set(feasible)


def with_portion(w: Workload) -> set[int]:
    """The job as a ``portion`` user writes it: union, complement, containment."""
    busy = portion.Interval(*[portion.closedopen(s, e) for s, e in w.busy])
    free = portion.closedopen(w.start, w.end) - busy
    d = w.duration
    return {s for s in w.grid() if portion.closedopen(s, s + d) in free}


# --- report ------------------------------------------------------------------------------


@dataclass
class Row:
    n: int
    g: int
    granularity: int
    feasible: int
    parse: float
    planner: Timing
    planner_gc_off: Timing
    portion: Timing | None
    portion_note: str
    brute: Timing | None
    brute_note: str
    reference: tuple[int, int] | None = None


def model(n: int, g: int) -> float:
    return (n + g) * math.log2(max(n, 2))


def fmt_s(t: Timing | None, note: str) -> str:
    if t is None:
        return note
    return f"{t.best:.4f}" if t.best < 10 else f"{t.best:.2f}"


def fmt_ratio(t: Timing | None, planner: Timing) -> str:
    return "-" if t is None else f"{t.best / planner.best:.2f}"


def machine_info() -> list[str]:
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        usable = os.cpu_count() or 0
    versions = ", ".join(
        f"{name} {metadata.version(name)}" for name in ("cerebri", "portion", "pydantic")
    )
    return [
        f"python   {sys.version.split()[0]} ({platform.python_implementation()}, "
        f"{' '.join(platform.python_build())})",
        f"platform {platform.platform()} / {platform.machine()} / "
        f"{platform.processor() or 'unknown cpu'}",
        f"cores    {os.cpu_count()} logical, {usable} usable by this process",
        f"packages {versions}",
        f"source   {source_revision()}",
        f"load     {load_average()} (1/5/15 min; other processes on the machine skew timings)",
    ]


def canonical_section() -> list[str]:
    text = CANONICAL.read_text(encoding="utf-8")
    parsed = cerebri.parse_request(text)
    parse_t, _ = measure(lambda: cerebri.parse_request(text), identity, repeats=7)
    excluded_t, result = measure(lambda: cerebri.plan(parsed), identity, repeats=7)
    included_t, _ = measure(lambda: cerebri.plan(text), identity, repeats=7)
    rel = CANONICAL.relative_to(ROOT).as_posix()
    lines = [
        f"canonical request {rel}: outcome {result.outcome.value}, "
        f"{len(result.candidates)} candidates, {len(result.rejections)} rejections, "
        f"evaluated {result.search_space.evaluated}"
    ]
    for label, t in (
        ("parse_request(text) only", parse_t),
        ("plan(parsed)   [parse excluded]", excluded_t),
        ("plan(text)     [parse included]", included_t),
    ):
        lines.append(
            f"  {label:<33} {t.best * 1e3:9.3f} ms  (min of {t.repeats} x {t.loops} loops)"
        )
    return lines


def run_point(n: int, g: int, rng: random.Random, portion_rate: float | None, quick: bool) -> Row:
    # --quick trades stability for speed: fewer repeats, shorter loops, smaller budgets.
    budget, repeats, min_time = (1.0, 3, 0.05) if quick else (4.0, 5, 0.2)
    w = make_workload(n, g, rng)
    t0 = time.perf_counter()
    parsed = cerebri.parse_request(w.request)
    parse_seconds = time.perf_counter() - t0
    del w.request["context"]  # the dict is no longer needed; free memory early

    def run_plan() -> cerebri.PlanningResult:
        return cerebri.plan(parsed, limits=LIMITS)

    def feasible(result: cerebri.PlanningResult) -> set[int]:
        return planner_feasible(result, w)

    planner_t, planned = measure(
        run_plan, feasible, repeats=repeats, budget=2 * budget, min_time=min_time
    )
    gc_off_t, planned_gc_off = measure(
        run_plan,
        feasible,
        repeats=repeats,
        budget=2 * budget,
        min_time=min_time,
        gc_enabled=False,
    )
    assert planned_gc_off == planned

    portion_t: Timing | None = None
    portion_note = ""
    predicted = None if portion_rate is None else portion_rate * model(n, g)
    if predicted is not None and predicted > PORTION_CAP_SECONDS:
        portion_note = f"capped (~{predicted:.0f}s)"
    else:
        portion_t, by_portion = measure(
            lambda: with_portion(w),
            identity,
            repeats=repeats,
            budget=budget,
            min_time=min_time,
        )
        assert by_portion == planned, disagreement("portion", by_portion, planned, w)

    brute_t: Timing | None = None
    brute_note = ""
    if n * g <= BRUTE_MAX_WORK:
        brute_t, by_brute = measure(
            lambda: brute_force(w), identity, repeats=3, budget=budget / 2, min_time=min_time
        )
        assert by_brute == planned, disagreement("brute force", by_brute, planned, w)
    else:
        brute_note = "skipped (n·g too large)"

    return Row(
        n,
        g,
        w.granularity,
        len(planned),
        parse_seconds,
        planner_t,
        gc_off_t,
        portion_t,
        portion_note,
        brute_t,
        brute_note,
    )


def disagreement(name: str, theirs: set[int], planner: set[int], w: Workload) -> str:
    only_theirs = sorted(theirs - planner)[:5]
    only_planner = sorted(planner - theirs)[:5]
    return (
        f"feasible starts disagree at n={w.n} g={w.g}: {name} found {len(theirs)}, planner "
        f"{len(planner)}; only {name} (first 5): {[iso(s) for s in only_theirs]}; "
        f"only planner (first 5): {[iso(s) for s in only_planner]}"
    )


def table(rows: list[Row]) -> list[str]:
    header = (
        f"{'n':>6} {'g':>6} {'G s':>4} {'feasible':>8} {'parse s':>7} {'µs/obj':>6} "
        f"{'planner s':>9} "
        f"{'gc-off s':>8} {'portion s':>9} {'brute s':>23} {'port/plan':>9} "
        f"{'brute/plan':>10} {'growth vs':>13} {'plan growth':>11} {'model growth':>12} "
        f"{'excess':>6}"
    )
    lines = [header, "-" * len(header)]
    by_point = {(r.n, r.g): r for r in rows}
    for r in rows:
        growth = model_growth = excess = ref = "-"
        if r.reference is not None and r.reference in by_point:
            base = by_point[r.reference]
            pg = r.planner.best / base.planner.best
            mg = model(r.n, r.g) / model(*r.reference)
            growth, model_growth, excess = f"{pg:.1f}x", f"{mg:.1f}x", f"{pg / mg:.2f}"
            ref = f"({r.reference[0]},{r.reference[1]})"
        lines.append(
            f"{r.n:>6} {r.g:>6} {r.granularity:>4} {r.feasible:>8} {r.parse:>7.2f} "
            f"{r.parse / (r.n + 1) * 1e6:>6.1f} "
            f"{fmt_s(r.planner, ''):>9} {fmt_s(r.planner_gc_off, ''):>8} "
            f"{fmt_s(r.portion, r.portion_note):>9} {fmt_s(r.brute, r.brute_note):>23} "
            f"{fmt_ratio(r.portion, r.planner):>9} {fmt_ratio(r.brute, r.planner):>10} "
            f"{ref:>13} {growth:>11} {model_growth:>12} {excess:>6}"
        )
    return lines


def profile_point(n: int, g: int, top: int, gc_enabled: bool) -> None:
    w = make_workload(n, g, random.Random(SEED))
    parsed = cerebri.parse_request(w.request)
    del w
    cerebri.plan(parsed, limits=LIMITS)  # warm-up
    gc.collect()
    if not gc_enabled:
        gc.disable()
    profiler = cProfile.Profile()
    started = time.perf_counter()
    profiler.enable()
    cerebri.plan(parsed, limits=LIMITS)
    profiler.disable()
    elapsed = time.perf_counter() - started
    gc.enable()
    state = "enabled" if gc_enabled else "DISABLED"
    print(
        f"cProfile of cerebri.plan(parsed) at n={n}, g={g}, garbage collector {state}: "
        f"{elapsed:.2f}s wall under the profiler; top {top} by cumulative, then by own time"
    )
    stats = pstats.Stats(profiler, stream=sys.stdout)
    stats.strip_dirs().sort_stats("cumulative").print_stats(top)
    stats.sort_stats("tottime").print_stats(top)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="only points up to 10 000")
    parser.add_argument(
        "--profile", metavar="N,G", help="instead: print a cProfile of plan() at this point"
    )
    parser.add_argument("--gc-off", action="store_true", help="profile with gc disabled")
    parser.add_argument("--top", type=int, default=15, help="profile rows (default 15)")
    args = parser.parse_args(argv)

    if args.profile:
        n, g = (int(x) for x in args.profile.split(","))
        profile_point(n, g, args.top, gc_enabled=not args.gc_off)
        return 0

    started = time.perf_counter()
    for line in machine_info():
        print(line)
    print()
    for line in canonical_section():
        print(line)
    print(flush=True)

    ladder = QUICK_LADDER if args.quick else FULL_LADDER
    asymmetric = QUICK_ASYMMETRIC if args.quick else FULL_ASYMMETRIC
    rng = random.Random(SEED)
    rows: list[Row] = []
    portion_rate: float | None = None
    previous: tuple[int, int] | None = None
    for n, g in [*ladder, *asymmetric]:
        print(f"  running n={n} g={g} ...", file=sys.stderr, flush=True)
        row = run_point(n, g, rng, portion_rate, args.quick)
        if (n, g) in ladder:
            row.reference = previous
            previous = (n, g)
        else:
            row.reference = (min(n, g), min(n, g))
        if row.portion is not None:
            rate = row.portion.best / model(n, g)
            portion_rate = rate if portion_rate is None else max(portion_rate, rate)
        rows.append(row)

    capped = [r for r in rows if r.portion is None]
    notes = [
        "workload: n busy KNOWN EVENT objects (INTEGRATION_FACT; lengths and gaps from",
        f"  random.Random({SEED}); about half the horizon busy, some events overlap or touch),",
        "  one new target EVENT, grid of exactly g starts with granularity G s, placement 2G,",
        "  no explicit constraints (the implicit NO_OVERLAP check decides feasibility).",
        "seconds per call, min over repeats; planner s = cerebri.plan(parsed) only (parse s,",
        "  one untimed-for-ratio parse_request(dict), is shown for information); gc-off s =",
        "  the same call with the cyclic garbage collector disabled (diagnostic only).",
        "µs/obj = parse s per context object (n busy events and the target).",
    ]
    notes.extend(table(rows))
    notes += [
        "growth: planner time ratio to the point in 'growth vs' against the (n+g)*log2(n)",
        "  model ratio; excess = plan growth / model growth (1.00 = grows like the model).",
        "  Ladder rows refer to the previous ladder step, asymmetric rows to (min, min).",
        f"brute force runs only while n*g <= {BRUTE_MAX_WORK:.0e}. portion cap rule: skipped",
        "  when its time predicted from the slowest measured per-(n+g)*log2(n) rate exceeds",
        f"  {PORTION_CAP_SECONDS:.0f}s: "
        + (f"{len(capped)} point(s) capped." if capped else "no point was capped."),
        "agreement: the planner and every baseline that ran found the same feasible starts",
        "  at every point (asserted).",
        f"total wall time {time.perf_counter() - started:.1f}s; load average now {load_average()}",
    ]
    for line in notes:
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
