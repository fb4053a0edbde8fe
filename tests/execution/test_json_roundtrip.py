"""JSON columns hold canonical JSON text that round-trips byte for byte on both back ends."""

from __future__ import annotations

from sqlalchemy import create_engine, select

from cerebri._json import JSONValue, canonical
from cerebri.execution import store

DRAFT: JSONValue = {
    "zeta": [1, 2.5, None, True, False],
    "alpha": {"ünïcode": "日本語 — \u2028 line sep", "emoji": "🗓", "nested": {"b": 1, "a": 0}},
    "big": 9007199254740993,
    "empty": {},
    "quote": 'he said "hi"\\n',
}


def test_json_text_round_trips_identically(store_url: str) -> None:
    store.init(store_url)
    text = canonical(DRAFT)
    # Written by hand: keys sorted by code point at every level, raw UTF-8, no spaces.
    assert text.startswith('{"alpha":{"emoji":"🗓","nested":{"a":0,"b":1},"ünïcode":')
    engine = create_engine(store_url)
    tables = store.METADATA.tables
    ns = 1_780_000_000_123_456_789  # an instant in nanoseconds, beyond 2**53
    try:
        with engine.begin() as connection:
            connection.execute(
                tables["intentions"].insert(),
                {"id": "i", "status": "open", "created_at": ns, "updated_at": ns},
            )
            connection.execute(
                tables["plans"].insert(),
                {
                    "id": "p",
                    "intention_id": "i",
                    "revision": 1,
                    "status": "validated",
                    "origin": "operator",
                    "max_replans": 3,
                    "draft": text,
                    "created_at": ns,
                    "updated_at": ns,
                },
            )
        with engine.connect() as connection:
            row = connection.execute(
                select(tables["plans"].c.draft, tables["plans"].c.created_at)
            ).one()
    finally:
        engine.dispose()
    assert row.draft.encode("utf-8") == text.encode("utf-8")
    assert row.created_at == ns
