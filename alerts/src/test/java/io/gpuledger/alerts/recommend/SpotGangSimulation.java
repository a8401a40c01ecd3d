package io.gpuledger.alerts.recommend;

import java.util.Random;

/**
 * A synchronous job on spot capacity, simulated event by event: each of its instances is taken back
 * after its own exponential time; the first one taken stops all of them, throwing away the work
 * since the last checkpoint; work resumes after a restart. The reference the closed form of
 * {@link SpotRenewal} and the spot rule are checked against: it draws every instance's clock on its
 * own and counts hours, where the closed form adds up expectations.
 */
final class SpotGangSimulation {

    /**
     * @param wallHours        time from start to the work done
     * @param usefulHours      work kept (checkpointed)
     * @param paidInstanceHours spot instance-hours paid
     * @param interruptions    how many times the job was stopped
     */
    record Result(double wallHours, double usefulHours, double paidInstanceHours, int interruptions) {

        double usefulFraction() {
            return usefulHours / wallHours;
        }
    }

    private SpotGangSimulation() {
    }

    /**
     * Runs until {@code workHours} of work are kept.
     *
     * @param paidWhileWaiting instances paid during a restart: all of them when the job holds its other
     *                         instances while it waits, one fewer when only the lost one is gone
     */
    static Result run(int instances, double interruptionsPerInstanceHour, double checkpointHours,
            double restartHours, double workHours, int paidWhileWaiting, long seed) {
        Random random = new Random(seed);
        double wall = 0;
        double useful = 0;
        double paid = 0;
        int interruptions = 0;
        while (useful < workHours) {
            double segment = Math.min(checkpointHours, workHours - useful);
            double firstLost = Double.POSITIVE_INFINITY;
            for (int i = 0; i < instances; i++) {
                double lost = interruptionsPerInstanceHour == 0 ? Double.POSITIVE_INFINITY
                        : -Math.log(1 - random.nextDouble()) / interruptionsPerInstanceHour;
                firstLost = Math.min(firstLost, lost);
            }
            if (firstLost >= segment) {
                wall += segment;
                paid += instances * segment;
                useful += segment;
            } else {
                interruptions++;
                wall += firstLost + restartHours;
                paid += instances * firstLost + paidWhileWaiting * restartHours;
            }
        }
        return new Result(wall, useful, paid, interruptions);
    }
}
