package io.gpuledger.processes;

import io.gpuledger.model.Json;
import io.gpuledger.model.Recommendation;
import io.gpuledger.model.RecommendationKind;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The Quarkus alert service, run as its own JVM like in production, with its output in a log
 * file. Stopping it sends SIGTERM (Quarkus shuts down cleanly) and, if it lingers, kills it;
 * {@link #kill()} crashes it.
 */
public final class AlertServiceProcess implements AutoCloseable {

    /** The service's heap, as the demo runs it. */
    public static final String HEAP = "-Xmx384m";

    private final Process process;
    private final Path log;
    private final int port;
    private final String apiToken;

    private AlertServiceProcess(Process process, Path log, int port, String apiToken) {
        this.process = process;
        this.log = log;
        this.port = port;
        this.apiToken = apiToken;
    }

    /**
     * Extra JVM options of the service wherever this command line starts it (demo, benchmarks),
     * split on white space: a larger heap, say, or a flight recording of where its time goes.
     */
    public static final String JVM_OPTIONS = "GPULEDGER_ALERTS_JVM_OPTS";

    /**
     * @param settings environment variables of the service's configuration ({@code GPULEDGER_*});
     *                 the JVM options are the service's own and those of {@link #JVM_OPTIONS}
     */
    public static AlertServiceProcess start(Path jar, String bootstrapServers, int port, Path log,
            Map<String, String> settings) throws IOException {
        return start(jar, bootstrapServers, port, log, settings, JvmOptions.fromEnvironment(JVM_OPTIONS));
    }

    /** @param jvmOptions after the service's own (a later {@code -Xmx} wins): a benchmark's flight recording, say */
    public static AlertServiceProcess start(Path jar, String bootstrapServers, int port, Path log,
            Map<String, String> settings, List<String> jvmOptions) throws IOException {
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("alert service not built: " + jar + " is missing (run ./mvnw package)");
        }
        Files.createDirectories(log.getParent());
        ProcessBuilder builder = new ProcessBuilder(command(jar, jvmOptions))
                .redirectErrorStream(true)
                .redirectOutput(log.toFile());
        builder.environment().putAll(settings);
        builder.environment().put("KAFKA_BOOTSTRAP_SERVERS", bootstrapServers);
        builder.environment().put("QUARKUS_HTTP_PORT", String.valueOf(port));
        // Metrics and health on the next port: whoever knows the API's port finds them without asking.
        builder.environment().put("QUARKUS_MANAGEMENT_PORT", String.valueOf(managementPort(port)));
        // Started here, it listens on this machine's loopback only: reads are open unless the user says so.
        builder.environment().putIfAbsent("GPULEDGER_API_OPEN_READS", "true");
        // The API's writes (ack, dismiss) need a token: a fresh one per run unless the user set theirs.
        String token = settings.getOrDefault("GPULEDGER_API_TOKEN", randomToken());
        builder.environment().put("GPULEDGER_API_TOKEN", token);
        return new AlertServiceProcess(builder.start(), log, port, token);
    }

    public static List<String> command(Path jar, List<String> jvmOptions) {
        List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
                JvmOptions.EXIT_ON_OUT_OF_MEMORY, HEAP));
        command.addAll(jvmOptions);
        command.addAll(List.of("-jar", jar.toString()));
        return command;
    }

    private static String randomToken() {
        byte[] bytes = new byte[18];
        new java.security.SecureRandom().nextBytes(bytes);
        return java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /** The bearer token of the API's write endpoints. */
    public String apiToken() {
        return apiToken;
    }

    /** Waits until the service answers on its metrics endpoint. */
    public void awaitReady(Duration timeout) throws InterruptedException {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
        HttpRequest probe = HttpRequest.newBuilder(URI.create(managementUrl() + "/q/metrics"))
                .timeout(Duration.ofSeconds(2)).build();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("the alert service exited with status " + process.exitValue()
                        + " (is port " + port + " taken? try --http-port); its log: " + log + "\n" + tail());
            }
            try {
                if (http.send(probe, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            }
            Thread.sleep(250);
        }
        throw new IllegalStateException("the alert service did not answer within " + timeout.toSeconds()
                + " s; its log: " + log + "\n" + tail());
    }

    /**
     * Waits until the service lists a recommendation of {@code kind} for {@code target}, in any
     * status; false when none came within {@code timeout}.
     */
    public boolean awaitRecommendation(RecommendationKind kind, String target, Duration timeout)
            throws InterruptedException {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
        HttpRequest listing = HttpRequest.newBuilder(URI.create(baseUrl() + "/api/recommendations?kind=" + kind.name()
                + "&target=" + URLEncoder.encode(target, StandardCharsets.UTF_8))).timeout(Duration.ofSeconds(5))
                .build();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline && process.isAlive()) {
            try {
                HttpResponse<byte[]> answer = http.send(listing, HttpResponse.BodyHandlers.ofByteArray());
                if (answer.statusCode() == 200 && Json.read(answer.body(), Recommendation[].class).length > 0) {
                    return true;
                }
            } catch (IOException e) {
                // busy: asked again below
            }
            Thread.sleep(500);
        }
        return false;
    }

    /** The port of the metrics and health of a service whose API is on {@code port}. */
    public static int managementPort(int port) {
        return port + 1;
    }

    /** Where its metrics ({@code /q/metrics}) and health ({@code /q/health/*}) are, without a token. */
    public String managementUrl() {
        return "http://127.0.0.1:" + managementPort(port);
    }

    public String baseUrl() {
        return "http://127.0.0.1:" + port;
    }

    /**
     * One metric family alone, at the service's {@code /api/metrics} on {@code baseUrl}, as a
     * Prometheus job can ask for it ({@code params: name[]}): at large fleets the whole of
     * {@code /q/metrics} is megabytes, and reading it loads the service being measured.
     */
    public static URI family(String baseUrl, String family) {
        return URI.create(baseUrl + "/api/metrics?name%5B%5D=" + family);
    }

    public Path log() {
        return log;
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** Ends the service as a crash would (SIGKILL: nothing flushed, no offsets committed); waits until it is gone. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor();
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(15, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(5, TimeUnit.SECONDS);
        }
    }

    /** The log's last lines, for failure messages. */
    public String tail() {
        return LogTail.of(log, 15);
    }
}
