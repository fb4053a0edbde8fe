"""cerebri's tzdata zones copy and pickle as themselves (icalendar components holding them
are deep-copied by cerebri.calendars.changes)."""

import copy
import pickle
from datetime import datetime, timedelta

from cerebri.temporal import zone


def test_a_zone_copies_and_pickles_as_the_same_cached_zone() -> None:
    berlin = zone("Europe/Berlin")
    assert copy.deepcopy(berlin) is berlin
    assert pickle.loads(pickle.dumps(berlin)) is berlin
    moment = datetime(2026, 7, 1, 12, tzinfo=copy.deepcopy(berlin))
    assert moment.utcoffset() == timedelta(hours=2)
    held = {"start": datetime(2026, 1, 1, 9, tzinfo=berlin)}
    assert copy.deepcopy(held)["start"].utcoffset() == timedelta(hours=1)
