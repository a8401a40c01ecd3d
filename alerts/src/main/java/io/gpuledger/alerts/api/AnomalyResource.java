package io.gpuledger.alerts.api;

import io.gpuledger.alerts.anomaly.AnomalyDesk;
import io.gpuledger.model.AnomalyKind;
import io.gpuledger.model.CostAnomaly;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.util.List;
import java.util.function.Predicate;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/** {@code GET /api/anomalies}: the latest cost anomalies, as published on {@code cost.anomalies.v1}. */
@Path("/api/anomalies")
@Tag(name = "anomalies")
public class AnomalyResource {

    private final AnomalyDesk anomalies;

    public AnomalyResource(AnomalyDesk anomalies) {
        this.anomalies = anomalies;
    }

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(summary = "The latest cost anomalies, newest first")
    @APIResponse(responseCode = "200", description = "the anomalies, as on cost.anomalies.v1",
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(implementation = CostAnomaly.class, type = SchemaType.ARRAY)))
    @APIResponse(responseCode = "400", description = "an unknown kind")
    public List<CostAnomaly> list(
            @Parameter(description = "only this kind: SPEND_RATE, BUDGET_BURN, PRICE_SPIKE, COST_PER_THROUGHPUT, "
                    + "GPU_DARK or BILL_DRIFT")
            @QueryParam("kind") String kind,
            @Parameter(description = "only this dimension: team, job, pool, project, offer or gpu")
            @QueryParam("dimension") String dimension,
            @Parameter(description = "only this subject (a team, job id, pool or offer key)")
            @QueryParam("subject") String subject) {
        Predicate<CostAnomaly> filter = a -> true;
        if (kind != null && !kind.isBlank()) {
            AnomalyKind wanted = Problems.parse(() ->
                    AnomalyKind.valueOf(kind.trim().toUpperCase(java.util.Locale.ROOT)), "kind", kind);
            filter = filter.and(a -> a.kind() == wanted);
        }
        if (dimension != null && !dimension.isBlank()) {
            filter = filter.and(a -> a.dimension().equals(dimension));
        }
        if (subject != null && !subject.isBlank()) {
            filter = filter.and(a -> a.subject().equals(subject));
        }
        return anomalies.latest(filter);
    }
}
