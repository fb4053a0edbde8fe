"""The Timefold peer of ``bench/optimize.py``: Timefold's Java solver on Java sources of this
repository (``bench/timefold_java/``, decision 0079).

The PyPI package ``timefold`` (``pip install -e '.[bench]'``) ships the solver's jars; this
module finds them in site-packages, compiles ``bench/timefold_java/*.java`` with ``javac`` (Java
17) into a cache directory (``platformdirs.user_cache_dir("cerebri")/bench-timefold-java/<key>``,
the key a digest of the sources, the jar names and the ``javac`` version), writes the set as
plain text and runs ``java ... cerebri.bench.timefold.PeerMain INPUT SECONDS SEED MOVES``:
Timefold's default phases (construction heuristic, then local search), its default
environment mode, a fixed random seed, a wall-clock spent limit and, when ``MOVES`` is above
0, a limit on the moves evaluated (whichever comes first).

The input, one record a line (all integers):

* ``slot INDEX DAY``: every time grain (Timefold's ``grainIndex`` and ``dayOfYear``);
* ``room ID CAPACITY``;
* ``meeting ID DURATION SEATS``: duration in grains, seats = required + preferred attendances;
* ``shared FIRST SECOND REQUIRED PREFERRED ANY``: per pair of meetings (``FIRST <= SECOND``;
  equal when one person is listed twice in a meeting), how many pairs of attendances of one
  person they share: both required, at least one preferred, and of any kind in two different
  meetings (:func:`shared_people`). The attendance rules of the judge (``_optimize_score``)
  are sums over such pairs, so the Java rules join these facts instead of attendances.

The output (``PeerMain``'s standard output, read by :func:`read_output`): ``build S``,
``improved S SCORE`` lines, ``initialized S``, ``feasible S`` (``-``: never), ``solved S``,
``score SCORE``, then ``place MEETING SLOT ROOM`` per meeting (``-`` for a variable left
unassigned). Seconds count from the call to ``solve`` (solver built, JVM warm from the build
only).

Nothing here imports ``timefold``; only :func:`solve_timefold` needs the package, ``javac`` and
``java``. The writer and the reader are tested without Java (``tests/bench``).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import resource
import shutil
import subprocess
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

import platformdirs

from _optimize_score import Placement
from _timefold_data import TimefoldSet

__all__ = [
    "JAVA_SOURCES",
    "JavaAnswer",
    "TimefoldResult",
    "classpath",
    "compile_peer",
    "input_text",
    "jar_dir",
    "java_version",
    "read_output",
    "shared_people",
    "solve_timefold",
]

JAVA_SOURCES = Path(__file__).resolve().parent / "timefold_java"
MAIN_CLASS = "cerebri.bench.timefold.PeerMain"
# Jars of the package that the Java peer does not need: the Python bridge and test libraries.
_LEFT_OUT = (
    "timefold-solver-python",
    "jpyinterpreter",
    "timefold-solver-test",
    "junit",
    "mockito",
    "assertj",
    "opentest4j",
    "byte-buddy",
    "objenesis",
    "apiguardian",
)

# (first meeting, second meeting, required pairs, preferred pairs, pairs in two meetings)
Shared = tuple[int, int, int, int, int]


def shared_people(data: TimefoldSet) -> list[Shared]:
    """Per pair of meetings, the pairs of attendances of one person they share, sorted.

    Every unordered pair of one person's attendances counts once: in ``REQUIRED`` when both
    are required, else in ``PREFERRED``; in ``ANY`` when the two meetings differ. A pair of
    meetings that shares nobody is left out.
    """
    attends: dict[int, list[tuple[int, bool]]] = defaultdict(list)
    for m in data.meetings:
        attends_here = [(p, True) for p in m.required] + [(p, False) for p in m.preferred]
        for person, required in attends_here:
            attends[person].append((m.id, required))
    counts: dict[tuple[int, int], list[int]] = defaultdict(lambda: [0, 0, 0])
    for entries in attends.values():
        for (x, x_required), (y, y_required) in combinations(entries, 2):
            c = counts[min(x, y), max(x, y)]
            c[0 if x_required and y_required else 1] += 1
            if x != y:
                c[2] += 1
    return [(first, second, c[0], c[1], c[2]) for (first, second), c in sorted(counts.items())]


def input_text(data: TimefoldSet) -> str:
    """The set in the Java peer's input format (module docstring)."""
    lines = [f"slot {g.index} {g.day}" for g in data.grains]
    lines += [f"room {r.id} {r.capacity}" for r in data.rooms]
    lines += [f"meeting {m.id} {m.duration} {m.required_capacity}" for m in data.meetings]
    lines += ["shared " + " ".join(str(v) for v in s) for s in shared_people(data)]
    return "\n".join(lines) + "\n"


