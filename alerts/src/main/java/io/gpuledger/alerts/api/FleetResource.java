package io.gpuledger.alerts.api;

import io.gpuledger.alerts.fleet.FleetBoard;
import io.gpuledger.alerts.fleet.FleetSummary;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.time.Clock;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/** {@code GET /api/fleet}: what the fleet spends now, in total and by pool, team and lifecycle. */
@Path("/api/fleet")
@Tag(name = "fleet")
public class FleetResource {

    private final FleetBoard board;
    private final Clock clock;

    public FleetResource(FleetBoard board, Clock clock) {
        this.board = board;
        this.clock = clock;
    }

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(summary = "Spend per hour now, from each GPU's latest window, by pool, team and lifecycle")
    @APIResponse(responseCode = "200", description = "the fleet's spend now",
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(implementation = FleetSummary.class)))
    public FleetSummary fleet() {
        return board.summary(clock.instant());
    }
}
