package io.gpuledger.alerts.recommend;

import io.gpuledger.model.Check;
import io.gpuledger.model.JobTraits;
import io.gpuledger.model.Offer;
import io.gpuledger.model.Recommendation;
import java.time.Instant;

/**
 * One job's current picture, as the job-economics, usage and progress topics show it for its
 * latest window: where it runs, what it costs, how busy its GPUs are and how much work it does.
 * Amounts are in {@code currency}; a job running on several pools is described by the pool of
 * most of its GPUs.
 *
 * @param jobId                      the job's id
 * @param team                       the team it is charged to; null when unknown
 * @param pool                       the offer its GPUs are bought under
 * @param gpuModel                   the model of its GPUs, written as in the {@link GpuCatalog}
 * @param gpus                       how many GPUs (or MIG slices) it runs on
 * @param gpuEquivalents             how much GPU that is: the sum of their shares of a physical GPU
 *                                   (seven 1/7 slices are 1)
 * @param costPerHour                what those GPUs cost per hour together: the sum of their rates
 * @param currency                   ISO 4217 code of every amount here
 * @param smActive                   mean SM activity of its GPUs over the window, 0–1
 * @param dramActive                 mean DRAM (memory interface) activity over the window, 0–1;
 *                                   null where the GPUs' agent cannot read it (nvidia-smi has no such field)
 * @param unit                       what its work is counted in ({@code tokens}, {@code samples}); null when none
 * reported
 * @param workUnitsPerHour           units of work it does per hour over all its GPUs; null when none reported
 * @param costPerMillionUnits        cost of a million units over the window; null when none reported
 * @param communicationOverheadRatio exposed communication time ÷ step time, 0–1; null when not reported
 * @param traits                     what the job says about itself; null when it said nothing
 * @param windowEnd                  end of the window this picture is of
 * @param running                    how much of the look-back before {@code windowEnd} it ran at its size
 *                                   now ({@link JobHours}); null when it has not been followed that long
 */
public record JobView(
        String jobId,
        String team,
        Offer pool,
        String gpuModel,
        int gpus,
        double gpuEquivalents,
        double costPerHour,
        String currency,
        double smActive,
        Double dramActive,
        String unit,
        Double workUnitsPerHour,
        Double costPerMillionUnits,
        Double communicationOverheadRatio,
        JobTraits traits,
        Instant windowEnd,
        JobHours.Share running) {

    public JobView {
        Check.identity("jobId", jobId);
        Check.present("pool", pool);
        if (gpus < 1) {
            throw new IllegalArgumentException("gpus must be at least 1, was " + gpus);
        }
        Check.positive("gpuEquivalents", gpuEquivalents);
        Check.nonNegative("costPerHour", costPerHour);
        Check.currency("currency", currency);
        Check.ratio("smActive", smActive);
        Check.optionalRatio("dramActive", dramActive);
        Check.optionalNonNegative("workUnitsPerHour", workUnitsPerHour);
        Check.optionalNonNegative("costPerMillionUnits", costPerMillionUnits);
        Check.optionalRatio("communicationOverheadRatio", communicationOverheadRatio);
        Check.instant("windowEnd", windowEnd);
    }

    /**
     * The hours of a 720-hour month it runs at its size now, as over its look-back; all 720 when its
     * running time is not known.
     */
    public double hoursPerMonth() {
        return running == null ? Recommendation.HOURS_PER_MONTH : running.hoursPerMonth();
    }

    /**
     * The highest work rates of its minutes over its look-back: what a serving job's demand reached;
     * {@link JobHours.Peak#NONE} when it has not been followed that long or reported no work.
     */
    public JobHours.Peak peak() {
        return running == null ? JobHours.Peak.NONE : running.peak();
    }

    /** Its traits, or {@link JobTraits#NONE} when it said nothing. */
    public JobTraits traitsOrNone() {
        return traits == null ? JobTraits.NONE : traits;
    }

    /** The workload it names, or null. */
    public String workload() {
        return traitsOrNone().workload();
    }

    /** Whether it reported work: a unit, a positive rate and a cost per million units. */
    public boolean reportsThroughput() {
        return unit != null && workUnitsPerHour != null && workUnitsPerHour > 0 && costPerMillionUnits != null;
    }

    /**
     * Units of work a whole GPU's hour of it does (a slice's hour is its share of one); only
     * meaningful when {@link #reportsThroughput()}.
     */
    public double unitsPerGpuHour() {
        return workUnitsPerHour / gpuEquivalents;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Fluent construction; {@link #build()} checks the figures like the constructor does. */
    public static final class Builder {
        private String jobId;
        private String team;
        private Offer pool;
        private String gpuModel;
        private int gpus;
        private double gpuEquivalents;
        private double costPerHour;
        private String currency;
        private double smActive;
        private Double dramActive;
        private String unit;
        private Double workUnitsPerHour;
        private Double costPerMillionUnits;
        private Double communicationOverheadRatio;
        private JobTraits traits;
        private Instant windowEnd;
        private JobHours.Share running;

        private Builder() {
        }

        public Builder jobId(String value) { jobId = value; return this; }
        public Builder team(String value) { team = value; return this; }
        public Builder pool(Offer value) { pool = value; return this; }
        public Builder gpuModel(String value) { gpuModel = value; return this; }
        public Builder gpus(int value) { gpus = value; return this; }
        public Builder gpuEquivalents(double value) { gpuEquivalents = value; return this; }
        public Builder costPerHour(double value) { costPerHour = value; return this; }
        public Builder currency(String value) { currency = value; return this; }
        public Builder smActive(double value) { smActive = value; return this; }
        public Builder dramActive(Double value) { dramActive = value; return this; }
        public Builder unit(String value) { unit = value; return this; }
        public Builder workUnitsPerHour(Double value) { workUnitsPerHour = value; return this; }
        public Builder costPerMillionUnits(Double value) { costPerMillionUnits = value; return this; }
        public Builder communicationOverheadRatio(Double value) { communicationOverheadRatio = value; return this; }
        public Builder traits(JobTraits value) { traits = value; return this; }
        public Builder windowEnd(Instant value) { windowEnd = value; return this; }
        public Builder running(JobHours.Share value) { running = value; return this; }

        public JobView build() {
            return new JobView(jobId, team, pool, gpuModel, gpus, gpuEquivalents, costPerHour, currency, smActive,
                    dramActive, unit, workUnitsPerHour, costPerMillionUnits, communicationOverheadRatio, traits,
                    windowEnd, running);
        }
    }
}
