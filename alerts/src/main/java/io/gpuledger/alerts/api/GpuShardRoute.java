package io.gpuledger.alerts.api;

import io.gpuledger.alerts.AlertSettings;
import io.gpuledger.alerts.metrics.FleetMetrics;
import io.gpuledger.alerts.metrics.FleetMetricsStage;
import io.gpuledger.alerts.metrics.SeriesText;
import io.micrometer.prometheus.PrometheusMeterRegistry;
import io.prometheus.client.exporter.common.TextFormat;
import io.quarkus.vertx.http.ManagementInterface;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.Optional;

/**
 * {@code GET /q/gpu-metrics?shard=k}, beside {@code /q/metrics} on the management port: the per-GPU families
 * of the GPUs in shard {@code k}, where {@code gpuledger.metrics.gpu-shards} serves them apart from
 * {@code /q/metrics} (at 100,000 GPUs they are about 190 MB of text, too much for one scrape). A Prometheus
 * target a shard; every GPU's series are in one shard alone ({@link FleetMetrics#shardOf}).
 */
@ApplicationScoped
public class GpuShardRoute {

    /** Not under {@code /q/metrics}: its handler answers every path below it with the whole registry. */
    static final String PATH = "/q/gpu-metrics";

    private final FleetMetricsStage metrics;
    private final PrometheusMeterRegistry registry;
    private final AlertSettings settings;

    public GpuShardRoute(FleetMetricsStage metrics, PrometheusMeterRegistry registry, AlertSettings settings) {
        this.metrics = metrics;
        this.registry = registry;
        this.settings = settings;
    }

    void register(@Observes ManagementInterface management) {
        management.router().get(PATH).blockingHandler(this::serve);
    }

    private void serve(RoutingContext context) {
        int shards = settings.metrics().gpuShards();
        Optional<Integer> shard = shard(context.request().getParam("shard"));
        if (shard.isEmpty() || shard.get() >= shards) {
            context.response().setStatusCode(400).end("name a 'shard' from 0 to " + (shards - 1)
                    + " (gpuledger.metrics.gpu-shards is " + shards + ")\n");
            return;
        }
        Optional<FleetMetrics> opened = metrics.ifOpen();
        if (opened.isEmpty()) {
            // A standby replica: the active one serves the fleet's series.
            context.response().putHeader("Content-Type", TextFormat.CONTENT_TYPE_004).end("");
            return;
        }
        // A family at a time: a shard of a large fleet is tens of megabytes, not to be held whole as well.
        HttpServerResponse response = context.response().putHeader("Content-Type", TextFormat.CONTENT_TYPE_004)
                .setChunked(true);
        SeriesText.families(opened.get().gpuShard(shard.get(), shards), registry.config().namingConvention(),
                name -> true, response::write);
        response.end();
    }

    private static Optional<Integer> shard(String value) {
        try {
            int shard = Integer.parseInt(value == null ? "" : value.strip());
            return shard >= 0 ? Optional.of(shard) : Optional.empty();
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }
}
