"""A CalDAV server's refusal of a second resource with a UID it already holds (RFC 4791
section 5.3.2.1, the ``CALDAV:no-uid-conflict`` precondition; Cyrus answers it with HTTP
403) is a conflict, ``calendar.uid_conflict``, not refused credentials (trial item 15,
decision 0073). The caldav library reports the precondition in ``preconditions``."""

from __future__ import annotations

import pytest
from caldav.lib import error as dav_error

from cerebri.execution.adapters.base import AdapterError
from cerebri.execution.adapters.caldav_calendar import _transport_errors

NO_UID_CONFLICT = "{urn:ietf:params:xml:ns:caldav}no-uid-conflict"


@pytest.mark.parametrize("kind", [dav_error.AuthorizationError, dav_error.PutError])
def test_a_uid_conflict_is_a_conflict_whatever_the_status(kind: type[Exception]) -> None:
    refused = kind("http://dav/alice/x.ics", "Forbidden", [NO_UID_CONFLICT], None, 403)
    with pytest.raises(AdapterError) as caught, _transport_errors("write x.ics"):
        raise refused
    assert caught.value.code == "calendar.uid_conflict"
    assert "no-uid-conflict" in caught.value.message
    assert caught.value.retryable is False


def test_a_plain_403_is_still_refused_credentials() -> None:
    refused = dav_error.AuthorizationError("http://dav/alice/", "Forbidden", None, None, 403)
    with pytest.raises(AdapterError) as caught, _transport_errors("read"):
        raise refused
    assert caught.value.code == "calendar.unauthorized"
