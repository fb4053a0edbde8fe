"""cerebri: a deterministic planning kernel.

The public API::

    cerebri.plan(request) -> PlanningResult        ranked, explained candidate slots
                                                   (OPTIMIZE: many meetings at once)
    cerebri.validate(request) -> ValidationReport  what is known, missing or uncertain
    cerebri.parse_request(source) -> PlanningRequest
    cerebri.temporal_report(request) -> TemporalResult  recurrence expansion and free/busy

``request`` is CPIR 0.1/0.2 as JSON text, UTF-8 bytes, decoded JSON values or a parsed
:class:`PlanningRequest`. Errors are :class:`CerebriError` subclasses with a stable ``code``.
"""

from cerebri._collector import collector_paused as _collector_paused

# Importing the core builds pydantic's models and their validators: about 50 000 container
# objects, kept until exit. The cyclic collector is paused meanwhile (it would walk them
# again and again) and they go to the oldest generation at the end (decision 0045).
with _collector_paused(promote_after=0):
    from cerebri.cpir import (
        PlanningRequest,
        PlanningResult,
        ValidationReport,
        parse_request,
    )
    from cerebri.cpir.temporal_report import temporal_report
    from cerebri.errors import (
        CerebriError,
        InputTooLargeError,
        InvalidArgumentError,
        ParseError,
        UnreadableInputError,
        UnwritableOutputError,
    )
    from cerebri.optimize import plan, validate
    from cerebri.planner import DEFAULT_LIMITS, PlannerLimits
    from cerebri.temporal import TemporalResult

__version__ = "0.1.0"

__all__ = [
    "DEFAULT_LIMITS",
    "CerebriError",
    "InputTooLargeError",
    "InvalidArgumentError",
    "ParseError",
    "PlannerLimits",
    "PlanningRequest",
    "PlanningResult",
    "TemporalResult",
    "UnreadableInputError",
    "UnwritableOutputError",
    "ValidationReport",
    "__version__",
    "parse_request",
    "plan",
    "temporal_report",
    "validate",
]
