"""CalDAV reads with and without the local sync cache, against real servers, in one run.

Run from the repository root::

    .venv/bin/python bench/caldav_sync.py            # 500 objects, 5 repeats
    .venv/bin/python bench/caldav_sync.py --quick    # 100 objects, 2 repeats (smoke test)

For each server (Radicale and Xandikos, started here on 127.0.0.1, free ports, temporary
folders, as the tests start them) one calendar gets ``N`` event objects (a tenth of them
weekly series with an override and an EXDATE; ``random.Random(1234)``). Then, each timed
with ``time.perf_counter`` (minimum over repeats):

(a) ``fetch_calendars(..., cache=False)``: the whole calendar every time (``--no-cache``);
(b) the first read into an empty cache (a full listing plus ``calendar-multiget``);
(c) a read with nothing changed on the server (``sync-collection`` with the stored token);
(d) a read after one object changed on the server (the token, then one object downloaded);
(e) as (c) with ``sync_collection=False`` (a depth-1 ``PROPFIND`` of ETags compared).

Reported: seconds and ratios to (a), the objects downloaded by each read (from the fetch
report) and a check that every read gives the same busy time as (a) for a one-week window.
"""

from __future__ import annotations

import argparse
import platform
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import caldav

from _machine import load_average, source_revision
from cerebri.ics import busy_periods
from cerebri.integrations import CalendarCache, FetchResult, fetch_calendars_with_report
from cerebri.temporal import Instant

WINDOW = (Instant.parse("2026-10-05T00:00:00Z"), Instant.parse("2026-10-12T00:00:00Z"))
HEAD = "BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//cerebri bench//EN\n"


