package io.gpuledger.model;

import java.time.Instant;

/** Valid records to start tests from; each test changes what it is about. */
final class ContractFixtures {

    static final Instant T0 = Instant.parse("2026-03-01T12:00:00Z");

    private ContractFixtures() {
    }

    static TelemetrySample sample() {
        return new TelemetrySample("GPU-5fd4f087-86f3-7a43-b711-4771313afc50", 0, "NVIDIA A100-SXM4-80GB",
                "node-a1", "i-0abc", "p4d.24xlarge", "aws", "us-east-1", Lifecycle.SPOT, "train-llm",
                T0, 10, 0.82, 0.61, 0.35, 312.5);
    }

    static PriceQuote quote() {
        return new PriceQuote("aws", "us-east-1", "p4d.24xlarge", Lifecycle.ON_DEMAND, "A100-40GB", 8,
                32.77, "USD", T0, "catalog");
    }
}
