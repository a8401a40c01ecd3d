package io.gpuledger.alerts.metrics;

import io.gpuledger.alerts.metrics.SeriesGroup.Thing;
import io.gpuledger.model.CarbonIntensity;
import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.JobEconomics;
import io.gpuledger.model.JobPart;
import io.gpuledger.model.Mean;
import io.gpuledger.model.Offer;
import io.gpuledger.model.Placement;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.Reading;
import io.gpuledger.model.ReconciliationRatio;
import io.gpuledger.model.TelemetrySample;
import io.gpuledger.model.UsageRollup;
import io.gpuledger.model.UsageTotals;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The gauges and counters of the fleet's economics, per GPU, job, team and pool, fed by the cost
 * engine's output topics. Gauges show the latest one-minute window of each; counters (energy,
 * cost) add each GPU's closed windows once, so that {@code increase()} over them is spend.
 *
 * <p>Cardinality: one series per GPU, job, team and pool and family, capped per kind by
 * {@code maxSeries}; things not heard of for {@code staleAfter} are removed.
 */
public final class FleetMetrics {

    private static final double JOULES_PER_KWH = 3.6e6;
    private static final long MINUTE_MILLIS = 60_000;

    private final SeriesGroup gpus;
    private final SeriesGroup jobs;
    private final SeriesGroup teams;
    private final SeriesGroup pools;
    private final SeriesGroup prices;
    /** Per offer and billing account: the latest reconciliation with the bill; kept as long as prices are. */
    private final SeriesGroup reconciliations;
    private final CarbonIntensity carbon;
    /**
     * The team of each job, as its GPUs' windows last said: job series carry it as a label. Kept while the job has
     * series (a window names it again before its next series is made).
     */
    private final Map<String, String> teamOfJob = new ConcurrentHashMap<>();

    public FleetMetrics(MeterRegistry registry, int maxSeries, Duration staleAfter) {
        this(registry, registry, maxSeries, staleAfter, CarbonIntensity.shipped());
    }

    /**
     * @param gpuRegistry where the per-GPU series go: {@code registry} to export them with the rest, or one
     *                    of their own, not scraped whole, to serve them in shards ({@link #gpuShard})
     */
    public FleetMetrics(MeterRegistry registry, MeterRegistry gpuRegistry, int maxSeries, Duration staleAfter) {
        this(registry, gpuRegistry, maxSeries, staleAfter, CarbonIntensity.shipped());
    }

    /** @param carbon what a kWh drawn in each region stands for in CO2e */
    public FleetMetrics(MeterRegistry registry, MeterRegistry gpuRegistry, int maxSeries, Duration staleAfter,
            CarbonIntensity carbon) {
        this.carbon = carbon;
        gpus = new SeriesGroup(gpuRegistry, registry, "gpu", maxSeries, staleAfter);
        jobs = new SeriesGroup(registry, "job", maxSeries, staleAfter);
        teams = new SeriesGroup(registry, "team", maxSeries, staleAfter);
        pools = new SeriesGroup(registry, "pool", maxSeries, staleAfter);
        // Prices are not stale when unchanged: an offer keeps its price until a new one comes.
        prices = new SeriesGroup(registry, "price", maxSeries, Duration.ofDays(3650));
        reconciliations = new SeriesGroup(registry, "reconciliation", maxSeries, Duration.ofDays(3650));
    }

