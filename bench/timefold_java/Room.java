package cerebri.bench.timefold;

import ai.timefold.solver.core.api.domain.lookup.PlanningId;

/** A room and how many people it seats. */
public final class Room {

    @PlanningId
    private final int id;
    private final int capacity;

    public Room(int id, int capacity) {
        this.id = id;
        this.capacity = capacity;
    }

    public int getId() {
        return id;
    }

    public int getCapacity() {
        return capacity;
    }

    @Override
    public String toString() {
        return "room " + id;
    }
}
