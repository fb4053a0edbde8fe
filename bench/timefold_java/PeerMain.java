package cerebri.bench.timefold;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import ai.timefold.solver.core.api.score.buildin.hardmediumsoft.HardMediumSoftScore;
import ai.timefold.solver.core.api.solver.Solver;
import ai.timefold.solver.core.api.solver.SolverFactory;
import ai.timefold.solver.core.config.solver.SolverConfig;
import ai.timefold.solver.core.config.solver.termination.TerminationConfig;

/**
 * The bench's Timefold peer: {@code java PeerMain INPUT SECONDS SEED [MOVES]}.
 *
 * <p>INPUT is the plain text that bench/_optimize_timefold.py writes, one record a line:
 * {@code slot INDEX DAY}, {@code room ID CAPACITY}, {@code meeting ID DURATION SEATS},
 * {@code shared FIRST SECOND REQUIRED PREFERRED ANY}. The solver runs with Timefold's default
 * phases (construction heuristic, then local search), its default environment mode, the given
 * random seed and a wall-clock limit of SECONDS; with MOVES (above 0) also a limit on the
 * moves evaluated, whichever comes first: with that limit alone reached, the run does not
 * depend on the machine's speed or load.
 *
 * <p>Printed on standard output, one record a line: {@code build S} (seconds to build the
 * solver), {@code improved S SCORE} for each new best score whose hard or medium level changed,
 * {@code initialized S} and {@code feasible S} (first best solution with every meeting placed,
 * and first with no hard penalty; {@code -} if never), {@code solved S}, {@code score SCORE},
 * then {@code place MEETING SLOT ROOM} per meeting. Seconds count from the call to solve.
 */
public final class PeerMain {

    private PeerMain() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 3 && args.length != 4) {
            System.err.println("usage: PeerMain INPUT SECONDS SEED [MOVES]");
            System.exit(2);
        }
        Timetable problem = read(Path.of(args[0]));
        double seconds = Double.parseDouble(args[1]);
        long seed = Long.parseLong(args[2]);
        long moves = args.length == 4 ? Long.parseLong(args[3]) : 0;
        TerminationConfig limits = new TerminationConfig()
                .withSpentLimit(Duration.ofMillis(Math.round(seconds * 1000)));
        if (moves > 0) {
            limits.setMoveCountLimit(moves);
        }
        PrintStream out = System.out;

        long buildStarted = System.nanoTime();
        SolverConfig config = new SolverConfig()
                .withSolutionClass(Timetable.class)
                .withEntityClasses(Booking.class)
                .withConstraintProviderClass(MeetingRules.class)
                .withRandomSeed(seed)
                .withTerminationConfig(limits);
        Solver<Timetable> solver = SolverFactory.<Timetable> create(config).buildSolver();
        out.printf(Locale.ROOT, "build %.3f%n", since(buildStarted));

        Progress progress = new Progress(out);
        solver.addEventListener(event -> progress.seen(
                event.isNewBestSolutionInitialized(), (HardMediumSoftScore) event.getNewBestScore()));
        progress.start();
        Timetable best = solver.solve(problem);
        double solved = since(progress.started);

        out.println("initialized " + progress.initialized);
        out.println("feasible " + progress.feasible);
        out.printf(Locale.ROOT, "solved %.3f%n", solved);
        out.println("score " + best.getScore());
        for (Booking booking : best.getBookings()) {
            out.println("place " + booking.getMeeting() + " "
                    + (booking.getStart() == null ? "-" : Integer.toString(booking.getStart().getIndex()))
                    + " " + (booking.getRoom() == null ? "-" : Integer.toString(booking.getRoom().getId())));
        }
        out.flush();
    }

    private static double since(long nanoTime) {
        return (System.nanoTime() - nanoTime) / 1e9;
    }

    /** Best-solution events, timed from the call to solve (the solver's own thread). */
    private static final class Progress {
        private final PrintStream out;
        private long started;
        private String initialized = "-";
        private String feasible = "-";
        private HardMediumSoftScore last;

        Progress(PrintStream out) {
            this.out = out;
        }

        void start() {
            started = System.nanoTime();
        }

        synchronized void seen(boolean complete, HardMediumSoftScore score) {
            String at = String.format(Locale.ROOT, "%.3f", since(started));
            if (complete && initialized.equals("-")) {
                initialized = at;
            }
            if (complete && score.hardScore() >= 0 && feasible.equals("-")) {
                feasible = at;
            }
            if (last == null || last.hardScore() != score.hardScore()
                    || last.mediumScore() != score.mediumScore()) {
                out.println("improved " + at + " " + score);
            }
            last = score;
        }
    }

    private static Timetable read(Path input) throws IOException {
        List<Slot> slots = new ArrayList<>();
        Map<Integer, Room> rooms = new HashMap<>();
        List<Room> roomList = new ArrayList<>();
        List<SharedPeople> shared = new ArrayList<>();
        List<Booking> bookings = new ArrayList<>();
        try (BufferedReader lines = Files.newBufferedReader(input, StandardCharsets.UTF_8)) {
            String line;
            while ((line = lines.readLine()) != null) {
                String[] f = line.trim().split("\\s+");
                switch (f[0]) {
                    case "slot" -> slots.add(new Slot(num(f, 1), num(f, 2)));
                    case "room" -> {
                        Room room = new Room(num(f, 1), num(f, 2));
                        rooms.put(room.getId(), room);
                        roomList.add(room);
                    }
                    case "meeting" -> bookings.add(new Booking(num(f, 1), num(f, 2), num(f, 3)));
                    case "shared" -> shared.add(
                            new SharedPeople(num(f, 1), num(f, 2), num(f, 3), num(f, 4), num(f, 5)));
                    case "" -> {
                    }
                    default -> throw new IOException("unknown record: " + line);
                }
            }
        }
        return new Timetable(slots, roomList, shared, bookings);
    }

    private static int num(String[] fields, int at) throws IOException {
        if (at >= fields.length) {
            throw new IOException("short record: " + String.join(" ", fields));
        }
        return Integer.parseInt(fields[at]);
    }
}