    /** A GPU's window: its gauges if it is the latest, and its closed minutes into the counters. */
    public void record(GpuUsage usage, Instant now) {
        String job = usage.jobId() == null ? TelemetrySample.UNKNOWN_JOB : usage.jobId();
        String team = usage.team() == null ? UsageRollup.NO_TEAM : usage.team();
        rememberTeam(job, team);
        Placement placement = usage.placement();
        Thing gpu = gpus.thing(usage.gpuUuid(), new String[] {
                "gpu", usage.gpuUuid(),
                "gpu_model", usage.gpuModel() == null ? "unknown" : usage.gpuModel(),
                "host", placement.host(),
                "instance_type", placement.instanceType(),
                "provider", placement.provider(),
                "region", placement.region(),
                "lifecycle", placement.lifecycle().wire(),
                "team", team,
                "job_id", job,
                "currency", currencyOf(usage.currency())}, now);
        // A GPU past the series limit has no series of its own (its thing records nothing); its job, team and
        // pool still count it.
        UsageTotals totals = usage.totals();
        if (gpu.latest(usage.windowStart())) {
            gpu.set("gpuledger_gpu_cost_per_hour", usage.costPerHour());
            gpu.set("gpuledger_gpu_idle_cost_per_hour", usage.idleCostPerHour());
            gpu.set("gpuledger_gpu_sharing_jobs", (double) usage.sharingJobs());
            for (Reading reading : Reading.KEPT) {
                if (reading.gpuGauge() != null) {
                    gpu.set(reading.gpuGauge(), value(totals.mean(reading)));
                }
            }
        }
        if (!usage.closed()) {
            return;
        }
        double joules = totals.energyKwh() * JOULES_PER_KWH;
        // grams CO2e per joule drawn where the GPU runs, PUE included; 0 where the region's grid is not known
        Double gramsPerKwh = carbon.gramsPerGpuKwh(placement.provider(), placement.region(), usage.windowStart());
        double gramsPerJoule = gramsPerKwh == null ? 0 : gramsPerKwh / JOULES_PER_KWH;
        gpu.add("gpuledger_gpu_energy_joules_total", joules);
        if (gramsPerKwh != null) {
            gpu.add("gpuledger_gpu_co2e_grams_total", joules * gramsPerJoule);
        }
        gpu.add("gpuledger_gpu_unpriced_seconds_total", totals.unpricedSeconds());
        String currency = currencyOf(usage.currency());
        if (usage.jobParts().isEmpty() && !usage.sharedByJobs()) {
            addToJob(job, currency, joules, gramsPerJoule, totals.cost(), totals.unmonitoredCost(),
                    totals.unpricedSeconds(), now);
            addToTeam(team, currency, joules, gramsPerJoule, totals.cost(), totals.unmonitoredCost(),
                    totals.unallocatedCost(), totals.unpricedSeconds(), now);
        } else {
            // A shared GPU's window (even one whose latest sample was of one job): each job takes its part, its
            // team too, the node's team the rest.
            double restJoules = joules;
            double restCost = totals.cost();
            double restUnpriced = totals.unpricedSeconds();
            for (JobPart part : usage.jobParts()) {
                String partTeam = part.teamCharged(team);
                double partJoules = part.energyKwh() * JOULES_PER_KWH;
                // The jobs past those a window lists are their team's only: they are many, and no one job.
                String partJob = part.jobCharged();
                if (partJob != null) {
                    rememberTeam(partJob, partTeam);
                    addToJob(partJob, currency, partJoules, gramsPerJoule, part.cost(), 0, part.unpricedSeconds(), now);
                }
                addToTeam(partTeam, currency, partJoules, gramsPerJoule, part.cost(), 0, 0, part.unpricedSeconds(),
                        now);
                gpu.add("gpuledger_gpu_job_cost_total", Tags.of("sharing_job_id", part.jobId(), "sharing_team",
                        partTeam), part.cost());
                restJoules -= partJoules;
                restCost -= part.cost();
                restUnpriced -= part.unpricedSeconds();
            }
            gpu.add("gpuledger_gpu_unallocated_cost_total", totals.unallocatedCost());
            addToTeam(team, currency, Math.max(0, restJoules), gramsPerJoule, Math.max(0, restCost),
                    totals.unmonitoredCost(), totals.unallocatedCost(), Math.max(0, restUnpriced), now);
        }
        Offer offer = placement.offer();
        Thing pool = pools.thing(offer.key(), poolTags(offer, currency), now);
        pool.add("gpuledger_pool_energy_joules_total", joules);
        if (gramsPerKwh != null) {
            pool.add("gpuledger_pool_co2e_grams_total", joules * gramsPerJoule);
        }
        pool.add("gpuledger_pool_cost_total", totals.cost());
        pool.add("gpuledger_pool_unmonitored_seconds_total", totals.unmonitoredSeconds());
        pool.add("gpuledger_pool_unmonitored_cost_total", totals.unmonitoredCost());
        pool.add("gpuledger_pool_unallocated_cost_total", totals.unallocatedCost());
        pool.add("gpuledger_pool_unpriced_seconds_total", totals.unpricedSeconds());
        pool.add("gpuledger_pool_stale_priced_seconds_total", totals.stalePricedSeconds());
    }

    /** Keeps {@code team} as {@code job}'s, for its series' label; written only when it changed. */
    private void rememberTeam(String job, String team) {
        if (!team.equals(teamOfJob.get(job))) {
            teamOfJob.put(job, team);
        }
    }

    private void addToJob(String job, String currency, double joules, double gramsPerJoule, double cost,
            double unmonitoredCost, double unpricedSeconds, Instant now) {
        addSpend(jobs.thing(job, jobTags(job, currency), now), SpendFamilies.JOB, joules, gramsPerJoule, cost,
                unmonitoredCost, unpricedSeconds);
    }

    private void addToTeam(String team, String currency, double joules, double gramsPerJoule, double cost,
            double unmonitoredCost, double unallocatedCost, double unpricedSeconds, Instant now) {
        Thing thing = teams.thing(team, Tags.of("team", team, "currency", currency), now);
        addSpend(thing, SpendFamilies.TEAM, joules, gramsPerJoule, cost, unmonitoredCost, unpricedSeconds);
        thing.add("gpuledger_team_unallocated_cost_total", unallocatedCost);
    }

