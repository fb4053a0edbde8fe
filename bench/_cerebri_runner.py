"""STUB: the cerebri half of ``bench/execution.py``, to be written with the executor (#12).

``bench/execution.py`` calls ``run_cerebri`` once per row and prints "cerebri: not
available" while it raises ``NotImplementedError``. The contract for the real version:

* ``url``: a SQLAlchemy-style URL of a fresh, empty store, ``sqlite:///<path>`` (a file in
  a temporary folder; the SQLite row runs with ``workers == 1``) or
  ``postgresql://user@host:port/<fresh database>`` (created by the harness with
  ``_peers.fresh_database`` and dropped after the row);
* ``steps``: how many no-op steps to run, enqueued in bulk before the clock starts;
* ``workers``: how many worker *processes* claim steps, started and ready (idle, polling)
  before the steps are enqueued, as the peers are (see ``_peers``): the measured time runs
  from the committed enqueue until every step is seen done, so interpreter start-up is
  not counted;
* returns a dict with at least ``steps_per_s`` (float, steps / seconds), ``seconds``
  (float, wall time of the measured window) and ``claim_p50_ms`` / ``claim_p99_ms``
  (float milliseconds over the claim calls that claimed a step, or ``None`` if not
  measured). Any other keys are copied into the ``--json`` output.
"""

from __future__ import annotations

__all__ = ["run_cerebri"]


def run_cerebri(url: str, steps: int, workers: int) -> dict[str, object]:
    """Run ``steps`` no-op steps with ``workers`` processes on ``url``; see the module doc.

    Raises NotImplementedError until the durable executor is merged.
    """
    raise NotImplementedError("cerebri executor not merged yet")
