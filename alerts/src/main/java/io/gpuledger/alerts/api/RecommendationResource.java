package io.gpuledger.alerts.api;

import io.gpuledger.alerts.recommend.RecommendationBook;
import io.gpuledger.model.Json;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.time.Clock;

/** {@code GET /api/recommendations}: the live recommendations, in the same JSON as on the topic. */
@Path("/api/recommendations")
public class RecommendationResource {

    private final RecommendationBook book;
    private final Clock clock;

    public RecommendationResource(RecommendationBook book, Clock clock) {
        this.book = book;
        this.clock = clock;
    }

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public String list() {
        return Json.writeString(book.current(clock.instant()));
    }
}
