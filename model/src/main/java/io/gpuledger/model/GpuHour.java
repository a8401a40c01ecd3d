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
 * What one GPU (or MIG slice) did and cost in one clock hour, with where it ran and which jobs took which part
 * of it: what finance's rows are made of. Keyed on {@link Topics#HOURS} by {@link #gpuUuid()}; sent once, when
 * the hour's last minute has closed (or a minute of a later hour has, or an hour has passed since the GPU fell
 * silent), when no sample can change it any more. An engine that restarts before committing may send it again,
 * with the same figures: keep one record per GPU and {@code windowStart}.
 *
 * @param placement   where the GPU ran, as its latest closed minute of the hour says
 * @param gpuFraction share of the physical GPU it is of (below 1 for a MIG slice)
 * @param totals      the sum of the hour's closed minutes, unmonitored time included
 * @param jobParts    what each job (and team) took of the hour's {@code cost}: all of a minute of one job, its
 *                    share of a shared one. Their costs add up to at most {@code cost}; the rest is what no job
 *                    took ({@link #unallocatedCost()}). Empty for an hour whose parts the engine lost (one it
 *                    began before an upgrade): all of it is then unallocated
 * @param team        the team that takes what no job took, as the roll-ups give it that: the node's, as the GPU's
 *                    latest samples name it beside their jobs (a sample's {@code team}); null where they name none,
 *                    and in hours sent before the field was
 */
@JsonPropertyOrder({"gpuUuid", "gpuIndex", "gpuModel", "placement", "windowStart", "windowEnd", "currency",
        "gpuFraction", "totals", "jobParts", "team"})
public record GpuHour(
        @JsonProperty(required = true) String gpuUuid,
        int gpuIndex,
        String gpuModel,
        @JsonUnwrapped Placement placement,
        @JsonProperty(required = true) Instant windowStart,
        @JsonProperty(required = true) Instant windowEnd,
        @JsonProperty(required = true) String currency,
        Double gpuFraction,
        UsageTotals totals,
        @JsonInclude(JsonInclude.Include.NON_EMPTY) @JsonSetter(nulls = Nulls.AS_EMPTY) List<JobPart> jobParts,
        @JsonInclude(JsonInclude.Include.NON_NULL) String team) {

    public GpuHour {
        team = team == null || team.isBlank() ? null : Check.identity("team", team);
        Check.identity("gpuUuid", gpuUuid);
        Check.present("placement", placement);
        Check.window(windowStart, windowEnd);
        Check.currency("currency", currency);
        totals = totals == null ? UsageTotals.ZERO : totals;
        gpuFraction = gpuFraction == null ? 1.0 : gpuFraction;
        Check.positive("gpuFraction", gpuFraction);
        Check.ratio("gpuFraction", gpuFraction);
        if (jobParts == null || jobParts.isEmpty()) {
            jobParts = List.of();
        } else {
            for (JobPart part : jobParts) {
                Check.present("jobParts[]", part);
            }
            jobParts = List.copyOf(jobParts);
        }
    }

    /** An hour whose samples name no team. */
    public GpuHour(String gpuUuid, int gpuIndex, String gpuModel, Placement placement, Instant windowStart,
            Instant windowEnd, String currency, Double gpuFraction, UsageTotals totals, List<JobPart> jobParts) {
        this(gpuUuid, gpuIndex, gpuModel, placement, windowStart, windowEnd, currency, gpuFraction, totals, jobParts,
                null);
    }

    /** The part of the hour's cost no job's part took: idle or unattributed time of a shared GPU, or lost parts. */
    @JsonProperty(access = JsonProperty.Access.READ_ONLY)
    public double unallocatedCost() {
        double parts = 0;
        for (JobPart part : jobParts) {
            parts += part.cost();
        }
        return Math.max(0, totals.cost() - parts);
    }
}
