package io.gpuledger.alerts.api;

import io.gpuledger.alerts.ReaderStage;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/** Ready once recommendations are read back and both readers have their partitions ({@code /q/health/ready}). */
@Readiness
public class ReadinessCheck implements HealthCheck {

    private final ReaderStage readers;

    public ReadinessCheck(ReaderStage readers) {
        this.readers = readers;
    }

    @Override
    public HealthCheckResponse call() {
        return HealthCheckResponse.named("kafka-readers").status(readers.ready()).build();
    }
}
