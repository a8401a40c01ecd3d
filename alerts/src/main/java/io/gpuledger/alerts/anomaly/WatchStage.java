package io.gpuledger.alerts.anomaly;

import io.gpuledger.alerts.AlertSettings;
import io.gpuledger.alerts.Stage;
import io.micrometer.prometheus.PrometheusMeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;

/**
 * The watches that find anomalies in what the engine writes: the cost watches with their budgets
 * ({@link AnomalyWatch}) and the watch of GPUs gone dark ({@link DarkGpus}, whose gauges are registered here).
 * Built when the service starts; asked for before, they answer {@link NotStartedException}.
 */
@ApplicationScoped
public class WatchStage implements Stage {

    private final PrometheusMeterRegistry registry;
    private final AlertSettings settings;
    private volatile AnomalyWatch watch;
    private volatile DarkGpus darkGpus;

    public WatchStage(PrometheusMeterRegistry registry, AlertSettings settings) {
        this.registry = registry;
        this.settings = settings;
    }

    @Override
    public void open() {
        watch = new AnomalyWatch(Budgets.parse(settings.budgets().orElse("")), settings);
        darkGpus = new DarkGpus(registry, DarkGpus.HORIZON, DarkGpus.FORGET_AFTER);
    }

    @Override
    public boolean isOpen() {
        return darkGpus != null;
    }

    /** Nothing to close: the watches hold no client. */
    @Override
    public void close() {
    }

    @Produces
    @ApplicationScoped
    AnomalyWatch watch() {
        return Stage.opened(watch);
    }

    @Produces
    @ApplicationScoped
    DarkGpus darkGpus() {
        return Stage.opened(darkGpus);
    }
}
