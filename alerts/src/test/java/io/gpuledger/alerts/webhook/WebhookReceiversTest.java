package io.gpuledger.alerts.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuledger.alerts.ShippedSettings;
import io.gpuledger.model.AnomalyKind;
import io.gpuledger.model.CostAnomaly;
import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WebhookReceiversTest {

    @Test
    void shouldReadEveryReceiverWithItsSettings() {
        // Given two receivers, each key without the common prefix
        Map<String, String> properties = properties("""
                finance.url=https://finance.example.com/hooks/gpu-ledger
                finance.secret=whsec_MTIzNDU2Nzg5MA==\s
                finance.min-severity=critical
                ops-slack.url=https://hooks.slack.com/services/T0/B0/token
                ops-slack.format=SLACK
                ops-slack.kinds=price-spike, budget_burn,
                """);

        // When
        List<WebhookReceiver> receivers = receivers(properties);

        // Then
        assertThat(receivers).containsExactly(
                new WebhookReceiver("finance", URI.create("https://finance.example.com/hooks/gpu-ledger"),
                        WebhookReceiver.Format.JSON, "whsec_MTIzNDU2Nzg5MA==", CostAnomaly.Severity.CRITICAL, Set.of(),
                        false),
                new WebhookReceiver("ops-slack", URI.create("https://hooks.slack.com/services/T0/B0/token"),
                        WebhookReceiver.Format.SLACK, "", null,
                        Set.of(AnomalyKind.PRICE_SPIKE, AnomalyKind.BUDGET_BURN), false));
        assertThat(receivers.get(1).signs()).isFalse();
    }

    @Test
    void shouldReadNoReceiversFromNoProperties() {
        assertThat(receivers(Map.of())).isEmpty();
    }

    @Test
    void shouldNameEveryBadKeyInOneError() {
        Map<String, String> properties = properties("""
                ftp.url=ftp://files.example.com/drop
                ftp.secret=s
                xml.url=https://example.com/a
                xml.secret=s
                xml.format=xml
                nourl.secret=s
                unsigned.url=https://example.com/b
                typo.url=https://example.com/c
                typo.secert=s
                picky.url=https://example.com/d
                picky.secret=s
                picky.kinds=spend-rate,gpu-melting
                picky.min-severity=urgent
                """);

        assertThatThrownBy(() -> receivers(properties))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("gpuledger.webhooks.ftp.url must start with http:// or https://")
                .hasMessageContaining("gpuledger.webhooks.xml.format must be json or slack, was 'xml'")
                .hasMessageContaining("gpuledger.webhooks.nourl.url is required")
                .hasMessageContaining("gpuledger.webhooks.unsigned.secret is required for the json format")
                .hasMessageContaining("gpuledger.webhooks.typo.secert: not a webhook setting")
                .hasMessageContaining("gpuledger.webhooks.picky.kinds: unknown anomaly kind 'gpu-melting'")
                .hasMessageContaining("gpuledger.webhooks.picky.min-severity must be warning or critical");
    }

    @Test
    void shouldRejectAMalformedUrlWithoutRepeatingIt() {
        Map<String, String> properties = Map.of(
                "slack.url", "https://hooks.slack.com/services/T0/B0/s3cr3t token", "slack.format", "slack");

        assertThatThrownBy(() -> receivers(properties))
                .hasMessageContaining("gpuledger.webhooks.slack.url is not a URL: Illegal character in path")
                .hasMessageNotContaining("s3cr3t");
    }

    @Test
    void shouldRejectAUrlWithoutHostAndAKeyWithoutName() {
        assertThatThrownBy(() -> receivers(
                Map.of("a.url", "https:///path", "a.secret", "s", "url", "https://example.com")))
                .hasMessageContaining("gpuledger.webhooks.a.url has no host name")
                .hasMessageContaining("gpuledger.webhooks.url: not a webhook setting");
    }

    @Test
    void shouldRejectANameThatCannotBeAKeySegment() {
        assertThatThrownBy(() -> receivers(
                Map.of("-finance.url", "https://example.com", "-finance.secret", "s")))
                .hasMessageContaining("the receiver name '-finance' must be");
    }

    @Test
    void shouldRefuseSignedDeliveriesOverPlainHttpUnlessAllowed() {
        Map<String, String> refused = properties("""
                finance.url=http://finance.example.com/hooks
                finance.secret=whsec_MTIzNDU2Nzg5MA==
                """);
        Map<String, String> allowed = properties("""
                finance.url=http://finance.internal/hooks
                finance.secret=whsec_MTIzNDU2Nzg5MA==
                finance.allow-http=true
                chat.url=http://chat.internal/hooks
                chat.format=slack
                """);

        assertThatThrownBy(() -> receivers(refused))
                .hasMessageContaining("gpuledger.webhooks.finance.url is http:// but deliveries are signed")
                .hasMessageContaining("allow-http=true");
        // An unsigned Slack-format receiver has nothing to lose over plain HTTP
        assertThat(receivers(allowed)).extracting(WebhookReceiver::allowHttp)
                .containsExactly(false, true);
    }

    @Test
    void shouldReadSeveralSecretsAndRejectAMalformedOneWithoutRepeatingIt() {
        Map<String, String> rotating = properties("""
                finance.url=https://finance.example.com/hooks
                finance.secret=whsec_bmV3LWtleQ==, whsec_b2xkLWtleQ==
                """);
        Map<String, String> malformed = properties("""
                finance.url=https://finance.example.com/hooks
                finance.secret=whsec_s3cr3t!!
                audit.url=https://audit.example.com/hooks
                audit.secret=whsec_MTIzNDU2Nzg5MA==
                audit.allow-http=maybe
                """);

        assertThat(receivers(rotating).get(0).secrets())
                .containsExactly("whsec_bmV3LWtleQ==", "whsec_b2xkLWtleQ==");
        assertThatThrownBy(() -> receivers(malformed))
                .hasMessageContaining("gpuledger.webhooks.finance.secret is malformed")
                .hasMessageContaining("gpuledger.webhooks.audit.allow-http must be true or false, was 'maybe'")
                .hasMessageNotContaining("s3cr3t");
    }

    @Test
    void shouldReadTheSecretFromItsFile(@TempDir Path dir) throws IOException {
        // Given a secret in a file, as a mounted Secret gives it, with the newline editors add
        Path file = dir.resolve("finance-secret");
        Files.writeString(file, "whsec_bmV3LWtleQ==,whsec_b2xkLWtleQ==\n");
        Map<String, String> fromFile = Map.of("finance.url", "https://finance.example.com/hooks",
                "finance.secret-file", file.toString());
        Map<String, String> missing = Map.of("finance.url", "https://finance.example.com/hooks",
                "finance.secret-file", dir.resolve("absent").toString(),
                "audit.url", "https://audit.example.com/hooks", "audit.secret", "whsec_a2V5",
                "audit.secret-file", file.toString());

        // Then its secrets are read, and a missing file or a second source is an error that names the key
        assertThat(receivers(fromFile).get(0).secrets())
                .containsExactly("whsec_bmV3LWtleQ==", "whsec_b2xkLWtleQ==");
        assertThatThrownBy(() -> receivers(missing))
                .hasMessageContaining("gpuledger.webhooks.finance.secret-file: cannot read")
                .hasMessageContaining("gpuledger.webhooks.audit.secret and gpuledger.webhooks.audit.secret-file are "
                        + "both set")
                .hasMessageNotContaining("bmV3LWtleQ");
    }

    @Test
    void shouldConfigureAReceiverFromTheFilesOfAMountedSecret(@TempDir Path dir) throws IOException {
        // Given the URL and the secret as files, as an optional Secret's volume gives them
        Files.writeString(dir.resolve("finance-url"), "https://finance.example.com/hooks/gpu-ledger\n");
        Files.writeString(dir.resolve("finance-secret"), "whsec_bmV3LWtleQ==\n");
        Map<String, String> properties = Map.of("finance.url-file", dir.resolve("finance-url").toString(),
                "finance.secret-file", dir.resolve("finance-secret").toString(), "finance.min-severity", "critical");
        List<String> leftOut = new ArrayList<>();

        // When
        List<WebhookReceiver> receivers = receivers(properties, leftOut::add);

        // Then the receiver is the one its files describe, and none is said to be left out
        assertThat(receivers).containsExactly(new WebhookReceiver("finance",
                URI.create("https://finance.example.com/hooks/gpu-ledger"), WebhookReceiver.Format.JSON,
                "whsec_bmV3LWtleQ==", CostAnomaly.Severity.CRITICAL, Set.of(), false));
        assertThat(leftOut).isEmpty();
    }

    @Test
    void shouldLeaveOutAReceiverWhoseUrlFileDoesNotExistAndSaySo(@TempDir Path dir) throws IOException {
        // Given the files of a Secret that was never made, beside a receiver configured in properties
        Map<String, String> properties = Map.of("finance.url-file", dir.resolve("finance-url").toString(),
                "finance.secret-file", dir.resolve("finance-secret").toString(),
                "ops.url", "https://ops.example.com/hooks", "ops.secret", "whsec_a2V5");
        List<String> leftOut = new ArrayList<>();

        // When
        List<WebhookReceiver> receivers = receivers(properties, leftOut::add);

        // Then only the other receiver runs, and the missing one is told once, by its key and file
        assertThat(receivers).extracting(WebhookReceiver::name).containsExactly("ops");
        assertThat(leftOut).containsExactly("no webhook receiver finance: gpuledger.webhooks.finance.url-file names "
                + dir.resolve("finance-url") + ", which does not exist");
    }

    @Test
    void shouldStopTheStartOnAnEmptyOrUnreadableFileOrTwoSourcesOfTheUrl(@TempDir Path dir) throws IOException {
        // Given an empty URL file, a URL "file" that is a directory, and a URL given twice
        Path empty = Files.writeString(dir.resolve("empty"), " \n");
        Path secret = Files.writeString(dir.resolve("secret"), "whsec_a2V5");
        Path url = Files.writeString(dir.resolve("url"), "https://audit.example.com/hooks");
        Map<String, String> properties = Map.of(
                "finance.url-file", empty.toString(), "finance.secret-file", secret.toString(),
                "ops.url-file", dir.toString(), "ops.secret-file", secret.toString(),
                "audit.url", "https://audit.example.com/hooks", "audit.url-file", url.toString(),
                "audit.secret-file", empty.toString());

        // Then one error names each key, and none is merely left out
        List<String> leftOut = new ArrayList<>();
        assertThatThrownBy(() -> receivers(properties, leftOut::add))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("gpuledger.webhooks.finance.url-file: " + empty + " is empty")
                .hasMessageContaining("gpuledger.webhooks.ops.url-file: cannot read " + dir + " (IOException)")
                .hasMessageContaining("gpuledger.webhooks.audit.url and gpuledger.webhooks.audit.url-file are both set")
                .hasMessageContaining("gpuledger.webhooks.audit.secret-file: " + empty + " is empty")
                .hasMessageNotContaining("a2V5");
        assertThat(leftOut).isEmpty();
    }

    @Test
    void shouldFilterBySeverityAndKind() {
        WebhookReceiver criticalSpendOnly = new WebhookReceiver("f", URI.create("https://example.com"),
                WebhookReceiver.Format.JSON, "s", CostAnomaly.Severity.CRITICAL, Set.of(AnomalyKind.SPEND_RATE),
                false);
        WebhookReceiver everything = new WebhookReceiver("all", URI.create("https://example.com"),
                WebhookReceiver.Format.JSON, "s", null, Set.of(), false);

        assertThat(criticalSpendOnly.accepts(SampleAnomalies.spendRate("ml", 0))).isTrue();
        assertThat(criticalSpendOnly.accepts(SampleAnomalies.priceSpike("aws-p5"))).isFalse();
        assertThat(everything.accepts(SampleAnomalies.priceSpike("aws-p5"))).isTrue();
    }

    @Test
    void shouldKeepTheSecretAndTheUrlPathOutOfItsText() {
        WebhookReceiver receiver = new WebhookReceiver("slack", URI.create("https://hooks.slack.com/services/T0/B0/tok"),
                WebhookReceiver.Format.SLACK, "whsec_hidden", null, Set.of(), false);

        assertThat(receiver.toString()).contains("https://hooks.slack.com/").doesNotContain("tok", "whsec_hidden");
    }

    /** The receivers the shipped settings give with {@code properties} set, each under gpuledger.webhooks. */
    private static List<WebhookReceiver> receivers(Map<String, String> properties, Consumer<String> leftOut) {
        Map<String, String> given = new HashMap<>();
        properties.forEach((key, value) -> given.put(WebhookReceivers.PREFIX + key, value));
        return WebhookReceivers.from(ShippedSettings.with(given).webhooks(), leftOut);
    }

    private static List<WebhookReceiver> receivers(Map<String, String> properties) {
        return receivers(properties, leftOut -> {
        });
    }

    /** Properties as they would stand in application.properties, without the common prefix. */
    private static Map<String, String> properties(String text) {
        Properties properties = new Properties();
        try {
            properties.load(new StringReader(text));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<String, String> map = new HashMap<>();
        properties.stringPropertyNames().forEach(name -> map.put(name, properties.getProperty(name)));
        return map;
    }
}
