package io.gpuledger.streams.cost;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.model.Allocation;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Placement;
import io.gpuledger.model.SharePolicy;
import io.gpuledger.model.TelemetrySample;
import io.gpuledger.model.UsageRollup.Dimension;
import io.gpuledger.model.UsageTotals;
import java.math.BigDecimal;
import java.math.MathContext;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.LongRange;

/**
 * The split of a shared GPU's charge over generated samples and shares: the jobs' charges and the unallocated
 * charge add up to the GPU's charge, and each job's charge is what a naive reference says: its share × the
 * price × the seconds, worked out here without the engine's arithmetic.
 */
class SharedChargePropertiesTest {

    private static final Instant T0 = Instant.parse("2026-03-01T12:00:00Z");
    private static final String[] TEAMS = {"serving", "research", "platform"};
    private static final Double[] MIG_FRACTIONS = {null, 1.0, 1.0 / 7, 2.0 / 7, 3.0 / 7, 4.0 / 7, 0.5};

    /** One generated sample of a shared GPU, as the engine charges it: at a price, for a part of its seconds. */
    record Charged(TelemetrySample sample, Double pricePerGpuHour, double chargedShare) {
    }

    @Property(tries = 3000)
    void shouldGiveOutEachSharedChargeOnceToItsJobsAndTheUnallocatedRest(@ForAll("charges") Charged charged) {
        TelemetrySample sample = charged.sample();
        UsageTotals gpu = UsageTotals.ZERO.add(sample, charged.pricePerGpuHour(), false, charged.chargedShare());

        SharedCharge split = SharedCharge.split(gpu, sample.allocations(), GpuIdentity.of(sample));

        // The GPU's window and pool keep the whole charge
        assertThat(split.whole().cost()).isEqualTo(gpu.cost());
        assertThat(split.whole().gpuSeconds()).isEqualTo(gpu.gpuSeconds());
        assertThat(parts(split, Dimension.POOL)).singleElement()
                .satisfies(pool -> assertThat(pool.totals()).isEqualTo(split.whole()));
        // The jobs' charges plus the unallocated charge are the GPU's, to a rounding of one sum
        double jobs = 0;
        double jobSeconds = 0;
        for (SharedCharge.Part job : parts(split, Dimension.JOB)) {
            jobs += job.totals().cost();
            jobSeconds += job.totals().gpuSeconds();
        }
        double unallocated = split.whole().unallocatedCost();
        assertThat(jobs + unallocated).isCloseTo(gpu.cost(), within(4 * Math.ulp(gpu.cost())));
        assertThat(unallocated).isGreaterThanOrEqualTo(-4 * Math.ulp(gpu.cost()));
        // The teams have all of it between them, the unallocated part on one
        double teams = parts(split, Dimension.TEAM).stream().mapToDouble(team -> team.totals().cost()).sum();
        assertThat(teams).isCloseTo(gpu.cost(), within(16 * Math.ulp(gpu.cost())));
        assertThat(parts(split, Dimension.TEAM).stream().mapToDouble(team -> team.totals().unallocatedCost()).sum())
                .isEqualTo(unallocated);
        double teamSeconds = parts(split, Dimension.TEAM).stream().mapToDouble(team -> team.totals().gpuSeconds())
                .sum();
        assertThat(teamSeconds).isCloseTo(gpu.gpuSeconds(), within(1e-9));
        assertThat(jobSeconds).isLessThanOrEqualTo(gpu.gpuSeconds() + 1e-9);
        assertThat(split.whole().sharedGpuSeconds()).isCloseTo(gpu.gpuSeconds(), within(1e-9));
        // Each job's charge is the naive reference's, and so is its share of the energy
        for (Allocation allocation : sample.allocations()) {
            UsageTotals job = part(split, Dimension.JOB, allocation.jobId());
            assertThat(job.cost()).isCloseTo(naiveCost(charged, allocation.share()), within(1e-12 * (1 + job.cost())));
            assertThat(job.gpuSeconds()).isCloseTo(naiveSeconds(charged, allocation.share()), within(1e-9));
            assertThat(job.energyKwh()).isCloseTo(naiveEnergyKwh(charged, allocation.share()), within(1e-12));
            assertThat(job.unallocatedCost()).isZero();
            assertThat(job.samples()).isEqualTo(1);
        }
    }

