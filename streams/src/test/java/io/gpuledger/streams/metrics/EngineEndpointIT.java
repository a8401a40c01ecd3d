package io.gpuledger.streams.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuledger.broker.EmbeddedKafka;
import io.gpuledger.model.TopicAdmin;
import io.gpuledger.model.Topics;
import io.gpuledger.streams.CostEngine;
import io.gpuledger.streams.CostEngineConfig;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.function.Predicate;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The engine's port as a scraper and Kubernetes' probes see it, the engine on a real broker. */
class EngineEndpointIT {

    private static final String GPU = "GPU-7d0e4a52-3f1b-4c8e-9a65-2b1f0c3d4e5f";
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @TempDir
    Path dir;

    @Test
    void shouldCountAPoisonSampleAndTellWhetherTheEngineRuns() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            // Given the engine's port served before the engine starts
            String bootstrap = kafka.bootstrapServers();
            TopicAdmin.ensureTopics(bootstrap, 1);
            CostEngine engine = new CostEngine(CostEngineConfig.defaults(bootstrap, dir.resolve("state"))
                    .withApplicationId("endpoint-test").withCommitInterval(Duration.ofMillis(200)));
            try (EngineEndpoint endpoint = EngineEndpoint.start(new InetSocketAddress("127.0.0.1", 0),
                    engine.meters(), engine::state)) {
                String base = "http://127.0.0.1:" + endpoint.port();

                // Then, not started yet, it is live but not ready
                assertThat(get(base + EngineEndpoint.LIVE).statusCode()).isEqualTo(200);
                HttpResponse<String> notReady = get(base + EngineEndpoint.READY);
                assertThat(notReady.statusCode()).isEqualTo(503);
                assertThat(notReady.body()).contains("\"status\":\"DOWN\"", "\"state\":\"CREATED\"");

                // When it runs
                engine.start();
                assertThat(engine.awaitRunning(Duration.ofSeconds(90))).isTrue();

                // Then it is ready, and says so in its state gauge
                HttpResponse<String> ready = get(base + EngineEndpoint.READY);
                assertThat(ready.statusCode()).isEqualTo(200);
                assertThat(ready.body()).contains("\"status\":\"UP\"", "\"state\":\"RUNNING\"");
                assertThat(scrape(base)).contains("gpuledger_engine_state{state=\"RUNNING\",} 1.0",
                        "gpuledger_engine_state{state=\"ERROR\",} 0.0");

                // When a telemetry record that is not a sample arrives (an empty JSON array)
                publishTelemetry(bootstrap, "[]");

                // Then the scrape counts one dead letter of telemetry, and the records processed
                // count it too (a stream thread counts them once its loop is round); Kafka Streams'
                // own metrics are there beside them
                String text = awaitScrape(base, body -> body.contains(
                        "gpuledger_engine_dead_letters_total{kind=\"telemetry\",} 1.0")
                        && sample(body, "gpuledger_engine_records_processed_total") >= 1.0);
                assertThat(text).contains("gpuledger_engine_dead_letters_total{kind=\"telemetry-late\",} 0.0");
                assertThat(text).contains("kafka_stream_thread_commit_latency_avg", "kafka_stream_thread_process_rate");
                // and the engine's families are those of its catalogue, of the type it says
                assertThat(families(text)).isEqualTo(catalogue());

                // When the engine stops
                engine.close(Duration.ofSeconds(30));

                // Then it is neither live nor ready
                HttpResponse<String> dead = get(base + EngineEndpoint.LIVE);
                assertThat(dead.statusCode()).isEqualTo(503);
                assertThat(dead.body()).contains("\"state\":\"NOT_RUNNING\"");
                assertThat(get(base + EngineEndpoint.READY).statusCode()).isEqualTo(503);
            } finally {
                engine.close(Duration.ofSeconds(30));
            }
        }
    }

    private static HttpResponse<String> get(String url) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static String scrape(String base) throws Exception {
        HttpResponse<String> response = get(base + EngineEndpoint.METRICS);
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("text/plain; version=0.0.4"));
        return response.body();
    }

    /** The first scrape that {@code until} accepts within 60 s. */
    private static String awaitScrape(String base, Predicate<String> until) {
        return await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                .until(() -> scrape(base), until);
    }

    /** The engine's families in a scrape, each with its type. */
    private static Map<String, String> families(String text) {
        Map<String, String> families = new TreeMap<>();
        text.lines().filter(line -> line.startsWith("# TYPE gpuledger_engine_")).map(line -> line.split(" "))
                .forEach(words -> families.put(words[3].equals("counter") && !words[2].endsWith("_total")
                        ? words[2] + "_total" : words[2], words[3]));
        return families;
    }

    /** The catalogue's families, each with its type. */
    private static Map<String, String> catalogue() throws Exception {
        Map<String, String> families = new TreeMap<>();
        try (InputStream in = EngineMeters.class.getResourceAsStream("catalogue.tsv")) {
            new String(in.readAllBytes(), StandardCharsets.UTF_8).lines()
                    .filter(line -> !line.isBlank() && !line.startsWith("#") && !line.startsWith("name\t"))
                    .map(line -> line.split("\t")).forEach(columns -> families.put(columns[0], columns[1]));
        }
        return families;
    }

    /** The value of a sample without labels. */
    private static double sample(String text, String name) {
        return text.lines().filter(line -> line.startsWith(name + " ")).findFirst()
                .map(line -> Double.parseDouble(line.substring(name.length() + 1).strip()))
                .orElseThrow(() -> new AssertionError("no sample " + name + " in:\n" + text));
    }

    private static void publishTelemetry(String bootstrap, String value) throws Exception {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (KafkaProducer<String, byte[]> producer =
                new KafkaProducer<>(props, new StringSerializer(), new ByteArraySerializer())) {
            producer.send(new ProducerRecord<>(Topics.TELEMETRY.name(), GPU,
                    value.getBytes(StandardCharsets.UTF_8))).get();
        }
    }
}
