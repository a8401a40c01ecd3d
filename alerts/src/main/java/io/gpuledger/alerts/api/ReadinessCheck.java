package io.gpuledger.alerts.api;

import io.gpuledger.alerts.AlertService;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/** Ready once recommendations are read back and both readers have their partitions ({@code /q/health/ready}). */
@Readiness
public class ReadinessCheck implements HealthCheck {

    private final AlertService service;

    public ReadinessCheck(AlertService service) {
        this.service = service;
    }

    @Override
    public HealthCheckResponse call() {
        return HealthCheckResponse.named("kafka-readers").status(service.ready()).build();
    }
}
