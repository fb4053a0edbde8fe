"""The temporal layer's policies, spelled as on the wire (temporal.md sections 2.3 and 3.5).

:mod:`cerebri.cpir` uses these enums in its wire models (``cerebri.cpir.Coverage`` *is*
:class:`Coverage`), so a parsed request hands them to the temporal core unchanged.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["Coverage", "FoldPolicy", "GapPolicy"]


class Coverage(StrEnum):
    """Whether the supplied busy data covers the whole horizon (temporal.md 2.3)."""

    COMPLETE = "Complete"
    INCOMPLETE = "Incomplete"


class GapPolicy(StrEnum):
    """What to do with a local time that does not exist (DST gap)."""

    REJECT = "Reject"
    SKIP = "Skip"


class FoldPolicy(StrEnum):
    """What to do with a local time that exists twice (DST fold)."""

    REJECT = "Reject"
    EARLIER = "Earlier"
    LATER = "Later"
