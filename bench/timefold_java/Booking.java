package cerebri.bench.timefold;

import ai.timefold.solver.core.api.domain.entity.PlanningEntity;
import ai.timefold.solver.core.api.domain.lookup.PlanningId;
import ai.timefold.solver.core.api.domain.variable.PlanningVariable;

/**
 * The planning entity: one per meeting, with two planning variables, the slot it starts in and
 * its room. Spans are half-open ranges of slot indices, [start, start + duration).
 */
@PlanningEntity
public class Booking {

    @PlanningId
    private int meeting;
    private int duration;
    private int seatsNeeded;

    @PlanningVariable(valueRangeProviderRefs = "slots")
    private Slot start;

    @PlanningVariable(valueRangeProviderRefs = "rooms")
    private Room room;

    public Booking() {
    }

    public Booking(int meeting, int duration, int seatsNeeded) {
        this.meeting = meeting;
        this.duration = duration;
        this.seatsNeeded = seatsNeeded;
    }

    public int getMeeting() {
        return meeting;
    }

    public int getDuration() {
        return duration;
    }

    public int getSeatsNeeded() {
        return seatsNeeded;
    }

    public Slot getStart() {
        return start;
    }

    public void setStart(Slot start) {
        this.start = start;
    }

    public Room getRoom() {
        return room;
    }

    public void setRoom(Room room) {
        this.room = room;
    }

    /** First slot index of the span. */
    public int from() {
        return start.getIndex();
    }

    /** Slot index just after the span. */
    public int until() {
        return start.getIndex() + duration;
    }

    /** Index of the last slot the meeting occupies (may lie past the last slot). */
    public int lastIndex() {
        return start.getIndex() + duration - 1;
    }

    /** Seats of the room (0 without one). */
    public int seats() {
        return room == null ? 0 : room.getCapacity();
    }

    /** Slots this booking shares with another (0 when the spans are apart). */
    public int sharedSlots(Booking other) {
        return Math.max(0, Math.min(until(), other.until()) - Math.max(from(), other.from()));
    }

    @Override
    public String toString() {
        return "meeting " + meeting;
    }
}
