package io.gpuledger.alerts.api;

import io.gpuledger.alerts.recommend.RecommendationDesk;
import io.gpuledger.model.Recommendation;
import io.gpuledger.model.RecommendationKind;
import io.gpuledger.model.RecommendationStatus;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * {@code /api/recommendations}: the live recommendations, in the same JSON as the {@code data} of
 * the records on {@code gpu.recommendations.v1}, and the decisions people take on them.
 */
@Path("/api/recommendations")
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "recommendations")
public class RecommendationResource {

    private final RecommendationDesk desk;

    public RecommendationResource(RecommendationDesk desk) {
        this.desk = desk;
    }

    @GET
    @Operation(summary = "Unexpired recommendations, the largest saving first")
    @APIResponse(responseCode = "200", description = "the recommendations, as the data of the topic's records",
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(implementation = Recommendation.class, type = SchemaType.ARRAY)))
    @APIResponse(responseCode = "400", description = "an unknown kind or status")
    public List<Recommendation> list(
            @Parameter(description = "only this kind, e.g. EVACUATE") @QueryParam("kind") String kind,
            @Parameter(description = "only this target id (GPU UUID, instance id, job id or pool key)")
            @QueryParam("target") String target,
            @Parameter(description = "only this status: open, withdrawn, acknowledged or dismissed")
            @QueryParam("status") String status) {
        Predicate<Recommendation> filter = r -> true;
        if (kind != null && !kind.isBlank()) {
            RecommendationKind wanted = Problems.parse(() ->
                    RecommendationKind.valueOf(kind.trim().toUpperCase(java.util.Locale.ROOT)),
                    "kind", kind);
            filter = filter.and(r -> r.kind() == wanted);
        }
        if (target != null && !target.isBlank()) {
            filter = filter.and(r -> r.target().id().equals(target));
        }
        if (status != null && !status.isBlank()) {
            RecommendationStatus wanted = Problems.parse(() -> RecommendationStatus.fromWire(status.trim()), "status",
                    status);
            filter = filter.and(r -> r.status() == wanted);
        }
        return desk.list(filter);
    }

    @GET
    @Path("/{id}")
    @Operation(summary = "One recommendation by id, in whatever state")
    @APIResponse(responseCode = "200", description = "the recommendation",
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(implementation = Recommendation.class)))
    @APIResponse(responseCode = "404", description = "no unexpired recommendation has this id")
    public Recommendation get(@PathParam("id") String id) {
        return desk.get(id).orElseThrow(() -> notFound(id));
    }

    @POST
    @Path("/{id}/ack")
    @Operation(summary = "Say the recommendation is being acted on; published on the topic as acknowledged")
    @APIResponse(responseCode = "200", description = "the recommendation, acknowledged (again: unchanged)",
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(implementation = Recommendation.class)))
    @APIResponse(responseCode = "401", description = "missing or wrong bearer token")
    @APIResponse(responseCode = "403", description = "writes are disabled: no token is configured")
    @APIResponse(responseCode = "404", description = "no open or acknowledged recommendation has this id")
    public Recommendation acknowledge(@PathParam("id") String id) {
        return decided(id, desk.acknowledge(id));
    }

    @POST
    @Path("/{id}/dismiss")
    @Operation(summary = "Say not to act on the recommendation; the same situation stays quiet until it expires")
    @APIResponse(responseCode = "200", description = "the recommendation, dismissed (again: unchanged)",
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(implementation = Recommendation.class)))
    @APIResponse(responseCode = "401", description = "missing or wrong bearer token")
    @APIResponse(responseCode = "403", description = "writes are disabled: no token is configured")
    @APIResponse(responseCode = "404", description = "no unexpired, unwithdrawn recommendation has this id")
    public Recommendation dismiss(@PathParam("id") String id) {
        return decided(id, desk.dismiss(id));
    }

    private Recommendation decided(String id, Optional<Recommendation> decision) {
        Recommendation recommendation = decision.orElseThrow(() -> notFound(id));
        desk.flush();
        return recommendation;
    }

    private static jakarta.ws.rs.WebApplicationException notFound(String id) {
        return Problems.status(Response.Status.NOT_FOUND, "no such recommendation to act on: " + id);
    }
}
