"""The durable execution store: schema, migrations and the store URL (issue #12, first slice).

Back ends: the embedded SQLite file (default ``platformdirs.user_data_dir("cerebri")/
store.sqlite3``) and PostgreSQL through psycopg 3. The URL comes from ``--store``, else
``CEREBRI_STORE`` (:func:`resolve_store_url`). Errors: :class:`StoreError` with codes
``store.invalid_url``, ``store.unreachable``, ``store.too_new``; a driver error that means
the store is out of service is ``store.unavailable`` or ``store.full``
(:func:`store_error_code`, :func:`store_error_from`; decision 0035).
"""

from cerebri.execution.store.engine import open_engine
from cerebri.execution.store.errors import (
    OUTAGE_CODES,
    StoreError,
    store_error_code,
    store_error_from,
)
from cerebri.execution.store.migrate import (
    StoreStatus,
    current_revision,
    head_revision,
    init,
    status,
    upgrade,
)
from cerebri.execution.store.schema import METADATA, TABLE_NAMES
from cerebri.execution.store.url import (
    STORE_ENV,
    default_store_path,
    parse_store_url,
    redacted,
    resolve_store_url,
)
from cerebri.execution.store.vocabulary import (
    ApprovalStatus,
    AttemptOutcome,
    IntentionStatus,
    PredictionStatus,
    TimerKind,
)

__all__ = [
    "METADATA",
    "OUTAGE_CODES",
    "STORE_ENV",
    "TABLE_NAMES",
    "ApprovalStatus",
    "AttemptOutcome",
    "IntentionStatus",
    "PredictionStatus",
    "StoreError",
    "StoreStatus",
    "TimerKind",
    "current_revision",
    "default_store_path",
    "head_revision",
    "init",
    "open_engine",
    "parse_store_url",
    "redacted",
    "resolve_store_url",
    "status",
    "store_error_code",
    "store_error_from",
    "upgrade",
]