    /** Adds a closed minute's spend to a job's or team's counters, named by {@code families}. */
    private static void addSpend(Thing thing, SpendFamilies families, double joules, double gramsPerJoule,
            double cost, double unmonitoredCost, double unpricedSeconds) {
        thing.add(families.energy(), joules);
        if (gramsPerJoule > 0) {
            thing.add(families.co2e(), joules * gramsPerJoule);
        }
        thing.add(families.cost(), cost);
        thing.add(families.unmonitoredCost(), unmonitoredCost);
        thing.add(families.unpricedSeconds(), unpricedSeconds);
    }

    /** The counter families a job and a team share, as {@link GroupFamilies} are their gauges. */
    private record SpendFamilies(String energy, String co2e, String cost, String unmonitoredCost,
            String unpricedSeconds) {

        static final SpendFamilies JOB = new SpendFamilies("gpuledger_job_energy_joules_total",
                "gpuledger_job_co2e_grams_total", "gpuledger_job_cost_total", "gpuledger_job_unmonitored_cost_total",
                "gpuledger_job_unpriced_seconds_total");
        static final SpendFamilies TEAM = new SpendFamilies("gpuledger_team_energy_joules_total",
                "gpuledger_team_co2e_grams_total", "gpuledger_team_cost_total",
                "gpuledger_team_unmonitored_cost_total", "gpuledger_team_unpriced_seconds_total");
    }

    /** A job's, team's or pool's minute: its gauges if it is the latest. Hours and GPUs' own views are not shown. */
    public void record(UsageRollup rollup, Instant now) {
        if (rollup.windowEnd().toEpochMilli() - rollup.windowStart().toEpochMilli() != MINUTE_MILLIS) {
            return;
        }
        Thing thing;
        GroupFamilies names;
        switch (rollup.dimension()) {
            case JOB -> {
                thing = jobs.thing(rollup.id(), jobTags(rollup.id(), rollup.currency()), now);
                names = GroupFamilies.JOB;
            }
            case TEAM -> {
                thing = teams.thing(rollup.id(), Tags.of("team", rollup.id(), "currency", rollup.currency()), now);
                names = GroupFamilies.TEAM;
            }
            case POOL -> {
                thing = pools.thing(rollup.id(), poolTags(Offer.fromKey(rollup.id()), rollup.currency()), now);
                names = GroupFamilies.POOL;
            }
            default -> {
                return;
            }
        }
        if (!thing.latest(rollup.windowStart())) {
            return;
        }
        UsageTotals totals = rollup.totals();
        thing.set(names.costPerHour(), rollup.costPerHour());
        thing.set(names.idleCostPerHour(), rollup.idleCostPerHour());
        thing.set(names.gpus(), (double) rollup.gpus());
        thing.set(names.gpuEquivalents(), rollup.gpuEquivalents());
        thing.set(names.smActive(), value(totals.smActive()));
        if (names.memoryBandwidth() != null) {
            thing.set(names.memoryBandwidth(), value(totals.mean(Reading.DRAM_ACTIVE)));
        }
        if (names.smOccupancy() != null) {
            thing.set(names.smOccupancy(), value(totals.mean(Reading.SM_OCCUPANCY)));
        }
        if (names.stalePriced() != null && totals.gpuSeconds() > 0) {
            thing.set(names.stalePriced(), totals.stalePricedSeconds() / totals.gpuSeconds());
        }
    }

    /**
     * The gauge families of a job, a team and a pool; null where the catalogue has none. Prices
     * are per offer, so whether they are stale is shown per pool alone.
     */
    private record GroupFamilies(String costPerHour, String idleCostPerHour, String gpus, String gpuEquivalents,
            String smActive, String memoryBandwidth, String smOccupancy, String stalePriced) {

        static final GroupFamilies JOB = new GroupFamilies("gpuledger_job_cost_per_hour",
                "gpuledger_job_idle_cost_per_hour", "gpuledger_job_gpus", "gpuledger_job_gpu_equivalents",
                "gpuledger_job_sm_active_ratio", "gpuledger_job_memory_bandwidth_ratio",
                "gpuledger_job_sm_occupancy_ratio", null);
        static final GroupFamilies TEAM = new GroupFamilies("gpuledger_team_cost_per_hour",
                "gpuledger_team_idle_cost_per_hour", "gpuledger_team_gpus", "gpuledger_team_gpu_equivalents",
                "gpuledger_team_sm_active_ratio", null, null, null);
        static final GroupFamilies POOL = new GroupFamilies("gpuledger_pool_cost_per_hour",
                "gpuledger_pool_idle_cost_per_hour", "gpuledger_pool_gpus", "gpuledger_pool_gpu_equivalents",
                "gpuledger_pool_sm_active_ratio", "gpuledger_pool_memory_bandwidth_ratio", null,
                "gpuledger_pool_stale_priced_ratio");
    }

