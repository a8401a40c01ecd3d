package io.gpuledger.model;

import java.time.Instant;
import java.util.Random;

/** Valid records to start tests from; each test changes what it is about. */
final class ContractFixtures {

    static final Instant T0 = Instant.parse("2026-03-01T12:00:00Z");

    private ContractFixtures() {
    }

    /**
     * Mostly instants as agents send them, to the second, millisecond, microsecond or nanosecond; now and
     * then one far in the past or future, where the text takes other forms.
     */
    static Instant randomInstant(Random random) {
        long seconds = random.nextInt(20) == 0
                ? Instant.MIN.getEpochSecond() + (long) (random.nextDouble() * (Instant.MAX.getEpochSecond()
                        - (double) Instant.MIN.getEpochSecond()))
                : 1_700_000_000L + random.nextInt(200_000_000);
        int nanos = switch (random.nextInt(4)) {
            case 0 -> 0;
            case 1 -> random.nextInt(1_000) * 1_000_000;
            case 2 -> random.nextInt(1_000_000) * 1_000;
            default -> random.nextInt(1_000_000_000);
        };
        return Instant.ofEpochSecond(seconds, nanos);
    }

    static TelemetrySample sample() {
        return TelemetrySample.builder().gpuUuid("GPU-5fd4f087-86f3-7a43-b711-4771313afc50").gpuIndex(0)
                .gpuModel("NVIDIA A100-SXM4-80GB")
                .placement(new Placement("node-a1", "i-0abc", "p4d.24xlarge", "aws", "us-east-1", Lifecycle.SPOT))
                .jobId("train-llm").team("research").time(T0).intervalSeconds(10).smActive(0.82).smOccupancy(0.61)
                .dramActive(0.35).tensorActive(0.4).gpuUtilization(1.0).powerWatts(312.5).memoryUsedBytes(4.2e10)
                .build();
    }

    /** A sample with every field set, as the simulator writes one, for a MIG slice: about 620 bytes of JSON. */
    static TelemetrySample fullSample() {
        return TelemetrySample.builder().gpuUuid("GPU-7c1a58e2-93b4-3f0e-a2d1-3f8b9c0e6d47").gpuIndex(3)
                .gpuModel("H100-80GB")
                .placement(new Placement("gpu-node-00017", "i-0f3a9c2e7b1d4a6e8", "p5.48xlarge", "aws", "us-east-1",
                        Lifecycle.ON_DEMAND))
                .jobId("train-research-00042").team("research").time(Instant.parse("2026-11-30T10:00:00.123Z"))
                .intervalSeconds(10).smActive(0.8734).smOccupancy(0.6121).dramActive(0.4417).tensorActive(0.6114)
                .gpuUtilization(0.97).powerWatts(612.4).memoryUsedBytes(72_145_567_744.0)
                .nvlinkTxBytesPerSecond(0.0).pcieTxBytesPerSecond(3_401_234_567.0)
                .migProfile("3g.40gb").gpuFraction(3.0 / 7).build();
    }

    static PriceQuote quote() {
        return new PriceQuote("aws", "us-east-1", "p4d.24xlarge", Lifecycle.ON_DEMAND, "A100-40GB", 8,
                32.77, "USD", T0, "catalog");
    }

    /** The evidence of an instance idle for the ten minutes before {@code T0}, releasing it whole. */
    static RecommendationEvidence.ReclaimIdle idleEvidence() {
        return new RecommendationEvidence.ReclaimIdle(T0.minusSeconds(600), T0, 10, 10L, 0.01, 0.05, 0.1, 4800, 4800,
                1, 0, 1, 0, 0.0, 8, false, 4.09625, false, T0.minusSeconds(600), T0, 1, 720, "unknown", "USD", null);
    }
}
