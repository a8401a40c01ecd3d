package io.gpuledger.alerts.metrics;

import io.gpuledger.alerts.AlertSettings;
import io.gpuledger.alerts.Stage;
import io.gpuledger.model.CarbonIntensity;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheus.PrometheusMeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Optional;

/**
 * The fleet's gauges and counters ({@link FleetMetrics}), registered when the service starts: a standby replica
 * exports none of them. Until then, whoever is given {@code FleetMetrics} is answered {@link NotStartedException}.
 */
@ApplicationScoped
public class FleetMetricsStage implements Stage {

    private final PrometheusMeterRegistry registry;
    private final AlertSettings settings;
    private volatile FleetMetrics metrics;

    /** Takes the Prometheus registry itself: Quarkus's composite around it would hold every series twice. */
    public FleetMetricsStage(PrometheusMeterRegistry registry, AlertSettings settings) {
        this.registry = registry;
        this.settings = settings;
    }

    @Override
    public void open() {
        int shards = settings.metrics().gpuShards();
        if (shards < 1) {
            throw new IllegalArgumentException("gpuledger.metrics.gpu-shards must be 1 or more, not " + shards);
        }
        // Apart, the per-GPU meters go to a registry nothing scrapes whole: the text of a shard is written from
        // them at its scrape, and a simple registry keeps less for each meter than Prometheus's.
        CarbonIntensity carbon = settings.metrics().carbonIntensityFile().filter(file -> !file.isBlank())
                .map(file -> CarbonIntensity.shipped().withOverrides(Path.of(file)))
                .orElseGet(CarbonIntensity::shipped);
        metrics = new FleetMetrics(registry, shards > 1 ? new SimpleMeterRegistry() : registry,
                settings.metrics().maxSeries(), settings.metrics().staleAfter(), carbon);
    }

    @Override
    public boolean isOpen() {
        return metrics != null;
    }

    /** The meters stay registered until the process ends. */
    @Override
    public void close() {
    }

    @Override
    public void sweep(Instant now) {
        metrics.sweep(now);
    }

    /** The fleet's metrics, once open. */
    public Optional<FleetMetrics> ifOpen() {
        return Optional.ofNullable(metrics);
    }

    @Produces
    @ApplicationScoped
    FleetMetrics metrics() {
        return Stage.opened(metrics);
    }
}