    /** A job minute's economics: cost per 1M units, throughput and communication overhead, where reported. */
    public void record(JobEconomics economics, Instant now) {
        if (!economics.throughputReported()) {
            return;
        }
        Thing job = jobs.thing(economics.jobId(), jobTags(economics.jobId(), currencyOf(economics.currency())), now);
        if (!job.latest(economics.windowStart())) {
            return;
        }
        economics.costPerMillionUnits().forEach((unit, cost) ->
                job.set("gpuledger_job_cost_per_million_units", Tags.of("unit", unit), cost));
        economics.unitsPerGpuSecond().forEach((unit, rate) ->
                job.set("gpuledger_job_throughput_units_per_gpu_second", Tags.of("unit", unit), rate));
        job.set("gpuledger_job_communication_overhead_ratio", economics.communicationOverheadRatio());
    }

    /**
     * A price version, or a confirmation of one: the gauges of its offer show the newest version in
     * force at {@code now} and when it was last confirmed.
     */
    public void record(PriceQuote quote, Instant now) {
        if (quote.validFrom().isAfter(now)) {
            return;
        }
        Thing price = prices.thing(quote.offer().key(), poolTags(quote.offer(), quote.currency()), now);
        if (price.latest(quote.validFrom())) {
            price.set("gpuledger_price_per_hour", quote.pricePerHour());
            price.set("gpuledger_price_observed_timestamp_seconds", (double) quote.observedAt().getEpochSecond());
        }
    }

    /** The latest reconciliation of an offer and account with the bill, into its gauges. */
    public void record(ReconciliationRatio ratio) {
        Offer offer = ratio.offer();
        Tags tags = poolTags(offer, ratio.currency()).and("account", ratio.billingAccountId());
        Thing thing = reconciliations.thing(ratio.key(), tags, ratio.reconciledAt());
        if (thing.latest(ratio.to())) {
            thing.set("gpuledger_reconciliation_ratio", ratio.ratio());
            thing.set("gpuledger_reconciliation_effective_cost", ratio.effective());
            thing.set("gpuledger_reconciliation_estimated_cost", ratio.estimated());
            thing.set("gpuledger_reconciliation_period_end_timestamp_seconds", (double) ratio.to().getEpochSecond());
        }
    }

    /** Stops exporting what has not been heard of for the stale period. */
    public int sweep(Instant now) {
        int removed = 0;
        for (SeriesGroup group : List.of(gpus, jobs, teams, pools)) {
            removed += group.sweep(now);
        }
        // The team of a job with no series left: a fleet's notebooks and replicas come and go by the thousand.
        teamOfJob.keySet().removeIf(job -> jobs.meters(job).isEmpty());
        return removed;
    }

    /** Jobs whose team is kept for their series' label. */
    int jobsWithTeams() {
        return teamOfJob.size();
    }

    /** GPUs with series. */
    public int gpus() {
        return gpus.size();
    }

    /** The series of the GPU with {@code uuid} (its gauges and counters); none when it has none. */
    public List<Meter> gpuSeries(String uuid) {
        return gpus.meters(uuid);
    }

    /** Every GPU's series, of every shard. */
    public List<Meter> allGpuSeries() {
        return gpus.metersWhere(uuid -> true);
    }

    /**
     * The series of the GPUs in shard {@code shard} of {@code shards}: those whose UUID's hash falls in it
     * ({@link #shardOf}).
     */
    public List<Meter> gpuShard(int shard, int shards) {
        return gpus.metersWhere(uuid -> shardOf(uuid, shards) == shard);
    }

    /** The shard of {@code shards} a GPU's series are served in: its UUID's {@code String} hash, modulo. */
    public static int shardOf(String uuid, int shards) {
        return Math.floorMod(uuid.hashCode(), shards);
    }

    private Tags jobTags(String job, String currency) {
        return Tags.of("job_id", job, "team", teamOfJob.getOrDefault(job, UsageRollup.NO_TEAM), "currency", currency);
    }

    private static Tags poolTags(Offer offer, String currency) {
        return Tags.of("provider", offer.provider(), "region", offer.region(), "instance_type", offer.instanceType(),
                "lifecycle", offer.lifecycle().wire(), "currency", currency);
    }

    private static String currencyOf(String currency) {
        return currency == null ? "none" : currency;
    }

    private static Double value(Mean mean) {
        return mean == null || mean.seconds() <= 0 ? null : mean.value();
    }
}
