package io.gpuledger.alerts.api;

import io.gpuledger.alerts.Stage;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;

/**
 * A stage asked for before it is open (a standby replica, or the active one still reading back) is not an
 * error of the service: 503, so that a client or a load balancer tries again, or another replica.
 */
@Provider
public class NotStartedAnswer implements ExceptionMapper<Stage.NotStartedException> {

    @Override
    public Response toResponse(Stage.NotStartedException e) {
        return Response.status(Response.Status.SERVICE_UNAVAILABLE).type(MediaType.APPLICATION_JSON)
                .entity(Problems.json(e.getMessage())).build();
    }
}
