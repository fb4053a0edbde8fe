"""The tools' arguments: strict pydantic models (unknown members refused), one per tool.

Their JSON Schemas are the tools' ``inputSchema`` (:mod:`cerebri.mcp.schemas`, where the
``request`` member is replaced by the CPIR request schema). Values use the command line's
spellings (:mod:`cerebri.calendars.options`): durations ``30m``/``1h30m``/``PT1H`` or an
integer of seconds, windows ``START/END`` local in ``tz``. A refusal is
``input.invalid_option`` with the JSON pointer of the member (:mod:`cerebri.mcp.errors`).

Nothing here names a signing key, an author, an approval or a grant: authority comes only
from the server's configuration (docs/decisions/0033-mcp-tool-server.md).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictFloat, StrictInt, StrictStr

from cerebri.calendars.change_fields import Duration, EventSelection, RescheduleFields, UpdateEdits
from cerebri.proposals import MAX_VALIDITY_SECONDS

__all__ = [
    "CancelEventArgs",
    "ChangeProposal",
    "DraftArgs",
    "FindSlotArgs",
    "FreeBusyArgs",
    "OptimizeArgs",
    "PlanStatusArgs",
    "PreviewArgs",
    "ProposeArgs",
    "RequestArgs",
    "RescheduleEventArgs",
    "UpdateEventArgs",
]

_Duration = Duration
_Paths = Annotated[list[StrictStr], Field(max_length=32)]
_Names = Annotated[list[StrictStr], Field(max_length=32)]
_Document = dict[str, Any] | StrictStr
_ChangeHours = Annotated[
    list[StrictStr] | None,
    Field(
        description="Attendees' own hours and zones, each ID=[DAYS ][HH:MM-HH:MM][@ZONE] with "
        "the calendar id the answer gives the source (reschedule --hours)."
    ),
]


def _d(text: str) -> Any:
    return Field(description=text)


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class RequestArgs(_Args):
    """A CPIR request to validate or plan."""

    request: Annotated[_Document, _d("The CPIR 0.1/0.2 request, as a JSON object or text.")]
    limits: Annotated[
        Literal["reference", "local"],
        _d("reference: the CPIR service limits; local: the find-slot limits."),
    ] = "reference"


class OptimizeArgs(_Args):
    """A CPIR OPTIMIZE request (many meetings at once) to optimise."""

    request: Annotated[
        _Document,
        _d(
            "The CPIR 0.2 OPTIMIZE request (batch of meetings, people, rooms), as a JSON "
            "object or text; checked against the optimiser's own limits."
        ),
    ]


class _Window(_Args):
    ics: Annotated[
        _Paths,
        _d(
            ".ics calendars, one attendee each: names configured on the server (cerebri mcp "
            "--ics NAME=PATH), or paths inside its --ics-root folder."
        ),
    ] = []
    caldav: Annotated[
        _Names, _d("Names of CalDAV sources configured on the server (cerebri mcp --caldav).")
    ] = []
    between: Annotated[
        StrictStr, _d("Window START/END, e.g. 2026-10-05T08:00/2026-10-09T18:00 (local in tz).")
    ]
    tz: Annotated[StrictStr, _d("IANA zone: local times, working hours, floating times.")] = "UTC"
    skip_invalid_events: Annotated[
        StrictBool, _d("Leave out unreadable events (warned; the answer is then incomplete).")
    ] = False


class FreeBusyArgs(_Window):
    """Busy, free and unknown time of calendars over a window."""


class FindSlotArgs(_Window):
    """Ranked meeting slots across attendees' calendars (``cerebri find-slot --json``)."""

    duration: Annotated[_Duration, _d("Meeting length: 30m, 1h30m, PT1H30M, or seconds.")]
    granularity: Annotated[_Duration, _d("Distance between candidate starts.")] = "15m"
    working_hours: Annotated[StrictStr | None, _d("Local working hours, e.g. 09:00-17:00.")] = None
    working_days: Annotated[StrictStr | None, _d("Open weekdays, e.g. Mon-Fri or Mon,Wed.")] = None
    buffer: Annotated[_Duration | None, _d("Minimum gap to other events, e.g. 10m.")] = None
    prefer: Annotated[StrictStr | None, _d("Preferred local start time, e.g. 10:30.")] = None
    prefer_between: Annotated[
        StrictStr | None, _d("Preferred local start range on every day, e.g. 10:00-12:00.")
    ] = None
    prefer_earliest: Annotated[StrictBool, _d("Rank early local times of day first.")] = False
    prefer_latest: Annotated[StrictBool, _d("Rank late local times of day first.")] = False
    optional_ics: Annotated[
        _Paths, _d("Optional attendees' .ics calendars (names or paths, as ics): never block.")
    ] = []
    optional_caldav: Annotated[_Names, _d("Optional attendees' configured CalDAV sources.")] = []
    min_attendance: Annotated[
        StrictStr | StrictFloat | StrictInt | None,
        _d(
            "Offer only slots where at least this fraction (0-1, e.g. 0.8) of all "
            "attendees is free."
        ),
    ] = None
    max_candidates: Annotated[
        StrictInt, Field(ge=0, le=100_000, description="Grid positions to evaluate at most.")
    ] = 100_000
    hours: Annotated[
        list[StrictStr] | None,
        _d(
            "Attendees' own hours and zones, each ID=[DAYS ][HH:MM-HH:MM][@ZONE] with the "
            "calendar id find_slot gives the source (find-slot --hours)."
        ),
    ] = None


