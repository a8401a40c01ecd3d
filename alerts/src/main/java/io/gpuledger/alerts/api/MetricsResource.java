package io.gpuledger.alerts.api;

import io.gpuledger.alerts.metrics.FleetMetrics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.config.NamingConvention;
import io.micrometer.prometheus.PrometheusMeterRegistry;
import io.prometheus.client.Collector;
import io.prometheus.client.exporter.common.TextFormat;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Response;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * {@code GET /api/metrics?name[]=…}: only the families named, in the Prometheus text format, so that a job can
 * scrape a few more often than {@code /q/metrics} whole; with {@code gpu[]=…}, only those GPUs' series.
 */
@Path("/api/metrics")
@Tag(name = "metrics")
public class MetricsResource {

    private final PrometheusMeterRegistry registry;
    private final FleetMetrics metrics;

    public MetricsResource(PrometheusMeterRegistry registry, FleetMetrics metrics) {
        this.registry = registry;
        this.metrics = metrics;
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
            return registry.scrape(TextFormat.CONTENT_TYPE_004, wanted);
        }
        StringBuilder text = new StringBuilder();
        for (String gpu : new LinkedHashSet<>(gpus)) {
            for (Meter meter : metrics.gpuSeries(gpu.strip())) {
                appendSample(text, meter, wanted);
            }
        }
        return text.toString();
    }

    /** One sample line, as the text format writes it: the exported name, labels by name, the value. */
    private void appendSample(StringBuilder text, Meter meter, Set<String> wanted) {
        NamingConvention naming = registry.config().namingConvention();
        Meter.Id id = meter.getId();
        String name = naming.name(id.getName(), id.getType(), id.getBaseUnit());
        if (!wanted.contains(name)) {
            return;
        }
        double value = meter instanceof Counter counter ? counter.count()
                : meter instanceof Gauge gauge ? gauge.value() : Double.NaN;
        text.append(name).append('{');
        String separator = "";
        for (io.micrometer.core.instrument.Tag tag : id.getConventionTags(naming)) {
            text.append(separator).append(tag.getKey()).append("=\"");
            escape(text, tag.getValue());
            text.append('"');
            separator = ",";
        }
        text.append("} ").append(Collector.doubleToGoString(value)).append('\n');
    }

    /** A label value as the text format escapes it: backslash, double quote and line feed. */
    private static void escape(StringBuilder text, String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '\\' -> text.append("\\\\");
                case '"' -> text.append("\\\"");
                case '\n' -> text.append("\\n");
                default -> text.append(c);
            }
        }
    }
}
