package io.gpuledger.alerts.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuledger.testing.NodeFolder;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Deliveries as a receiver that knows nothing of this code checks them: a node HTTP server on
 * 127.0.0.1 that verifies every request with the Standard Webhooks reference library
 * ({@code src/test/node/webhook-receiver}). Skipped, saying why, where node or the library cannot
 * be had; .ci/run installs both.
 */
class StandardWebhooksReceiverIT {

    private static final Path RECEIVER = Path.of("src/test/node/webhook-receiver");
    /** "whsec_" and the base64 of "the-new-receiver-key" and of "the-old-receiver-key". */
    private static final String NEW_SECRET = "whsec_dGhlLW5ldy1yZWNlaXZlci1rZXk=";
    private static final String OLD_SECRET = "whsec_dGhlLW9sZC1yZWNlaXZlci1rZXk=";
    private static final String UNKNOWN_SECRET = "whsec_c29tZW9uZS1lbHNlcy1rZXk=";
    private static final Duration PATIENCE = Duration.ofSeconds(30);
    private static final DeliveryPolicy POLICY = new DeliveryPolicy(
            Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofMillis(5), Duration.ofMillis(50));

    private Process node;
    private final BlockingQueue<String> verdicts = new LinkedBlockingQueue<>();
    private URI url;
    private WebhookSender sender;

    @BeforeEach
    void startReceiverThatHasOnlyTheOldSecret() throws Exception {
        NodeFolder.require(RECEIVER, "standardwebhooks", "the Standard Webhooks receiver");
        ProcessBuilder builder = new ProcessBuilder("node", "receiver.mjs").directory(RECEIVER.toFile())
                .redirectErrorStream(true);
        builder.environment().put("WEBHOOK_SECRET", OLD_SECRET);
        node = builder.start();
        Thread reader = new Thread(() -> {
            try (BufferedReader lines = new BufferedReader(
                    new InputStreamReader(node.getInputStream(), StandardCharsets.UTF_8))) {
                lines.lines().forEach(verdicts::add);
            } catch (IOException e) {
                verdicts.add("reader ended: " + e.getMessage());
            }
        }, "webhook-receiver-output");
        reader.setDaemon(true);
        reader.start();
        String listening = next();
        assertThat(listening).as("the receiver's first line").startsWith("listening ");
        url = URI.create("http://127.0.0.1:" + listening.substring("listening ".length()) + "/hooks");
        sender = new WebhookSender(POLICY, Clock.systemUTC());
    }

    @AfterEach
    void stopReceiver() throws Exception {
        if (sender != null) {
            sender.close();
        }
        if (node != null) {
            node.getOutputStream().close();
            if (!node.waitFor(10, TimeUnit.SECONDS)) {
                node.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void shouldBeAcceptedByTheReferenceLibraryWhileTheSecretIsRotated() throws Exception {
        // Given a receiver signing with the new secret and the old one, which the library has
        WebhookReceiver finance = receiver(NEW_SECRET + "," + OLD_SECRET);

        // When one delivery is sent
        WebhookSender.Attempt attempt = deliver(finance, "spend_rate:team:ml-research:1");

        // Then the library accepted it, and the receiver answered 204
        assertThat(next()).isEqualTo("ok spend_rate:team:ml-research:1");
        assertThat(attempt.result()).isEqualTo(WebhookSender.Result.DELIVERED);
        assertThat(attempt.status()).isEqualTo(204);
    }

    @Test
    void shouldBeRefusedByTheReferenceLibraryWhenTamperedWith() throws Exception {
        // Given the headers of a delivery signed with the secret the receiver has
        byte[] body = "{\"event\":\"cost.anomaly\",\"impact\":392.4}".getBytes(StandardCharsets.UTF_8);
        long now = Clock.systemUTC().instant().getEpochSecond();
        String signature = WebhookSignature.sign(List.of(OLD_SECRET), "delivery-1", now, body);
        byte[] tampered = "{\"event\":\"cost.anomaly\",\"impact\":3.9}".getBytes(StandardCharsets.UTF_8);

        // When the body is changed on the way, and when the id is
        int changedBody = post("delivery-1", now, signature, tampered);
        String firstVerdict = next();
        int changedId = post("delivery-2", now, signature, body);
        String secondVerdict = next();

        // Then the library refused both
        assertThat(firstVerdict).startsWith("fail delivery-1");
        assertThat(changedBody).isEqualTo(401);
        assertThat(secondVerdict).startsWith("fail delivery-2");
        assertThat(changedId).isEqualTo(401);
    }

    @Test
    void shouldBeRefusedByTheReferenceLibraryUnderASecretItDoesNotHave() throws Exception {
        WebhookSender.Attempt attempt = deliver(receiver(UNKNOWN_SECRET), "delivery-3");

        assertThat(next()).startsWith("fail delivery-3");
        assertThat(attempt.result()).isEqualTo(WebhookSender.Result.REFUSED);
        assertThat(attempt.status()).isEqualTo(401);
    }

    /** Sends one anomaly event as the dispatcher does, and waits for the receiver's answer. */
    private WebhookSender.Attempt deliver(WebhookReceiver receiver, String id) throws Exception {
        byte[] body = WebhookPayloads.body(WebhookReceiver.Format.JSON, SampleAnomalies.spendRate("ml-research", 0));
        return sender.post(receiver, id, body).get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
    }

    private WebhookReceiver receiver(String secret) {
        // Plain HTTP to the loopback interface.
        return new WebhookReceiver("finance", url, WebhookReceiver.Format.JSON, secret, null, Set.of(), true);
    }

    private int post(String id, long timestamp, String signature, byte[] body) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(url)
                .header(WebhookSignature.ID_HEADER, id)
                .header(WebhookSignature.TIMESTAMP_HEADER, Long.toString(timestamp))
                .header(WebhookSignature.SIGNATURE_HEADER, signature)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                .build();
        HttpClient client = HttpClient.newHttpClient();
        return client.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    /** The receiver's next line of output; fails when it says nothing for a long while. */
    private String next() throws InterruptedException {
        String line = verdicts.poll(PATIENCE.toSeconds(), TimeUnit.SECONDS);
        assertThat(line).as("a line from the receiver").isNotNull();
        return line;
    }
}
