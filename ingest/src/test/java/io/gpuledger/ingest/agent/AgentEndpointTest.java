package io.gpuledger.ingest.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuledger.ingest.agent.collect.Collector;
import io.gpuledger.ingest.agent.progress.JobToken;
import io.gpuledger.model.Json;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.MovableClock;
import io.gpuledger.model.Placement;
import io.gpuledger.model.Topics;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent's endpoint as a pod on the node, or anything else that reaches its port, meets it:
 * writes need a token issued for the report's job and this node, a slow client holds one thread
 * and not the endpoint, a flood of jobs stays bounded, and every body the agent cannot read is
 * answered 400 with its reason. Seen to fail with the job comparison ({@code ProgressReports.accept}) and
 * with the node comparison ({@code JobToken.admit}) each skipped.
 */
class AgentEndpointTest {

    private static final Instant T0 = Instant.parse("2026-03-01T12:00:00Z");
    private static final Placement NODE = new Placement("node-1", "i-1", "p4d.24xlarge", "aws", "us-east-1",
            Lifecycle.ON_DEMAND);
    /** The issuer whose public key the agent trusts. */
    private static final KeyPair ISSUER = JobToken.newIssuerKey();

    @TempDir
    Path dir;

    private final List<String> published = new CopyOnWriteArrayList<>();
    private final MovableClock clock = new MovableClock(T0);
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private NodeAgent agent;

    @AfterEach
    void stop() {
        if (agent != null) {
            agent.close();
        }
    }

    @Test
    void shouldTakeOnlyATokenIssuedForTheReportsJobAndThisNode() throws Exception {
        // Given an agent on node-1 that trusts ISSUER, and tokens for job A on node-1, job A on node-2,
        // and one signed by another issuer
        agent = started(withIssuer(Map.of()));
        String tokenA = token(ISSUER, JobToken.Grant.progress("job-a", List.of("node-1"), T0.plusSeconds(3600)));
        String tokenAOnY = token(ISSUER, JobToken.Grant.progress("job-a", List.of("node-2"), T0.plusSeconds(3600)));
        String forged = token(JobToken.newIssuerKey(), JobToken.Grant.progress("job-a", List.of("node-1"),
                T0.plusSeconds(3600)));

        // When each is used for job A's report, and job A's token for job B's
        HttpResponse<String> none = send(post("/v1/progress", report("job-a")));
        HttpResponse<String> right = send(post("/v1/progress", report("job-a")).header("Authorization",
                "Bearer " + tokenA));
        HttpResponse<String> otherJob = send(post("/v1/progress", report("job-b")).header("Authorization",
                "Bearer " + tokenA));
        HttpResponse<String> otherNode = send(post("/v1/progress", report("job-a")).header("Authorization",
                "Bearer " + tokenAOnY));
        HttpResponse<String> unknownIssuer = send(post("/v1/progress", report("job-a")).header("Authorization",
                "Bearer " + forged));
        HttpResponse<String> stopping = send(post("/v1/instance/stopping", "").header("Authorization",
                "Bearer " + tokenA));

        // Then only job A's report with job A's token for node-1 is published
        assertThat(right.statusCode()).isEqualTo(202);
        assertThat(none.statusCode()).isEqualTo(401);
        assertThat(none.body()).contains("Authorization: Bearer");
        assertThat(none.headers().firstValue("WWW-Authenticate")).hasValue("Bearer realm=\"gpu-ledger-agent\"");
        assertThat(otherJob.statusCode()).isEqualTo(403);
        assertThat(otherJob.body()).contains("for job 'job-a', not for 'job-b'");
        assertThat(otherNode.statusCode()).isEqualTo(403);
        assertThat(otherNode.body()).contains("not for this node (node-1)");
        assertThat(unknownIssuer.statusCode()).isEqualTo(401);
        assertThat(unknownIssuer.body()).contains("not signed by an issuer key this agent trusts")
                .doesNotContain(forged);
        // and a work report's token does not stop the instance's accounting
        assertThat(stopping.statusCode()).isEqualTo(403);
        assertThat(published).singleElement().asString().startsWith(Topics.JOB_PROGRESS.name() + " ")
                .contains("\"jobId\":\"job-a\"");
        // and the refusals are counted where operators look
        assertThat(body("/metrics")).contains("gpuledger_agent_http_refused_total{reason=\"unauthorized\"} 2")
                .contains("gpuledger_agent_http_refused_total{reason=\"forbidden\"} 3");
    }

