package io.gpuledger.model;

import java.time.Instant;

/** Valid records to start tests from; each test changes what it is about. */
final class ContractFixtures {

    static final Instant T0 = Instant.parse("2026-03-01T12:00:00Z");

    private ContractFixtures() {
    }

    static TelemetrySample sample() {
        return TelemetrySample.builder().gpuUuid("GPU-5fd4f087-86f3-7a43-b711-4771313afc50").gpuIndex(0)
                .gpuModel("NVIDIA A100-SXM4-80GB")
                .placement(new Placement("node-a1", "i-0abc", "p4d.24xlarge", "aws", "us-east-1", Lifecycle.SPOT))
                .jobId("train-llm").team("research").time(T0).intervalSeconds(10).smActive(0.82).smOccupancy(0.61)
                .dramActive(0.35).tensorActive(0.4).gpuUtilization(1.0).powerWatts(312.5).memoryUsedBytes(4.2e10)
                .build();
    }

    static PriceQuote quote() {
        return new PriceQuote("aws", "us-east-1", "p4d.24xlarge", Lifecycle.ON_DEMAND, "A100-40GB", 8,
                32.77, "USD", T0, "catalog");
    }
}
