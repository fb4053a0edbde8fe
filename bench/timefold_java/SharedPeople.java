package cerebri.bench.timefold;

/**
 * Two meetings (first <= second by id; equal when one person is listed twice in one meeting)
 * and how many pairs of attendances of one person they share: both required (hard), at least
 * one preferred (medium), and of any kind between two different meetings (room stability).
 * The Python side counts these from the attendance lists, so a join over these facts gives the
 * same sums as joining the attendances themselves, with far fewer tuples.
 */
public final class SharedPeople {

    private final int first;
    private final int second;
    private final int requiredPairs;
    private final int preferredPairs;
    private final int anyPairs;

    public SharedPeople(int first, int second, int requiredPairs, int preferredPairs, int anyPairs) {
        this.first = first;
        this.second = second;
        this.requiredPairs = requiredPairs;
        this.preferredPairs = preferredPairs;
        this.anyPairs = anyPairs;
    }

    public int getFirst() {
        return first;
    }

    public int getSecond() {
        return second;
    }

    public int getRequiredPairs() {
        return requiredPairs;
    }

    public int getPreferredPairs() {
        return preferredPairs;
    }

    public int getAnyPairs() {
        return anyPairs;
    }
}
