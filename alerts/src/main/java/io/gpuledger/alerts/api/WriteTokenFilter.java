package io.gpuledger.alerts.api;

import jakarta.ws.rs.HttpMethod;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.Provider;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Writes to the API ({@code POST}, {@code PUT}, {@code DELETE}) need {@code Authorization: Bearer
 * <gpuledger.api.token>}. Without a configured token, writes are refused altogether: an
 * unprotected write endpoint is never the default.
 */
@Provider
public class WriteTokenFilter implements ContainerRequestFilter {

    private static final String BEARER = "Bearer ";

    private final Optional<String> token;

    public WriteTokenFilter(@ConfigProperty(name = "gpuledger.api.token") Optional<String> token) {
        this.token = token.filter(value -> !value.isBlank());
    }

    @Override
    public void filter(ContainerRequestContext request) {
        String method = request.getMethod();
        if (HttpMethod.GET.equals(method) || HttpMethod.HEAD.equals(method) || HttpMethod.OPTIONS.equals(method)) {
            return;
        }
        if (token.isEmpty()) {
            refuse(request, Response.Status.FORBIDDEN,
                    "writes are disabled: set gpuledger.api.token (GPULEDGER_API_TOKEN) to enable them");
            return;
        }
        String header = request.getHeaderString(HttpHeaders.AUTHORIZATION);
        if (header == null || !header.startsWith(BEARER) || !matches(header.substring(BEARER.length()).trim())) {
            refuse(request, Response.Status.UNAUTHORIZED, "this endpoint needs 'Authorization: Bearer <token>'");
        }
    }

    private boolean matches(String presented) {
        return MessageDigest.isEqual(presented.getBytes(StandardCharsets.UTF_8),
                token.get().getBytes(StandardCharsets.UTF_8));
    }

    private static void refuse(ContainerRequestContext request, Response.Status status, String message) {
        Response.ResponseBuilder response = Response.status(status).type(MediaType.APPLICATION_JSON)
                .entity(Problems.json(message));
        if (status == Response.Status.UNAUTHORIZED) {
            response.header(HttpHeaders.WWW_AUTHENTICATE, "Bearer realm=\"gpu-ledger\"");
        }
        request.abortWith(response.build());
    }
}