    @Property(tries = 12)
    void shouldHoldTheSplitToTheCentOverAMonthOfMinuteSamples(@ForAll @LongRange(min = 1) long seed,
            @ForAll @DoubleRange(min = 0.5, max = 120) double pricePerGpuHour) {
        // A month of one GPU's minute samples, shared by up to four of ten jobs, shares drawn anew each minute
        Random random = new Random(seed);
        Double fraction = MIG_FRACTIONS[random.nextInt(MIG_FRACTIONS.length)];
        Map<String, RunningTotals> jobs = new HashMap<>();
        Map<String, BigDecimal> reference = new HashMap<>();
        RunningTotals gpu = new RunningTotals();
        BigDecimal gpuReference = BigDecimal.ZERO;
        int minutes = 30 * 24 * 60;
        // Split into one set of slots throughout, as the engine splits all its GPUs' samples: from one to four
        // jobs, a split of fewer slots follows one of more, whose figures it must not take up
        SharedCharge.Slots scratch = new SharedCharge.Slots(16);
        for (int minute = 0; minute < minutes; minute++) {
            TelemetrySample sample = sample(random, fraction, randomShares(random, 1 + random.nextInt(4)), 60);
            Charged charged = new Charged(sample, pricePerGpuHour, 1);
            SharedCharge split = SharedCharge.split(UsageTotals.ZERO.add(sample, pricePerGpuHour), sample.allocations(),
                    GpuIdentity.of(sample), scratch);
            gpu.add(split.whole());
            gpuReference = gpuReference.add(naiveCostExactly(charged, 1));
            for (SharedCharge.Part job : parts(split, Dimension.JOB)) {
                jobs.computeIfAbsent(job.id(), id -> new RunningTotals()).add(job.totals());
            }
            for (Allocation allocation : sample.allocations()) {
                reference.merge(allocation.jobId(), naiveCostExactly(charged, allocation.share()), BigDecimal::add);
            }
        }
        UsageTotals month = gpu.snapshot();
        double jobsCost = jobs.values().stream().mapToDouble(job -> job.snapshot().cost()).sum();

        assertThat(jobsCost + month.unallocatedCost()).isCloseTo(month.cost(), within(0.005));
        assertThat(month.cost()).isCloseTo(gpuReference.doubleValue(), within(0.005));
        jobs.forEach((job, totals) -> assertThat(totals.snapshot().cost())
                .as(job).isCloseTo(reference.get(job).doubleValue(), within(0.005)));
    }

    @Provide
    Arbitrary<Charged> charges() {
        Arbitrary<Double> interval = Arbitraries.oneOf(Arbitraries.of(0.3, 1.0, 10.0, 60.0, 300.0, 3600.0),
                Arbitraries.doubles().between(0.01, 3600));
        Arbitrary<Double> price = Arbitraries.oneOf(Arbitraries.doubles().between(0, 120),
                Arbitraries.of(0.0, 4.5, 98.32 / 8)).injectNull(0.1);
        Arbitrary<Double> chargedShare = Arbitraries.oneOf(Arbitraries.just(1.0), Arbitraries.doubles().between(0, 1));
        Arbitrary<List<Allocation>> allocations = Arbitraries.integers().between(1, 8)
                .flatMap(jobs -> Arbitraries.randoms().map(random -> randomShares(random, jobs)));
        Arbitrary<Random> readings = Arbitraries.randoms();
        return Combinators.combine(interval, price, chargedShare, allocations, readings)
                .as((seconds, perHour, share, shares, random) -> new Charged(
                        sample(random, MIG_FRACTIONS[random.nextInt(MIG_FRACTIONS.length)], shares, seconds), perHour,
                        share));
    }

