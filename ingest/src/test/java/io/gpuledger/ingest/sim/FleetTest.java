package io.gpuledger.ingest.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuledger.ingest.price.PriceCatalog;
import io.gpuledger.model.TelemetrySample;
import java.time.Instant;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class FleetTest {

    private static final Instant T0 = Instant.parse("2026-03-01T12:00:00Z");

    @Test
    void shouldBuildTheSameFleetOfExactlyTheAskedSizeFromTheSameSeed() {
        Fleet first = Fleet.generate(50, PriceCatalog.loadDefault().quotes(), 7);
        Fleet second = Fleet.generate(50, PriceCatalog.loadDefault().quotes(), 7);

        assertThat(first.gpus()).hasSize(50).isEqualTo(second.gpus());
        assertThat(first.gpus()).extracting(SimulatedGpu::uuid).doesNotHaveDuplicates()
                .allMatch(uuid -> uuid.matches("GPU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"));
    }

    @Test
    void shouldSpreadTheFleetOverEveryCatalogTypeWithBusyAndIdleGpus() {
        Fleet fleet = Fleet.generate(60, PriceCatalog.loadDefault().quotes(), 1);

        assertThat(fleet.gpus()).extracting(SimulatedGpu::instanceType).contains(
                "GN10Xp", "veGPU", "GCS.AI.8", "p4d.24xlarge", "p5.48xlarge", "g4dn.xlarge", "g5.xlarge");
        assertThat(fleet.gpus()).anyMatch(SimulatedGpu::idle).anyMatch(gpu -> !gpu.idle());
    }

    @Test
    void shouldGiveEvenATwoGpuFleetOneBusyAndOneIdleGpu() {
        Fleet fleet = Fleet.generate(2, PriceCatalog.loadDefault().quotes(), 5);

        assertThat(fleet.gpus()).extracting(SimulatedGpu::idle).containsExactly(false, true);
    }

    @Test
    void shouldReportIdleGpusBelowTheIdleThresholdAndBusyOnesAboveIt() {
        Fleet fleet = Fleet.generate(40, PriceCatalog.loadDefault().quotes(), 3);
        Random random = new Random(3);

        for (int round = 0; round < 20; round++) {
            List<TelemetrySample> samples = fleet.samplesAt(T0.plusSeconds(10L * round), 10, random);
            for (int i = 0; i < samples.size(); i++) {
                SimulatedGpu gpu = fleet.gpus().get(i);
                TelemetrySample sample = samples.get(i);
                assertThat(sample.gpuUuid()).isEqualTo(gpu.uuid());
                if (gpu.idle()) {
                    assertThat(sample.smActive()).isLessThan(0.05);
                } else {
                    assertThat(sample.smActive()).isGreaterThan(0.4);
                }
            }
        }
    }
}
