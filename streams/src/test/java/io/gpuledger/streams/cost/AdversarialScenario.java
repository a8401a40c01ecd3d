package io.gpuledger.streams.cost;

import io.gpuledger.model.Allocation;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Placement;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.SharePolicy;
import io.gpuledger.model.TelemetrySample;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * A fleet's hour as a hostile world delivers it, drawn from one seed: GPUs on two offers whose
 * prices change at arbitrary instants (inside samples too), whole GPUs and MIG slices, one or two
 * agents per GPU at their own intervals and phases, agents that stop for a while and come back,
 * long samples, samples sent twice, a node whose clock runs minutes ahead, poison records, and GPUs
 * shared by several jobs with shares that change sample by sample (drawn from a generator of their own,
 * so that a seed draws the same fleet as before shares were sent, some of its GPUs now shared).
 * Every record reaches the engine within the grace period of its time, in the order of its
 * arrival; {@link #arrivals} holds them so.
 */
final class AdversarialScenario {

    static final Instant START = Instant.parse("2026-05-04T09:00:00Z");
    private static final Lifecycle[] LIFECYCLES = {Lifecycle.ON_DEMAND, Lifecycle.SPOT};
    private static final double[] BASE_PRICES = {32.77, 11.57};
    private static final int[] INTERVALS = {1, 2, 5, 7, 10, 10, 15, 30, 60};
    private static final int[] LONG_INTERVALS = {120, 300};
    private static final double[] SHARES = {1, 1, 1, 1.0 / 7, 3.0 / 7};
    private static final String[] POISON = {"null", "", "[]", "\"x\"", "42", "{}", "{\"gpuUuid\":"};

    /** One record as it reaches the engine: at {@code arrival}, a sample or raw bytes. */
    record Arrival(Instant arrival, String key, TelemetrySample sample, byte[] raw, boolean acceptable) {
    }

    final long seed;
    final List<PriceQuote> quotes = new ArrayList<>();
    final List<Arrival> arrivals = new ArrayList<>();
    final List<String> description = new ArrayList<>();
    /** The last instant any sample covers: every window up to it is to be charged. */
    Instant end;

    private AdversarialScenario(long seed) {
        this.seed = seed;
    }

    static AdversarialScenario draw(long seed) {
        AdversarialScenario scenario = new AdversarialScenario(seed);
        scenario.generate(new Random(seed));
        return scenario;
    }

    private void generate(Random random) {
        int minutes = 20 + random.nextInt(41);
        end = START.plus(Duration.ofMinutes(minutes));
        for (int offer = 0; offer < 2; offer++) {
            quotes.add(quote(offer, BASE_PRICES[offer], START.minus(Duration.ofDays(3))));
            int changes = random.nextInt(4);
            Set<Long> seconds = new HashSet<>();
            for (int c = 0; c < changes; c++) {
                // Any millisecond of the run: most changes fall inside some sample. A version's key
                // names its second, so an offer has at most one version a second.
                Instant at = START.plusMillis((long) (random.nextDouble() * minutes * 60_000));
                if (!seconds.add(at.getEpochSecond())) {
                    continue;
                }
                double price = Math.round(BASE_PRICES[offer] * (0.5 + random.nextDouble()) * 100) / 100.0;
                quotes.add(quote(offer, price, at));
                description.add("offer " + offer + " price " + price + " from " + at);
            }
        }
        int gpus = 1 + random.nextInt(4);
        List<Arrival> drawn = new ArrayList<>();
        for (int g = 0; g < gpus; g++) {
            drawGpu(random, g, drawn);
        }
        int poison = random.nextInt(3);
        for (int p = 0; p < poison; p++) {
            Instant at = START.plusMillis((long) (random.nextDouble() * minutes * 60_000));
            String value = POISON[random.nextInt(POISON.length)];
            drawn.add(new Arrival(at, random.nextBoolean() ? gpuUuid(0) : null, null,
                    value.getBytes(StandardCharsets.UTF_8), false));
            description.add("poison '" + value + "' at " + at);
        }
        drawn.sort(Comparator.comparing(Arrival::arrival));
        arrivals.addAll(drawn);
    }

    private void drawGpu(Random random, int g, List<Arrival> drawn) {
        Random shares = new Random(seed * 31 + g);
        boolean shared = shares.nextInt(3) == 0;
        int offer = random.nextInt(2);
        double share = SHARES[random.nextInt(SHARES.length)];
        boolean fastClock = g > 0 && random.nextInt(6) == 0;
        int agents = random.nextInt(3) == 0 ? 2 : 1;
        String job = "job-" + random.nextInt(2);
        String team = "team-" + random.nextInt(2);
        description.add("gpu " + g + ": offer " + offer + ", share " + share + ", " + agents + " agent(s), "
                + (shared ? "shared by jobs svc-0 to svc-3" : job) + ", " + team
                + (fastClock ? ", clock 5 min ahead" : ""));
        for (int agent = 0; agent < agents; agent++) {
            int interval = random.nextInt(12) == 0 ? LONG_INTERVALS[random.nextInt(LONG_INTERVALS.length)]
                    : INTERVALS[random.nextInt(INTERVALS.length)];
            long phaseMillis = random.nextInt(interval * 1000);
            // An outage of the agent: up to ten minutes, within the longest gap counted as unmonitored.
            long outageFrom = random.nextBoolean() ? START.toEpochMilli() + random.nextInt(20 * 60) * 1000L : -1;
            long outageTo = outageFrom + (60 + random.nextInt(540)) * 1000L;
            description.add("  agent " + agent + ": every " + interval + " s, phase " + phaseMillis + " ms"
                    + (outageFrom < 0 ? "" : ", down " + Instant.ofEpochMilli(outageFrom) + " to "
                        + Instant.ofEpochMilli(outageTo)));
            for (long sampleEnd = START.toEpochMilli() + phaseMillis + interval * 1000L;
                    sampleEnd <= end.toEpochMilli(); sampleEnd += interval * 1000L) {
                if (sampleEnd > outageFrom && sampleEnd - interval * 1000L < outageTo) {
                    continue;
                }
                Instant stamped = Instant.ofEpochMilli(sampleEnd)
                        .plus(fastClock ? Duration.ofMinutes(5) : Duration.ZERO);
                TelemetrySample sample = sample(g, offer, share, job, team, stamped, interval,
                        random.nextDouble() < 0.3 ? 0.01 : 0.2 + random.nextDouble() * 0.8);
                if (shared) {
                    sample = sample.toBuilder().jobId(TelemetrySample.SHARED_JOB).allocations(allocations(shares))
                            .build();
                }
                // Sent within a few seconds of its end; a long sample as soon as it ends.
                Instant arrival = Instant.ofEpochMilli(sampleEnd + random.nextInt(3000));
                drawn.add(new Arrival(arrival, sample.gpuUuid(), sample, null, !fastClock));
                if (random.nextInt(25) == 0) {
                    drawn.add(new Arrival(arrival.plusMillis(500 + random.nextInt(20_000)), sample.gpuUuid(), sample,
                            null, !fastClock));
                }
            }
        }
    }

    /** One to three of four jobs, with shares adding up to at most 1 and teams of their own or the node's. */
    private static List<Allocation> allocations(Random random) {
        List<Allocation> allocations = new ArrayList<>();
        double left = random.nextInt(4) == 0 ? 1 : random.nextDouble();
        int first = random.nextInt(4);
        int jobs = 1 + random.nextInt(3);
        for (int j = 0; j < jobs; j++) {
            double share = j == jobs - 1 ? left : left * random.nextDouble();
            left -= share;
            allocations.add(new Allocation("svc-" + (first + j) % 4, random.nextBoolean() ? null : "team-svc",
                    Math.max(0, share), SharePolicy.values()[random.nextInt(SharePolicy.values().length)]));
        }
        return allocations;
    }

    private static TelemetrySample sample(int g, int offer, double share, String job, String team, Instant end,
            int interval, double smActive) {
        TelemetrySample.Builder builder = TelemetrySample.builder().gpuUuid(gpuUuid(g)).gpuIndex(g)
                .gpuModel("A100-40GB")
                .placement(new Placement("node-" + g, "i-" + g, "p4d.24xlarge", "aws", "us-east-1",
                        LIFECYCLES[offer]))
                .jobId(job).team(team).time(end).intervalSeconds(interval).smActive(smActive);
        if (share < 1) {
            builder.migProfile(share == 1.0 / 7 ? "1g.5gb" : "3g.20gb").gpuFraction(share);
        }
        return builder.build();
    }

    static String gpuUuid(int g) {
        return String.format("GPU-%08x-0000-4000-8000-00000000%04d", 0x5eed0000 + g, g);
    }

    private static PriceQuote quote(int offer, double pricePerHour, Instant validFrom) {
        return new PriceQuote("aws", "us-east-1", "p4d.24xlarge", LIFECYCLES[offer], "A100-40GB", 8, pricePerHour,
                "USD", validFrom, "scenario");
    }

    @Override
    public String toString() {
        return "scenario of seed " + seed + ":\n  " + String.join("\n  ", description);
    }
}