@dataclass(frozen=True)
class Server:
    name: str
    url: str
    user: str


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _wait(port: int, process: subprocess.Popen[bytes]) -> None:
    for _ in range(200):
        if process.poll() is not None:
            raise SystemExit(f"server on port {port} exited with {process.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise SystemExit(f"server on port {port} did not answer")


@contextmanager
def _servers(folder: Path) -> Iterator[list[Server]]:
    radicale_port, xandikos_port = _free_port(), _free_port()
    commands = [
        [
            sys.executable, "-m", "radicale", "--config", "",
            "--server-hosts", f"127.0.0.1:{radicale_port}",
            "--storage-filesystem-folder", str(folder / "radicale"),
            "--auth-type", "none", "--logging-level", "warning",
        ],
        [
            sys.executable, "-m", "xandikos.web", "--defaults", "-d", str(folder / "xandikos"),
            "-l", "127.0.0.1", "-p", str(xandikos_port),
            "--current-user-principal", "/user/",
        ],
    ]  # fmt: skip
    processes = [
        subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for command in commands
    ]
    try:
        _wait(radicale_port, processes[0])
        _wait(xandikos_port, processes[1])
        yield [
            Server("radicale", f"http://127.0.0.1:{radicale_port}/", "bench"),
            Server("xandikos", f"http://127.0.0.1:{xandikos_port}/", "user"),
        ]
    finally:
        for process in processes:
            process.terminate()
            process.wait(timeout=10)


def _event(rng: random.Random, number: int) -> str:
    day = rng.randrange(0, 60)
    hour = rng.randrange(7, 19)
    start = (
        f"202609{1 + day % 30:02d}T{hour:02d}0000"
        if day < 30
        else f"202610{day - 29:02d}T{hour:02d}0000"
    )
    end = start[:9] + f"{hour + 1:02d}0000"
    body = (
        f"BEGIN:VEVENT\nUID:bench-{number}@cerebri\nDTSTAMP:20260101T000000Z\n"
        f"DTSTART;TZID=Europe/Berlin:{start}\nDTEND;TZID=Europe/Berlin:{end}\n"
        f"SUMMARY:Event {number}\n"
    )
    if number % 10 == 0:
        body += f"RRULE:FREQ=WEEKLY;COUNT=20\nEXDATE;TZID=Europe/Berlin:{start}\nEND:VEVENT\n"
        moved = start[:9] + f"{hour:02d}3000"
        body += (
            f"BEGIN:VEVENT\nUID:bench-{number}@cerebri\nDTSTAMP:20260101T000000Z\n"
            f"RECURRENCE-ID;TZID=Europe/Berlin:{start}\n"
            f"DTSTART;TZID=Europe/Berlin:{moved}\nDTEND;TZID=Europe/Berlin:{end}\n"
        )
    return f"{HEAD}{body}END:VEVENT\nEND:VCALENDAR\n"


def _seed(server: Server, objects: int) -> tuple[str, caldav.CalendarObjectResource]:
    rng = random.Random(1234)
    with caldav.DAVClient(server.url, username=server.user, password="x", timeout=30) as client:
        principal = client.principal()
        collection = principal.make_calendar(name="bench", cal_id="bench")
        saved = [collection.save_event(_event(rng, number)) for number in range(objects)]
        return str(collection.url), saved[1]


def _best(
    repeats: int, run: Callable[[], FetchResult], prepare: Callable[[], None] = lambda: None
) -> tuple[float, FetchResult]:
    """The fastest of ``repeats`` calls of ``run``; ``prepare`` runs untimed before each."""
    best, result = float("inf"), None
    for _ in range(repeats):
        prepare()
        started = time.perf_counter()
        result = run()
        best = min(best, time.perf_counter() - started)
    assert result is not None
    return best, result


def _spans(result: FetchResult) -> list[tuple[int, int]]:
    return [(p.start.ns, p.end.ns) for p in busy_periods(result.calendars, *WINDOW)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="100 objects, 2 repeats")
    options = parser.parse_args()
    objects, repeats = (100, 2) if options.quick else (500, 5)
    versions = ", ".join(
        f"{name} {metadata.version(name)}" for name in ("caldav", "radicale", "xandikos")
    )
    print(f"python {platform.python_version()} on {platform.platform()}, load {load_average()}")
    print(f"cerebri at {source_revision()}; {versions}; {objects} objects, {repeats} repeats")
    folder = Path(tempfile.mkdtemp(prefix="cerebri-caldav-bench-"))
    try:
        with _servers(folder) as servers:
            for server in servers:
                _report(server, objects, repeats, folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _report(server: Server, objects: int, repeats: int, folder: Path) -> None:
    url, changed = _seed(server, objects)

    def read(cache: CalendarCache | bool, **options: bool) -> FetchResult:
        return fetch_calendars_with_report(
            url, *WINDOW, username=server.user, password="x", cache=cache, **options
        )

    def empty_cache() -> None:
        shutil.rmtree(folder / "cache", ignore_errors=True)

    cache = CalendarCache(folder / "cache")
    counter = iter(range(10**6))

    def change_one() -> None:  # the server write is not timed
        changed.data = changed.data.replace("SUMMARY:", f"SUMMARY:v{next(counter)} ")
        changed.save()

    rows = [
        ("(a) no cache: everything", *_best(repeats, lambda: read(False))),
        ("(b) first read into an empty cache", *_best(repeats, lambda: read(cache), empty_cache)),
    ]
    read(cache)
    rows.append(("(c) nothing changed (sync-collection)", *_best(repeats, lambda: read(cache))))
    rows.append(("(d) one object changed", *_best(repeats, lambda: read(cache), change_one)))
    read(cache)
    rows.append(
        (
            "(e) nothing changed (PROPFIND ETags)",
            *_best(repeats, lambda: read(cache, sync_collection=False)),
        )
    )
    baseline_seconds, baseline = rows[0][1], rows[0][2]
    expected = _spans(baseline)
    found = f"{len(baseline.calendars)} calendar objects, {len(expected)} busy periods in the week"
    print(f"\n{server.name}: {found}")
    print(f"{'read':42} {'seconds':>9} {'x (a)':>7} {'downloaded':>10}")
    for label, seconds, result in rows:
        (collection,) = result.collections
        if label.startswith("(d)"):
            assert len(collection.fetched) == 1, collection.fetched
        ratio = seconds / baseline_seconds
        print(f"{label:42} {seconds:9.4f} {ratio:7.2f} {len(collection.fetched):10d}")
        if not label.startswith("(d)"):
            assert _spans(result) == expected, f"{label}: busy time differs from (a)"


if __name__ == "__main__":
    main()
