package cerebri.bench.timefold;

import ai.timefold.solver.core.api.domain.lookup.PlanningId;

/** One time grain of the set: its index (the order of time) and the day it lies on. */
public final class Slot {

    @PlanningId
    private final int index;
    private final int day;

    public Slot(int index, int day) {
        this.index = index;
        this.day = day;
    }

    public int getIndex() {
        return index;
    }

    public int getDay() {
        return day;
    }

    @Override
    public String toString() {
        return "slot " + index;
    }
}
