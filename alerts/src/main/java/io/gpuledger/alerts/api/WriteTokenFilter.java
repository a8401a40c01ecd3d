package io.gpuledger.alerts.api;

import jakarta.ws.rs.HttpMethod;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.Provider;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Writes to the API ({@code POST}, {@code PUT}, {@code DELETE}) need {@code Authorization: Bearer
 * <gpuledger.api.token>}, or the token in the file {@code gpuledger.api.token-file} (a mounted
 * Secret: not visible in the process environment). Without a configured token, writes are refused
 * altogether: an unprotected write endpoint is never the default.
 */
@Provider
public class WriteTokenFilter implements ContainerRequestFilter {

    private static final String BEARER = "Bearer ";

    private final Optional<String> token;

    public WriteTokenFilter(@ConfigProperty(name = "gpuledger.api.token") Optional<String> token,
            @ConfigProperty(name = "gpuledger.api.token-file") Optional<String> tokenFile) {
        this.token = token(token, tokenFile);
    }

    /**
     * The token given as is, or read from its file (trimmed).
     *
     * @throws IllegalStateException when both are given, or the file cannot be read; the message
     *                               names the file, never its content
     */
    static Optional<String> token(Optional<String> token, Optional<String> tokenFile) {
        Optional<String> given = token.filter(value -> !value.isBlank());
        Optional<String> file = tokenFile.filter(value -> !value.isBlank());
        if (file.isEmpty()) {
            return given;
        }
        if (given.isPresent()) {
            throw new IllegalStateException("set gpuledger.api.token or gpuledger.api.token-file, not both");
        }
        try {
            return Optional.of(Files.readString(Path.of(file.get()), StandardCharsets.UTF_8).strip())
                    .filter(value -> !value.isEmpty());
        } catch (IOException e) {
            throw new IllegalStateException("gpuledger.api.token-file: cannot read " + file.get() + " ("
                    + e.getClass().getSimpleName() + ")", e);
        }
    }

    @Override
    public void filter(ContainerRequestContext request) {
        String method = request.getMethod();
        if (HttpMethod.GET.equals(method) || HttpMethod.HEAD.equals(method) || HttpMethod.OPTIONS.equals(method)) {
            return;
        }
        if (token.isEmpty()) {
            refuse(request, Response.Status.FORBIDDEN,
                    "writes are disabled: set gpuledger.api.token-file (GPULEDGER_API_TOKEN_FILE) or "
                            + "gpuledger.api.token to enable them");
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