    /**
     * Shares of {@code jobs} distinct jobs that add up to at most 1: as an agent measures them (any ratios), in
     * hundredths (0.1 + 0.2 + 0.7 is not 1 in binary), or all of the GPU.
     */
    private static List<Allocation> randomShares(Random random, int jobs) {
        double[] shares = new double[jobs];
        int kind = random.nextInt(3);
        if (kind == 0) {
            double total = random.nextInt(4) == 0 ? 1 : random.nextDouble();
            double[] weights = random.doubles(jobs).toArray();
            double sum = Arrays.stream(weights).sum();
            for (int i = 0; i < jobs; i++) {
                shares[i] = sum == 0 ? 0 : Math.min(1, weights[i] / sum * total);
            }
        } else {
            int left = kind == 1 ? 100 : random.nextInt(101);
            for (int i = 0; i < jobs; i++) {
                int hundredths = i == jobs - 1 && kind == 1 ? left : random.nextInt(left + 1);
                shares[i] = hundredths / 100.0;
                left -= hundredths;
            }
        }
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            ids.add("job-" + i);
        }
        Collections.shuffle(ids, random);
        List<Allocation> allocations = new ArrayList<>();
        SharePolicy[] policies = SharePolicy.values();
        SharePolicy policy = policies[random.nextInt(policies.length)];
        for (int i = 0; i < jobs; i++) {
            String team = random.nextInt(4) == 0 ? null : TEAMS[random.nextInt(TEAMS.length)];
            allocations.add(new Allocation(ids.get(i), team, shares[i],
                    random.nextInt(10) == 0 ? policies[random.nextInt(policies.length)] : policy));
        }
        return allocations;
    }

    /** A shared GPU's sample with readings that may be missing. */
    private static TelemetrySample sample(Random random, Double fraction, List<Allocation> shares, double seconds) {
        return TelemetrySample.builder().gpuUuid("GPU-shared").gpuModel("A100-40GB")
                .placement(new Placement("node-s", "i-node-s", "p4d.24xlarge", "aws", "us-east-1",
                        Lifecycle.ON_DEMAND))
                .jobId(TelemetrySample.SHARED_JOB).team(random.nextInt(3) == 0 ? null : "platform")
                .time(T0.plusSeconds(3600)).intervalSeconds(seconds)
                .smActive(random.nextInt(5) == 0 ? null : random.nextDouble())
                .powerWatts(random.nextInt(4) == 0 ? null : random.nextDouble() * 700)
                .nvlinkTxBytesPerSecond(random.nextInt(2) == 0 ? null : random.nextDouble() * 1e11)
                .gpuFraction(fraction).migProfile(fraction == null ? null : "slice").allocations(shares).build();
    }

    // The naive reference: share × price × seconds, each figure as the contract defines it.

    private static double naiveSeconds(Charged charged, double share) {
        TelemetrySample sample = charged.sample();
        double fraction = sample.gpuFraction() == null ? 1 : sample.gpuFraction();
        return share * sample.intervalSeconds() * charged.chargedShare() * fraction;
    }

    private static double naiveCost(Charged charged, double share) {
        return charged.pricePerGpuHour() == null ? 0 : charged.pricePerGpuHour() * naiveSeconds(charged, share) / 3600;
    }

    private static BigDecimal naiveCostExactly(Charged charged, double share) {
        TelemetrySample sample = charged.sample();
        BigDecimal fraction = sample.gpuFraction() == null ? BigDecimal.ONE : new BigDecimal(sample.gpuFraction());
        return new BigDecimal(share).multiply(new BigDecimal(charged.pricePerGpuHour()))
                .multiply(new BigDecimal(sample.intervalSeconds())).multiply(new BigDecimal(charged.chargedShare()))
                .multiply(fraction).divide(BigDecimal.valueOf(3600), MathContext.DECIMAL128);
    }

    /** The board's power over the time charged; a MIG slice (its samples carry its GPU's board's) its share. */
    private static double naiveEnergyKwh(Charged charged, double share) {
        TelemetrySample sample = charged.sample();
        Double watts = sample.powerWatts();
        double slice = sample.gpuFraction() == null ? 1 : sample.gpuFraction();
        return watts == null ? 0 : share * watts * sample.intervalSeconds() * charged.chargedShare() * slice / 3.6e6;
    }

    private static List<SharedCharge.Part> parts(SharedCharge split, Dimension dimension) {
        return split.parts().stream().filter(part -> part.dimension() == dimension).toList();
    }

    private static UsageTotals part(SharedCharge split, Dimension dimension, String id) {
        return parts(split, dimension).stream().filter(part -> part.id().equals(id)).findFirst().orElseThrow()
                .totals();
    }
}
