package cerebri.bench.timefold;

import java.util.List;

import ai.timefold.solver.core.api.domain.solution.PlanningEntityCollectionProperty;
import ai.timefold.solver.core.api.domain.solution.PlanningScore;
import ai.timefold.solver.core.api.domain.solution.PlanningSolution;
import ai.timefold.solver.core.api.domain.solution.ProblemFactCollectionProperty;
import ai.timefold.solver.core.api.domain.valuerange.ValueRangeProvider;
import ai.timefold.solver.core.api.score.buildin.hardmediumsoft.HardMediumSoftScore;

/** The planning solution: slots and rooms (the value ranges), shared people, the bookings. */
@PlanningSolution
public class Timetable {

    @ProblemFactCollectionProperty
    @ValueRangeProvider(id = "slots")
    private List<Slot> slots;

    @ProblemFactCollectionProperty
    @ValueRangeProvider(id = "rooms")
    private List<Room> rooms;

    @ProblemFactCollectionProperty
    private List<SharedPeople> shared;

    @PlanningEntityCollectionProperty
    private List<Booking> bookings;

    @PlanningScore
    private HardMediumSoftScore score;

    public Timetable() {
    }

    public Timetable(List<Slot> slots, List<Room> rooms, List<SharedPeople> shared,
            List<Booking> bookings) {
        this.slots = slots;
        this.rooms = rooms;
        this.shared = shared;
        this.bookings = bookings;
    }

    public List<Slot> getSlots() {
        return slots;
    }

    public List<Room> getRooms() {
        return rooms;
    }

    public List<SharedPeople> getShared() {
        return shared;
    }

    public List<Booking> getBookings() {
        return bookings;
    }

    public HardMediumSoftScore getScore() {
        return score;
    }

    public void setScore(HardMediumSoftScore score) {
        this.score = score;
    }
}