class ChangeProposal(_Args):
    """How to propose a change answered (the ``propose`` tool's options for its request)."""

    candidate: Annotated[
        StrictInt, Field(ge=1, description="Which ranked candidate (1 = best; a reschedule's).")
    ] = 1
    wrap: Annotated[
        Literal["action-plan", "plan-graph"],
        _d(
            "plan-graph (default): the write, its verification and one iTIP message per "
            "attendee; action-plan: the planner's action plan only."
        ),
    ] = "plan-graph"
    expires_in: Annotated[
        StrictInt,
        Field(ge=1, le=MAX_VALIDITY_SECONDS, description="Validity in seconds (default 1 day)."),
    ] = 86_400
    submit: Annotated[
        StrictBool,
        _d(
            "Also submit the signed envelope to the execution store (key and store configured); "
            "it still waits for a human's approval."
        ),
    ] = False


class _EventSources(_Args):
    uid: Annotated[StrictStr, Field(min_length=1, max_length=1024, description="The event's UID.")]
    ics: Annotated[
        _Paths,
        _d(
            "Attendees' .ics calendars: names configured on the server (cerebri mcp --ics "
            "NAME=PATH), or paths inside its --ics-root folder."
        ),
    ] = []
    caldav: Annotated[
        _Names, _d("Names of CalDAV sources configured on the server (cerebri mcp --caldav).")
    ] = []
    optional_ics: Annotated[_Paths, _d("Optional attendees' .ics calendars (never block).")] = []
    optional_caldav: Annotated[_Names, _d("Optional attendees' configured CalDAV sources.")] = []


class _EventChange(EventSelection, _EventSources):
    propose: Annotated[
        ChangeProposal | None,
        _d(
            "Also propose the change (as the propose tool does with the answer's request): "
            "the envelope is in the answer's proposal. It grants nothing: a human other than "
            "the author must approve it."
        ),
    ] = None


class RescheduleEventArgs(RescheduleFields, _EventChange):
    """New times for an event already on the calendars (``cerebri reschedule --json``)."""

    buffer: Annotated[_Duration | None, _d("Minimum gap to other events, e.g. 10m.")] = None
    max_candidates: Annotated[
        StrictInt, Field(ge=0, le=100_000, description="Grid positions to evaluate at most.")
    ] = 100_000
    hours: _ChangeHours = None


class _EventWindow(_EventChange):
    between: Annotated[
        StrictStr | None,
        _d("Window START/END the event lies in (needed to read CalDAV sources)."),
    ] = None


class CancelEventArgs(_EventWindow):
    """Cancel an event, an instance, this and future ones, or a series (``cancel-event``)."""


class UpdateEventArgs(UpdateEdits, _EventWindow):
    """Change an event's title, length, place or attendees (``update-event``)."""

    attendees: Annotated[_Names, _d("Required attendees to add (e-mail addresses).")] = []
    optional_attendees: Annotated[_Names, _d("Optional attendees to add.")] = []
    remove_attendees: Annotated[_Names, _d("Attendees to remove.")] = []
    hours: _ChangeHours = None


class DraftArgs(_Args):
    """A plan graph draft proposed by a model (plans.md section 3)."""

    draft: Annotated[_Document, _d("The draft, as a JSON object or text.")]


class ProposeArgs(_Args):
    """What to propose: a CPIR request (its ranked candidate) or a plan graph draft."""

    request: Annotated[_Document | None, _d("A CPIR request; its candidate is proposed.")] = None
    draft: Annotated[_Document | None, _d("A plan graph draft (an object with steps).")] = None
    candidate: Annotated[
        StrictInt, Field(ge=1, description="Which ranked candidate (1 = best).")
    ] = 1
    wrap: Annotated[
        Literal["action-plan", "plan-graph"],
        _d("For a request: propose its action plan or the plan graph that carries it out."),
    ] = "action-plan"
    title: Annotated[
        StrictStr | None, _d("With wrap plan-graph: the title of the event a CREATE makes.")
    ] = None
    expires_in: Annotated[
        StrictInt,
        Field(ge=1, le=MAX_VALIDITY_SECONDS, description="Validity in seconds (default 1 day)."),
    ] = 86_400
    limits: Annotated[Literal["reference", "local"], _d("Planner limits for a request.")] = (
        "reference"
    )
    submit: Annotated[
        StrictBool,
        _d(
            "Also submit the signed envelope to the execution store (needs a server started "
            "with --key and --store); watch the plan with plan_status. It still waits for a "
            "human's approval."
        ),
    ] = False


class PreviewArgs(_Args):
    """A draft to preview as if submitted now, or the id of a stored plan."""

    draft: Annotated[_Document | None, _d("A plan graph draft.")] = None
    plan_id: Annotated[StrictStr | None, _d("The id of a plan in the execution store.")] = None


class PlanStatusArgs(_Args):
    """One stored plan."""

    plan_id: Annotated[StrictStr, _d("The id of a plan in the execution store.")]
