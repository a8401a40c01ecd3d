package io.gpuledger.ingest.agent.progress;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuledger.model.JobProgress;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Placement;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Hostile bodies posted to the agent's {@code POST /v1/progress}: each refused with a reason, none published. */
class AgentHttpHostileBodyTest {

    private static final Placement NODE = new Placement("node-1", "i-1", "p4d.24xlarge", "aws", "us-east-1",
            Lifecycle.ON_DEMAND);

    private final List<JobProgress> published = new CopyOnWriteArrayList<>();
    private final AtomicInteger rejected = new AtomicInteger();
    private AgentHttp http;

    @BeforeEach
    void start() throws Exception {
        ProgressReports reports = new ProgressReports(NODE,
                Clock.fixed(Instant.parse("2026-03-01T12:00:00Z"), ZoneOffset.UTC), Path.of("/nonexistent-proc"));
        http = new AgentHttp("127.0.0.1", 0, AgentHttp.Callers.anyone(), reports, new AgentHttp.Actions() {
            public void progress(JobProgress progress) {
                published.add(progress);
            }

            public void rejected() {
                rejected.incrementAndGet();
            }

            public Map<String, Object> stopping() {
                return Map.of();
            }

            public Map<String, Object> health() {
                return Map.of();
            }

            public String metrics() {
                return "";
            }
        }, problem -> { });
    }

    @AfterEach
    void stop() {
        http.close();
    }

    @Test
    void shouldRefuseEveryHostileBodyWithAReasonAndPublishNothing() throws Exception {
        // Given hostile bodies, each with what the refusal must name
        String good = "{\"jobId\": \"job-1\", \"unit\": \"tokens\", \"workUnits\": 1000, \"intervalSeconds\": 10}";
        Map<String, String> hostile = Map.ofEntries(
                Map.entry("not json", "Report"),
                Map.entry(good.substring(0, 20), "Report"),
                Map.entry("", "Report"),
                Map.entry("[1, 2]", "Report"),
                Map.entry(good.replace("1000", "\"lots\""), "workUnits"),
                Map.entry(good.replace("1000", "NaN"), "workUnits"),
                Map.entry(good.replace("1000", "Infinity"), "workUnits"),
                Map.entry(good.replace("1000", "-5"), "workUnits: must not be negative"),
                Map.entry(good.replace("\"intervalSeconds\": 10", "\"intervalSeconds\": 1e9"), "intervalSeconds"),
                Map.entry(good.replace("\"intervalSeconds\": 10", "\"intervalSeconds\": -1"), "intervalSeconds"),
                Map.entry(good.replace("job-1", "j".repeat(60_000)), "jobId: is longer than 256 characters"),
                Map.entry(good.replace("job-1", "a|b"), "jobId: must not contain"),
                Map.entry(good.replace("{", "{\"gpus\": [{\"x\": 1}], "), "gpus"),
                Map.entry(good.replace("{", "{\"stepSeconds\": 1, \"commSeconds\": 5, "), "commSeconds"));
        HttpClient client = HttpClient.newHttpClient();

        for (Map.Entry<String, String> body : hostile.entrySet()) {
            // When it is posted
            HttpResponse<String> response = client.send(HttpRequest.newBuilder(
                            URI.create("http://127.0.0.1:" + http.port() + "/v1/progress"))
                    .POST(HttpRequest.BodyPublishers.ofString(body.getKey())).build(),
                    HttpResponse.BodyHandlers.ofString());

            // Then it is refused with a reason naming the problem
            assertThat(response.statusCode()).as(abbreviated(body.getKey())).isEqualTo(400);
            assertThat(response.body()).as(abbreviated(body.getKey())).contains(body.getValue());
        }
        assertThat(published).isEmpty();
        assertThat(rejected).hasValue(hostile.size());
    }

    @Test
    void shouldRefuseAnOversizedBodyWithoutReadingItAll() throws Exception {
        // Given a request announcing a 1 GiB body, of which only twice the limit is ever sent
        long announced = 1L << 30;
        try (Socket socket = new Socket("127.0.0.1", http.port())) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(("POST /v1/progress HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    + "Content-Length: " + announced + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            // When the first 128 KiB arrive
            out.write(("{\"jobId\": \"" + "x".repeat(2 * AgentHttp.MAX_BODY_BYTES))
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();

            // Then the agent answers 413 at once, without waiting for the rest
            InputStream in = socket.getInputStream();
            String status = new String(in.readNBytes("HTTP/1.1 413".length()), StandardCharsets.US_ASCII);
            assertThat(status).isEqualTo("HTTP/1.1 413");
        }
        assertThat(published).isEmpty();
        assertThat(rejected).hasValue(1);
    }

    private static String abbreviated(String body) {
        return body.length() < 80 ? body : body.substring(0, 80) + "…";
    }
}
