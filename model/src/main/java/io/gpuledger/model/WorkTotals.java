package io.gpuledger.model;

import java.util.Map;
import java.util.TreeMap;

/**
 * What a job reported it got done in a window, summed over its nodes and reports.
 *
 * @param workUnits   units done, by unit name ({@code tokens}, {@code samples}, …)
 * @param stepSeconds total step time reported with a communication time (for the overhead ratio)
 * @param commSeconds exposed communication time within those steps
 */
public record WorkTotals(long reports, Map<String, Double> workUnits, long steps, double stepSeconds,
        double commSeconds, double ncclBytes) {

    public static final WorkTotals NONE = new WorkTotals(0, Map.of(), 0, 0, 0, 0);

    public WorkTotals {
        workUnits = workUnits == null ? Map.of() : Map.copyOf(workUnits);
    }

    public WorkTotals add(JobProgress progress) {
        Map<String, Double> units = new TreeMap<>(workUnits);
        units.merge(progress.unit(), progress.workUnits(), Double::sum);
        boolean timed = progress.stepSeconds() != null && progress.commSeconds() != null;
        return new WorkTotals(reports + 1, units, steps + progress.steps(),
                stepSeconds + (timed ? progress.stepSeconds() : 0),
                commSeconds + (timed ? progress.commSeconds() : 0),
                ncclBytes + (progress.ncclBytes() == null ? 0 : progress.ncclBytes()));
    }

    /** The work of both, as if every report of each had been added here. */
    public WorkTotals plus(WorkTotals other) {
        Map<String, Double> units = new TreeMap<>(workUnits);
        other.workUnits.forEach((unit, done) -> units.merge(unit, done, Double::sum));
        return new WorkTotals(reports + other.reports, units, steps + other.steps, stepSeconds + other.stepSeconds,
                commSeconds + other.commSeconds, ncclBytes + other.ncclBytes);
    }

    /** Exposed communication time ÷ step time, or null when no report said both. */
    public Double communicationOverheadRatio() {
        return stepSeconds <= 0 ? null : Math.min(1, commSeconds / stepSeconds);
    }
}