@dataclass(frozen=True, slots=True)
class JavaAnswer:
    """What ``PeerMain`` printed: the placement (``None`` when a meeting has no slot yet: the
    construction heuristic did not finish), Timefold's own score text, seconds from the call to
    ``solve`` to the first complete and the first hard-feasible best solution (``None``: never)
    and to its end, seconds to build the solver, and the best-score changes of the hard or
    medium level as ``(seconds, score)``."""

    placement: Placement | None
    placed: int
    score: str
    initialized_seconds: float | None
    feasible_seconds: float | None
    solve_seconds: float
    build_seconds: float
    improved: tuple[tuple[float, str], ...]


def _seconds(text: str) -> float | None:
    return None if text == "-" else float(text)


def _optional_int(text: str) -> int | None:
    return None if text == "-" else int(text)


def read_output(text: str, data: TimefoldSet) -> JavaAnswer:
    """Read ``PeerMain``'s standard output for ``data``.

    Raises ``ValueError`` when a record is unknown or malformed, a field is missing, or the
    meetings placed are not exactly the set's meetings, each once.
    """
    fields: dict[str, str] = {}
    improved: list[tuple[float, str]] = []
    starts: dict[int, int | None] = {}
    rooms: dict[int, int | None] = {}
    for line in text.splitlines():
        parts = line.split()
        if not parts:
            continue
        kind = parts[0]
        if kind == "place" and len(parts) == 4:
            meeting = int(parts[1])
            if meeting in starts:
                raise ValueError(f"meeting {meeting} placed twice")
            starts[meeting] = _optional_int(parts[2])
            rooms[meeting] = _optional_int(parts[3])
        elif kind == "improved" and len(parts) == 3:
            improved.append((float(parts[1]), parts[2]))
        elif kind in {"build", "initialized", "feasible", "solved", "score"} and len(parts) == 2:
            fields[kind] = parts[1]
        else:
            raise ValueError(f"unexpected line in the Java peer's output: {line!r}")
    missing = {"build", "initialized", "feasible", "solved", "score"} - fields.keys()
    if missing:
        raise ValueError(f"the Java peer's output lacks {sorted(missing)}")
    expected = {m.id for m in data.meetings}
    if set(starts) != expected:
        raise ValueError(
            f"the Java peer placed meetings {sorted(set(starts) ^ expected)} unexpectedly"
        )
    placed = sum(1 for s in starts.values() if s is not None)
    placement: Placement | None = None
    if placed == len(expected):
        placement = {m: (s, rooms[m]) for m, s in starts.items() if s is not None}
    solve_seconds = _seconds(fields["solved"])
    build_seconds = _seconds(fields["build"])
    if solve_seconds is None or build_seconds is None:
        raise ValueError("the Java peer's output has no solve or build time")
    return JavaAnswer(
        placement=placement,
        placed=placed,
        score=fields["score"],
        initialized_seconds=_seconds(fields["initialized"]),
        feasible_seconds=_seconds(fields["feasible"]),
        solve_seconds=solve_seconds,
        build_seconds=build_seconds,
        improved=tuple(improved),
    )


def jar_dir() -> Path:
    """The folder of jars inside the installed ``timefold`` package (``FileNotFoundError`` when
    the package or its jars are missing)."""
    spec = importlib.util.find_spec("timefold.solver")
    for root in (spec.submodule_search_locations or []) if spec is not None else []:
        jars = Path(root) / "jars"
        if any(jars.glob("timefold-solver-core-*.jar")):
            return jars
    raise FileNotFoundError("no timefold-solver-core jar: pip install -e '.[bench]'")


def classpath(jars: Path) -> list[Path]:
    """The jars the Java peer runs on: the solver core, its runtime libraries and logging."""
    return sorted(j for j in jars.glob("*.jar") if not j.name.startswith(_LEFT_OUT))


