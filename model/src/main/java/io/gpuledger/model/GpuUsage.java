package io.gpuledger.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.annotation.JsonSetter;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import com.fasterxml.jackson.annotation.Nulls;
import java.time.Instant;
import java.util.List;

/**
 * What one GPU (or MIG slice) did and cost in one window. Keyed on {@link Topics#USAGE} by
 * {@link #gpuUuid()}; a window is re-emitted as samples arrive, each time with its totals so far,
 * so the latest record of a window is the one to keep. Money is in the engine's reporting currency.
 *
 * <p>The derived figures come last, in the order {@link UsageJson} writes them: left to databind,
 * their order is the order the JVM happens to list the methods in, which changes with what was
 * loaded before.
 *
 * @param closed true on the window's last record, emitted when the window closes (its end plus
 *               the grace period for late samples); only that record carries the window's
 *               unmonitored seconds, which are settled then
 * @param gpuFraction share of the physical GPU this window is of: 1 for a whole GPU, the slice's
 *               share for a MIG instance ({@link TelemetrySample#gpuFraction()}); absent (older
 *               records): 1
 * @param sharingJobs how many jobs shared the GPU in the window, each charged its share of it (see
 *               {@link TelemetrySample#allocations()}): 0, and left out, for a GPU no sample of the window
 *               shared. The window itself keeps the whole GPU's cost; {@code totals.unallocatedCost} is the
 *               part no job's share took
 * @param jobParts what each job of a shared window took of it so far, one part per job and team (see
 *               {@link JobPart}), a job whose samples of the minute had the GPU alone included; left out,
 *               empty, for a window no sample of which was shared. The alert service's job and team counters
 *               add them up from the closed window; such a window's {@code jobId} says
 *               {@value TelemetrySample#SHARED_JOB} and its {@code team} is its latest shared sample's (whose the
 *               rest is), even where later samples of the minute were one job's
 */
@JsonPropertyOrder({"gpuUuid", "gpuIndex", "gpuModel", "placement", "jobId", "team", "windowStart", "windowEnd",
        "currency", "totals", "closed", "gpuFraction", "sharingJobs", "jobParts", "measuredBy", "smActive",
        "costPerHour"})