    @Test
    void shouldRefuseATokenOnceItHasExpired() throws Exception {
        // Given an agent on node-1 and job A's token for node-1, valid for a minute
        agent = started(withIssuer(Map.of()));
        String tokenA = token(ISSUER, JobToken.Grant.progress("job-a", List.of("node-1"), T0.plusSeconds(60)));

        // When job A's token reports job B on GPU 0, and job A reports once its token has expired
        HttpResponse<String> claim = send(post("/v1/progress", "{\"jobId\": \"job-b\", \"unit\": \"tokens\","
                + " \"workUnits\": 1, \"intervalSeconds\": 10, \"gpus\": [0]}").header("Authorization",
                "Bearer " + tokenA));
        clock.set(T0.plusSeconds(60));
        HttpResponse<String> expired = send(post("/v1/progress", report("job-a")).header("Authorization",
                "Bearer " + tokenA));

        // Then neither is taken
        assertThat(claim.statusCode()).isEqualTo(403);
        assertThat(expired.statusCode()).isEqualTo(401);
        assertThat(expired.body()).contains("expired");
        assertThat(published).isEmpty();
    }

    @Test
    void shouldLetTheHostSayTheInstanceStopsWithAStoppingTokenForThisNode() throws Exception {
        // Given an agent on node-1 and a stopping token for node-1
        agent = started(withIssuer(Map.of()));
        String stop = token(ISSUER, JobToken.Grant.stopping(List.of("node-1"), T0.plusSeconds(3600)));

        // When the host uses it, both to report work and to say the instance stops
        HttpResponse<String> work = send(post("/v1/progress", report("job-a")).header("Authorization",
                "Bearer " + stop));
        HttpResponse<String> stopping = send(post("/v1/instance/stopping", "").header("Authorization",
                "Bearer " + stop));

        // Then it may say the instance stops, not report a job's work
        assertThat(work.statusCode()).isEqualTo(403);
        assertThat(stopping.statusCode()).isEqualTo(202);
        assertThat(published).singleElement().asString().startsWith(Topics.CAPACITY_EVENTS.name() + " ");
    }

    @Test
    void shouldRefuseToServeBeyondLoopbackWithoutAToken() {
        // Given an agent told to listen on every address of the node, with no token file
        Map<String, String> env = new HashMap<>(Map.of("GPULEDGER_PROGRESS_PORT", "0",
                "GPULEDGER_PROGRESS_HOST", "0.0.0.0"));
        agent = agent(env);

        // Then it does not start its endpoint, and says which setting is missing
        assertThatThrownBy(agent::start).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("progress.issuer-keys-file").hasMessageContaining("0.0.0.0");
        assertThat(agent.httpPort()).isEqualTo(-1);
    }

