package io.gpuledger.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

/**
 * The usage of a job, a team or a pool in one window, the sum of the windows of its GPUs; or of
 * one GPU over its rolling five minutes or an hour, the sum of its minute windows. Keyed
 * on {@link Topics#ROLLUPS} by {@code <dimension>|<id>}; re-emitted as its GPUs' windows change,
 * so the latest record of a (key, windowStart, windowEnd) is the one to keep.
 *
 * @param id   the job id, the team, the pool {@code provider|region|instanceType|lifecycle}, or the
 *             GPU UUID
 * @param gpus GPUs (or MIG slices) with a window in it; for an hour or the rolling five minutes,
 *             the most GPUs in any one of its minutes
 * @param gpuEquivalents how much GPU those are: the sum of their shares of a physical GPU (seven
 *             1/7 slices are 1.0); for an hour or the rolling five minutes, the most in any one of
 *             its minutes. Absent (older records): {@code gpus}, as whole GPUs
 */
public record UsageRollup(
        @JsonProperty(required = true) Dimension dimension,
        @JsonProperty(required = true) String id,
        @JsonProperty(required = true) Instant windowStart,
        @JsonProperty(required = true) Instant windowEnd,
        @JsonProperty(required = true) String currency,
        long gpus,
        Double gpuEquivalents,
        UsageTotals totals) {

    /**
     * What a roll-up adds up: the GPUs of a job, a team or a pool, or one GPU's own minutes (its
     * rolling five minutes and hours).
     */
    public enum Dimension {
        JOB, TEAM, POOL, GPU;

        /** The dimensions that group GPUs. */
        public static final List<Dimension> GROUPS = List.of(JOB, TEAM, POOL);

        public String wire() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** The team of GPUs whose samples name none. */
    public static final String NO_TEAM = "unassigned";

    public UsageRollup {
        Check.present("dimension", dimension);
        Check.present("id", id);
        Check.instant("windowStart", windowStart);
        Check.instant("windowEnd", windowEnd);
        Check.currency("currency", currency);
        totals = totals == null ? UsageTotals.ZERO : totals;
        gpuEquivalents = gpuEquivalents == null ? (double) gpus : gpuEquivalents;
        Check.nonNegative("gpuEquivalents", gpuEquivalents);
    }

    /** The id of a GPU running {@code jobId} for {@code team} on {@code offer}, in {@code dimension}. */
    public static String idOf(Dimension dimension, String jobId, String team, Offer offer) {
        return switch (dimension) {
            case JOB -> jobId == null ? TelemetrySample.UNKNOWN_JOB : jobId;
            case TEAM -> team == null ? NO_TEAM : team;
            case POOL -> offer.key();
            case GPU -> throw new IllegalArgumentException("a GPU's own roll-up has its UUID as id");
        };
    }

    /** {@code <dimension>|<id>}: the key of a roll-up on {@link Topics#ROLLUPS}. */
    public static String keyOf(Dimension dimension, String id) {
        return dimension.wire() + Check.KEY_SEPARATOR + id;
    }

    public String key() {
        return keyOf(dimension, id);
    }

    /**
     * What its GPUs spend together per hour of wall time: the sum of their rates, never one GPU's
     * rate times their count (see {@link UsageTotals#costPerHour(double)}).
     */
    @JsonProperty(access = JsonProperty.Access.READ_ONLY)
    public double costPerHour() {
        return totals.costPerHour(gpuEquivalents);
    }

    /** What their idle time spends per hour of wall time, as {@link #costPerHour()}. */
    public double idleCostPerHour() {
        return totals.idleCostPerHour(gpuEquivalents);
    }
}
