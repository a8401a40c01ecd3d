package io.gpuledger.streams.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The engine's port against clients that hold it or send what is not a request: its liveness
 * probe must still be answered, or Kubernetes restarts a healthy engine. A Kafka Streams instance
 * is built and never started (state CREATED, live), so no broker is needed.
 */
class EngineEndpointBoundsTest {

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @TempDir
    Path dir;

    private KafkaStreams streams;
    private EngineMeters meters;
    private EngineEndpoint endpoint;
    private final List<Socket> clients = new ArrayList<>();

    @BeforeEach
    void serve() throws IOException {
        // Never started, so it never reaches for the broker it names.
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "endpoint-bounds-test");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:9");
        props.put(StreamsConfig.STATE_DIR_CONFIG, dir.toString());
        StreamsBuilder builder = new StreamsBuilder();
        builder.stream("endpoint-bounds-input");
        streams = new KafkaStreams(builder.build(), props);
        meters = new EngineMeters(streams, Map::of);
        endpoint = EngineEndpoint.start(new InetSocketAddress("127.0.0.1", 0), meters, streams::state);
    }

    @AfterEach
    void stop() throws IOException {
        for (Socket client : clients) {
            client.close();
        }
        endpoint.close();
        meters.close();
        streams.close(Duration.ofSeconds(10));
    }

    @Test
    void shouldAnswerTheLivenessProbeWhileClientsStallHalfwayThroughTheirRequestLine() throws Exception {
        // Given three clients that each sent half a request line and then nothing more
        for (int i = 0; i < 3; i++) {
            Socket client = connect();
            client.getOutputStream().write("GET /heal".getBytes(StandardCharsets.US_ASCII));
            client.getOutputStream().flush();
        }

        // When the probe asks (the timeout only keeps a blocked endpoint from hanging the build)
        HttpResponse<String> live = HTTP.send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + endpoint.port() + EngineEndpoint.LIVE))
                .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());

        // Then it is answered: live, Kafka Streams built and not started
        assertThat(live.statusCode()).isEqualTo(200);
        assertThat(live.body()).contains("\"status\":\"UP\"", "\"state\":\"CREATED\"");
    }

    @Test
    void shouldAnswerAStalledClient408AtItsDeadlineAndFreeItsThread() throws Exception {
        // Given a client that sent half a request line and stalls
        Socket client = connect();
        client.getOutputStream().write("GET /metr".getBytes(StandardCharsets.US_ASCII));
        client.getOutputStream().flush();

        // Then, past the request's deadline, the server answers it 408 and closes
        assertThat(statusLine(client)).startsWith("HTTP/1.1 408 ");
    }

    @Test
    void shouldRefuseHostileRequestsWithA4xxAndTheReason() throws Exception {
        // 9000 bytes of one header: over the 8 KiB (8192 bytes) the endpoint reads
        assertThat(answer("GET /health/live HTTP/1.1\r\nHost: x\r\nX-Padding: " + "a".repeat(9000) + "\r\n\r\n"))
                .startsWith("HTTP/1.1 431 ");
        // Two framings of one body, the ground of request smuggling
        assertThat(answer("GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n"
                + "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n")).startsWith("HTTP/1.1 400 ");
        // Not a request line at all
        assertThat(answer("\u0016\u0003\u0001 hello\r\n\r\n")).startsWith("HTTP/1.1 400 ");
        // A write to a read-only port
        assertThat(answer("POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"))
                .startsWith("HTTP/1.1 405 ");
    }

    private Socket connect() throws IOException {
        Socket client = new Socket("127.0.0.1", endpoint.port());
        // A guard against a hang only: every answer here comes within the endpoint's own deadline.
        client.setSoTimeout(30_000);
        clients.add(client);
        return client;
    }

    /** The status line the endpoint answers {@code request} with. */
    private String answer(String request) throws IOException {
        Socket client = connect();
        OutputStream out = client.getOutputStream();
        out.write(request.getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
        return statusLine(client);
    }

    private static String statusLine(Socket client) throws IOException {
        String response = new String(client.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
        int end = response.indexOf("\r\n");
        return end < 0 ? response : response.substring(0, end);
    }
}
