"""The readable table of ``cerebri optimize`` (decision 0077): one CPIR ``OPTIMIZE`` answer
as plain text, without rich.

:func:`batch_text` reads the answer's wire form (the ``batch`` member of decision 0070) and
the request (titles, the zone), so the table says exactly what ``--json`` says:

* ``status:`` ``proven optimal``; ``best found within the budget (bound B)``; ``proven
  infeasible`` followed by the conflicting rules (the solver's minimal conflicting set, one
  line each: ``  KIND: MEETING[, MEETING][; person P | room R]`` and what a rule without
  a person or room means, :mod:`cerebri.cli.render_conflict`); ``unknown: the work limit
  ran out before any placement``; or, for a request that does not validate, ``not planned:
  the request does not validate`` followed by its issues (an ``InputLimit`` with each
  OPTIMIZE admission limit it breaks and a ``hint:``, decision 0084).
* ``score: hard H, medium M, soft S`` (when there is one) and ``zone: Z``: the day zone of
  the mapping (the ``timezone`` of the target object with the smallest id, else ``UTC``).
* one row per meeting, sorted by object id: ``id``, the title (``-`` when none), the
  half-open range in UTC and in the zone (``YYYY-MM-DD HH:MM-HH:MM``; the end's date is
  written when it differs from the start's), the room (``-``) and ``new``, ``moved`` or
  ``kept``.
* ``terms:`` one line per named cost: ``  NAME MEETING[ OTHER][ person P]: amount A,
  cost C`` in the solver's order (``none`` when the score has no term).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from zoneinfo import ZoneInfo

from cerebri._json import JSONValue
from cerebri.cli._plan_text import optimize_breaches, optimize_fixes
from cerebri.cli.render_conflict import conflict_text
from cerebri.cpir import PlanningRequest
from cerebri.temporal import Instant

__all__ = ["batch_text", "batch_zone"]


def batch_zone(request: PlanningRequest) -> str:
    """The zone the table's second range is written in: the ``timezone`` of the target
    object with the smallest id, else ``UTC`` (the day zone of
    :func:`cerebri.optimize.map_request`)."""
    objects = {obj.id: obj for obj in request.context.objects}
    for target in sorted(set(request.target_ids)):
        obj = objects.get(target)
        if obj is not None:
            return str(obj.timezone)
    return "UTC"


def _local(text: str, zone: ZoneInfo) -> datetime:
    seconds = Instant.parse(text).ns // 1_000_000_000
    return datetime.fromtimestamp(seconds, zone)


def _span(start: str, end: str, zone: ZoneInfo) -> str:
    low, high = _local(start, zone), _local(end, zone)
    head = low.strftime("%Y-%m-%d %H:%M")
    tail = high.strftime("%H:%M") if high.date() == low.date() else high.strftime("%Y-%m-%d %H:%M")
    return f"{head}-{tail}"


def _status(
    request: PlanningRequest, wire: Mapping[str, JSONValue], batch: Mapping[str, JSONValue] | None
) -> list[str]:
    if batch is None:
        lines = ["status: not planned: the request does not validate"]
        validation = wire["validation"]
        assert isinstance(validation, dict)
        issues = validation["issues"]
        assert isinstance(issues, list)
        for issue in issues:
            lines.extend(_issue(request, issue))
        return lines
    status = batch["status"]
    if status == "OPTIMAL":
        return ["status: proven optimal"]
    if status == "FEASIBLE":
        return [f"status: best found within the budget (bound {batch['bound']})"]
    if status == "INFEASIBLE":
        conflict = batch["conflict"]
        assert isinstance(conflict, list)
        rules: list[tuple[str, list[str]]] = []
        for rule in conflict:
            assert isinstance(rule, dict)
            ids = rule["ids"]
            assert isinstance(ids, list)
            rules.append((str(rule["kind"]), [str(i) for i in ids]))
        lines = ["status: proven infeasible; these rules conflict:"]
        lines.extend(f"  {conflict_text(request, kind, ids, rules)}" for kind, ids in rules)
        return lines
    return ["status: unknown: the work limit ran out before any placement"]


def _issue(request: PlanningRequest, issue: JSONValue) -> list[str]:
    if isinstance(issue, str):
        if issue != "InputLimit":
            return [f"  {issue}"]
        breaches = optimize_breaches(request)
        return [
            "  InputLimit",
            *(f"    {breach}" for breach in breaches),
            f"  hint: {optimize_fixes(breaches)} (OPTIMIZE's own limits; docs/reference/limits.md)",
        ]
    assert isinstance(issue, dict)
    ((name, value),) = issue.items()
    return [f"  {name}: {value}"]


def _rows(
    assignments: Sequence[JSONValue], titles: Mapping[str, str], zone: ZoneInfo
) -> list[list[str]]:
    rows = [["meeting", "title", "UTC", str(zone), "room", "change"]]
    for item in assignments:
        assert isinstance(item, dict)
        ident = str(item["object_id"])
        span = item["range"]
        assert isinstance(span, dict)
        start, end = str(span["start"]), str(span["end"])
        change = "new" if item["new"] else "moved" if item["moved"] else "kept"
        rows.append(
            [
                ident,
                titles.get(ident) or "-",
                _span(start, end, ZoneInfo("UTC")),
                _span(start, end, zone),
                str(item["room_id"]) if item["room_id"] is not None else "-",
                change,
            ]
        )
    return rows


def _columns(rows: list[list[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]


def _term(term: JSONValue) -> str:
    assert isinstance(term, dict)
    words = [str(term["name"]), str(term["meeting_id"])]
    if term["other"] is not None:
        words.append(str(term["other"]))
    if term.get("person") is not None:
        words.append(f"person {term['person']}")
    return f"  {' '.join(words)}: amount {term['amount']}, cost {term['cost']}"


def batch_text(request: PlanningRequest, wire: Mapping[str, JSONValue]) -> str:
    """The table of an ``OPTIMIZE`` answer ``wire`` (``PlanningResult.to_wire()``) to
    ``request``, lines ending in a newline (the module docstring gives the layout)."""
    batch = wire.get("batch")
    assert batch is None or isinstance(batch, dict)
    lines = _status(request, wire, batch)
    zone_name = batch_zone(request)
    if batch is not None:
        score = batch["score"]
        if isinstance(score, dict):
            lines.append(
                f"score: hard {score['hard']}, medium {score['medium']}, soft {score['soft']}"
            )
        lines.append(f"zone: {zone_name}")
        assignments = batch["assignments"]
        assert isinstance(assignments, list)
        if assignments:
            titles = {
                m.object_id: m.title or ""
                for m in (request.batch.meetings if request.batch is not None else ())
            }
            lines.append("")
            lines.extend(_columns(_rows(assignments, titles, ZoneInfo(zone_name))))
            terms = batch["terms"]
            assert isinstance(terms, list)
            lines.append("")
            lines.append("terms:" if terms else "terms: none")
            lines.extend(_term(term) for term in terms)
    return "".join(line + "\n" for line in lines)