public record GpuUsage(
        String gpuUuid,
        int gpuIndex,
        String gpuModel,
        @JsonUnwrapped Placement placement,
        String jobId,
        String team,
        Instant windowStart,
        Instant windowEnd,
        String currency,
        UsageTotals totals,
        boolean closed,
        Double gpuFraction,
        @JsonInclude(JsonInclude.Include.NON_DEFAULT) @JsonSetter(nulls = Nulls.AS_EMPTY) int sharingJobs,
        @JsonInclude(JsonInclude.Include.NON_EMPTY) @JsonSetter(nulls = Nulls.AS_EMPTY) List<JobPart> jobParts) {

    public GpuUsage {
        Check.identity("gpuUuid", gpuUuid);
        Check.present("placement", placement);
        Check.window(windowStart, windowEnd);
        Check.currency("currency", currency);
        totals = totals == null ? UsageTotals.ZERO : totals;
        Check.nonNegative("totals.gpuSeconds", totals.gpuSeconds());
        Check.nonNegative("totals.cost", totals.cost());
        gpuFraction = gpuFraction == null ? 1.0 : gpuFraction;
        Check.positive("gpuFraction", gpuFraction);
        Check.ratio("gpuFraction", gpuFraction);
        if (sharingJobs < 0) {
            throw new InvalidRecordException("sharingJobs", "must not be negative, was " + sharingJobs);
        }
        jobParts = checkedParts(jobParts);
    }

    private static List<JobPart> checkedParts(List<JobPart> parts) {
        if (parts == null || parts.isEmpty()) {
            return List.of();
        }
        for (JobPart part : parts) {
            if (part == null) {
                throw new InvalidRecordException("jobParts", "must not hold null");
            }
        }
        return List.copyOf(parts);
    }

    /** An empty window for the GPU of {@code sample}, to which samples are then {@link #add}ed. */
    public static GpuUsage empty(TelemetrySample sample, Instant windowStart, Instant windowEnd, String currency) {
        return builder().of(sample).window(windowStart, windowEnd).currency(currency).build();
    }

    /**
     * This window with one more sample charged {@code gpuPricePerHour} (in this window's currency;
     * null when no price was known: the time is counted as unpriced, never dropped). Identity
     * fields follow the latest sample, since a job can change within a window.
     */
    public GpuUsage add(TelemetrySample sample, Double gpuPricePerHour) {
        return toBuilder().of(sample).totals(totals.add(sample, gpuPricePerHour)).build();
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        return new Builder().gpu(gpuUuid, gpuIndex, gpuModel).placement(placement).job(jobId, team)
                .window(windowStart, windowEnd).currency(currency).totals(totals).closed(closed)
                .gpuFraction(gpuFraction).sharingJobs(sharingJobs).jobParts(jobParts);
    }

    public Offer offer() {
        return placement.offer();
    }

    // The placement's parts, read often enough by the alert service's views to be named here.

    public String host() {
        return placement.host();
    }

    public String instanceId() {
        return placement.instanceId();
    }

    public String provider() {
        return placement.provider();
    }

    public String region() {
        return placement.region();
    }

    public String instanceType() {
        return placement.instanceType();
    }

    public Lifecycle lifecycle() {
        return placement.lifecycle();
    }

    /**
     * What this GPU (or slice) spends per hour of wall time, as observed over the window: a 1/7
     * slice of a 10 USD/h GPU spends 1.43 USD/h. 0 when nothing was observed.
     */
    @JsonProperty(access = JsonProperty.Access.READ_ONLY)
    public double costPerHour() {
        return totals.costPerHour(gpuFraction);
    }

    /** What its idle time spends per hour of wall time, as {@link #costPerHour()}. */
    public double idleCostPerHour() {
        return totals.idleCostPerHour(gpuFraction);
    }

    /** What the shares of the jobs that shared the GPU were measured by (most of its shared time's); null: none. */
    @JsonProperty(access = JsonProperty.Access.READ_ONLY)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public SharePolicy measuredBy() {
        return totals.sharedBy();
    }

    /** Time-weighted mean SM activity over the window (0 when nothing was observed). */
    @JsonProperty(access = JsonProperty.Access.READ_ONLY)
    public double smActive() {
        Double mean = totals.smActive().value();
        return mean == null ? 0 : Math.max(0, Math.min(1, mean));
    }

    public double cost() {
        return totals.cost();
    }

    /**
     * Whether the GPU's samples named several jobs ({@link TelemetrySample#SHARED_JOB}): its cost went to their
     * roll-ups by share, and the window's {@code jobId} names none of them.
     */
    public boolean sharedByJobs() {
        return TelemetrySample.SHARED_JOB.equals(jobId);
    }

    /** Wall-clock seconds its samples covered: a slice's GPU seconds count its share of the GPU. */
    public double secondsObserved() {
        return totals.gpuSeconds() / gpuFraction;
    }

    /**
     * Wall-clock seconds its samples covered with an activity reading: those its mean
     * {@link #smActive()} stands for, a slice's counted as {@link #secondsObserved()} counts them.
     */
    public double secondsWithActivity() {
        return totals.smActive().seconds() / gpuFraction;
    }

    public double unpricedSeconds() {
        return totals.unpricedSeconds();
    }

    public double stalePricedSeconds() {
        return totals.stalePricedSeconds();
    }

    public long samples() {
        return totals.samples();
    }

    /** Fluent construction; {@link #build()} validates. */
    public static final class Builder {
        private String gpuUuid;
        private int gpuIndex;
        private String gpuModel;
        private Placement placement;
        private String jobId;
        private String team;
        private Instant windowStart;
        private Instant windowEnd;
        private String currency;
        private UsageTotals totals;
        private boolean closed;
        private Double gpuFraction;
        private int sharingJobs;
        private List<JobPart> jobParts;

        private Builder() {
        }

        public Builder gpu(String uuid, int index, String model) {
            gpuUuid = uuid;
            gpuIndex = index;
            gpuModel = model;
            return this;
        }

        public Builder placement(Placement value) { placement = value; return this; }
        public Builder currency(String value) { currency = value; return this; }
        public Builder totals(UsageTotals value) { totals = value; return this; }
        public Builder closed(boolean value) { closed = value; return this; }
        public Builder gpuFraction(Double value) { gpuFraction = value; return this; }
        public Builder sharingJobs(int value) { sharingJobs = value; return this; }
        public Builder jobParts(List<JobPart> value) { jobParts = value; return this; }

        public Builder job(String id, String teamOfJob) {
            jobId = id;
            team = teamOfJob;
            return this;
        }

        public Builder window(Instant start, Instant end) {
            windowStart = start;
            windowEnd = end;
            return this;
        }

        /** Which GPU, where, for whom and which share of it, as {@code sample} says; its UUID only if none is set. */
        public Builder of(TelemetrySample sample) {
            gpu(gpuUuid == null ? sample.gpuUuid() : gpuUuid, sample.gpuIndex(), sample.gpuModel());
            return placement(sample.placement()).job(sample.jobId(), sample.team())
                    .gpuFraction(sample.chargedFraction());
        }

        public GpuUsage build() {
            return new GpuUsage(gpuUuid, gpuIndex, gpuModel, placement, jobId, team, windowStart, windowEnd, currency,
                    totals, closed, gpuFraction, sharingJobs, jobParts);
        }
    }
}
