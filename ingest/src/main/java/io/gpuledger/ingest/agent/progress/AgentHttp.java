package io.gpuledger.ingest.agent.progress;

import io.gpuledger.http.BoundedHttpServer;
import io.gpuledger.http.BoundedHttpServer.BodyTooLarge;
import io.gpuledger.http.BoundedHttpServer.Request;
import io.gpuledger.http.BoundedHttpServer.Response;
import io.gpuledger.model.InvalidRecordException;
import io.gpuledger.model.JobProgress;
import io.gpuledger.model.Json;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The agent's HTTP endpoint on the node: {@code POST /v1/progress} for jobs' work reports,
 * {@code POST /v1/instance/stopping} for the host's shutdown to say the instance stops,
 * {@code GET /health} (JSON) and {@code GET /metrics} (Prometheus text) for operators.
 *
 * <p>Where the agent trusts an issuer ({@link IssuerKeys}), and it must unless the endpoint listens on a
 * loopback address only, both writes need a {@linkplain JobToken token} issued for this node and for
 * what they do: a work report, one for the report's job; the instance's stop, one for that.
 * Bodies over {@link #MAX_BODY_BYTES} are refused with 413 without being read whole; a body that
 * is not a report is answered 400 with its reason; a report the agent has no room to remember,
 * 429. The server is bounded ({@link BoundedHttpServer}): a client slow in its request's line and
 * headers holds none of its threads; one slow in its body holds one until the request's deadline,
 * counted from when it connected, and four of those at once keep {@code /health} waiting for up to
 * that deadline.
 */
public final class AgentHttp implements AutoCloseable {

    public static final int MAX_BODY_BYTES = 64 * 1024;
    /** Four threads, 5 s without a byte or 10 s for a whole request, 8 KiB of headers. */
    private static final BoundedHttpServer.Limits LIMITS = new BoundedHttpServer.Limits(4, 16,
            Duration.ofSeconds(5), Duration.ofSeconds(10), 8 * 1024, MAX_BODY_BYTES);
    /** Where the host's shutdown says that the instance stops. */
    public static final String STOPPING_PATH = "/v1/instance/stopping";
    private static final String JSON = "application/json";
    private static final String BEARER = "Bearer ";
    /** The reasons of {@link #refusals()}, in its order. */
    public static final List<String> REFUSAL_REASONS = List.of("unauthorized", "forbidden", "timeout", "busy",
            "malformed");

    /** What the endpoint does with what it is sent, and what it shows. */
    public interface Actions {
        /** Publishes an accepted report. */
        void progress(JobProgress progress);

        /** Told of each report refused for its body. */
        void rejected();

        /** Says that the instance stops (at most once) and answers with what was said. */
        Map<String, Object> stopping();

        /** The body of {@code GET /health}. */
        Map<String, Object> health();

        /** The body of {@code GET /metrics}. */
        String metrics();
    }

    private final BoundedHttpServer server;
    private final ProgressReports reports;
    private final Actions actions;
    private final Optional<IssuerKeys> issuers;
    private final String node;
    private final Clock clock;
    private final AtomicLong unauthorized = new AtomicLong();
    private final AtomicLong forbidden = new AtomicLong();
    private final AtomicLong timeouts = new AtomicLong();
    private final AtomicLong busy = new AtomicLong();
    private final AtomicLong malformed = new AtomicLong();

    /** Who may write here: the issuers whose tokens are taken, this node's name, and the clock they expire by. */
    public record Callers(Optional<IssuerKeys> issuers, String node, Clock clock) {
        /** Anyone who reaches the endpoint: only where it listens on a loopback address. */
        public static Callers anyone() {
            return new Callers(Optional.empty(), "", Clock.systemUTC());
        }
    }

    /**
     * Starts serving on {@code host:port} (0: any free port).
     *
     * @param callers  whose tokens writes must present; no issuer only when {@code host} is a loopback address
     * @param problems told of a request the endpoint failed on
     * @throws IllegalArgumentException when {@code host} is not a loopback address and there is no issuer key
     */
    public AgentHttp(String host, int port, Callers callers, ProgressReports reports, Actions actions,
            Consumer<String> problems) throws IOException {
        this(host, port, callers, reports, actions, problems, LIMITS);
    }

    AgentHttp(String host, int port, Callers callers, ProgressReports reports, Actions actions,
            Consumer<String> problems, BoundedHttpServer.Limits limits) throws IOException {
        if (callers.issuers().isEmpty() && !isLoopback(host)) {
            throw new IllegalArgumentException("progress.host " + host + " is not a loopback address: anything that"
                    + " reaches it could report work and claim GPUs; set progress.issuer-keys-file to the public key"
                    + " of the issuer of the jobs' tokens (gpu-ledger token keygen), or listen on 127.0.0.1");
        }
        this.issuers = callers.issuers();
        this.node = callers.node();
        this.clock = callers.clock();
        this.reports = reports;
        this.actions = actions;
        this.server = new BoundedHttpServer("agent-http", host, port, limits, this::route, this::count, problems);
    }

    /** Whether {@code host} names a loopback address, so that only the node's own processes reach it. */
    public static boolean isLoopback(String host) {
        try {
            return InetAddress.getByName(host).isLoopbackAddress();
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("progress.host " + host + " is not an address of this node", e);
        }
    }

    private Response route(Request request) throws IOException {
        return switch (request.path()) {
            case "/v1/progress" -> post(request, JobToken.Scope.PROGRESS, grant -> progress(request, grant));
            case STOPPING_PATH -> post(request, JobToken.Scope.STOPPING, grant -> stopping(request));
            case "/health" -> get(request, () -> json(200, actions.health()));
            case "/metrics" -> get(request, () -> Response.of(200, "text/plain; version=0.0.4; charset=utf-8",
                    actions.metrics().getBytes(StandardCharsets.UTF_8)));
            default -> json(404, Map.of("error", "no such endpoint: " + request.path()));
        };
    }

    @FunctionalInterface
    private interface Answer {
        Response get() throws IOException;
    }

    @FunctionalInterface
    private interface Write {
        /** Answers a write allowed by {@code grant} (empty where the endpoint takes no tokens). */
        Response answer(Optional<JobToken.Grant> grant) throws IOException;
    }

    private Response get(Request request, Answer answer) throws IOException {
        return request.method().equals("GET") ? answer.get() : json(405, Map.of("error", "use GET"));
    }

    /** A write: the token is checked for this node and scope before a byte of the body is read. */
    private Response post(Request request, JobToken.Scope scope, Write write) throws IOException {
        if (!request.method().equals("POST")) {
            return json(405, Map.of("error", "use POST"));
        }
        if (issuers.isEmpty()) {
            return write.answer(Optional.empty());
        }
        String authorization = request.header("Authorization");
        if (authorization == null || !authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
            return refuse(new JobToken.Refused(401, "this endpoint needs 'Authorization: Bearer <token>', a token"
                    + " for this node from gpu-ledger token issue"));
        }
        try {
            return write.answer(Optional.of(JobToken.admit(authorization.substring(BEARER.length()).strip(),
                    issuers.get().current(), scope, node, clock.instant())));
        } catch (JobToken.Refused e) {
            return refuse(e);
        }
    }

    private Response refuse(JobToken.Refused refused) {
        if (refused.status() == 403) {
            forbidden.incrementAndGet();
            return json(403, Map.of("error", refused.getMessage()));
        }
        unauthorized.incrementAndGet();
        Map<String, String> challenge = Map.of("WWW-Authenticate", "Bearer realm=\"gpu-ledger-agent\"");
        return new Response(401, JSON, Json.write(Map.of("error", refused.getMessage())), challenge);
    }

    private Response progress(Request request, Optional<JobToken.Grant> grant) throws IOException {
        byte[] body;
        try {
            body = request.body();
        } catch (BodyTooLarge e) {
            actions.rejected();
            return json(413, Map.of("error", "body larger than " + MAX_BODY_BYTES + " bytes"));
        }
        try {
            JobProgress progress = reports.accept(body, grant.map(JobToken.Grant::job));
            actions.progress(progress);
            return json(202, Map.of("accepted", true, "jobId", progress.jobId(),
                    "intervalSeconds", progress.intervalSeconds()));
        } catch (InvalidRecordException e) {
            actions.rejected();
            return json(400, Map.of("error", e.getMessage(), "field", e.field()));
        } catch (ProgressReports.Full e) {
            return json(429, Map.of("error", e.getMessage()));
        } catch (JobToken.Refused e) {
            return refuse(e);
        }
    }

    private Response stopping(Request request) throws IOException {
        if (!maySayStopping(request.remote())) {
            return json(403, Map.of("error", "only the node itself, over its loopback address, may say that"
                    + " its instance stops"));
        }
        try {
            request.body();
        } catch (BodyTooLarge e) {
            // What it says is not read: the call alone says that the instance stops.
        }
        return json(202, actions.stopping());
    }

    /**
     * Whether a caller at {@code remote} may say that the instance stops: only the node itself,
     * over its loopback address. The endpoint may be open to the node's pods (a Kubernetes host
     * port), which may report work but not stop the accounting of the instance.
     */
    static boolean maySayStopping(InetSocketAddress remote) {
        return remote.getAddress() != null && remote.getAddress().isLoopbackAddress();
    }

    private static Response json(int status, Object body) {
        return Response.of(status, JSON, Json.write(body));
    }

    private void count(BoundedHttpServer.Refusal refusal) {
        switch (refusal) {
            case BUSY -> busy.incrementAndGet();
            case TIMEOUT -> timeouts.incrementAndGet();
            case MALFORMED -> malformed.incrementAndGet();
        }
    }

    public int port() {
        return server.port();
    }

    /** Requests refused at the endpoint before a route read them, by cause, for health and metrics. */
    public Map<String, Long> refusals() {
        Map<String, Long> refusals = new LinkedHashMap<>();
        List<AtomicLong> counts = List.of(unauthorized, forbidden, timeouts, busy, malformed);
        for (int i = 0; i < REFUSAL_REASONS.size(); i++) {
            refusals.put(REFUSAL_REASONS.get(i), counts.get(i).get());
        }
        return refusals;
    }

    @Override
    public void close() {
        server.close();
    }
}