def java_version() -> str:
    """The first line of ``java -version`` ("not found" without ``java``)."""
    try:
        done = subprocess.run(["java", "-version"], capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return "not found"
    return (done.stderr or done.stdout).splitlines()[0].strip()


def _javac_version() -> str:
    done = subprocess.run(["javac", "-version"], capture_output=True, text=True, check=True)
    return (done.stdout + done.stderr).strip()


def compile_peer(jars: list[Path]) -> Path:
    """Compile the Java peer (once per sources, jars and ``javac``) and return the folder of
    its classes, which also holds ``logback.xml``. Raises ``subprocess.CalledProcessError``
    when ``javac`` fails, ``FileNotFoundError`` when it is missing."""
    sources = sorted(JAVA_SOURCES.glob("*.java"))
    digest = hashlib.sha256(_javac_version().encode())
    for path in [*sources, JAVA_SOURCES / "logback.xml"]:
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    for jar in jars:
        digest.update(jar.name.encode())
    target = Path(platformdirs.user_cache_dir("cerebri")) / "bench-timefold-java"
    classes = target / digest.hexdigest()[:16]
    if (classes / "logback.xml").is_file():
        return classes
    target.mkdir(parents=True, exist_ok=True)
    building = Path(tempfile.mkdtemp(dir=target, prefix="building-"))
    cp = os.pathsep.join(str(j) for j in jars)
    try:
        subprocess.run(
            ["javac", "-Xlint:all", "-Werror", "-d", str(building), "-cp", cp, *map(str, sources)],
            check=True,
        )
    except (OSError, subprocess.CalledProcessError):
        shutil.rmtree(building, ignore_errors=True)
        raise
    shutil.copy(JAVA_SOURCES / "logback.xml", building / "logback.xml")
    try:
        building.rename(classes)
    except OSError:  # another run compiled the same sources first
        shutil.rmtree(building, ignore_errors=True)
    return classes


@dataclass(frozen=True, slots=True)
class TimefoldResult:
    """One Java run: what it printed; the whole process's wall seconds (JVM start, solver
    build, solve and output) and CPU seconds (user + system, every JVM thread: on a shared
    machine, how much of the wall time the JVM had); from Timefold's log, its move
    evaluation speed (moves per second, ``None`` if not logged) and when its construction
    heuristic ended (seconds from the start of solving, ``None`` if it did not)."""

    answer: JavaAnswer
    process_seconds: float
    cpu_seconds: float
    move_speed: int | None
    construction_seconds: float | None


def solve_timefold(
    data: TimefoldSet, seconds: float, seed: int = 0, moves: int = 0
) -> TimefoldResult:
    """Run the Java peer on ``data`` for ``seconds`` of wall time (Timefold's spent limit) or,
    when ``moves`` is above 0, until that many moves were evaluated if that comes first (a
    budget that does not depend on the machine's load).

    Raises ``FileNotFoundError`` without the ``timefold`` package, ``javac`` or ``java``,
    ``subprocess.CalledProcessError`` when compiling or solving fails (the Java error is in
    its standard error), ``ValueError`` for output it cannot read.
    """
    jars = classpath(jar_dir())
    classes = compile_peer(jars)
    cp = os.pathsep.join([str(classes), *(str(j) for j in jars)])
    with tempfile.TemporaryDirectory(prefix="cerebri-timefold-") as work:
        problem = Path(work) / "input.txt"
        problem.write_text(input_text(data), encoding="utf-8")
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        done = subprocess.run(
            ["java", "-cp", cp, MAIN_CLASS, str(problem), repr(seconds), str(seed), str(moves)],
            capture_output=True,
            text=True,
            check=False,
            timeout=2 * seconds + 600,
        )
        process = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode != 0:
        raise subprocess.CalledProcessError(done.returncode, done.args, done.stdout, done.stderr)
    speed = re.search(r"Solving ended:.*?move evaluation speed \((\d+)/sec\)", done.stderr)
    construction = re.search(
        r"Construction Heuristic phase \(\d+\) ended: time spent \((\d+)\)", done.stderr
    )
    return TimefoldResult(
        answer=read_output(done.stdout, data),
        process_seconds=process,
        cpu_seconds=cpu,
        move_speed=int(speed.group(1)) if speed else None,
        construction_seconds=int(construction.group(1)) / 1000 if construction else None,
    )
