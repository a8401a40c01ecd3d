package io.gpuledger.alerts.api;

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
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * {@code GET /api/metrics?name[]=…}: the families named, in the Prometheus text format, from the
 * registry {@code /q/metrics} shows whole. The whole at 10,000 GPUs is about 20 MB and half a
 * second of CPU; a Prometheus job that wants a few families sooner than the rest (the cost
 * gauges every 5 s, say) names them in its {@code params}, as with other exporters.
 */
@Path("/api/metrics")
@Tag(name = "metrics")
public class MetricsResource {

    private final PrometheusMeterRegistry registry;

    public MetricsResource(PrometheusMeterRegistry registry) {
        this.registry = registry;
    }

    @GET
    @Produces(TextFormat.CONTENT_TYPE_004)
    @Operation(summary = "The named metric families in the Prometheus text format (/q/metrics has every one)")
    @APIResponse(responseCode = "200",
            description = "the families' samples; a name nothing is exported under adds none")
    @APIResponse(responseCode = "400", description = "no name[] given")
    public String metrics(@Parameter(description = "a sample name as exported, such as"
            + " gpuledger_gpu_cost_per_hour or gpuledger_team_cost_total; repeat for more")
            @QueryParam("name[]") List<String> names) {
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
        return registry.scrape(TextFormat.CONTENT_TYPE_004, wanted);
    }
}
