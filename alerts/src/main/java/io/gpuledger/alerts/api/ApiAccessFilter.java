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
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Who may use the API, by role. {@code read}: {@code GET /api/*} (costs, recommendations, anomalies,
 * metrics); {@code act}: also acknowledge and dismiss recommendations (every other method). Each
 * role's tokens come from a file ({@code gpuledger.api.read-token-file}, {@code gpuledger.api.token-file}
 * for act: a mounted Secret, not visible in the process environment; one token a line, so a new one
 * can be added before the old one is removed) or a value, and are presented as
 * {@code Authorization: Bearer <token>}. Without an act token, writes are refused altogether; reads
 * need a token too unless {@code gpuledger.api.open-reads} says otherwise (the local demo): an open
 * endpoint is never the default. Metrics and health are on the management port, not here.
 */
@Provider
public class ApiAccessFilter implements ContainerRequestFilter {

    private static final String BEARER = "Bearer ";

    private final List<String> readTokens;
    private final List<String> actTokens;
    private final boolean openReads;

    public ApiAccessFilter(@ConfigProperty(name = "gpuledger.api.token") Optional<String> actToken,
            @ConfigProperty(name = "gpuledger.api.token-file") Optional<String> actTokenFile,
            @ConfigProperty(name = "gpuledger.api.read-token") Optional<String> readToken,
            @ConfigProperty(name = "gpuledger.api.read-token-file") Optional<String> readTokenFile,
            @ConfigProperty(name = "gpuledger.api.open-reads", defaultValue = "false") boolean openReads) {
        this.actTokens = tokens("gpuledger.api.token", actToken, actTokenFile);
        this.readTokens = tokens("gpuledger.api.read-token", readToken, readTokenFile);
        this.openReads = openReads;
    }

    /**
     * The tokens given as is, or read from their file (a token a line; blank lines and lines starting with
     * {@code #} skipped).
     *
     * @throws IllegalStateException when both are given, or the file cannot be read; the message names the
     *                               file, never its content
     */
    static List<String> tokens(String key, Optional<String> token, Optional<String> tokenFile) {
        Optional<String> given = token.filter(value -> !value.isBlank());
        Optional<String> file = tokenFile.filter(value -> !value.isBlank());
        if (file.isEmpty()) {
            return given.map(value -> List.of(value.strip())).orElse(List.of());
        }
        if (given.isPresent()) {
            throw new IllegalStateException("set " + key + " or " + key + "-file, not both");
        }
        List<String> tokens = new ArrayList<>();
        try {
            for (String line : Files.readAllLines(Path.of(file.get()), StandardCharsets.UTF_8)) {
                String value = line.strip();
                if (!value.isEmpty() && !value.startsWith("#")) {
                    tokens.add(value);
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException(key + "-file: cannot read " + file.get() + " ("
                    + e.getClass().getSimpleName() + ")", e);
        }
        return List.copyOf(tokens);
    }

    @Override
    public void filter(ContainerRequestContext request) {
        String method = request.getMethod();
        if (HttpMethod.OPTIONS.equals(method)) {
            return;
        }
        Optional<String> presented = bearer(request.getHeaderString(HttpHeaders.AUTHORIZATION));
        boolean act = presented.filter(token -> matchesAny(token, actTokens)).isPresent();
        boolean read = act || presented.filter(token -> matchesAny(token, readTokens)).isPresent();
        if (HttpMethod.GET.equals(method) || HttpMethod.HEAD.equals(method)) {
            if (openReads || read) {
                return;
            }
            if (readTokens.isEmpty() && actTokens.isEmpty()) {
                refuse(request, Response.Status.FORBIDDEN, "reads are disabled: set gpuledger.api.read-token-file"
                        + " (GPULEDGER_API_READ_TOKEN_FILE) for the read role, or gpuledger.api.open-reads=true"
                        + " where whoever reaches the port may read");
            } else {
                refuse(request, Response.Status.UNAUTHORIZED, "reading needs 'Authorization: Bearer <token>'"
                        + " with a token of the read or act role");
            }
            return;
        }
        if (actTokens.isEmpty()) {
            refuse(request, Response.Status.FORBIDDEN, "writes are disabled: set gpuledger.api.token-file"
                    + " (GPULEDGER_API_TOKEN_FILE) or gpuledger.api.token to enable them");
        } else if (!act && read) {
            refuse(request, Response.Status.FORBIDDEN, "this token has the read role; acknowledging and"
                    + " dismissing need a token of the act role");
        } else if (!act) {
            refuse(request, Response.Status.UNAUTHORIZED, "this endpoint needs 'Authorization: Bearer <token>'"
                    + " with a token of the act role");
        }
    }

    private static Optional<String> bearer(String header) {
        if (header == null || !header.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
            return Optional.empty();
        }
        return Optional.of(header.substring(BEARER.length()).strip()).filter(token -> !token.isEmpty());
    }

    /** Compares with every token, whichever matches: the time taken does not say which. */
    private static boolean matchesAny(String presented, List<String> tokens) {
        byte[] digest = sha256(presented);
        boolean matched = false;
        for (String token : tokens) {
            matched |= MessageDigest.isEqual(digest, sha256(token));
        }
        return matched;
    }

    private static byte[] sha256(String token) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
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
