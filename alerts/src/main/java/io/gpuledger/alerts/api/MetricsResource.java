package io.gpuledger.alerts.api;

import io.gpuledger.alerts.AlertSettings;
import io.gpuledger.alerts.metrics.FleetMetrics;
import io.gpuledger.alerts.metrics.SeriesText;
import io.micrometer.core.instrument.Meter;
import io.micrometer.prometheus.PrometheusMeterRegistry;
import io.prometheus.client.exporter.common.TextFormat;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Response;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * {@code GET /api/metrics?name[]=…}: only the families named, in the Prometheus text format, so that a job can
 * scrape a few more often than {@code /q/metrics} whole; with {@code gpu[]=…}, only those GPUs' series.
 * Where the per-GPU families are served apart ({@code gpuledger.metrics.gpu-shards}), the named ones of every
 * shard are added: a scrape of them whole is this one.
 */
@Path("/api/metrics")
@Tag(name = "metrics")
public class MetricsResource {

    private final PrometheusMeterRegistry registry;
    private final FleetMetrics metrics;
    private final AlertSettings settings;

    public MetricsResource(PrometheusMeterRegistry registry, FleetMetrics metrics, AlertSettings settings) {
        this.registry = registry;
        this.metrics = metrics;
        this.settings = settings;
    }

    private int shards() {
        return settings.metrics().gpuShards();
    }

    /** Every shard's series of the families {@code names} takes. */
    private String gpuShards(Predicate<String> names) {
        return SeriesText.families(metrics.allGpuSeries(), registry.config().namingConvention(), names);
    }

    @GET
    @Produces(TextFormat.CONTENT_TYPE_004)
    @Operation(summary = "The named metric families in the Prometheus text format (/q/metrics has every one)")
    @APIResponse(responseCode = "200",
            description = "the families' samples; a name nothing is exported under adds none")
    @APIResponse(responseCode = "400", description = "no name[] given")
    public String metrics(@Parameter(description = "a sample name as exported, such as"
            + " gpuledger_gpu_cost_per_hour or gpuledger_team_cost_total; repeat for more")
            @QueryParam("name[]") List<String> names,
            @Parameter(description = "a GPU's UUID: only its series of the named families (per-GPU families"
                    + " alone); repeat for more")
            @QueryParam("gpu[]") List<String> gpus) {
        Set<String> wanted = new LinkedHashSet<>();
        for (String name : names) {
            if (!name.isBlank()) {
                wanted.add(name.strip());
            }
        }
        if (wanted.isEmpty()) {
            throw Problems.status(Response.Status.BAD_REQUEST,
                    "name 'name[]' at least once, a family's sample name (/q/metrics has every family)");
        }
        if (gpus.isEmpty()) {
            String text = registry.scrape(TextFormat.CONTENT_TYPE_004, wanted);
            return shards() > 1 ? text + gpuShards(wanted::contains) : text;
        }
        StringBuilder text = new StringBuilder();
        for (String gpu : new LinkedHashSet<>(gpus)) {
            for (Meter meter : metrics.gpuSeries(gpu.strip())) {
                SeriesText.appendSample(text, meter, registry.config().namingConvention(), wanted);
            }
        }
        return text.toString();
    }
}
