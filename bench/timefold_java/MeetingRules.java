package cerebri.bench.timefold;

import static ai.timefold.solver.core.api.score.stream.Joiners.equal;
import static ai.timefold.solver.core.api.score.stream.Joiners.filtering;
import static ai.timefold.solver.core.api.score.stream.Joiners.lessThan;
import static ai.timefold.solver.core.api.score.stream.Joiners.overlapping;

import java.util.function.Predicate;

import ai.timefold.solver.core.api.score.buildin.hardmediumsoft.HardMediumSoftScore;
import ai.timefold.solver.core.api.score.stream.Constraint;
import ai.timefold.solver.core.api.score.stream.ConstraintFactory;
import ai.timefold.solver.core.api.score.stream.ConstraintProvider;
import ai.timefold.solver.core.api.score.stream.tri.TriConstraintStream;

/**
 * The meeting-scheduling rules of Timefold's public benchmark, with the penalties that the
 * bench's own judge (bench/_optimize_score.py) computes; see that module for the definitions.
 * Attendance rules go through {@link SharedPeople} facts: per pair of meetings, how many pairs
 * of attendances of one person they share, times the slots the two meetings share.
 */
public final class MeetingRules implements ConstraintProvider {

    @Override
    public Constraint[] defineConstraints(ConstraintFactory factory) {
        return new Constraint[] {
                roomClash(factory),
                pastTheLastSlot(factory),
                requiredPeopleClash(factory),
                roomTooSmall(factory),
                acrossTwoDays(factory),
                preferredPeopleClash(factory),
                earliest(factory),
                noGapBetween(factory),
                anyOverlap(factory),
                biggerRoomsUnused(factory),
                roomChanges(factory),
        };
    }

    // Hard.

    private Constraint roomClash(ConstraintFactory factory) {
        return factory.forEachUniquePair(Booking.class,
                equal(Booking::getRoom),
                overlapping(Booking::from, Booking::until))
                .penalize(HardMediumSoftScore.ONE_HARD, Booking::sharedSlots)
                .asConstraint("Room conflict");
    }

    private Constraint pastTheLastSlot(ConstraintFactory factory) {
        return factory.forEach(Booking.class)
                .ifNotExists(Slot.class, equal(Booking::lastIndex, Slot::getIndex))
                .penalize(HardMediumSoftScore.ONE_HARD, Booking::lastIndex)
                .asConstraint("Avoid overtime");
    }

    private Constraint requiredPeopleClash(ConstraintFactory factory) {
        return overlappingPairs(factory, pair -> pair.getRequiredPairs() > 0)
                .penalize(HardMediumSoftScore.ONE_HARD,
                        (pair, one, other) -> pair.getRequiredPairs() * one.sharedSlots(other))
                .asConstraint("Required attendance conflict");
    }

    private Constraint roomTooSmall(ConstraintFactory factory) {
        return factory.forEach(Booking.class)
                .filter(booking -> booking.getSeatsNeeded() > booking.seats())
                .penalize(HardMediumSoftScore.ONE_HARD,
                        booking -> booking.getSeatsNeeded() - booking.seats())
                .asConstraint("Required room capacity");
    }

    private Constraint acrossTwoDays(ConstraintFactory factory) {
        return factory.forEach(Booking.class)
                .join(Slot.class,
                        equal(Booking::lastIndex, Slot::getIndex),
                        filtering((booking, last) -> booking.getStart().getDay() != last.getDay()))
                .penalize(HardMediumSoftScore.ONE_HARD)
                .asConstraint("Start and end on same day");
    }

    // Medium: required with preferred, and preferred with preferred, in one stream.

    private Constraint preferredPeopleClash(ConstraintFactory factory) {
        return overlappingPairs(factory, pair -> pair.getPreferredPairs() > 0)
                .penalize(HardMediumSoftScore.ONE_MEDIUM,
                        (pair, one, other) -> pair.getPreferredPairs() * one.sharedSlots(other))
                .asConstraint("Preferred attendance conflicts");
    }

    // Soft.

    private Constraint earliest(ConstraintFactory factory) {
        return factory.forEach(Booking.class)
                .penalize(HardMediumSoftScore.ONE_SOFT, Booking::lastIndex)
                .asConstraint("Do meetings as soon as possible");
    }

    private Constraint noGapBetween(ConstraintFactory factory) {
        return factory.forEach(Booking.class)
                .join(Booking.class, equal(Booking::until, Booking::from))
                .penalize(HardMediumSoftScore.ofSoft(100))
                .asConstraint("One time grain break between two consecutive meetings");
    }

    private Constraint anyOverlap(ConstraintFactory factory) {
        return factory.forEachUniquePair(Booking.class, overlapping(Booking::from, Booking::until))
                .penalize(HardMediumSoftScore.ofSoft(10), Booking::sharedSlots)
                .asConstraint("Overlapping meetings");
    }

    private Constraint biggerRoomsUnused(ConstraintFactory factory) {
        return factory.forEach(Booking.class)
                .join(Room.class, lessThan(Booking::seats, Room::getCapacity))
                .penalize(HardMediumSoftScore.ONE_SOFT,
                        (booking, bigger) -> bigger.getCapacity() - booking.seats())
                .asConstraint("Assign larger rooms first");
    }

    private Constraint roomChanges(ConstraintFactory factory) {
        return factory.forEach(SharedPeople.class)
                .filter(pair -> pair.getAnyPairs() > 0)
                .join(Booking.class, equal(SharedPeople::getFirst, Booking::getMeeting))
                .join(Booking.class,
                        equal((pair, one) -> pair.getSecond(), Booking::getMeeting),
                        filtering((pair, one, other) -> one.getRoom() != other.getRoom()
                                && (tooSoonAfter(one, other) || tooSoonAfter(other, one))))
                .penalize(HardMediumSoftScore.ONE_SOFT, (pair, one, other) -> pair.getAnyPairs())
                .asConstraint("Room stability");
    }

    /** {@code later} starts after {@code earlier} and at most two slots after it ends. */
    private static boolean tooSoonAfter(Booking earlier, Booking later) {
        return earlier.from() < later.from() && later.from() - earlier.until() <= 2;
    }

    private static TriConstraintStream<SharedPeople, Booking, Booking> overlappingPairs(
            ConstraintFactory factory, Predicate<SharedPeople> kind) {
        return factory.forEach(SharedPeople.class)
                .filter(kind)
                .join(Booking.class, equal(SharedPeople::getFirst, Booking::getMeeting))
                .join(Booking.class,
                        equal((pair, one) -> pair.getSecond(), Booking::getMeeting),
                        overlapping((pair, one) -> one.from(), (pair, one) -> one.until(),
                                Booking::from, Booking::until));
    }
}