    @Test
    void shouldAnswerHealthWhileASlowClientTricklesItsBody() throws Exception {
        // Given an agent serving its endpoint
        agent = started(Map.of());

        try (Socket slow = new Socket("127.0.0.1", agent.httpPort())) {
            // When a client sends its headers and then its body a byte at a time, as long as it is let
            OutputStream out = slow.getOutputStream();
            String body = "{\"jobId\": \"slow\", \"unit\": \"tokens\", \"workUnits\": 1, \"intervalSeconds\": 10}";
            out.write(("POST /v1/progress HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    + "Content-Length: " + (body.length() * 100) + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            AtomicBoolean answered = new AtomicBoolean();
            Thread trickle = new Thread(() -> {
                try {
                    for (int i = 0; !answered.get() && i < 1200; i++) {
                        out.write(body.charAt(i % body.length()));
                        out.flush();
                        // A slow client is the scenario, not a wait for anything
                        Thread.sleep(100);
                    }
                } catch (IOException | InterruptedException e) {
                    // the agent closed the connection: what the test waits for
                }
            });
            trickle.setDaemon(true);
            trickle.start();

            // Then /health answers meanwhile (a liveness probe would not restart the agent)
            HttpResponse<String> health = http.send(HttpRequest.newBuilder(uri("/health"))
                    .timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString());
            boolean trickling = trickle.isAlive();
            answered.set(true);
            assertThat(health.statusCode()).isEqualTo(200);
            assertThat(trickling).as("the slow client was still sending when /health answered").isTrue();

            // and the slow client is told its request took too long, and nothing it sent is published
            slow.setSoTimeout(60_000);
            InputStream in = slow.getInputStream();
            String status = new String(in.readNBytes("HTTP/1.1 408".length()), StandardCharsets.US_ASCII);
            assertThat(status).isEqualTo("HTTP/1.1 408");
        }
        assertThat(published).isEmpty();
        assertThat(body("/metrics")).contains("gpuledger_agent_http_refused_total{reason=\"timeout\"} 1");
    }

    @Test
    void shouldKeepAFloodOfDistinctJobsCappedAndForgetThemAfterTheirTtl() throws Exception {
        // Given an agent serving its endpoint
        agent = started(Map.of());

        // When 1,100 distinct jobs report once each, at the same instant
        Map<Integer, Integer> statuses = new LinkedHashMap<>();
        for (int i = 0; i < 1100; i++) {
            HttpResponse<String> response = send(post("/v1/progress", "{\"jobId\": \"flood-" + i
                    + "\", \"unit\": \"tokens\", \"workUnits\": 1, \"intervalSeconds\": 10}"));
            statuses.merge(response.statusCode(), 1, Integer::sum);
        }

        // Then the agent tracks 1,024 of them and refuses the other 1,100 - 1,024 = 76, counting them
        assertThat(statuses).containsExactlyInAnyOrderEntriesOf(Map.of(202, 1024, 429, 76));
        Map<?, ?> health = Json.read(body("/health").getBytes(StandardCharsets.UTF_8), Map.class);
        assertThat(health.get("processesTracked")).isEqualTo(1024);
        assertThat(health.get("progressRefusedFull")).isEqualTo(76);

        // When an hour and a second pass without a word from any of them (their reports could cover no more)
        clock.set(T0.plusSeconds(3601));
        HttpResponse<String> next = send(post("/v1/progress",
                "{\"jobId\": \"after\", \"unit\": \"tokens\", \"workUnits\": 1, \"intervalSeconds\": 10}"));

        // Then they are forgotten, and a new job is tracked again
        assertThat(next.statusCode()).isEqualTo(202);
        health = Json.read(body("/health").getBytes(StandardCharsets.UTF_8), Map.class);
        assertThat(health.get("processesTracked")).isEqualTo(1);
    }

    @Test
    void shouldKeepAFloodOfClaimedGpusCapped() throws Exception {
        // Given an agent serving its endpoint
        agent = started(Map.of());

        // When one job claims 100 made-up GPUs at a time, 12 times: 1,200 claims
        int accepted = 0;
        for (int round = 0; round < 12; round++) {
            StringBuilder gpus = new StringBuilder();
            for (int i = 0; i < 100; i++) {
                gpus.append(i == 0 ? "" : ", ").append("\"GPU-").append(round).append('-').append(i).append('"');
            }
            HttpResponse<String> response = send(post("/v1/progress", "{\"jobId\": \"claims\", \"unit\": \"tokens\","
                    + " \"workUnits\": 1, \"intervalSeconds\": 10, \"gpus\": [" + gpus + "]}"));
            accepted += response.statusCode() == 202 ? 1 : 0;
        }

        // Then the reports that fit in 1,024 claims are taken (10 x 100 = 1,000; an 11th would make 1,100)
        assertThat(accepted).isEqualTo(10);
        Map<?, ?> health = Json.read(body("/health").getBytes(StandardCharsets.UTF_8), Map.class);
        assertThat(health.get("claimsTracked")).isEqualTo(1000);
        assertThat(health.get("progressRefusedFull")).isEqualTo(2);
    }

    @Test
    void shouldAnswerEveryBodyItCannotReadWith400AndItsReason() throws Exception {
        // Given an agent serving its endpoint
        agent = started(Map.of());
        String good = "{\"jobId\": \"job-1\", \"unit\": \"tokens\", \"workUnits\": 1000, \"intervalSeconds\": 10}";
        // Each body, with what the answer must name
        Map<String, String> hostile = new LinkedHashMap<>();
        hostile.put("null", "found null");
        hostile.put("[]", "Report");
        hostile.put("[null]", "Report");
        hostile.put("42", "Report");
        hostile.put("\"a report\"", "Report");
        hostile.put("true", "Report");
        hostile.put("{}", "jobId");
        hostile.put(good + " {}", "Report");
        hostile.put(good.replace("\"job-1\"", "{\"id\": 1}"), "jobId");
        hostile.put(good.replace("\"job-1\"", "null"), "jobId");
        hostile.put(good.replace("1000", "null"), "workUnits");
        hostile.put(good.replace("1000", "[1000]"), "workUnits");
        hostile.put(good.replace("1000", "1e400"), "workUnits");
        hostile.put(good.replace("{", "{\"rank\": 99999999999, "), "rank");
        hostile.put(good.replace("{", "{\"rank\": \"first\", "), "rank");
        hostile.put(good.replace("{", "{\"steps\": -3, "), "steps");
        hostile.put(good.replace("{", "{\"gpus\": \"GPU-a\", "), "gpus");
        hostile.put(good.replace("{", "{\"gpus\": [null], "), "gpus");
        hostile.put(good.replace("{", "{\"gpus\": [-1], "), "gpus");
        hostile.put(good.replace("{", "{\"interruptible\": \"perhaps\", "), "interruptible");
        hostile.put(good.replace("{", "{\"workloadClass\": 7, "), "workloadClass");
        hostile.put("[".repeat(5000) + "]".repeat(5000), "Report");
        hostile.put(good.replace("{", "{\"pad\": " + "[".repeat(5000) + "]".repeat(5000) + ", "), "nesting depth");
        // values of another type, which a lenient reader would convert
        hostile.put(good.replace("\"job-1\"", "7"), "jobId");
        hostile.put(good.replace("1000", "\"1000\""), "workUnits");
        hostile.put(good.replace("{", "{\"rank\": 1.5, "), "rank");
        hostile.put(good.replace("{", "{\"steps\": \"12\", "), "steps");
        hostile.put(good.replace("{", "{\"interruptible\": 1, "), "interruptible");
        hostile.put(good.replace("{", "{\"workloadClass\": 0, "), "workloadClass");
        hostile.put(good.replace("{", "{\"jobId\": \"job-2\", "), "jobId");
        hostile.put(good.replace("{", "{\"gpus\": [" + "0, ".repeat(300) + "0], "), "gpus");

        for (Map.Entry<String, String> body : hostile.entrySet()) {
            // When it is posted
            HttpResponse<String> response = send(post("/v1/progress", body.getKey()));

            // Then it is refused with a reason that names the problem
            String shown = body.getKey().length() < 80 ? body.getKey() : body.getKey().substring(0, 80) + "…";
            assertThat(response.statusCode()).as(shown).isEqualTo(400);
            assertThat(response.body()).as(shown).contains(body.getValue()).contains("\"error\"");
        }
        // and a body that is not UTF-8 at all
        HttpResponse<String> binary = send(HttpRequest.newBuilder(uri("/v1/progress"))
                .POST(HttpRequest.BodyPublishers.ofByteArray(new byte[] {'{', '"', (byte) 0xff, (byte) 0xfe, '"'})));
        assertThat(binary.statusCode()).isEqualTo(400);
        assertThat(published).isEmpty();
        assertThat(agent.counters().progressRejected()).isEqualTo(hostile.size() + 1);
    }

    private HttpRequest.Builder post(String path, String body) {
        return HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString(body));
    }

    private HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private String body(String path) throws Exception {
        return send(HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(30))).body();
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + agent.httpPort() + path);
    }

    private Map<String, String> withIssuer(Map<String, String> env) throws IOException {
        Path keys = Files.writeString(dir.resolve("issuer-keys"), JobToken.publicKeyLine(ISSUER.getPublic()) + "\n");
        Map<String, String> withIssuer = new HashMap<>(env);
        withIssuer.put("GPULEDGER_PROGRESS_ISSUER_KEYS_FILE", keys.toString());
        return withIssuer;
    }

    private static String token(KeyPair issuer, JobToken.Grant grant) {
        return JobToken.issue(issuer.getPrivate(), grant);
    }

    private static String report(String job) {
        return "{\"jobId\": \"" + job + "\", \"unit\": \"tokens\", \"workUnits\": 1000, \"intervalSeconds\": 10}";
    }

    private NodeAgent started(Map<String, String> env) throws IOException {
        Map<String, String> withPort = new HashMap<>(env);
        withPort.put("GPULEDGER_PROGRESS_PORT", "0");
        NodeAgent started = agent(withPort);
        started.start();
        return started;
    }

    private NodeAgent agent(Map<String, String> extraEnv) {
        Map<String, String> env = new HashMap<>(extraEnv);
        env.put("GPULEDGER_SPOOL_DIR", dir.resolve("spool").toString());
        env.put("GPULEDGER_CLOUD", "none");
        // No sampling round during the test: only what comes over HTTP is published.
        env.put("GPULEDGER_INTERVAL", "3600");
        AgentConfig config = AgentConfig.load(Optional.empty(), env);
        RecordSink sink = (topic, key, value, timestamp) -> published.add(topic + " " + new String(value,
                StandardCharsets.UTF_8));
        return new NodeAgent(config, new Identity.Resolved(NODE, Optional.empty()), List.<Collector>of(), sink, clock,
                problem -> { });
    }
}
